"""MLIR's `-verify-diagnostics`: match errors against `// expected-error` comments.

    // expected-error @+1 {{shapes are not broadcastable}}
    %r = mindir.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>

`@+N` / `@-N` point N lines below/above the comment, `@above`/`@below` one line; no
offset means the comment's own line. The text in `{{...}}` must occur in the message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mindjit.support.errors import MindjitError

_EXPECTED = re.compile(
    r"//\s*expected-error\s*(?:@(?P<off>[+-]\d+|above|below))?\s*\{\{(?P<msg>.*?)\}\}"
)


@dataclass
class Expected:
    line: int
    message: str
    comment_line: int
    seen: bool = False


def collect_expected(text: str, first_line: int = 1) -> list[Expected]:
    found: list[Expected] = []
    for index, line_text in enumerate(text.splitlines()):
        line = first_line + index
        for m in _EXPECTED.finditer(line_text):
            off = m.group("off")
            target = line
            if off == "above":
                target = line - 1
            elif off == "below":
                target = line + 1
            elif off:
                target = line + int(off)
            found.append(Expected(target, m.group("msg"), line))
    return found


def check(expected: list[Expected], errors: list[MindjitError], file: str) -> list[str]:
    """Problems (one line each) when the errors differ from the expectations."""
    problems: list[str] = []
    for err in errors:
        line = getattr(err.loc, "line", None)
        match = next(
            (e for e in expected if not e.seen and e.line == line and e.message in err.message),
            None,
        )
        if match is None:
            problems.append(f"{err.loc}: error: unexpected error: {err.message}")
        else:
            match.seen = True
    for e in expected:
        if not e.seen:
            problems.append(
                f'{file}:{e.comment_line}:1: error: expected error "{e.message}" on line {e.line} was not produced'
            )
    return problems
