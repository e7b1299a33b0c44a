"""Symbol lookups through a `Symbols` (used while verifying) answer exactly like
xDSL's own."""

from __future__ import annotations

from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.traits import SymbolTable

from mindjit.dialects.parsing import parse_module
from mindjit.ir.symbols import Symbols, in_use, lookup_symbol

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
    symbols = Symbols()
    assert [symbols.lookup(inner, n) for n in names] == expected
    with in_use(symbols):
        assert [lookup_symbol(inner, n) for n in names] == expected
    assert expected[4] is None and expected[2] is not None
    assert lookup_symbol(inner, "a") is expected[0]  # outside: xDSL's own lookup


NESTED = """
mindir.parameter @a = dense<0.0> : tensor<f32>
func.func @f(%x: tensor<f32>, %c: i1) -> tensor<f32> {
  %p = mindir.get_parameter @a : !mindir.ref<tensor<f32>>
  %y = scf.if %c -> (tensor<f32>) {
    %q = mindir.get_parameter @a : !mindir.ref<tensor<f32>>
    scf.yield %x : tensor<f32>
  } else {
    scf.yield %x : tensor<f32>
  }
  func.return %y : tensor<f32>
}
builtin.module @inner {
  func.func @a() {
    func.return
  }
}
"""


def test_blocks_at_different_depths_and_nested_tables():
    """The per-block cache gives every block its own nearest symbol table."""
    module = parse_module(NESTED)
    getters = [op for op in module.walk() if op.name == "mindir.get_parameter"]
    inner_module = next(
        op for op in module.walk() if op.name == "builtin.module" and op is not module
    )
    inner_fn = next(op for op in inner_module.walk() if op.name == "func.func")
    ret = next(op for op in inner_fn.walk() if op.name == "func.return")
    queries = [(g, "a") for g in getters] + [(ret, "a"), (inner_module, "a"), (module, "a")]
    expected = [SymbolTable.lookup_symbol(op, n) for op, n in queries]
    symbols = Symbols()
    got = [symbols.lookup(op, n) for op, n in queries]
    again = [symbols.lookup(op, n) for op, n in queries]
    assert got == expected == again
    assert expected[0].name == "mindir.parameter" and expected[1] is expected[0]
    assert expected[2] is inner_fn  # the inner module's @a, not the Parameter
    assert expected[3] is inner_fn and expected[4] is expected[0]
