"""MindSpore 2.10's regularized incomplete gamma functions `ops.igamma(input, other)`
= P(a, x) and `ops.igammac(input, other)` = Q(a, x) = 1 - P, as compositions of
elementwise mindir ops.

As Eigen (MindSpore's CPU kernel): where x <= 1 or x <= a, P is the power series
x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1) ... (a + n)) and Q = 1 - P; elsewhere
Q is the continued fraction x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a
- ...)) evaluated by the modified Lentz method, and P = 1 - Q. A graph runs a fixed
number of terms (100 for float32, 160 for float64, both computed in float64: every (a, x) up to a few hundred
is then exact to the dtype; beyond that the tails lose digits), PyNative stops when
the next term no longer changes the result. The edges are MindSpore's: NaN for
a <= 0 or x < 0, P(a, 0) = 0, P(a, inf) = 1 and Q(a, inf) NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.ops.array import broadcast_to
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.math import (
    abs,
    add,
    div,
    equal,
    exp,
    less,
    less_equal,
    log,
    logical_or,
    mul,
    select,
    sub,
)
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.special import lgamma


def _operands(prim: str, a: Any, x: Any) -> tuple[Any, Any]:
    for arg, t in (("a", a), ("x", x)):
        if not is_tensor(t) or t.dtype not in (D.float32, D.float64):
            got = f"Tensor[{t.dtype.ms_name}]" if is_tensor(t) else type(t).__name__
            raise TypeError(
                f"For primitive[{prim}], the input argument[{arg}] must be a type of "
                f"{{Tensor[Float32], Tensor[Float64]}}, but got {got}."
            )
    if a.dtype != x.dtype:
        raise TypeError(f"For primitive[{prim}], the input type must be same.")
    shape = tuple(np.broadcast_shapes(tuple(a.shape), tuple(x.shape)))
    return broadcast_to(a, shape), broadcast_to(x, shape)


def _converged(delta: Any, total: Any, eps: float) -> bool:
    """PyNative only: whether the last step changed no element beyond eps."""
    return bool((abs(delta).asnumpy() <= eps * abs(total).asnumpy()).all())


def _series(a: Any, x: Any, steps: int, eps: float) -> Any:
    """P(a, x) by the power series (x small against a)."""
    eager = current_graph() is None
    term = add(mul(x, 0.0), 1.0)
    total = term
    ap = a
    for _ in range(steps):
        ap = add(ap, 1.0)
        term = mul(term, div(x, ap))
        total = add(total, term)
        if eager and _converged(term, total, eps):
            break
    return mul(total, exp(sub(sub(mul(a, log(x)), x), lgamma(add(a, 1.0)))))


def _fraction(a: Any, x: Any, steps: int, eps: float) -> Any:
    """Q(a, x) by the continued fraction (modified Lentz; x large against a)."""
    eager = current_graph() is None
    tiny = 1e-300 if x.dtype == D.float64 else 1e-30

    def nonzero(v: Any) -> Any:
        return select(less(abs(v), tiny), tiny, v)

    b = add(sub(x, a), 1.0)
    c = add(mul(x, 0.0), 1.0 / tiny)
    d = div(1.0, nonzero(b))
    h = d
    for i in range(1, steps + 1):
        an = mul(sub(a, float(i)), float(i))  # -i (i - a)
        b = add(b, 2.0)
        d = div(1.0, nonzero(add(mul(an, d), b)))
        c = nonzero(add(b, div(an, c)))
        step = mul(d, c)
        h = mul(h, step)
        if eager and _converged(sub(step, 1.0), step, eps):
            break
    return mul(h, exp(sub(sub(mul(a, log(x)), x), lgamma(a))))


def _igamma(a: Any, x: Any, f64: bool) -> tuple[Any, Any]:
    """(P, Q) with the edges set, to float64's precision (f64) or float32's."""
    steps, eps = (160, 1e-16) if f64 else (100, 6e-8)
    use_series = logical_or(less_equal(x, 1.0), less_equal(x, a))
    bad = logical_or(less_equal(a, 0.0), less(x, 0.0))
    ok_a = select(bad, 1.0, a)  # inputs in each branch's domain where it is unused
    at_inf = equal(x, float("inf"))
    xs = select(logical_or(bad, logical_or(equal(x, 0.0), at_inf)), 1.0, x)
    p_series = _series(ok_a, select(use_series, xs, 0.5), steps, eps)
    q_fraction = _fraction(ok_a, select(use_series, add(ok_a, 2.0), xs), steps, eps)
    p = select(use_series, p_series, sub(1.0, q_fraction))
    q = select(use_series, sub(1.0, p_series), q_fraction)
    p = select(equal(x, 0.0), 0.0, select(at_inf, 1.0, p))
    q = select(equal(x, 0.0), 1.0, select(at_inf, float("nan"), q))
    return select(bad, float("nan"), p), select(bad, float("nan"), q)


def _in_float64(prim: str, a: Any, x: Any, which: int) -> Any:
    """float32 is computed in float64 (the prefactor a log x - x - lgamma(a + 1)
    cancels: float32 would lose digits of the result for a, x in the tens)."""
    a, x = _operands(prim, a, x)
    dtype = a.dtype
    if dtype == D.float32:
        a, x = cast_to(a, D.float64), cast_to(x, D.float64)
    out = _igamma(a, x, dtype == D.float64)[which]
    return out if out.dtype == dtype else cast_to(out, dtype)


def igamma(input: Any, other: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.igamma(input, other)`: the regularized lower incomplete gamma function
    P(input, other), float32/float64 tensors of one dtype (broadcast)."""
    return _in_float64("Igamma", input, other, 0)


def igammac(input: Any, other: Any) -> Any:  # noqa: A002
    """`ops.igammac(input, other)`: the regularized upper incomplete gamma function
    Q(input, other) = 1 - P."""
    return _in_float64("Igammac", input, other, 1)


__all__ = ["igamma", "igammac"]
