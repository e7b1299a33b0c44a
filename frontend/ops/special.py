"""`ops.lgamma(input)`: log |Gamma(x)|, as a composition of elementwise ops.

No mindir op computes it, and none is needed: for y >= 8 Stirling's series

    lgamma(y) = (y - 1/2) log y - y + log(2 pi) / 2
                + 1/(12 y) - 1/(360 y^3) + 1/(1260 y^5) - 1/(1680 y^7)

is exact to float64's last digits (the next term is below 1e-11 at y = 8);
below 8 the recurrence lgamma(y) = lgamma(y + 8) - log(y (y + 1) ... (y + 7))
moves it there, and x < 1/2 uses the reflection

    lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x)

(+inf at 0, -1, -2 ..., as MindSpore: set there, since sin(pi x) of a float
integer rounds to about 1e-16, not 0). Every piece is a mindir op with a gradient,
a batching rule and kernels on every engine, so the gradient (digamma, which
MindSpore defines) comes from the same composition. Each branch of a select is
fed inputs inside its domain (y clamped to 8 in the recurrence, x = 1/4 in the
unused reflection), so a branch the select drops never makes a NaN in the
forward or backward pass.

Accuracy: float32's rounding in the recurrence's difference makes the error
absolute, about 2e-6 at most for x in (0, 8), where lgamma itself crosses zero
at 1 and 2 (a relative error near those points is not kept); beyond 8 it is
relative, about 1e-7. float16 is computed in float32 and rounded; integers in
float32, as MindSpore's float functions do.
"""

from __future__ import annotations

import math as _math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.math import (
    _tensor,
    abs,
    add,
    div,
    equal,
    floor,
    less,
    less_equal,
    log,
    logical_and,
    maximum,
    minimum,
    mul,
    select,
    sin,
    sub,
)

_SHIFT = 8.0
_HALF_LOG_2PI = 0.5 * _math.log(2.0 * _math.pi)
_LOG_PI = _math.log(_math.pi)
_STIRLING = (1.0 / 12.0, -1.0 / 360.0, 1.0 / 1260.0, -1.0 / 1680.0)


def _stirling(y: Any) -> Any:
    """lgamma(y) for y >= 8."""
    inv = div(1.0, y)
    inv2 = mul(inv, inv)
    series = _STIRLING[-1]
    for c in reversed(_STIRLING[:-1]):
        series = add(mul(series, inv2), c)
    head = sub(mul(sub(y, 0.5), log(y)), y)
    return add(add(head, _HALF_LOG_2PI), mul(series, inv))


def _lgamma_from_half(y: Any) -> Any:
    """lgamma(y) for y >= 1/2."""
    small = less(y, _SHIFT)
    low = minimum(y, _SHIFT)  # the recurrence's input, kept where its product is small
    product = low
    for k in range(1, int(_SHIFT)):
        product = mul(product, add(low, float(k)))
    shifted = _stirling(select(small, add(low, _SHIFT), maximum(y, _SHIFT)))
    return select(small, sub(shifted, log(product)), shifted)


def lgamma(input: Any) -> Any:
    """`ops.lgamma(input)`: the log of the absolute value of the gamma function."""
    x = _tensor(input, "lgamma")
    if x.dtype.is_bool:
        raise TypeError(f"For 'lgamma', the input must be a number tensor, got {x.dtype}")
    out_dtype = x.dtype if x.dtype.is_float else D.float32
    x = cast_to(x, D.float32) if x.dtype in (D.float16,) or not x.dtype.is_float else x
    reflect = less(x, 0.5)
    y = select(reflect, sub(1.0, x), x)
    direct = _lgamma_from_half(y)
    xr = select(reflect, x, 0.25)  # the reflection's input, in its domain where unused
    reflected = sub(sub(_LOG_PI, log(abs(sin(mul(xr, _math.pi))))), direct)
    out = select(reflect, reflected, direct)
    pole = logical_and(less_equal(x, 0.0), equal(floor(x), x))  # sin(pi x) rounds to ~1e-16
    out = select(pole, float("inf"), out)
    return out if out.dtype == out_dtype else cast_to(out, out_dtype)


__all__ = ["lgamma"]
