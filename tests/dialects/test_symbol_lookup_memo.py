"""Memoized symbol lookups (used while verifying) answer exactly like xDSL's own."""

from __future__ import annotations

from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.traits import SymbolTable

from mindjit.dialects.parsing import parse_module
from mindjit.dialects.xdsl_fixes import memoized_symbol_lookups

TEXT = """
mindir.parameter @a = dense<0.0> : tensor<f32>
mindir.parameter @b = dense<1.0> : tensor<f32>
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  func.return %x : tensor<f32>
}
func.func @g(%x: tensor<f32>) -> tensor<f32> {
  %y = func.call @f(%x) : (tensor<f32>) -> tensor<f32>
  func.return %y : tensor<f32>
}
"""


def test_same_answers_inside_and_outside():
    module = parse_module(TEXT)
    inner = next(op for op in module.walk() if op.name == "func.call")
    names = ["a", "b", "f", "g", "missing", SymbolRefAttr("f")]
    expected = [SymbolTable.lookup_symbol(inner, n) for n in names]
    with memoized_symbol_lookups():
        got = [SymbolTable.lookup_symbol(inner, n) for n in names]
    assert got == expected
    assert expected[4] is None and expected[2] is not None
    # restored afterwards
    assert SymbolTable.lookup_symbol(inner, "a") is expected[0]
