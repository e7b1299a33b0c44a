"""Writing files so a crash never leaves a half-written one: temp file + rename."""

from __future__ import annotations

import os
import tempfile

from mindjit.support.errors import MindjitError


def write_atomic(path: str, data: str | bytes) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    mode = "wb" if isinstance(data, bytes) else "w"
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
        with os.fdopen(fd, mode) as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None and os.path.exists(tmp):
            os.remove(tmp)  # nothing half-written stays behind
        raise MindjitError(f"cannot write file: {exc.strerror}", path) from None
