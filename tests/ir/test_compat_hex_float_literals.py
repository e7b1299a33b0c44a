"""Non-finite floats survive print -> parse (xDSL prints them as hex bit patterns)."""

from __future__ import annotations

import math

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, f16, f32, f64

from mindjit.dialects.parsing import parse_module


def roundtrip(attr: DenseIntOrFPElementsAttr) -> tuple[float, ...]:
    text = f"func.func @f() -> {attr.type} {{\n  %c = arith.constant {attr}\n  func.return %c : {attr.type}\n}}\n"
    module = parse_module(text)
    const = next(op for op in module.walk() if op.name == "arith.constant")
    return tuple(const.value.get_values())


def test_splat_negative_infinity_round_trips():
    attr = DenseIntOrFPElementsAttr.from_list(TensorType(f32, [2]), [-math.inf, -math.inf])
    assert "0xff800000" in str(attr)
    assert roundtrip(attr) == (-math.inf, -math.inf)


def test_mixed_hex_and_decimal_elements():
    for element in (f16, f32, f64):
        attr = DenseIntOrFPElementsAttr.from_list(TensorType(element, [3]), [math.inf, 1.5, -2.0])
        assert roundtrip(attr) == (math.inf, 1.5, -2.0)


def test_nan_round_trips():
    attr = DenseIntOrFPElementsAttr.from_list(TensorType(f32, [1]), [math.nan])
    assert math.isnan(roundtrip(attr)[0])
