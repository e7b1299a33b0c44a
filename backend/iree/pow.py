"""`math.powf` with C's `pow` semantics on IREE (a workaround for IREE 3.13).

The lowering's float Pow is `math.powf`, which the numpy executor runs as
`np.power` (C99 `pow`, MindSpore's Pow): `(-2) ** 3 == -8`, `0 ** 0 == 1`,
`1 ** nan == 1`. IREE 3.13's CPU code expands `math.powf a, b` into
`exp(b * log(a))` unless `b` is a constant it special-cases ({0, +-0.5, +-1,
+-2, 3}), so a negative base gives NaN even for an integral exponent, and the
identities (`x ** 0`, `1 ** y`, `(-1) ** inf`) give NaN too. Measured with
iree-compile alone (a `linalg.generic` of `math.powf` on two inputs): 13 of 22
edge cases wrong for f32, f64 and f16. Upstream: llvm/llvm-project#132202
(`-math-expand-ops`, fix proposed in PR #193231) and iree-org/iree#19996.

How it showed: a TrainOneStepCell over a loss `((out - y) ** 2).mean()`. The
forward's `powf(d, 2.0)` has a constant exponent (IREE's `d * d`), so the loss
was right; Pow's gradient `2 * d ** (2 - 1)` has an exponent IREE only knows at
run time, so every negative `d` gave NaN and SGD made every Parameter NaN.

The workaround rewrites each `powf %a, %b` (scalars, in the `linalg.generic`
bodies the lowering builds) into IREE's cheap form on `|a|` plus C's cases:

    m = powf(|a|, b)                      # exp(b * log|a|): right magnitude
    r = b odd integer ? copysign(m, a) : m  # (-2)**3, (-0)**-1 = -inf, (-inf)**3
    r = a < 0 finite and b not integral ? NaN : r
    r = b == 0 or a == 1 or (a == -1 and |b| == inf) ? 1 : r

`b` is integral when `floor(b) == b` (so +-inf is, and even, as C says) and
odd when also `floor(b / 2) * 2 != b` (exact for every float). With a
constant `b` IREE folds the selects away and keeps its special cases (`|a| *
|a|` for 2), so the common `x ** 2` costs nothing more.
"""

from __future__ import annotations

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, FloatAttr, ModuleOp
from xdsl.ir import Operation, SSAValue

from mindjit.ir.walk import walk_ops


def c_pow(module: ModuleOp) -> None:
    """Rewrite every scalar `math.powf` in `module` to C's `pow` (see the module doc)."""
    for op in [op for op in walk_ops(module) if isinstance(op, math.PowFOp)]:
        if isinstance(op.result.type, AnyFloat):
            _rewrite(op)


def _rewrite(op: math.PowFOp) -> None:
    a, b = op.lhs, op.rhs
    t = op.result.type
    new: list[Operation] = []

    def emit(o: Operation) -> SSAValue:
        new.append(o)
        return o.results[0]

    def const(v: float) -> SSAValue:
        return emit(arith.ConstantOp(FloatAttr(v, t)))  # type: ignore[arg-type]

    def cmp(x: SSAValue, y: SSAValue, pred: str) -> SSAValue:
        return emit(arith.CmpfOp(x, y, pred))

    zero, one, half, two = const(0.0), const(1.0), const(0.5), const(2.0)
    inf, nan = const(float("inf")), const(float("nan"))
    abs_a = emit(math.AbsFOp(a))
    magnitude = emit(math.PowFOp(abs_a, b))
    floor_b = emit(math.FloorOp(b))
    integral = cmp(floor_b, b, "oeq")
    floor_half = emit(math.FloorOp(emit(arith.MulfOp(b, half))))
    odd = emit(arith.AndIOp(integral, cmp(emit(arith.MulfOp(floor_half, two)), b, "one")))
    signed = emit(arith.SelectOp(odd, emit(math.CopySignOp(magnitude, a)), magnitude))
    negative_finite = emit(
        arith.AndIOp(cmp(a, zero, "olt"), cmp(a, emit(arith.NegfOp(inf)), "one"))
    )
    undefined = emit(arith.AndIOp(negative_finite, cmp(floor_b, b, "une")))
    real = emit(arith.SelectOp(undefined, nan, signed))
    minus_one_inf = emit(
        arith.AndIOp(cmp(a, emit(arith.NegfOp(one)), "oeq"), cmp(emit(math.AbsFOp(b)), inf, "oeq"))
    )
    is_one = emit(
        arith.OrIOp(emit(arith.OrIOp(cmp(b, zero, "oeq"), cmp(a, one, "oeq"))), minus_one_inf)
    )
    result = emit(arith.SelectOp(is_one, one, real))
    block = op.parent_block()
    assert block is not None
    block.insert_ops_before(new, op)
    op.result.replace_all_uses_with(result)
    block.erase_op(op)
