"""Fixes for xDSL 0.74 behaviour that breaks MLIR round trips; imported by parsing.py.

MLIR reads a hexadecimal element of a float `dense<...>` literal as the float's
bit pattern (`dense<0xFF800000> : tensor<2xf32>` is -inf), and xDSL prints
non-finite floats that way, but xDSL 0.74's parser converts the integer
numerically (to 4.28e9). Lowered IR holding -inf (e.g. a max-reduction's
init) would then change value when re-read by ms-run. This restores MLIR's
reading; drop it once the pinned xDSL parses hex float elements as bits.
"""

from __future__ import annotations

import struct

from xdsl.dialects.builtin import Float16Type, Float32Type, Float64Type
from xdsl.parser.attribute_parser import AttrParser

_BIT_FORMATS = {Float16Type: ("<H", "<e"), Float32Type: ("<I", "<f"), Float64Type: ("<Q", "<d")}

_Element = AttrParser._TensorLiteralElement  # noqa: SLF001 - the element class is private
_original_to_type = _Element.to_type


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
    return _original_to_type(self, parser, type)


if getattr(_Element.to_type, "__name__", "") != _to_type_reading_hex_floats_as_bits.__name__:
    _Element.to_type = _to_type_reading_hex_floats_as_bits
