"""`mindir.check_range` -> an "all in range" reduction and a `cf.assert`.

    %y = mindir.check_range %x {min = 0.0 : f64, max = 1.0 : f64, message = "m"} : tensor<2x3xf32>

becomes (`%y` is replaced by `%x` itself: the check copies nothing)

    %e = tensor.empty() : tensor<i1>
    %t = linalg.fill ins(%true : i1) outs(%e : tensor<i1>) -> tensor<i1>
    %all = linalg.generic {indexing_maps = [(d0, d1) -> (d0, d1), (d0, d1) -> ()],
                           iterator_types = ["reduction", "reduction"]}
           ins(%x : tensor<2x3xf32>) outs(%t : tensor<i1>) {
    ^bb0(%v: f32, %acc: i1):
      %w = arith.extf %v : f32 to f64
      %lo = arith.cmpf oge, %w, %min : f64       // ordered: false for NaN
      %hi = arith.cmpf ole, %w, %max : f64
      %in = arith.andi %lo, %hi : i1
      %r = arith.andi %acc, %in : i1
      linalg.yield %r : i1
    } -> tensor<i1>
    %ok = tensor.extract %all[] : tensor<i1>
    cf.assert %ok, "m"

Elements are compared in f64 (the bounds' type), so the bounds are exact for
every float element type. A rank-0 input needs no reduction: its element is
extracted and compared directly. The `cf.assert` has effects (upstream MLIR gives
it a memory write), so dead-code elimination keeps it; the CPU executor raises
the message when the condition is false (backend/cpu/kernels_check.py).
"""

from __future__ import annotations

from xdsl.dialects import arith, cf, tensor
from xdsl.dialects.builtin import FloatAttr, f64, i1
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.check import CheckRangeOp
from mindjit.passes.mindir_to_tensor.builders import Emitter
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS


def _in_range(e: Emitter, value: SSAValue, low: float, high: float) -> SSAValue:
    """`low <= value <= high` as an i1 (false for NaN), compared in f64."""
    if value.type != f64:
        value = e.value(arith.ExtFOp(value, f64))
    lo = e.value(arith.ConstantOp(FloatAttr(low, f64)))
    hi = e.value(arith.ConstantOp(FloatAttr(high, f64)))
    above = e.value(arith.CmpfOp(value, lo, "oge"))
    below = e.value(arith.CmpfOp(value, hi, "ole"))
    return e.value(arith.AndIOp(above, below))


@LOWERINGS.register(CheckRangeOp)
def lower_check_range(op: CheckRangeOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    low, high = op.bounds
    x = S.tensor_of(op.input.type)
    rank = len(x.get_shape())
    if rank == 0:
        element = e.value(tensor.ExtractOp(op.input, [], x.get_element_type()))
        ok = _in_range(e, element, low, high)
    else:
        init = e.filled((), i1, True)
        maps = [AffineMap.identity(rank), AffineMap(rank, 0, ())]

        def body(b: Emitter, args: list[SSAValue]) -> SSAValue:
            inside = _in_range(b, args[0], low, high)
            return b.value(arith.AndIOp(args[1], inside))

        everything = e.generic([op.input], init, maps, ["reduction"] * rank, body)
        ok = e.value(tensor.ExtractOp(everything, [], i1))
    e.emit(cf.AssertOp(ok, op.message))
    rewriter.replace(op, [], [op.input])
