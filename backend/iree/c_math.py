"""Math ops with C's (numpy's) values on IREE: workarounds for IREE 3.13's expansions.

The numpy executor runs the lowering's `math` ops as numpy does, that is as C's
libm; IREE 3.13's CPU code has no libm and expands some of them into formulas
that are wrong where libm is not. Measured on edge values with iree-compile
alone (every float op the lowering emits; tests/backend/test_iree_c_math.py):

- **`math.powf a, b`** becomes `exp(b * log(a))` unless `b` is a constant IREE
  special-cases ({0, +-0.5, +-1, +-2, 3}): a negative base gives NaN even for
  an integral exponent, and so do `x ** 0`, `1 ** nan`, `(-1) ** inf` (13 of 22
  edge cases wrong for f32, f64 and f16). Upstream: llvm/llvm-project#132202
  (`-math-expand-ops`; fix proposed in PR #193231), iree-org/iree#19996. How it
  showed: in a training step with the loss `((out - y) ** 2).mean()` the
  forward's `d ** 2.0` is IREE's `d * d`, so the loss was right, but Pow's
  gradient `2 * d ** (2 - 1)` has a run-time exponent: every negative `d` gave
  NaN and the optimizer made every Parameter NaN.
- **`math.atan2 y, x`** gives NaN for `(+-0, +-0)` and `(+-inf, +-inf)`, and
  `+pi` where C gives `-pi` when `y < 0` is tiny next to a negative `x` (`y / x`
  underflows to -0: `atan2(-1, -inf)`, `atan2(-1e-30, -1e10)`).
- **f64 `math.log1p` / `math.expm1`** are `log(1 + x)` / `exp(x) - 1`:
  `log1p(1e-30) == 0`, and `log1p(1e-6)` has a relative error of 8e-11 (f32's
  are accurate: within 2e-7 over 1e-8..1e12).

Each is rewritten, on scalars (the `linalg.generic` bodies the lowering
builds), into IREE's own op on arguments where it is right plus C's cases:

    pow:   m = powf(|a|, b)                        # exp(b * log|a|)
           r = b odd integer ? copysign(m, a) : m  # (-2)**3, (-0)**-1 = -inf
           r = a < 0 finite and b not integral ? NaN : r
           r = b == 0 or a == 1 or (a == -1 and |b| == inf) ? 1 : r
    atan2: r = both zero ? (x negative ? pi : 0) : both inf ? (x < 0 ? 3pi/4 : pi/4)
               : atan2(y, x);  copysign(r, y)      # atan2 is odd in y, -0 included
    log1p: u = 1 + x; u == 1 ? x : x == inf ? x : log(u) * (x / (u - 1))   # Kahan
    expm1: u = exp(x); u == 1 ? x : u == inf ? u : u - 1 == -1 ? -1
               : (u - 1) * (x / log(u))

For pow, `b` is integral when `floor(b) == b` (so +-inf is, and even, as C says)
and odd when also `floor(b / 2) * 2 != b` (exact for every float). With a
constant `b` IREE folds the selects away and keeps its special cases (`|a| *
|a|` for 2), so the common `x ** 2` costs nothing more.

Not rewritten, and so still differing from numpy on IREE: f32 `sin`/`cos`,
whose range reduction and polynomial have an absolute error up to about
`1.6e-7 + 2.7e-8 * |x|` (2.7e-4 at |x| = 1e4, values beyond +-1 from |x| ~
1e8; numpy's float32 ones are within 6e-8); subnormal
numbers, which IREE's CPU code flushes to zero.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, FloatAttr, ModuleOp, f64
from xdsl.ir import Operation, SSAValue

from mindjit.ir.walk import walk_ops


def c_math(module: ModuleOp) -> None:
    """Rewrite the scalar math ops of `module` that IREE expands differently from C."""
    for op in list(walk_ops(module)):
        rule = _RULES.get(type(op))
        t = op.results[0].type if op.results else None
        if rule is None or not isinstance(t, AnyFloat):
            continue
        if type(op) in _F64_ONLY and t != f64:
            continue
        b = _Builder(t)
        result = rule(b, *op.operands)
        block = op.parent_block()
        assert block is not None
        block.insert_ops_before(b.ops, op)
        op.results[0].replace_all_uses_with(result)
        block.erase_op(op)


class _Builder:
    """Scalar ops of one float type, collected in order."""

    def __init__(self, t: AnyFloat):
        self.t = t
        self.ops: list[Operation] = []

    def __call__(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def const(self, v: float) -> SSAValue:
        return self(arith.ConstantOp(FloatAttr(v, self.t)))

    def cmp(self, x: SSAValue, y: SSAValue, predicate: str) -> SSAValue:
        return self(arith.CmpfOp(x, y, predicate))

    def all(self, *conds: SSAValue) -> SSAValue:
        out = conds[0]
        for c in conds[1:]:
            out = self(arith.AndIOp(out, c))
        return out

    def any(self, *conds: SSAValue) -> SSAValue:
        out = conds[0]
        for c in conds[1:]:
            out = self(arith.OrIOp(out, c))
        return out

    def select(self, cond: SSAValue, x: SSAValue, y: SSAValue) -> SSAValue:
        return self(arith.SelectOp(cond, x, y))


def _pow(b: _Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    zero, one, inf = b.const(0.0), b.const(1.0), b.const(pymath.inf)
    magnitude = b(math.PowFOp(b(math.AbsFOp(x)), y))
    floor_y = b(math.FloorOp(y))
    integral = b.cmp(floor_y, y, "oeq")
    floor_half = b(math.FloorOp(b(arith.MulfOp(y, b.const(0.5)))))
    odd = b.all(integral, b.cmp(b(arith.MulfOp(floor_half, b.const(2.0))), y, "one"))
    signed = b.select(odd, b(math.CopySignOp(magnitude, x)), magnitude)
    negative_finite = b.all(b.cmp(x, zero, "olt"), b.cmp(x, b.const(-pymath.inf), "one"))
    undefined = b.all(negative_finite, b.cmp(floor_y, y, "une"))
    real = b.select(undefined, b.const(pymath.nan), signed)
    minus_one_inf = b.all(b.cmp(x, b.const(-1.0), "oeq"), b.cmp(b(math.AbsFOp(y)), inf, "oeq"))
    is_one = b.any(b.cmp(y, zero, "oeq"), b.cmp(x, one, "oeq"), minus_one_inf)
    return b.select(is_one, one, real)


def _atan2(b: _Builder, y: SSAValue, x: SSAValue) -> SSAValue:
    zero, one, inf = b.const(0.0), b.const(1.0), b.const(pymath.inf)
    x_negative = b.cmp(b(math.CopySignOp(one, x)), zero, "olt")  # -0 included
    both_zero = b.all(b.cmp(y, zero, "oeq"), b.cmp(x, zero, "oeq"))
    both_inf = b.all(b.cmp(b(math.AbsFOp(y)), inf, "oeq"), b.cmp(b(math.AbsFOp(x)), inf, "oeq"))
    at_zero = b.select(x_negative, b.const(pymath.pi), zero)
    at_inf = b.select(x_negative, b.const(3 * pymath.pi / 4), b.const(pymath.pi / 4))
    r = b.select(both_zero, at_zero, b.select(both_inf, at_inf, b(math.Atan2Op(y, x))))
    return b(math.CopySignOp(r, y))


def _log1p(b: _Builder, x: SSAValue) -> SSAValue:
    one = b.const(1.0)
    u = b(arith.AddfOp(one, x))
    kahan = b(arith.MulfOp(b(math.LogOp(u)), b(arith.DivfOp(x, b(arith.SubfOp(u, one))))))
    exact = b.any(b.cmp(u, one, "oeq"), b.cmp(x, b.const(pymath.inf), "oeq"))
    return b.select(exact, x, kahan)


def _expm1(b: _Builder, x: SSAValue) -> SSAValue:
    one, minus_one = b.const(1.0), b.const(-1.0)
    u = b(math.ExpOp(x))
    um1 = b(arith.SubfOp(u, one))
    kahan = b(arith.MulfOp(um1, b(arith.DivfOp(x, b(math.LogOp(u))))))
    r = b.select(b.cmp(um1, minus_one, "oeq"), minus_one, kahan)
    r = b.select(b.cmp(u, b.const(pymath.inf), "oeq"), u, r)
    return b.select(b.cmp(u, one, "oeq"), x, r)


_RULES: dict[type[Operation], Callable[..., SSAValue]] = {
    math.PowFOp: _pow,
    math.Atan2Op: _atan2,
    math.Log1pOp: _log1p,
    math.ExpM1Op: _expm1,
}
#: f32's are accurate on IREE (the rewrite would cost a division for nothing)
_F64_ONLY = frozenset({math.Log1pOp, math.ExpM1Op})
