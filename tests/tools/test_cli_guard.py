"""Every tool maps failures to one stderr line and an exit code, never a traceback."""

from __future__ import annotations

import pytest

from mindjit.support.errors import MindjitError, SourceLoc
from mindjit.tools.cli import guarded


def fail(exc: BaseException):
    def body():
        raise exc

    return body


def test_user_error_is_one_located_line(capsys):
    assert guarded("ms-x", fail(MindjitError("bad thing", SourceLoc("a.mlir", 3, 7)))) == 1
    assert capsys.readouterr().err == "a.mlir:3:7: error: bad thing\n"


def test_internal_error_exit_2_without_traceback(capsys, monkeypatch):
    monkeypatch.delenv("MINDJIT_DEBUG", raising=False)
    assert guarded("ms-x", fail(RuntimeError("oops"))) == 2
    err = capsys.readouterr().err
    assert err.startswith("ms-x: internal error: RuntimeError: oops")
    assert "Traceback" not in err


def test_debug_reraises(monkeypatch):
    monkeypatch.setenv("MINDJIT_DEBUG", "1")
    with pytest.raises(RuntimeError):
        guarded("ms-x", fail(RuntimeError("oops")))


def test_success_is_zero():
    assert guarded("ms-x", lambda: None) == 0
    assert guarded("ms-x", lambda: 3) == 3


def test_warnings_are_one_tool_line(capsys):
    import warnings

    def body():
        warnings.warn("results may be wrong", stacklevel=1)
        return 0

    assert guarded("ms-x", body) == 0
    assert capsys.readouterr().err == "ms-x: warning: results may be wrong\n"
