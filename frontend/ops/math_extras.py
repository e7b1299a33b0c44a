"""More of MindSpore 2.10's elementwise and counting functions, composed of the
ops mindjit has (so both modes and gradients follow): `ops.floor_div`,
`ops.count_nonzero`, `ops.isclose`, `ops.log10`, `ops.trunc`, `ops.frac`,
`ops.lerp`, `ops.addcmul`, `ops.addcdiv`, `ops.logaddexp`, `ops.logaddexp2`,
`ops.hypot`, `ops.xlogy`, `ops.deg2rad`, `ops.rad2deg`, `ops.true_divide`,
`ops.positive`, `ops.float_power`, `ops.fmod`, `ops.logit`, `ops.sinc`,
`ops.asinh`, `ops.acosh`, `ops.atanh`, and `allclose` for `Tensor.allclose`.
"""

from __future__ import annotations

import math as _math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.cast import cast_to, float_input, promote
from mindjit.frontend.ops.core import normalize_axes
from mindjit.frontend.ops.math import (
    _tensor,
    abs,
    add,
    div,
    equal,
    exp,
    floor,
    floor_divide,
    less_equal,
    log,
    logical_and,
    logical_or,
    maximum,
    minimum,
    mul,
    not_equal,
    pow,
    select,
    sin,
    sqrt,
    sub,
)
from mindjit.frontend.ops.math_functions import isfinite, isnan, log1p, sign
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.reduce import reduce_all, reduce_sum


def floor_div(x: Any, y: Any) -> Any:
    """`ops.floor_div(x, y)`: x // y, rounded toward negative infinity."""
    return floor_divide(x, y)


def _number(x: Any, name: str) -> Any:
    t = _tensor(x, name)
    if t.dtype.is_bool:
        raise TypeError(f"For '{name}', the input must be a number tensor, but got {t.dtype}")
    return t


def count_nonzero(x: Any, axis: Any = (), keep_dims: bool = False, dtype: Any = D.int32) -> Any:
    """`ops.count_nonzero(x, axis=(), keep_dims=False, dtype=mstype.int32)`: how many
    elements along `axis` (all when empty) are not zero, in `dtype`."""
    name = "count_nonzero"
    if not is_tensor(x):
        raise TypeError(f"For '{name}', the 'x' must be a Tensor, but got {type(x).__name__}")
    if x.dtype.is_bool:
        raise TypeError(
            f"The 'input x' doesn't support 'Bool' and expect to receive a number type, "
            f"but got {x.dtype}"
        )
    if not isinstance(keep_dims, bool):
        raise TypeError(f"For '{name}', 'keep_dims' must be a bool, but got {keep_dims!r}")
    out_dtype = D.to_dtype(dtype)
    axes = normalize_axes(list(axis) if isinstance(axis, list) else axis, len(x.shape), name)
    counts = reduce_sum(cast_to(not_equal(x, 0), D.float32), axes, keep_dims)
    return cast_to(counts, out_dtype)


def isclose(
    input: Any,  # noqa: A002
    other: Any,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> Any:
    """`ops.isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)`: a Bool
    tensor, true where |input - other| <= atol + rtol * |other| (equal infinities
    are close; NaNs only with `equal_nan`)."""
    name = "isclose"
    for what, v in (("rtol", rtol), ("atol", atol)):
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise TypeError(f"For '{name}', '{what}' must be a float, but got {v!r}")
        if v < 0:
            raise ValueError(f"For '{name}', '{what}' must be non-negative, but got {v}")
    if not isinstance(equal_nan, bool):
        raise TypeError(f"For '{name}', 'equal_nan' must be a bool, but got {equal_nan!r}")
    if not is_tensor(input) or not is_tensor(other):
        raise TypeError(f"For '{name}', 'input' and 'other' must be Tensors")
    a, b = promote(input, other, what=name)
    same = equal(a, b)
    if not a.dtype.is_float:
        a, b = cast_to(a, D.float64), cast_to(b, D.float64)
    near = less_equal(abs(sub(a, b)), add(mul(abs(b), float(rtol)), float(atol)))
    close = logical_or(same, logical_and(near, logical_and(isfinite(a), isfinite(b))))
    if equal_nan:
        close = logical_or(close, logical_and(isnan(a), isnan(b)))
    return close


def allclose(
    input: Any,  # noqa: A002
    other: Any,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> Any:
    """`Tensor.allclose`: whether every element is close (`isclose`); a Python bool in
    PyNative mode, a 0-d Bool tensor in a graph."""
    out = reduce_all(isclose(input, other, rtol, atol, equal_nan))
    return bool(out.asnumpy()) if hasattr(out, "asnumpy") else out


def _float(x: Any, name: str) -> Any:
    return float_input(_number(x, name))


def _float_only(x: Any, name: str) -> Any:
    """A float tensor, or MindSpore's TypeError (its CPU kernel takes floats only)."""
    t = _tensor(x, name)
    if not t.dtype.is_float:
        raise TypeError(f"For '{name}', the input must be a float tensor, but got {t.dtype}")
    return t


def log10(input: Any) -> Any:  # noqa: A002
    """`ops.log10(input)`: log(x) / ln 10 (float inputs only, as MindSpore on CPU)."""
    return mul(log(_float_only(input, "log10")), 1.0 / _math.log(10.0))


def trunc(input: Any) -> Any:  # noqa: A002
    """`ops.trunc(input)`: x rounded toward zero (integers unchanged); zero gradient."""
    x = _number(input, "trunc")
    if not x.dtype.is_float:
        return x
    return mul(sign(x), floor(abs(x)))


def frac(x: Any) -> Any:
    """`ops.frac(x)`: x - trunc(x), with x's sign."""
    t = _number(x, "frac")
    return sub(t, trunc(t))


def lerp(input: Any, end: Any, weight: Any) -> Any:  # noqa: A002
    """`ops.lerp(input, end, weight)`: input + weight * (end - input)."""
    a = _float(input, "lerp")
    return add(a, mul(weight, sub(end, a)))


def addcmul(input: Any, tensor1: Any, tensor2: Any, value: Any = 1) -> Any:  # noqa: A002
    """`ops.addcmul(input, tensor1, tensor2, value=1)`: input + value * tensor1 * tensor2."""
    return add(_number(input, "addcmul"), mul(mul(tensor1, tensor2), value))


def addcdiv(input: Any, tensor1: Any, tensor2: Any, value: Any = 1) -> Any:  # noqa: A002
    """`ops.addcdiv(input, tensor1, tensor2, value=1)`: input + value * tensor1 / tensor2."""
    return add(_number(input, "addcdiv"), mul(div(tensor1, tensor2), value))


def logaddexp(input: Any, other: Any) -> Any:  # noqa: A002
    """`ops.logaddexp(input, other)`: log(exp(input) + exp(other)), stably."""
    a, b = promote(_float(input, "logaddexp"), other, what="logaddexp")
    top = maximum(a, b)
    return add(top, log1p(exp(sub(minimum(a, b), top))))


def logaddexp2(input: Any, other: Any) -> Any:  # noqa: A002
    """`ops.logaddexp2(input, other)`: log2(2**input + 2**other), stably."""
    a, b = promote(_float(input, "logaddexp2"), other, what="logaddexp2")
    top = maximum(a, b)
    ln2 = _math.log(2.0)
    return add(top, mul(log1p(exp(mul(sub(minimum(a, b), top), ln2))), 1.0 / ln2))


def hypot(input: Any, other: Any) -> Any:  # noqa: A002
    """`ops.hypot(input, other)`: sqrt(input**2 + other**2) (float inputs only)."""
    a, b = promote(_float_only(input, "hypot"), other, what="hypot")
    return sqrt(add(mul(a, a), mul(b, b)))


def xlogy(input: Any, other: Any) -> Any:  # noqa: A002
    """`ops.xlogy(input, other)`: input * log(other)."""
    a, b = promote(_float(input, "xlogy"), other, what="xlogy")
    return mul(a, log(b))


def deg2rad(x: Any) -> Any:
    """`ops.deg2rad(x)`: degrees to radians (float inputs only, as MindSpore)."""
    t = _number(x, "deg2rad")
    if not t.dtype.is_float:
        raise TypeError(f"For 'deg2rad', the dtype of 'x' must be float, but got {t.dtype}")
    return mul(t, _math.pi / 180.0)


def rad2deg(x: Any) -> Any:
    """`ops.rad2deg(x)`: radians to degrees (float inputs only, as MindSpore)."""
    t = _number(x, "rad2deg")
    if not t.dtype.is_float:
        raise TypeError(f"For 'rad2deg', the dtype of 'x' must be float, but got {t.dtype}")
    return mul(t, 180.0 / _math.pi)


def true_divide(dividend: Any, divisor: Any) -> Any:
    """`ops.true_divide(dividend, divisor)`: division in float (ops.div)."""
    return div(dividend, divisor)


def positive(input: Any) -> Any:  # noqa: A002
    """`ops.positive(input)`: the input itself (a Bool tensor too, as MindSpore)."""
    return _tensor(input, "positive")


def float_power(input: Any, exponent: Any) -> Any:  # noqa: A002
    """`ops.float_power(input, exponent)`: input ** exponent computed in float64."""
    a = cast_to(_number(input, "float_power"), D.float64)
    e = cast_to(exponent, D.float64) if is_tensor(exponent) else float(exponent)
    return pow(a, e)


def fmod(input: Any, other: Any) -> Any:  # noqa: A002
    """`ops.fmod(input, other)`: the remainder of the truncated division (the sign of
    input)."""
    a, b = promote(_number(input, "fmod"), other, what="fmod")
    q = div(a, b) if a.dtype.is_float else None
    if q is None:  # integers: mindir.div truncates
        return sub(a, mul(div(a, b), b))
    return sub(a, mul(trunc(q), b))


def logit(input: Any, eps: Any = None) -> Any:  # noqa: A002
    """`ops.logit(input, eps=None)`: log(x / (1 - x)), x clamped to [eps, 1 - eps]."""
    x = _float(input, "logit")
    if eps is not None:
        if isinstance(eps, bool) or not isinstance(eps, int | float):
            raise TypeError(f"For 'logit', 'eps' must be a float, but got {eps!r}")
        x = minimum(maximum(x, float(eps)), 1.0 - float(eps))
    return log(div(x, sub(1.0, x)))


def sinc(input: Any) -> Any:  # noqa: A002
    """`ops.sinc(input)`: sin(pi x) / (pi x), 1 at x = 0."""
    x = _float(input, "sinc")
    px = mul(x, _math.pi)
    zero = equal(x, 0.0)
    safe = select(zero, 1.0, px)
    return select(zero, 1.0, div(sin(safe), safe))


def asinh(input: Any) -> Any:  # noqa: A002
    """`ops.asinh(input)`: log(x + sqrt(x**2 + 1)), odd."""
    x = _float(input, "asinh")
    ax = abs(x)
    return mul(sign(x), log(add(ax, sqrt(add(mul(ax, ax), 1.0)))))


def acosh(input: Any) -> Any:  # noqa: A002
    """`ops.acosh(input)`: log(x + sqrt(x**2 - 1)) (NaN below 1)."""
    x = _float(input, "acosh")
    return log(add(x, sqrt(sub(mul(x, x), 1.0))))


def atanh(input: Any) -> Any:  # noqa: A002
    """`ops.atanh(input)`: 0.5 * log((1 + x) / (1 - x))."""
    x = _float(input, "atanh")
    return mul(sub(log1p(x), log1p(mul(x, -1.0))), 0.5)


arcsinh, arccosh, arctanh = asinh, acosh, atanh

__all__ = [
    "acosh",
    "addcdiv",
    "addcmul",
    "allclose",
    "arccosh",
    "arcsinh",
    "arctanh",
    "asinh",
    "atanh",
    "count_nonzero",
    "deg2rad",
    "float_power",
    "floor_div",
    "fmod",
    "frac",
    "hypot",
    "isclose",
    "lerp",
    "log10",
    "logaddexp",
    "logaddexp2",
    "logit",
    "positive",
    "rad2deg",
    "sinc",
    "true_divide",
    "trunc",
    "xlogy",
]
