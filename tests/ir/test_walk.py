"""The linked-list walks (ir/walk.py) visit exactly what xDSL's do, in order."""

from __future__ import annotations

import pytest

from mindjit.dialects.parsing import parse_module
from mindjit.ir.walk import block_ops, walk_ops

TEXT = """
mindir.parameter @w = dense<1.0> : tensor<f32>
func.func @f(%c: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r = mindir.if %c -> (tensor<f32>) {
    %n = mindir.neg %x : tensor<f32>
    %r2 = mindir.if %c -> (tensor<f32>) {
      mindir.yield %n : tensor<f32>
    } else {
      %a = mindir.abs %n : tensor<f32>
      mindir.yield %a : tensor<f32>
    }
    mindir.yield %r2 : tensor<f32>
  } else {
    mindir.yield %x : tensor<f32>
  }
  %m = mindir.neg %r : tensor<f32>
  func.return %m : tensor<f32>
}
mindir.parameter @v = dense<2.0> : tensor<f32>
func.func private @decl(tensor<f32>) -> tensor<f32>
func.func @g(%y: tensor<f32>) -> tensor<f32> {
  func.return %y : tensor<f32>
}
"""


@pytest.mark.parametrize("reverse", [False, True])
def test_walk_ops_is_xdsl_walk(reverse: bool) -> None:
    module = parse_module(TEXT)
    got = walk_ops(module, reverse=reverse)
    want = list(module.walk(reverse=reverse))
    assert [id(op) for op in got] == [id(op) for op in want]
    assert len(got) == 17


def test_block_ops_is_the_op_list() -> None:
    module = parse_module(TEXT)
    block = module.body.block
    assert [id(op) for op in block_ops(block)] == [id(op) for op in block.ops]
    fn = block.first_op.next_op  # type: ignore[union-attr]
    assert [op.name for op in block_ops(fn.body.blocks[0])] == [  # type: ignore[union-attr]
        "mindir.if",
        "mindir.neg",
        "func.return",
    ]


def test_walk_of_a_leaf_and_of_an_empty_block() -> None:
    module = parse_module("builtin.module {}")
    assert walk_ops(module) == [module]
    assert block_ops(module.body.block) == []
