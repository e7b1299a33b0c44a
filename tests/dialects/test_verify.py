"""verify_located: xDSL's verdicts, each located at the failing op (an op's own
verifier runs before the ops nested in it, as in MLIR)."""

from __future__ import annotations

import pytest
from xdsl.dialects import func

from mindjit.dialects.parsing import parse_module
from mindjit.dialects.verify import verify_located
from mindjit.support.errors import MindjitError

TEXT = """
mindir.parameter @w = dense<1.0> : tensor<f32>
mindir.parameter @v = dense<2.0> : tensor<f32>
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  func.return %x : tensor<f32>
}
func.func private @g(tensor<f32>) -> tensor<f32>
"""

GRAPHS = """
func.func @f(%c: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r = mindir.if %c -> (tensor<f32>) {
    %n = mindir.neg %x : tensor<f32>
    mindir.yield %n : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  %m = mindir.neg %r : tensor<f32>
  func.return %m : tensor<f32>
}
func.func @g(%y: tensor<f32>) -> tensor<f32> {
  func.return %y : tensor<f32>
}
"""


def test_parsing_reports_a_redefinition_with_a_location():
    with pytest.raises(MindjitError, match='Redefinition of symbol "w"'):
        parse_module(TEXT + "mindir.parameter @w = dense<3.0> : tensor<f32>\n", "m.mlir")


@pytest.mark.parametrize("where", ["top", "nested"])
def test_a_value_of_another_graph_is_refused_at_the_graph(where: str):
    module = parse_module(GRAPHS, "g.mlir")
    f, g = (op for op in module.ops if isinstance(op, func.FuncOp))
    negs = [op for op in f.walk() if op.name == "mindir.neg"]
    (negs[0] if where == "nested" else negs[1]).operands = [g.body.blocks[0].args[0]]
    with pytest.raises(MindjitError, match="defined out of its IsolatedFromAbove parent") as info:
        verify_located(module)
    assert str(info.value).startswith("g.mlir:2:1: error: 'func.func' op")


def test_an_erased_operand_is_a_verifier_error():
    module = parse_module(GRAPHS, "g.mlir")
    f = next(op for op in module.ops if isinstance(op, func.FuncOp))
    inner = next(op for op in f.walk() if op.name == "mindir.neg")
    inner.detach()
    inner.erase(safe_erase=False)  # the yield now uses an erased value
    with pytest.raises(MindjitError, match="'func.func' op .*IsolatedFromAbove"):
        verify_located(module)
