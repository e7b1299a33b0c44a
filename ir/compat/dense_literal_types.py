"""Private: the type check of a `dense<...>` literal, with its constraint built once.

`AttrParser._parse_dense_literal_type` checks the literal's type against
`base(RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType])`, and
`base` converts that generic type hint into a constraint anew on every call: a
recursive walk over the hint's parameters (150 calls of
`irdl_to_attr_constraint` per literal), about 0.7 ms per `dense<...>`. A train
step's mindir spells tens of thousands of scalar constants (`dense<1.0e-02> :
tensor<f32>` per optimizer update): a third of ms-opt's time reading it.

`DenseLiteralTypes` (a parser mixin, like `parsed_types`) makes the same check
against the same constraint, built once, with xDSL's messages.
"""

from __future__ import annotations

import functools
from typing import Any

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ComplexType,
    IndexType,
    IntegerType,
    RankedStructure,
)
from xdsl.irdl import base

from mindjit.ir.compat.touchpoint import Touchpoint

TOUCHPOINT = Touchpoint(
    name="dense-literal-types",
    kind="private",
    reason="xDSL builds the type constraint of a dense literal anew for each literal "
    "(a recursive conversion of a generic type hint)",
    cost="reading a train step's mindir (docs/xdsl-compat.md)",
    upstream="still present in xDSL 0.74.0: `base(...)` inside the method",
    delete_when="xDSL builds the constraint once (`test_dense_literal_types_still_needed` "
    "fails then)",
    xdsl_sources={
        "xdsl.parser.attribute_parser.AttrParser._parse_dense_literal_type": "4e14f277ced8",
    },
)


@functools.cache
def dense_literal_constraint() -> Any:
    """The constraint xDSL checks a dense literal's type against, built once."""
    return base(RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType])


class DenseLiteralTypes:
    """Parser mixin: `_parse_dense_literal_type` with the constraint built once."""

    def _parse_dense_literal_type(self) -> Any:
        type = self.expect(self.parse_optional_type, "Dense attribute must be typed!")  # type: ignore[attr-defined]
        if not dense_literal_constraint().verifies(type):
            self.raise_error(  # type: ignore[attr-defined]
                "Expected memref, vector or tensor type of integer, index, float, or complex type"
            )
        if any(dim == DYNAMIC_INDEX for dim in list(type.get_shape())):
            self.raise_error("Dense literal attribute should have a static shape.")  # type: ignore[attr-defined]
        return type
