"""MindSpore 2.10's Bessel functions: `ops.bessel_i0`, `bessel_i0e`, `bessel_i1`,
`bessel_i1e`, `bessel_j0`, `bessel_j1`, `bessel_y0`, `bessel_y1`, `bessel_k0`,
`bessel_k0e`, `bessel_k1`, `bessel_k1e` and `ops.i0` (= bessel_i0), as compositions
of elementwise mindir ops.

Each is split the way Cephes splits it, into a singular part written out (exp(x),
log(x), 1/x, 1/sqrt(x), the oscillation cos/sin) and a smooth part evaluated as a
Chebyshev series (Clenshaw's recurrence) whose coefficients, fitted to mpmath's
values, are in special_tables.py (docs/gen_special_tables.py):

- I0, I1 (and the exp(-|x|)-scaled I0e, I1e): a series in x on [0, 8], a series
  in 16/x times 1/sqrt(x) beyond; I1 is odd;
- K0, K1 (and K0e, K1e): K0 = -log(x/2) I0(x) + f(x^2), K1 = log(x/2) I1(x) +
  g(x^2)/x on (0, 2], a series in 4/x times exp(-x)/sqrt(x) beyond;
- J0, J1, Y0, Y1: series in x^2 on [0, 5] (Y0 = (2/pi) log(x) J0 + f, Y1 =
  (2/pi)(log(x) J1 - 1/x) + x g); beyond 5 Hankel's form sqrt(2/(pi x)) (P cos chi
  - Q sin chi), with P and Q series in 25/x^2 and cos/sin(x - pi/4) written with
  cos x and sin x (no float32 rounding of x - pi/4).

The branches of a select are fed inputs clamped into their own domains, so an
unused branch never makes an inf or a NaN (nor in the gradient, which is the
composition's). float32 inputs use the leading terms down to 1e-9, float64 all
of them (float64 to about 1e-15); float16 is computed in float32 and rounded.
At and below 0 the values are MindSpore's: K0, K1, K0e, K1e are inf; Y0 is -inf;
Y1 is -inf below 0 and NaN at 0.
"""

from __future__ import annotations

import math as _math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import special_tables as T
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.math import (
    abs,
    add,
    cos,
    div,
    equal,
    exp,
    greater,
    less_equal,
    log,
    maximum,
    minimum,
    mul,
    select,
    sin,
    sqrt,
    sub,
)
from mindjit.frontend.ops.math_functions import sign
from mindjit.frontend.ops.promotion import is_tensor

_FLOATS = (D.float16, D.float32, D.float64)
_TWO_OVER_PI = 2.0 / _math.pi
_SQRT_HALF = _math.sqrt(0.5)


def _input(x: Any, prim: str, arg: str = "x") -> tuple[Any, Any]:
    """(x in float32 or float64, the result dtype) after MindSpore's check."""
    if not is_tensor(x) or x.dtype not in _FLOATS:
        got = f"Tensor[{x.dtype.ms_name}]" if is_tensor(x) else type(x).__name__
        raise TypeError(
            f"For primitive[{prim}], the input argument[{arg}] must be a type of "
            f"{{Tensor[Float16], Tensor[Float32], Tensor[Float64]}}, but got {got}."
        )
    return (cast_to(x, D.float32), D.float16) if x.dtype == D.float16 else (x, x.dtype)


def _out(y: Any, dtype: Any) -> Any:
    return y if y.dtype == dtype else cast_to(y, dtype)


def _terms(coeffs: tuple, dtype: Any) -> tuple:
    """The leading coefficients that matter at `dtype`'s precision."""
    if dtype == D.float64:
        return coeffs
    top = max(_math.fabs(c) for c in coeffs)
    n = len(coeffs)
    while n > 2 and sum(_math.fabs(c) for c in coeffs[n - 1 :]) < 1e-9 * top:
        n -= 1
    return coeffs[:n]


def chebyshev(t: Any, coeffs: tuple) -> Any:
    """sum c_k T_k(t) by Clenshaw's recurrence."""
    c = _terms(coeffs, t.dtype)
    b1, b2 = mul(t, 0.0), mul(t, 0.0)
    two_t = mul(t, 2.0)
    for ck in reversed(c[1:]):
        b1, b2 = add(sub(mul(two_t, b1), b2), ck), b1
    return add(sub(mul(t, b1), b2), c[0])


# --- I0, I1 ----------------------------------------------------------------------------


def _scaled_i(a: Any, small: tuple, large: tuple, odd: bool) -> Any:
    """exp(-a) I(a) for a = |x| >= 0 (I1: times a on [0, 8])."""
    near = less_equal(a, 8.0)
    lo = minimum(a, 8.0)
    hi = maximum(a, 8.0)
    inner = chebyshev(sub(div(lo, 4.0), 1.0), small)
    if odd:
        inner = mul(inner, lo)
    outer = div(chebyshev(sub(div(16.0, hi), 1.0), large), sqrt(hi))
    return select(near, inner, outer)


def _i0e(x: Any) -> Any:
    return _scaled_i(abs(x), T.I0E_SMALL, T.I0E_LARGE, odd=False)


def _i1e(x: Any) -> Any:
    return mul(sign(x), _scaled_i(abs(x), T.I1E_SMALL, T.I1E_LARGE, odd=True))


def bessel_i0e(x: Any) -> Any:
    """`ops.bessel_i0e(x)`: exp(-|x|) I0(x)."""
    t, dtype = _input(x, "BesselI0e", "input_x")
    return _out(_i0e(t), dtype)


def bessel_i0(x: Any) -> Any:
    """`ops.bessel_i0(x)`: the modified Bessel function of the first kind, order 0."""
    t, dtype = _input(x, "BesselI0")
    return _out(mul(_i0e(t), exp(abs(t))), dtype)


def i0(input: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.i0(input)`: `bessel_i0`."""
    return bessel_i0(input)


def bessel_i1e(x: Any) -> Any:
    """`ops.bessel_i1e(x)`: exp(-|x|) I1(x)."""
    t, dtype = _input(x, "BesselI1e")
    return _out(_i1e(t), dtype)


def bessel_i1(x: Any) -> Any:
    """`ops.bessel_i1(x)`: the modified Bessel function of the first kind, order 1."""
    t, dtype = _input(x, "BesselI1")
    return _out(mul(_i1e(t), exp(abs(t))), dtype)


# --- K0, K1 ----------------------------------------------------------------------------


def _k(x: Any, order: int, scaled: bool) -> Any:
    """K0/K1(x) (times exp(x) if scaled) for x > 0; inf at and below 0."""
    near = less_equal(x, 2.0)
    lo = minimum(maximum(x, 1e-30), 2.0)  # (0, 2]: log and 1/x stay finite
    hi = maximum(x, 2.0)
    t = sub(div(mul(lo, lo), 2.0), 1.0)
    log_half = log(div(lo, 2.0))
    if order == 0:
        inner = sub(chebyshev(t, T.K0_SMALL), mul(log_half, mul(_i0e(lo), exp(lo))))
    else:
        inner = add(mul(log_half, mul(_i1e(lo), exp(lo))), div(chebyshev(t, T.K1_SMALL), lo))
    if scaled:
        inner = mul(inner, exp(lo))
    table = T.K0E_LARGE if order == 0 else T.K1E_LARGE
    outer = div(chebyshev(sub(div(4.0, hi), 1.0), table), sqrt(hi))
    if not scaled:
        outer = mul(outer, exp(mul(hi, -1.0)))
    out = select(near, inner, outer)
    return select(less_equal(x, 0.0), float("inf"), out)


def bessel_k0(x: Any) -> Any:
    """`ops.bessel_k0(x)`: the modified Bessel function of the second kind, order 0."""
    t, dtype = _input(x, "BesselK0")
    return _out(_k(t, 0, False), dtype)


def bessel_k0e(x: Any) -> Any:
    """`ops.bessel_k0e(x)`: exp(x) K0(x)."""
    t, dtype = _input(x, "BesselK0e")
    return _out(_k(t, 0, True), dtype)


def bessel_k1(x: Any) -> Any:
    """`ops.bessel_k1(x)`: the modified Bessel function of the second kind, order 1."""
    t, dtype = _input(x, "BesselK1")
    return _out(_k(t, 1, False), dtype)


def bessel_k1e(x: Any) -> Any:
    """`ops.bessel_k1e(x)`: exp(x) K1(x)."""
    t, dtype = _input(x, "BesselK1e")
    return _out(_k(t, 1, True), dtype)


# --- J0, J1, Y0, Y1 --------------------------------------------------------------------


def _hankel(a: Any, order: int, second: bool) -> Any:
    """J or Y of order 0/1 at a >= 5 from P, Q: sqrt(2/(pi a)) (P cos chi - Q sin chi)
    (J) or (P sin chi + Q cos chi) (Y), chi = a - (2 order + 1) pi / 4."""
    t = sub(div(50.0, mul(a, a)), 1.0)
    p = chebyshev(t, T.P0 if order == 0 else T.P1)
    q = div(mul(chebyshev(t, T.Q0 if order == 0 else T.Q1), 5.0), a)
    c, s = cos(a), sin(a)
    if order == 0:  # cos/sin(a - pi/4)
        cos_chi, sin_chi = mul(add(c, s), _SQRT_HALF), mul(sub(s, c), _SQRT_HALF)
    else:  # cos/sin(a - 3 pi/4)
        cos_chi, sin_chi = mul(sub(s, c), _SQRT_HALF), mul(add(s, c), -_SQRT_HALF)
    if second:
        wave = add(mul(p, sin_chi), mul(q, cos_chi))
    else:
        wave = sub(mul(p, cos_chi), mul(q, sin_chi))
    return mul(wave, sqrt(div(_TWO_OVER_PI, a)))


def _j(x: Any, order: int) -> Any:
    a = abs(x)
    near = less_equal(a, 5.0)
    lo = minimum(a, 5.0)
    t = sub(div(mul(lo, lo), 12.5), 1.0)
    inner = chebyshev(t, T.J0_SMALL) if order == 0 else mul(chebyshev(t, T.J1_SMALL), lo)
    out = select(near, inner, _hankel(maximum(a, 5.0), order, second=False))
    return out if order == 0 else mul(out, sign(x))


def _y(x: Any, order: int) -> Any:
    near = less_equal(x, 5.0)
    lo = minimum(maximum(x, 1e-30), 5.0)
    t = sub(div(mul(lo, lo), 12.5), 1.0)
    if order == 0:
        inner = add(chebyshev(t, T.Y0_SMALL), mul(mul(log(lo), _j(lo, 0)), _TWO_OVER_PI))
    else:
        singular = mul(sub(mul(log(lo), _j(lo, 1)), div(1.0, lo)), _TWO_OVER_PI)
        inner = add(singular, mul(chebyshev(t, T.Y1_SMALL), lo))
    out = select(near, inner, _hankel(maximum(x, 5.0), order, second=True))
    out = select(greater(x, 0.0), out, float("-inf"))
    if order == 1:
        out = select(equal(x, 0.0), float("nan"), out)
    return out


def bessel_j0(x: Any) -> Any:
    """`ops.bessel_j0(x)`: the Bessel function of the first kind, order 0."""
    t, dtype = _input(x, "BesselJ0")
    return _out(_j(t, 0), dtype)


def bessel_j1(x: Any) -> Any:
    """`ops.bessel_j1(x)`: the Bessel function of the first kind, order 1."""
    t, dtype = _input(x, "BesselJ1")
    return _out(_j(t, 1), dtype)


def bessel_y0(x: Any) -> Any:
    """`ops.bessel_y0(x)`: the Bessel function of the second kind, order 0."""
    t, dtype = _input(x, "BesselY0")
    return _out(_y(t, 0), dtype)


def bessel_y1(x: Any) -> Any:
    """`ops.bessel_y1(x)`: the Bessel function of the second kind, order 1."""
    t, dtype = _input(x, "BesselY1")
    return _out(_y(t, 1), dtype)


__all__ = [
    "bessel_i0",
    "bessel_i0e",
    "bessel_i1",
    "bessel_i1e",
    "bessel_j0",
    "bessel_j1",
    "bessel_k0",
    "bessel_k0e",
    "bessel_k1",
    "bessel_k1e",
    "bessel_y0",
    "bessel_y1",
    "i0",
]
