"""String literals lex in linear time (xDSL's regex backtracked exponentially on an
unterminated one) and still read exactly as before."""

from __future__ import annotations

import signal
from typing import Any

import pytest

from mindjit.dialects.parsing import parse_module
from mindjit.support.errors import MindjitError


class Hang(BaseException):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Hang("the lexer hangs")  # with the old regex 60 characters took minutes


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM")
def test_unterminated_string_is_a_located_error_not_a_hang():
    text = 'builtin.module attributes {a = "' + "x" * 5000 + "\n}\n"
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, 30.0)
    try:
        with pytest.raises(MindjitError) as info:
            parse_module(text, "bad.mlir")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert str(info.value).startswith("bad.mlir:1:32: error:")
    assert "closing string literal" in str(info.value)


@pytest.mark.parametrize(
    "literal, value",
    [
        ('""', ""),
        ('"plain text"', "plain text"),
        (r'"tab\tquote\"slash\\"', 'tab\tquote"slash\\'),
        (r'"hex\41\42"', "hexAB"),
    ],
)
def test_terminated_strings_read_as_before(literal, value):
    module = parse_module(f"builtin.module attributes {{a = {literal}}} {{\n}}\n")
    assert module.attributes["a"].data == value
