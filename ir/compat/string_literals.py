"""Patch: the lexer's string-literal regex fails in linear time.

xDSL's string-literal regex `"(?:[^"\\...]+|\\...)*"` backtracks over every way
of splitting a run of characters when no closing quote follows: an unterminated
string of 60 characters (a typo in a .mlir file, a damaged kernel code in a
model file) hangs the lexer. The two alternatives start with disjoint
characters, so making the repetitions possessive matches exactly the same
literals and fails in linear time.
"""

from __future__ import annotations

import re

from xdsl.utils.mlir_lexer import MLIRLexer

from mindjit.ir.compat.touchpoint import Touchpoint, original

TOUCHPOINT = Touchpoint(
    name="string-literal-regex",
    kind="patch",
    reason="an unterminated string literal makes xDSL's lexer backtrack exponentially "
    "(ms-opt, ms-run and model loading hang on one typo)",
    cost="measured in docs/xdsl-compat.md (benchmarks/compat_costs.py)",
    upstream="still present in xDSL 0.74.0, the newest release (docs/xdsl-compat.md)",
    delete_when="the pinned xDSL's regex fails in linear time on an unterminated literal",
    xdsl_sources={"xdsl.utils.mlir_lexer.MLIRLexer._unescaped_characters_regex": "2d5cce671a4d"},
)

ORIGINAL: re.Pattern[str] = original("xdsl.utils.mlir_lexer.MLIRLexer._unescaped_characters_regex")
PATCHED = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')


def install() -> None:
    MLIRLexer._unescaped_characters_regex = PATCHED  # noqa: SLF001 - the regex is private
