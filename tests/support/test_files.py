"""support/files.write_atomic: the mode of what it writes (issue 27), nothing left behind."""

from __future__ import annotations

import os
import stat

import pytest

from mindjit.support.errors import MindjitError
from mindjit.support.files import current_umask, write_atomic


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_file_for_the_user_gets_the_mode_open_gives(tmp_path, umask_022):
    assert current_umask() == 0o022
    write_atomic(str(tmp_path / "a.svg"), "<svg/>")
    with open(tmp_path / "b.txt", "w") as f:  # what open() gives, for comparison
        f.write("x")
    assert mode(tmp_path / "a.svg") == mode(tmp_path / "b.txt") == 0o644


def test_the_umask_is_honoured(tmp_path):
    old = os.umask(0o077)
    try:
        write_atomic(str(tmp_path / "a.bin"), b"\0")
    finally:
        os.umask(old)
    assert mode(tmp_path / "a.bin") == 0o600


def test_a_private_file_stays_private(tmp_path, umask_022):
    write_atomic(str(tmp_path / "entry"), b"\0", private=True)
    assert mode(tmp_path / "entry") == 0o600


def test_a_failed_write_leaves_nothing(tmp_path):
    with pytest.raises(MindjitError, match="cannot write file"):
        write_atomic(str(tmp_path / "missing" / "a.txt"), "x")
    assert list(tmp_path.iterdir()) == []


# -- what a path names decides how it is written (issue 29 §5) ----------------------------


def test_a_symlink_is_written_through_and_kept(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "out.mlir"
    target.write_text("old")
    link = tmp_path / "link.mlir"
    link.symlink_to(target)
    chain = tmp_path / "chain.mlir"  # a link to a link: the final target is written
    chain.symlink_to(link)
    write_atomic(str(chain), "new")
    assert chain.is_symlink() and link.is_symlink()
    assert target.read_text() == "new"
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["out.mlir"]


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "made")
    write_atomic(str(link), "x")
    assert link.is_symlink() and (tmp_path / "made").read_text() == "x"


def _device(tmp_path, name: str, minor: int) -> str:
    """A character device to write to: a private node of it where we may make one (as
    root, so a wrong write never harms the system's), else the system's own."""
    node = tmp_path / name
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        return str(node)
    except (PermissionError, AttributeError):
        if not os.path.exists(f"/dev/{name}"):
            pytest.skip(f"no /dev/{name} here")
        return f"/dev/{name}"


def test_a_device_is_written_into_not_replaced(tmp_path):
    null = _device(tmp_path, "null", 3)
    write_atomic(null, "discarded")  # as a user: no Permission denied
    assert stat.S_ISCHR(os.stat(null).st_mode)
    link = tmp_path / "to-null"
    link.symlink_to(null)
    write_atomic(str(link), b"x")
    assert link.is_symlink() and stat.S_ISCHR(os.stat(null).st_mode)


def test_a_full_device_is_a_located_error(tmp_path):
    full = _device(tmp_path, "full", 7)
    with pytest.raises(MindjitError, match="cannot write file: No space left on device") as e:
        write_atomic(full, "x")
    assert str(e.value).startswith(f"{full}: error:")
    assert stat.S_ISCHR(os.stat(full).st_mode)


def test_a_fifo_is_written_into(tmp_path):
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    write_atomic(str(fifo), "through the pipe")
    reader.join(timeout=30)
    assert got == ["through the pipe"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(MindjitError, match="Is a directory"):
        write_atomic(str(tmp_path), "x")


def test_an_existing_file_keeps_its_mode(tmp_path, umask_022):
    path = tmp_path / "script.sh"
    path.write_text("old")
    os.chmod(path, 0o750)
    write_atomic(str(path), "new")
    assert mode(path) == 0o750 and path.read_text() == "new"


# -- temp files of writers that died ------------------------------------------------------


def _dead_pid() -> int:
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid  # reaped: no such process (unless reused, which the test would show)


def test_the_next_write_removes_dead_temps_of_its_target_only(tmp_path):
    from mindjit.support.files import _host_tag

    host = _host_tag()
    dead = _dead_pid()
    dead_temp = tmp_path / f".out.mlir.tmp-{host}-{dead}-00ff"
    live_temp = tmp_path / f".out.mlir.tmp-{host}-{os.getpid()}-00ee"  # a live writer's
    other_host = tmp_path / f".out.mlir.tmp-00000000-{dead}-00dd"  # judged on its host
    other_target = tmp_path / f".other.tmp-{host}-{dead}-00cc"  # another file's
    for p in (dead_temp, live_temp, other_host, other_target):
        p.write_text("half")
    write_atomic(str(tmp_path / "out.mlir"), "whole")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["out.mlir", live_temp.name, other_host.name, other_target.name])


def test_a_temp_is_named_after_its_target(tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace

    def spy(src, dst):
        seen.append(os.path.basename(src))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    write_atomic(str(tmp_path / "m.msmodel"), b"\1")
    from mindjit.support.files import is_dead_temp, is_temp

    assert len(seen) == 1 and seen[0].startswith(".m.msmodel.tmp-") and is_temp(seen[0])
    assert not is_dead_temp(seen[0])  # its writer (this process) is alive


def test_a_very_long_name_still_gets_a_temp(tmp_path):
    name = "n" * 250
    write_atomic(str(tmp_path / name), "x")
    assert [p.name for p in tmp_path.iterdir()] == [name]


# -- dumps: debug output that never stops the program --------------------------------------


def test_a_dump_that_cannot_be_written_is_said_once_per_directory(tmp_path, capsys):
    from mindjit.support.files import write_dump

    blocked = tmp_path / "blocked"
    blocked.write_text("a file")
    assert not write_dump(str(blocked / "a.mlir"), "x")
    assert not write_dump(str(blocked / "b.mlir"), "x")
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"Warning: cannot save graphs to {blocked}/a.mlir")
    assert write_dump(str(tmp_path / "made" / "c.mlir"), "x")  # its directory is made
    assert (tmp_path / "made" / "c.mlir").read_text() == "x"
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("into", ["pipe", "file"])
def test_dev_stdout_is_written_into_whatever_standard_output_is(tmp_path, into):
    """`-o /dev/stdout`: /proc/self/fd/1's text (`pipe:[...]`, a file's name) is no
    path to rename onto; the file descriptor's file is written, as open() would."""
    import subprocess
    import sys

    if not os.path.exists("/proc/self/fd/1"):
        pytest.skip("no /proc here")
    code = "from mindjit.support.files import write_atomic; write_atomic('/dev/stdout', 'out\\n')"
    out = tmp_path / "out.txt"
    out.write_text("a longer old content\n")
    inode = out.stat().st_ino
    with open(out, "r+") as f:
        stdout = subprocess.PIPE if into == "pipe" else f
        done = subprocess.run([sys.executable, "-c", code], stdout=stdout, stderr=subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    if into == "pipe":
        assert done.stdout == b"out\n"
    else:
        assert out.read_text() == "out\n" and out.stat().st_ino == inode  # the same file
