"""Writing files so a crash never leaves a half-written one: temp file + rename.

A file a user asked for (a model file, a dump, a picture, ms-opt's output) gets
the mode a new file gets (0666 less the umask), as `open()` would give it;
`mkstemp`'s private 0600 would otherwise survive the rename. The compile cache
asks for private files (`private=True`).
"""

from __future__ import annotations

import os
import tempfile
import threading

from mindjit.support.errors import MindjitError

_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process's umask (read from /proc where it can be, without changing it)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    with _UMASK_LOCK:  # elsewhere: set and restore it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def write_atomic(path: str, data: str | bytes, private: bool = False) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    mode = "wb" if isinstance(data, bytes) else "w"
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
        if not private:
            os.fchmod(fd, 0o666 & ~current_umask())
        with os.fdopen(fd, mode) as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None and os.path.exists(tmp):
            os.remove(tmp)  # nothing half-written stays behind
        raise MindjitError(f"cannot write file: {exc.strerror}", path) from None
