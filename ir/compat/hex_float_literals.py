"""Patch: hexadecimal elements of a float `dense<...>` literal are bit patterns.

MLIR reads a hexadecimal element of a float dense literal as the float's bit
pattern (`dense<0xFF800000> : tensor<2xf32>` is -inf), and xDSL prints
non-finite floats that way, but xDSL 0.74's parser converts the integer
numerically (to 4.28e9). Lowered IR holding -inf (a max-reduction's init)
would change value when re-read by ms-run or a cache hit. The patch reads
such an element as MLIR does; every other element goes to xDSL's own code.
"""

from __future__ import annotations

import struct

from xdsl.dialects.builtin import Float16Type, Float32Type, Float64Type
from xdsl.parser.attribute_parser import AttrParser

from mindjit.ir.compat.touchpoint import Touchpoint, original

TOUCHPOINT = Touchpoint(
    name="hex-float-literals",
    kind="patch",
    reason="xDSL reads `dense<0xFF800000> : tensor<f32>` as 4.28e9, MLIR as -inf: "
    "a printed max-reduction init changes value when read back",
    cost="wrong values (not a speed issue): -inf read back as 4286578688.0",
    upstream="still present in xDSL 0.74.0, the newest release (docs/xdsl-compat.md)",
    delete_when="the pinned xDSL parses a hexadecimal float element as its bits "
    "(tests/ir/test_compat.py::test_hex_float_patch_still_needed fails then)",
    xdsl_sources={
        "xdsl.parser.attribute_parser.AttrParser._TensorLiteralElement.to_type": "6d96e2d7895c",
    },
)

_BIT_FORMATS = {Float16Type: ("<H", "<e"), Float32Type: ("<I", "<f"), Float64Type: ("<Q", "<d")}
_Element = AttrParser._TensorLiteralElement  # noqa: SLF001 - the element class is private
ORIGINAL = original("xdsl.parser.attribute_parser.AttrParser._TensorLiteralElement.to_type")


def _to_type_reading_hex_floats_as_bits(self, parser, type):  # type: ignore[no-untyped-def]
    formats = _BIT_FORMATS.get(type.__class__)
    text = self.span.text.lstrip("-")
    if formats is not None and text[:2].lower() == "0x" and isinstance(self.value, int):
        int_format, float_format = formats
        bits = int(text, 16)
        try:
            return struct.unpack(float_format, struct.pack(int_format, bits))[0]
        except struct.error:
            parser.raise_error(
                f"hexadecimal float {text} does not fit {type}", at_position=self.span
            )
    return ORIGINAL(self, parser, type)


def install() -> None:
    _Element.to_type = _to_type_reading_hex_floats_as_bits
