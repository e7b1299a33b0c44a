"""Private: a parser that reads each distinct shaped type's text once per parse.

A model's IR spells the same few types thousands of times (`tensor<4x64xf32>`
on every op). xDSL parses each spelling anew, token by token, and builds and
verifies a new `TensorType` each time: a fifth of parsing a chain of 40k
`arith.addf` ops (4.5 s -> 3.6 s), and 5.8 s -> 3.6 s for the printed 64-Block
model of benchmarks/compat_costs.py.

`ParsedTypeMemo` is a mixin for `xdsl.parser.Parser`: a `tensor`, `memref` or
`vector` type whose text is only dimensions and a builtin element name (no
encoding, layout, alias, nesting or whitespace) is looked up by that text; the
first occurrence is parsed by xDSL and kept (only when xDSL's parse ended
exactly at the text's `>`), the next ones reuse the same (immutable) attribute
and resume the lexer after the text. Anything else goes to xDSL's own code.
Such a type means the same wherever it is written: it names no alias or
dialect. A parse error is never kept, so a bad type errs at each use as before.
"""

from __future__ import annotations

import re

from xdsl.ir import TypeAttribute
from xdsl.utils.mlir_lexer import MLIRTokenKind

from mindjit.ir.compat.touchpoint import Touchpoint

TOUCHPOINT = Touchpoint(
    name="parsed-types",
    kind="private",
    reason="xDSL parses and verifies every spelling of a type anew; a large module "
    "spells a few shaped types on every op",
    cost="measured in docs/xdsl-compat.md (benchmarks/compat_costs.py)",
    upstream="no type cache in xDSL's parser",
    delete_when="xDSL's parser reads a repeated type as cheaply as a dictionary lookup",
    xdsl_sources={
        "xdsl.parser.generic_parser.GenericParser._resume_from": "a9d2f8ca9de2",
        "xdsl.parser.generic_parser.GenericParser._current_token": "3fd8132f34d0",
        "xdsl.parser.attribute_parser.AttrParser.parse_optional_type": "1965b5c3e586",
        "xdsl.parser.attribute_parser.AttrParser._parse_optional_builtin_type": "0ac0b413038c",
        "xdsl.parser.attribute_parser.AttrParser._parse_optional_builtin_parametrized_type": "0e51d7e4bb4c",
        "xdsl.parser.attribute_parser.AttrParser._parse_tensor_attrs": "14d0c2315399",
        "xdsl.parser.attribute_parser.AttrParser._parse_memref_attrs": "09d2799ec82d",
        "xdsl.parser.attribute_parser.AttrParser._parse_vector_attrs": "fca140d0c2bb",
    },
)

#: the shaped types read by text: `tensor<f32>`, `tensor<4x?x8xf32>`, `vector<4xi8>`
_PLAIN_SHAPED = re.compile(r"(?:tensor|memref|vector)<[0-9?x]*[a-z][a-z0-9]*>")
_NAMES = frozenset(("tensor", "memref", "vector"))


class ParsedTypeMemo:
    """Mixin for an xDSL `Parser`: a plain shaped type is parsed once per text."""

    def parse_optional_type(self) -> TypeAttribute | None:
        token = self._current_token  # type: ignore[attr-defined]
        if token.kind is not MLIRTokenKind.BARE_IDENT or token.text not in _NAMES:
            return super().parse_optional_type()  # type: ignore[misc]
        content = token.span.input.content
        match = _PLAIN_SHAPED.match(content, token.span.start)
        if match is None:
            return super().parse_optional_type()  # type: ignore[misc]
        memo: dict[str, TypeAttribute] = self.__dict__.setdefault("_mindjit_types", {})
        text, end = match.group(), match.end()
        found = memo.get(text)
        if found is not None:
            self._resume_from(end)  # type: ignore[attr-defined]
            return found
        parsed = super().parse_optional_type()  # type: ignore[misc]
        after = self._current_token.span.start  # type: ignore[attr-defined]
        if parsed is not None and after >= end and not content[end:after].strip():
            memo[text] = parsed  # xDSL read exactly the text
        return parsed
