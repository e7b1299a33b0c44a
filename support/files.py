"""The one writer of every file mindjit writes: whole or not at all.

What a path names decides how it is written:

- a regular file (or nothing yet): a temp file beside it, renamed over it, so a
  crash never leaves a half-written file where a reader looks;
- a symlink: written through to its final target (`os.path.realpath`), the link
  kept (a rename over the link would replace it by a regular file and leave its
  target stale);
- anything else (/dev/null, /dev/full, a FIFO, a terminal): opened and written
  straight into, never replaced (as root, a rename replaced the system's
  /dev/full). A directory refuses the open (`Is a directory`);
- a file reached through a /proc/<pid>/fd link (`-o /dev/stdout`, `/dev/fd/3`):
  written straight into (truncated), as `open()` would: the link's text
  (`pipe:[...]`, or the name the file had when another open() made it) is no
  place to rename onto.

Every failure is a `MindjitError` naming the path the caller gave.

Temp files are named after their target, `.<name>.tmp-<host>-<pid>-<random>`,
so the next write of the same file removes the temps of writers that died
before their rename (`kill -9`: 48 kills left 5 MB of `.tmp-*` for good). A
temp is dead when its writer's pid no longer exists on this host
(`os.kill(pid, 0)`); a live writer's temp (another process or thread writing the
same file) is never touched, and the host tag keeps a cache directory shared
over NFS from judging another machine's pids. A dead pid reused by a new process
only delays the cleanup. Finding them costs a listing of the directory per write
(13 ms at 20,000 files, well under 1 ms at a few hundred; the compile cache's
trim already lists and stats its directory per entry stored). `O_TMPFILE` + `linkat` would leave nothing at all, but
`linkat` cannot replace an existing file (EEXIST), so replacing still needs a
named temp and a rename, and it is Linux-only (not tmpfs-on-every-kernel, not
NFS, not macOS): one scheme everywhere is simpler than two.

A dump (`save_graphs`: the stages' IR, the device's model files) is debug output:
`write_dump` makes its directory and writes it, and a failure (the directory is
a file, unwritable, the disk full) is one warning on stderr per directory, as an
unwritable compile cache is, never an error that stops the user's call.

A file a user asked for (a model file, a dump, a picture, ms-opt's output) gets
the mode a new file gets (0666 less the umask), as `open()` would give it, or
keeps the mode of the file it replaces; `mkstemp`'s private 0600 would otherwise
survive the rename. The compile cache asks for private files (`private=True`).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import secrets
import socket
import stat
import sys
import threading

from mindjit.support.errors import MindjitError

_UMASK_LOCK = threading.Lock()
#: a temp name's stem is cut to this many characters (NAME_MAX is 255)
_STEM_MAX = 200
_FD_DIR = re.compile(r"/proc/\d+(/task/\d+)?/fd")
_TEMP = re.compile(r"^\.(?P<stem>.*)\.tmp-(?P<host>[0-9a-f]{8})-(?P<pid>\d+)-[0-9a-f]+$")


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
    """Write `data` to `path` (see the module's note for what each kind of path gets)."""
    raw = data.encode() if isinstance(data, str) else data
    try:
        st = os.stat(path)
    except OSError:
        st = None  # nothing there yet (or unreachable: the write says why)
    target = os.path.realpath(path)
    try:
        if st is not None and not stat.S_ISREG(st.st_mode):
            _write_into(path, raw, 0)
        elif st is not None and _through_fd_link(path):  # -o /dev/stdout > a file
            _write_into(path, raw, os.O_TRUNC)
        else:
            _replace(target, raw, _mode_for(st, private))
    except OSError as exc:
        raise MindjitError(f"cannot write file: {exc.strerror}", path) from None


def write_dump(path: str, data: str | bytes) -> bool:
    """Write a debug dump, making its directory; False (said once per directory on
    stderr) when it cannot be written."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(directory, exist_ok=True)
        write_atomic(path, data)
        return True
    except FileExistsError:  # a file where the directory should be
        reason = "a file is in the way of its directory"
    except OSError as exc:
        reason = exc.strerror or str(exc)
    except MindjitError as err:
        reason = err.message.removeprefix("cannot write file: ")
    with _DUMP_LOCK:
        if directory in _DUMP_FAILED:
            return False
        _DUMP_FAILED.add(directory)
    print(
        f"Warning: cannot save graphs to {path}: {reason}; running on without the dumps "
        f"in {directory}.",
        file=sys.stderr,
        flush=True,
    )
    return False


_DUMP_LOCK = threading.Lock()
_DUMP_FAILED: set[str] = set()  # directories whose failure was said


def is_temp(name: str) -> bool:
    """Whether a directory entry's name is one of write_atomic's temp files."""
    return _TEMP.match(name) is not None


def is_dead_temp(name: str) -> bool:
    """A temp file of this host whose writer no longer runs."""
    m = _TEMP.match(name)
    return m is not None and m["host"] == _host_tag() and not _alive(int(m["pid"]))


def _through_fd_link(path: str) -> bool:
    """Whether `path` reaches its file through a /proc/<pid>/fd link (/dev/stdout,
    /dev/fd/N): the file another open() made, whose name is no place to rename to."""
    link = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on links followed
        if not os.path.islink(link):
            return False
        where = os.path.dirname(link)
        if _FD_DIR.fullmatch(os.path.realpath(where)):
            return True
        link = os.path.join(where, os.readlink(link))
    return False


def _write_into(path: str, raw: bytes, flags: int) -> None:
    fd = os.open(path, os.O_WRONLY | flags)
    try:
        view = memoryview(raw)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _replace(target: str, raw: bytes, mode: int | None) -> None:
    directory, name = os.path.split(target)
    stem = name[:_STEM_MAX]
    _remove_dead_temps(directory, stem)
    tmp = os.path.join(directory, f".{stem}.tmp-{_host_tag()}-{os.getpid()}-{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            view = memoryview(raw)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:  # nothing half-written stays behind (Ctrl-C included)
        _remove(tmp)
        raise


def _mode_for(st: os.stat_result | None, private: bool) -> int | None:
    """The mode to give the temp file: None keeps mkstemp-like 0600."""
    if private:
        return None
    if st is not None:
        return stat.S_IMODE(st.st_mode)  # as open() on an existing file: its mode stays
    return 0o666 & ~current_umask()


def _remove_dead_temps(directory: str, stem: str) -> None:
    prefix = f".{stem}.tmp-"
    try:
        names = [n for n in os.listdir(directory or ".") if n.startswith(prefix)]
    except OSError:
        return  # the write itself will say what is wrong with the directory
    for n in names:
        m = _TEMP.match(n)
        if m is not None and m["stem"] == stem and is_dead_temp(n):
            _remove(os.path.join(directory, n))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's process (or not a pid we can judge): leave it
    return True


@functools.cache
def _host_tag() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass  # already gone (another writer cleaned it)
