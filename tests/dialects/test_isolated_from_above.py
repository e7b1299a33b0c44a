"""The one-pass IsolatedFromAbove check (dialects/xdsl_fixes.py) gives xDSL's verdict."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.parsing import parse_module
from mindjit.dialects.xdsl_fixes import _original_isolated_verify

TEXT = """
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


def _verdict(check, fn: func.FuncOp) -> str | None:  # type: ignore[no-untyped-def]
    try:
        check(IsolatedFromAbove(), fn)
    except VerifyException as exc:
        return str(exc)
    return None


def _funcs():  # type: ignore[no-untyped-def]
    module = parse_module(TEXT)
    f, g = (op for op in module.ops if isinstance(op, func.FuncOp))
    return module, f, g


def _ops(fn: func.FuncOp, name: str) -> list:
    return [op for op in fn.walk() if op.name == name]


def test_valid_graph_with_regions():
    _, f, _ = _funcs()
    assert _verdict(IsolatedFromAbove.verify, f) is None
    assert _verdict(_original_isolated_verify, f) is None


@pytest.mark.parametrize("where", ["top", "nested"])
def test_value_of_another_graph_is_refused_with_xdsls_message(where: str):
    _, f, g = _funcs()
    negs = _ops(f, "mindir.neg")
    op = negs[0] if where == "nested" else negs[1]  # inside the if / at the top of @f
    op.operands = [g.body.blocks[0].args[0]]
    fast, slow = _verdict(IsolatedFromAbove.verify, f), _verdict(_original_isolated_verify, f)
    assert fast is not None and fast == slow
    assert "defined out of its IsolatedFromAbove parent" in fast


def test_result_of_the_op_itself_is_refused():
    _, f, _ = _funcs()
    if_op = _ops(f, "mindir.if")[0]
    neg = _ops(f, "mindir.neg")[0]  # inside the if's then-region
    neg.operands = [if_op.results[0]]
    # the if is inside @f: fine for @f, refused for the if as the isolated op
    assert _verdict(IsolatedFromAbove.verify, f) == _verdict(_original_isolated_verify, f)
    assert _verdict(IsolatedFromAbove.verify, if_op) is not None
    assert _verdict(IsolatedFromAbove.verify, if_op) == _verdict(_original_isolated_verify, if_op)


def test_the_module_verifier_uses_it():
    module, f, g = _funcs()
    _ops(f, "mindir.neg")[1].operands = [g.body.blocks[0].args[0]]
    with pytest.raises(VerifyException, match="IsolatedFromAbove"):
        module.verify()
