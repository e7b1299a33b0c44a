"""MindSpore 2.10's gamma-family and inverse-error functions: `ops.digamma`,
`ops.polygamma`, `ops.zeta` (Hurwitz), `ops.mvlgamma`, `ops.erfinv`, as
compositions of elementwise mindir ops (so both modes, every engine, and the
composition's gradient):

- digamma: the recurrence psi(y) = psi(y + 8) - sum 1/(y + k) below 8, then the
  asymptotic series log y - 1/(2y) - sum B_2k / (2k y^2k) (six terms: below 1e-13
  at 8); x < 1/2 by the reflection psi(1 - x) - pi / tan(pi x). As MindSpore: -inf
  at 0, NaN at the negative integers.
- zeta(x, q): Euler-Maclaurin as Cephes: sum_{k<9} (q + k)^-x, the integral and
  half term at w = q + 9, and twelve Bernoulli terms (B_2j / (2j)! ratios computed
  here, exactly, from the Bernoulli numbers). inf at x = 1 and at q a non-positive
  integer, NaN for x < 1.
- polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1 and digamma for n = 0,
  with n a 0-d int tensor (a computed one too: both are selected); NaN for n < 0.
- mvlgamma(x, p) = p(p-1)/4 log(pi) + sum_j lgamma(x + (1 - j)/2). MindSpore's
  ValueError for an element <= (p - 1)/2 is raised in PyNative (the values are
  there); a graph cannot raise on data and computes lgamma's values.
- erfinv: Giles' single-precision approximation (2010), then Newton steps on erf
  (one for float32, two for float64): float32 to its last bits. +-inf at +-1, NaN
  beyond.
"""

from __future__ import annotations

import math as _math
from fractions import Fraction
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.math import (
    abs,
    add,
    div,
    equal,
    erf,
    exp,
    floor,
    less,
    less_equal,
    log,
    logical_and,
    logical_or,
    maximum,
    minimum,
    mul,
    pow,
    select,
    sin,
    sqrt,
    sub,
)
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.special import lgamma

_FLOATS = (D.float16, D.float32, D.float64)


def _bernoulli(n: int) -> list[Fraction]:
    """B_0 ... B_n (Akiyama-Tanigawa; B_1 = -1/2)."""
    a: list[Fraction] = []
    b = []
    for m in range(n + 1):
        a.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        b.append(a[0])
    b[1] = -b[1]  # the recurrence gives B_1 = +1/2
    return b


_B = _bernoulli(24)
#: B_2k / (2k) for the digamma series, k = 1..6
_PSI_SERIES = tuple(float(_B[2 * k] / (2 * k)) for k in range(1, 7))
#: (2j)! / B_2j, j = 1..12 (Cephes' zeta table)
_ZETA_A = tuple(float(Fraction(_math.factorial(2 * j)) / _B[2 * j]) for j in range(1, 13))


def _input(x: Any, prim: str, floats: tuple = _FLOATS, arg: str = "x") -> tuple[Any, Any]:
    if not is_tensor(x) or x.dtype not in floats:
        got = f"Tensor[{x.dtype.ms_name}]" if is_tensor(x) else type(x).__name__
        names = ", ".join(f"Tensor[{d.ms_name}]" for d in floats)
        raise TypeError(
            f"For primitive[{prim}], the input argument[{arg}] must be a type of {{{names}}}, "
            f"but got {got}."
        )
    return (cast_to(x, D.float32), D.float16) if x.dtype == D.float16 else (x, x.dtype)


def _out(y: Any, dtype: Any) -> Any:
    return y if y.dtype == dtype else cast_to(y, dtype)


# --- digamma ---------------------------------------------------------------------------


def _psi_from_half(y: Any) -> Any:
    """digamma(y) for y >= 1/2."""
    small = less(y, 8.0)
    low = minimum(y, 8.0)
    shift = mul(low, 0.0)
    for k in range(8):
        shift = add(shift, div(1.0, add(low, float(k))))
    z = select(small, add(low, 8.0), maximum(y, 8.0))
    inv2 = div(1.0, mul(z, z))
    series = _PSI_SERIES[-1]
    for c in reversed(_PSI_SERIES[:-1]):
        series = add(mul(series, inv2), c)
    psi = sub(sub(log(z), div(0.5, z)), mul(series, inv2))
    return select(small, sub(psi, shift), psi)


def _digamma(x: Any) -> Any:
    reflect = less(x, 0.5)
    y = select(reflect, sub(1.0, x), x)
    direct = _psi_from_half(y)
    xr = select(reflect, x, 0.25)  # the reflection's input, in its domain where unused
    r = sub(xr, floor(add(xr, 0.5)))  # cot(pi x) = cot(pi r), r in [-1/2, 1/2)
    cos_pr = sin(mul(sub(0.5, abs(r)), _math.pi))  # exactly 0 at r = -1/2
    reflected = sub(direct, div(mul(cos_pr, _math.pi), sin(mul(r, _math.pi))))
    out = select(reflect, reflected, direct)
    pole = logical_and(less(x, 0.0), equal(floor(x), x))
    out = select(pole, float("nan"), out)
    return select(equal(x, 0.0), float("-inf"), out)


def digamma(input: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.digamma(input)`: the logarithmic derivative of the gamma function."""
    x, dtype = _input(input, "Digamma", arg="input")
    return _out(_digamma(x), dtype)


# --- zeta, polygamma -------------------------------------------------------------------


def _zeta(x: Any, q: Any) -> Any:
    """Hurwitz zeta(x, q) by Euler-Maclaurin at w = q + 9."""
    total = mul(x, 0.0)
    for k in range(9):
        total = add(total, pow(add(q, float(k)), mul(x, -1.0)))
    w = add(q, 9.0)
    b = pow(w, mul(x, -1.0))
    total = add(total, div(mul(b, w), sub(x, 1.0)))
    total = add(total, mul(b, 0.5))  # the half term at w, not in the sum
    a = add(mul(x, 0.0), 1.0)
    k = 0.0
    for aj in _ZETA_A:
        a = mul(a, add(x, k))
        b = div(b, w)
        total = add(total, div(mul(a, b), aj))
        k += 1.0
        a = mul(a, add(x, k))
        b = div(b, w)
        k += 1.0
    q_pole = logical_and(less_equal(q, 0.0), equal(floor(q), q))
    out = select(logical_or(equal(x, 1.0), q_pole), float("inf"), total)
    return select(less(x, 1.0), float("nan"), out)


def zeta(input: Any, other: Any) -> Any:  # noqa: A002
    """`ops.zeta(input, other)`: the Hurwitz zeta function sum_k (other + k)^-input,
    float32/float64 tensors of one dtype and shape (other may be a number)."""
    prim = "Zeta"
    x, dtype = _input(input, prim, (D.float32, D.float64))
    if not is_tensor(other):
        if isinstance(other, bool) or not isinstance(other, (int, float)):
            raise TypeError(f"For primitive[{prim}], 'other' must be a Tensor or a number")
        q = add(mul(x, 0.0), float(other))
    else:
        q, _ = _input(other, prim, (D.float32, D.float64), "q")
        if q.dtype != x.dtype:
            raise TypeError(f"For primitive[{prim}], the input type must be same.")
        if tuple(q.shape) != tuple(x.shape):
            raise ValueError(
                f"For primitive[{prim}], the shapes of 'input' {tuple(x.shape)} and 'other' "
                f"{tuple(q.shape)} must be the same."
            )
    return _out(_zeta(x, q), dtype)


def polygamma(n: Any, input: Any) -> Any:  # noqa: A002
    """`ops.polygamma(n, input)`: the n-th derivative of digamma, n a 0-d int32/int64
    tensor (digamma for n = 0, NaN for n < 0)."""
    prim = "Polygamma"
    if not is_tensor(n):
        raise TypeError(
            f"For primitive[{prim}], the input[0] should be a Tensor, but got {type(n).__name__}."
        )
    if n.dtype not in (D.int32, D.int64):
        raise TypeError(
            f"For primitive[{prim}], the input argument[a] must be a type of {{Tensor[Int32], "
            f"Tensor[Int64]}}, but got Tensor[{n.dtype.ms_name}]."
        )
    if len(n.shape) != 0:
        raise ValueError(
            f"For '{prim}', 'a' should be a 0-dim Tensor, but got rank: {len(n.shape)}."
        )
    x, dtype = _input(input, prim)
    order = cast_to(n, x.dtype)
    s = add(order, 1.0)
    safe_order = maximum(order, 1.0)  # zeta's branch at n >= 1 only
    parity = sub(safe_order, mul(floor(div(safe_order, 2.0)), 2.0))  # 1 for odd n
    sign = sub(mul(parity, 2.0), 1.0)  # (-1)^(n+1)
    factorial = exp(lgamma(add(safe_order, 1.0)))
    higher = mul(mul(sign, factorial), _zeta(maximum(s, 2.0), x))
    out = select(equal(order, 0.0), _digamma(x), higher)
    return _out(select(less(order, 0.0), float("nan"), out), dtype)


# --- mvlgamma --------------------------------------------------------------------------


def mvlgamma(input: Any, p: int) -> Any:  # noqa: A002
    """`ops.mvlgamma(input, p)`: the multivariate log-gamma function of dimension p,
    float32/float64; every element must be > (p - 1)/2."""
    prim = "Mvlgamma"
    x, dtype = _input(input, prim, (D.float32, D.float64))
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise ValueError(
            f"For '{prim}', the 'p' must be int and must > 0, but got '{p}' with type "
            f"'{type(p).__name__}'."
        )
    if current_graph() is None and bool((x.asnumpy() <= (p - 1) / 2).any()):
        raise ValueError(f"For {prim}, all elements of 'x' must be greater than (p-1)/2.")
    total = mul(x, 0.0)
    for j in range(1, p + 1):
        total = add(total, lgamma(add(x, (1 - j) / 2)))
    return _out(add(total, p * (p - 1) / 4 * _math.log(_math.pi)), dtype)


# --- erfinv ----------------------------------------------------------------------------

_GILES_CENTRAL = (
    2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
    -0.00125372503, -0.00417768164, 0.246640727, 1.50140941,
)  # fmt: skip
_GILES_TAIL = (
    -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
    -0.0076224613, 0.00943887047, 1.00167406, 2.83297682,
)  # fmt: skip
_TWO_OVER_SQRT_PI = 2.0 / _math.sqrt(_math.pi)


def _horner(w: Any, coeffs: tuple) -> Any:
    p = add(mul(w, 0.0), coeffs[0])
    for c in coeffs[1:]:
        p = add(mul(p, w), c)
    return p


def erfinv(input: Any) -> Any:  # noqa: A002
    """`ops.erfinv(input)`: the inverse error function on (-1, 1)."""
    x, dtype = _input(input, "Erfinv", arg="input")
    inside = less(abs(x), 1.0)
    xs = select(inside, x, 0.0)  # the approximation's input, in its domain where unused
    w = mul(log(mul(sub(1.0, xs), add(1.0, xs))), -1.0)
    central = less(w, 5.0)
    wc = sub(minimum(w, 5.0), 2.5)
    wt = sub(sqrt(maximum(w, 5.0)), 3.0)
    y = mul(select(central, _horner(wc, _GILES_CENTRAL), _horner(wt, _GILES_TAIL)), xs)
    for _ in range(2 if x.dtype == D.float64 else 1):  # Newton on erf(y) = x
        y = sub(y, div(sub(erf(y), xs), mul(exp(mul(mul(y, y), -1.0)), _TWO_OVER_SQRT_PI)))
    edge = select(equal(x, 1.0), float("inf"), select(equal(x, -1.0), float("-inf"), float("nan")))
    return _out(select(inside, y, edge), dtype)


__all__ = ["digamma", "erfinv", "mvlgamma", "polygamma", "zeta"]
