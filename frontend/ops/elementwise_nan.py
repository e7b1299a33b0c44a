"""MindSpore 2.10's NaN-aware and sign functions, composed of the ops mindjit has
(so both modes and gradients follow): `ops.fmax`, `ops.fmin`, `ops.copysign`,
`ops.heaviside`, `ops.signbit`, `ops.erfc`, `ops.xdivy`, `ops.nansum`, `ops.nanmean`,
`ops.isneginf`, `ops.isposinf`, `ops.isreal`.

MindSpore 2.10's own CPU kernels differ in places, and mindjit follows what they
print: `signbit(-0.0)` is False and `copysign(x, -0.0)` is positive (the sign is
`other < 0`); `nanmean` of an all-NaN slice is NaN. (MindSpore has no CPU kernel
for `fmin`; mindjit's is `fmax`'s mirror.)
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import ones_like
from mindjit.frontend.ops.cast import cast_to, promote
from mindjit.frontend.ops.core import normalize_axes
from mindjit.frontend.ops.math import (
    abs,
    div,
    equal,
    erf,
    less,
    logical_not,
    maximum,
    minimum,
    neg,
    select,
    sub,
)
from mindjit.frontend.ops.math_functions import isnan
from mindjit.frontend.ops.promotion import constant, is_tensor
from mindjit.frontend.ops.reduce import reduce_sum


def _nan_pick(name: str, pick: Any, input: Any, other: Any) -> Any:  # noqa: A002
    a, b = promote(input, other, what=name)
    if not a.dtype.is_float:
        return pick(a, b)
    both = pick(a, b)
    return select(isnan(a), b, select(isnan(b), a, both))


def fmax(input: Any, other: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.fmax(input, other)`: the elementwise maximum, ignoring a NaN (NaN only
    where both are NaN)."""
    return _nan_pick("fmax", maximum, input, other)


def fmin(input: Any, other: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.fmin(input, other)`: the elementwise minimum, ignoring a NaN."""
    return _nan_pick("fmin", minimum, input, other)


def copysign(x: Any, other: Any) -> Any:
    """`ops.copysign(x, other)`: |x| with the sign of `other` (negative where
    `other < 0`, as MindSpore 2.10 prints: -0.0 counts as positive)."""
    a, b = promote(x, other, what="copysign")
    if not a.dtype.is_float:
        a, b = cast_to(a, D.float32), cast_to(b, D.float32)
    magnitude = abs(a)
    return select(less(b, 0), neg(magnitude), magnitude)


def heaviside(input: Any, values: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.heaviside(input, values)`: 0 where input < 0, `values` where it is 0,
    1 where it is > 0; both must be tensors of one dtype."""
    if not is_tensor(input) or not is_tensor(values) or input.dtype != values.dtype:
        raise TypeError(
            "For primitive[Heaviside], the input type must be same: "
            f"x {getattr(input, 'dtype', type(input).__name__)}, "
            f"values {getattr(values, 'dtype', type(values).__name__)}"
        )
    zero = cast_to(0, input.dtype)
    one = cast_to(1, input.dtype)
    at_zero = select(equal(input, zero), values, select(less(input, zero), zero, one))
    return at_zero


def signbit(input: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.signbit(input)`: True where input < 0 (MindSpore 2.10: False at -0.0)."""
    if not is_tensor(input):
        raise TypeError(f"For signbit, the input must be a Tensor, but got {type(input)}")
    if input.dtype.is_bool:
        return less(cast_to(input, D.int32), 0)
    return less(input, 0)


def erfc(input: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.erfc(input)`: 1 - erf(input), for float tensors."""
    if not is_tensor(input):
        raise TypeError(f"Failed calling Erfc with input={type(input).__name__}: expected a Tensor")
    if not input.dtype.is_float:
        raise TypeError(f"For 'Erfc', the input must be a float tensor, but got {input.dtype}")
    return sub(cast_to(1, input.dtype), erf(input))


def xdivy(x: Any, y: Any) -> Any:
    """`ops.xdivy(x, y)`: x / y, and 0 where x is 0 (float tensors)."""
    a, b = promote(x, y, what="xdivy")
    if not a.dtype.is_float:
        raise TypeError(
            f"For primitive[Xdivy], the input argument[x] must be a type of float, but got {a.dtype}"
        )
    zero = equal(a, 0)
    safe = select(zero, cast_to(1, b.dtype), b)
    return select(zero, cast_to(0, a.dtype), div(a, safe))


def _nan_axes(name: str, input: Any, axis: Any) -> Any:  # noqa: A002
    if not is_tensor(input):
        raise TypeError(f"For {name}, input must be a Tensor, but got {type(input)}.")
    if axis is None:
        return ()
    return normalize_axes(axis, len(input.shape), name)  # ValueError out of range, as MindSpore


def _zero_nans(input: Any) -> Any:  # noqa: A002
    if not input.dtype.is_float:
        return input
    return select(isnan(input), cast_to(0, input.dtype), input)


def nansum(input: Any, axis: Any = None, keepdims: bool = False, *, dtype: Any = None) -> Any:  # noqa: A002
    """`ops.nansum(input, axis=None, keepdims=False, *, dtype=None)`: the sum with
    NaNs counted as zero."""
    axes = _nan_axes("nansum", input, axis)
    x = input if dtype is None else cast_to(input, D.to_dtype(dtype))
    return reduce_sum(_zero_nans(x), axes, keepdims)


def nanmean(input: Any, axis: Any = None, keepdims: bool = False, *, dtype: Any = None) -> Any:  # noqa: A002
    """`ops.nanmean(input, axis=None, keepdims=False, *, dtype=None)`: the mean of
    the elements that are not NaN (NaN where all are); float tensors only."""
    axes = _nan_axes("nanmean", input, axis)
    if not input.dtype.is_float:
        raise TypeError(
            f"For 'nanmean', input should be floating point dtype, but got {input.dtype}."
        )
    x = input if dtype is None else cast_to(input, D.to_dtype(dtype))
    total = reduce_sum(_zero_nans(x), axes, keepdims)
    kept = reduce_sum(cast_to(logical_not(isnan(x)), x.dtype), axes, keepdims)
    return div(total, kept)


def _float_only(prim: str, input: Any) -> Any:  # noqa: A002
    if not is_tensor(input):
        raise TypeError(f"For '{prim}', the input must be a Tensor, but got {type(input)}")
    if not input.dtype.is_float:
        raise TypeError(
            f"Select CPU operator[IsInf] fail! Unsupported data type! The supported data "
            f"types are float16, float32 and float64, but got {input.dtype}"
        )
    return input


def isneginf(input: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.isneginf(input)`: True where input is -inf (float tensors)."""
    x = _float_only("isneginf", input)
    return equal(x, constant(float("-inf"), x.dtype))


def isposinf(input: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.isposinf(input)`: True where input is +inf (float tensors)."""
    x = _float_only("isposinf", input)
    return equal(x, constant(float("inf"), x.dtype))


def isreal(input: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.isreal(input)`: True everywhere (mindjit's tensors are real)."""
    if not is_tensor(input):
        raise TypeError(f"For 'isreal', the input must be a Tensor, but got {type(input)}")
    return ones_like(input, dtype=D.bool_)
