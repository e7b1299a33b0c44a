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
