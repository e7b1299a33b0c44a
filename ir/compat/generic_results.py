"""Patch: a linalg.generic with several results reads back what xDSL prints.

xDSL 0.74 prints a `linalg.generic` with more than one result as
`} -> (tensor<2xf32>, tensor<2xi32>)`, as MLIR does, but parses the result
types after `->` only without the parentheses: its own output does not parse
("Expected '->'"). mindjit lowers argmax/argmin to a generic carrying (value,
index) pairs, so a lowered module with one fails to read back (ms-run, the
device model's kernel code, the compile cache). The patch lets the parser take
the parenthesized list; everything else goes to xDSL's own parse.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.linalg.ops import GenericOp
from xdsl.parser import Parser

from mindjit.ir.compat.touchpoint import Touchpoint, original

TOUCHPOINT = Touchpoint(
    name="generic-results",
    kind="patch",
    reason="xDSL prints a multi-result linalg.generic's types as `-> (t1, t2)` (MLIR's "
    "form) but parses only `-> t1, t2`: its own output does not read back",
    cost="a lowered argmax/argmin cannot be re-read (device model, cache, ms-run)",
    upstream="still present in xDSL 0.74.0, the newest release (docs/xdsl-compat.md)",
    delete_when="the pinned xDSL parses `-> (t1, t2)` after a generic's region "
    "(tests/ir/test_compat.py::test_generic_results_patch_still_needed fails then)",
    xdsl_sources={"xdsl.dialects.linalg.ops.GenericOp.parse": "037f35729f7b"},
)

ORIGINAL = original("xdsl.dialects.linalg.ops.GenericOp.parse")


def _parse_with_parenthesized_results(cls: type, parser: Parser) -> Any:
    """xDSL's parse, whose one list of attributes (the result types) may be in parens."""
    plain = parser.parse_comma_separated_list

    def results_maybe_in_parens(delimiter: Any, parse: Any, *args: Any) -> Any:
        if delimiter is Parser.Delimiter.NONE and parse == parser.parse_attribute:
            if parser.parse_optional_punctuation("(") is not None:
                items = plain(Parser.Delimiter.NONE, parse, *args)
                parser.parse_punctuation(")")
                return items
        return plain(delimiter, parse, *args)

    parser.parse_comma_separated_list = results_maybe_in_parens  # type: ignore[method-assign]
    try:
        return ORIGINAL.__func__(cls, parser)
    finally:
        del parser.parse_comma_separated_list


def install() -> None:
    GenericOp.parse = classmethod(_parse_with_parenthesized_results)  # type: ignore[method-assign,assignment]
