"""ir/dead_ops.py: one backward sweep erases whole dead chains, in nested regions
too, and keeps what has effects, terminators and symbols."""

from __future__ import annotations

from mindjit.dialects.context import make_context
from mindjit.dialects.parsing import parse_module
from mindjit.ir.dead_ops import erase_dead_ops

TEXT = """
func.func @f(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %a = arith.addf %x, %x : tensor<4xf32>
  %b = arith.mulf %a, %a : tensor<4xf32>
  %d = arith.subf %b, %x : tensor<4xf32>
  %r = scf.if %c -> (tensor<4xf32>) {
    %e = arith.addf %x, %x : tensor<4xf32>
    %f = arith.mulf %e, %e : tensor<4xf32>
    scf.yield %x : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  %unused_if = scf.if %c -> (tensor<4xf32>) {
    scf.yield %x : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  %kept = arith.negf %x : tensor<4xf32>
  func.return %kept : tensor<4xf32>
}
func.func private @unused(%x: tensor<4xf32>) -> tensor<4xf32>
"""


def _ops(module) -> list[str]:
    return [op.name for op in module.walk()]


def test_dead_chains_go_in_one_sweep_nested_regions_too():
    module = parse_module(TEXT, "dead.mlir", make_context())
    assert erase_dead_ops(module) == 7  # a, b, d; e, f (swept first); both ifs
    names = _ops(module)
    assert names.count("arith.addf") == 0 and names.count("arith.mulf") == 0
    assert "scf.if" not in names and "arith.subf" not in names
    assert names.count("func.func") == 2  # symbols stay, used or not
    assert "arith.negf" in names and "func.return" in names
    assert erase_dead_ops(module) == 0


def test_ops_with_effects_stay():
    text = """
    ml_program.global private mutable @g(dense<0.0> : tensor<2xf32>) : tensor<2xf32>
    func.func @f(%x: tensor<2xf32>) {
      %v = ml_program.global_load @g : tensor<2xf32>
      %y = arith.addf %x, %x : tensor<2xf32>
      ml_program.global_store @g = %y : tensor<2xf32>
      func.return
    }
    """
    module = parse_module(text, "effects.mlir", make_context())
    erase_dead_ops(module)
    names = _ops(module)
    assert "ml_program.global_store" in names and "arith.addf" in names
