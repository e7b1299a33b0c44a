"""Private: a parser that reads `{-# dialect_resources: {builtin: ...} #-}` blobs
into itself instead of into xDSL's process-global store.

xDSL 0.74 parses the section, but keeps every blob as a hex string in the one
`OpAsmDialectInterface` of its `Builtin` dialect object, for the process's
lifetime, and renames any handle that store already knows: the second parse of
the same file in a process reads `dense_resource<w_3>` as `w_3_0`, then stores
the section's blob under yet another name (`w_3_1`), so the module's handle has
no blob (tests/ir/test_compat.py::test_dialect_resources_parser_still_needed).
mindjit parses dumps and ms-opt outputs many times per process (tests, the
compile cache's tools), and must check each blob against its type.

`ResourceSectionParsing` is a mixin for `xdsl.parser.Parser`: `builtin` handles
keep the name they are written with, and the section's blobs land in
`parser.resource_blobs` (handle -> hex text, where it was written), untouched by
xDSL's store. Decoding and registering them is `mindjit.ir.resource_section`'s.
Other dialects' resources go to xDSL's own code.
"""

from __future__ import annotations

from typing import Any

from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from mindjit.ir.compat.touchpoint import Touchpoint

TOUCHPOINT = Touchpoint(
    name="dialect-resources",
    kind="private",
    reason="xDSL keeps parsed dense_resource blobs in a process-global store and renames "
    "a handle it has seen before: a file parsed twice in a process loses its blobs",
    cost="wrong results: the second parse's dense_resource handles have no blob",
    upstream="still present in xDSL 0.74.0, the newest release (docs/xdsl-compat.md)",
    delete_when="xDSL keeps parsed blobs per parse (or per context) and does not rename "
    "handles (test_dialect_resources_parser_still_needed fails then)",
    xdsl_sources={
        "xdsl.parser.core.Parser._parse_resource": "826c496d9139",
        "xdsl.parser.attribute_parser.AttrParser._parse_dialect_resource_handle": "4606acb19661",
        "xdsl.dialect_interfaces.op_asm.OpAsmDialectInterface.declare_resource": "3690d96aa120",
    },
)


class ResourceSectionParsing:
    """Mixin for an xDSL `Parser`: builtin resource blobs are kept per parser."""

    @property
    def resource_blobs(self) -> dict[str, tuple[str, Span]]:
        """builtin handle -> (its blob's text, the span of that string literal)."""
        return self.__dict__.setdefault("_mindjit_resource_blobs", {})

    def _parse_dialect_resource_handle(self, dialect_name: str, interface: Any) -> str:
        if dialect_name != "builtin":
            return super()._parse_dialect_resource_handle(dialect_name, interface)  # type: ignore[misc]
        return self.parse_identifier(" for resource handle")  # type: ignore[attr-defined]

    def _parse_resource(self, dialect_name: str, interface: Any) -> None:
        if dialect_name != "builtin":
            return super()._parse_resource(dialect_name, interface)  # type: ignore[misc]
        key = self.parse_identifier(" for resource handle")  # type: ignore[attr-defined]
        self._parse_token(MLIRTokenKind.COLON, "expected `:`")  # type: ignore[attr-defined]
        at = self.pos  # type: ignore[attr-defined]
        text = self.parse_str_literal()  # type: ignore[attr-defined]
        span = Span(at, self.pos, self.lexer.input)  # type: ignore[attr-defined]
        if key in self.resource_blobs:
            self.raise_error(f"resource '{key}' is defined twice", at, self.pos)  # type: ignore[attr-defined]
        self.resource_blobs[key] = (text, span)
