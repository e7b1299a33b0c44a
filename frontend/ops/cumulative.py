"""MindSpore 2.10's running extrema and order statistics, composed of the ops mindjit
has (so both modes and gradients follow): `ops.cummax`, `ops.cummin`, `ops.median`,
`ops.nanmedian`, `ops.aminmax`, `ops.logcumsumexp`, and `argmax_with_value`/`argmin_with_value` for the Tensor methods.

There is no scan op for a running maximum, so `cummax` compares every pair along the
axis under a constant lower-triangular mask (n*n elements per lane: fine for the
sequence lengths model code takes a running maximum over). The values are gathered
at the chosen indices, so the gradient goes to the element that was picked.

MindSpore 2.10's rules, which mindjit follows: on a tie `cummax` and `cummin` pick
the LAST index; `cummax`'s indices are int64 and `cummin`'s int32; a NaN carries on
to the end of its lane; `median` is the lower median, its index the element's place
in a stable sort; `aminmax`'s axis defaults to 0, not None.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import expand_dims, squeeze
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.gather_ops import gather_elements
from mindjit.frontend.ops.index_reduce import max as max_with_index
from mindjit.frontend.ops.index_reduce import min as min_with_index
from mindjit.frontend.ops.math import (
    add,
    equal,
    exp,
    floor_divide,
    less,
    log,
    logical_and,
    logical_not,
    logical_or,
    select,
    sub,
)
from mindjit.frontend.ops.math_functions import isnan
from mindjit.frontend.ops.promotion import constant, is_tensor
from mindjit.frontend.ops.reduce import amax, amin, reduce_max, reduce_min, reduce_sum
from mindjit.frontend.ops.sort import sort
from mindjit.frontend.ops.split import slice_axis


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _lane_axis(prim: str, input: Any, axis: Any) -> int:  # noqa: A002
    if not is_tensor(input):
        raise TypeError(
            f'Failed calling {prim} with "{prim}(axis=int)(input={type(input).__name__})": '
            "the input must be a Tensor"
        )
    if not _is_int(axis):
        raise TypeError(f"For '{prim}', the type of 'axis' should be 'int', but got {type(axis)}.")
    rank = max(len(input.shape), 1)
    if not -rank <= axis < rank:
        raise ValueError(
            f"For primitive[{prim}], the axis must be in [{-rank},{rank}), but got {axis}."
        )
    return normalize_axis(axis, len(input.shape), prim)


def _running(prim: str, input: Any, axis: Any, biggest: bool, index_dtype: Any) -> Any:  # noqa: A002
    a = _lane_axis(prim, input, axis)
    if input.dtype.is_bool:
        raise TypeError(f"Select CPU operator[{prim}] fail! Unsupported data type! Got Bool.")
    x = input
    n, rank = x.shape[a], len(x.shape)
    # i (the running position) on axis a, j (the candidates) on axis a + 1
    xj = expand_dims(x, a)
    lane = (1,) * a + (n, n) + (1,) * (rank - a - 1)
    upto = constant(np.tril(np.ones((n, n), bool)).reshape(lane), D.bool_)
    j = constant(
        np.arange(n, dtype=np.int32).reshape((1,) * a + (1, n) + (1,) * (rank - a - 1)), D.int32
    )
    if x.dtype.is_float:
        fill = constant(float("-inf") if biggest else float("inf"), x.dtype)
    else:
        fill = amin(x) if biggest else amax(x)  # never above (below) a candidate
    candidates = select(upto, xj, fill)
    best = reduce_max(candidates, a + 1, True) if biggest else reduce_min(candidates, a + 1, True)
    hit = equal(xj, best)
    if x.dtype.is_float:  # a NaN is the best from where it appears
        hit = logical_or(hit, logical_and(isnan(xj), isnan(best)))
    last = reduce_max(select(logical_and(upto, hit), j, constant(-1, D.int32)), a + 1)
    return gather_elements(x, a, last), cast_to(last, index_dtype)


def cummax(input: Any, axis: int) -> tuple[Any, Any]:  # noqa: A002 - MindSpore's name
    """`ops.cummax(input, axis)`: (the running maximum along `axis`, the int64 index
    of the last element equal to it)."""
    return _running("Cummax", input, axis, True, D.int64)


def cummin(input: Any, axis: int) -> tuple[Any, Any]:  # noqa: A002 - MindSpore's name
    """`ops.cummin(input, axis)`: (the running minimum along `axis`, the int32 index
    of the last element equal to it)."""
    return _running("Cummin", input, axis, False, D.int32)


def median(input: Any, axis: int = -1, keepdims: bool = False) -> tuple[Any, Any]:  # noqa: A002
    """`ops.median(input, axis=-1, keepdims=False)`: (the lower median along `axis`,
    its int64 index: the element at place (n - 1) // 2 of a stable sort)."""
    a = _lane_axis("Median", input, axis)
    if not isinstance(keepdims, bool):
        raise TypeError(f"For 'Median', 'keepdims' must be a bool, but got {keepdims!r}")
    if len(input.shape) == 0:
        return input, constant(0, D.int64)
    k = (input.shape[a] - 1) // 2
    _, order = sort(input, a)
    index = slice_axis(order, a, k, k + 1)
    values = gather_elements(input, a, index)
    if not keepdims:
        values, index = squeeze(values, a), squeeze(index, a)
    return values, cast_to(index, D.int64)


def aminmax(input: Any, *, axis: int = 0, keepdims: bool = False) -> tuple[Any, Any]:  # noqa: A002
    """`ops.aminmax(input, *, axis=0, keepdims=False)`: (amin, amax) along `axis`
    (MindSpore 2.10's default axis is 0)."""
    if not is_tensor(input):
        raise TypeError(f"For 'aminmax', the input must be a Tensor, but got {type(input)}")
    return amin(input, axis, keepdims), amax(input, axis, keepdims)


def argmax_with_value(input: Any, axis: int = 0, keep_dims: bool = False) -> tuple[Any, Any]:  # noqa: A002
    """`Tensor.argmax_with_value(axis=0, keep_dims=False)`: (the maximum values, their
    int64 indices), in that order as MindSpore 2.10's Tensor method returns them."""
    values, index = max_with_index(input, axis, keep_dims)
    return values, cast_to(index, D.int64)


def argmin_with_value(input: Any, axis: int = 0, keep_dims: bool = False) -> tuple[Any, Any]:  # noqa: A002
    """`Tensor.argmin_with_value(axis=0, keep_dims=False)`: (the minimum values, their
    int64 indices)."""
    values, index = min_with_index(input, axis, keep_dims)
    return values, cast_to(index, D.int64)


def logcumsumexp(input: Any, axis: int) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.logcumsumexp(input, axis)`: log(cumsum(exp(input))) along `axis`, each
    running sum shifted by its own running maximum (no overflow, no underflow to
    -inf); float tensors only."""
    prim = "CumulativeLogsumexp"
    a = _lane_axis(prim, input, axis)
    if not input.dtype.is_float:
        raise TypeError(
            f"For primitive[{prim}], the input argument[x] must be a type of {{Tensor[Float16], "
            f"Tensor[Float32], Tensor[Float64]}}, but got {input.dtype}"
        )
    x = input
    n, rank = x.shape[a], len(x.shape)
    xj = expand_dims(x, a)
    lane = (1,) * a + (n, n) + (1,) * (rank - a - 1)
    upto = constant(np.tril(np.ones((n, n), bool)).reshape(lane), D.bool_)
    candidates = select(upto, xj, constant(float("-inf"), x.dtype))
    shift = reduce_max(candidates, a + 1, True)
    total = reduce_sum(exp(sub(candidates, shift)), a + 1)
    return add(log(total), squeeze(shift, a + 1))


def nanmedian(input: Any, axis: int = -1, keepdims: bool = False) -> tuple[Any, Any]:  # noqa: A002
    """`ops.nanmedian(input, axis=-1, keepdims=False)`: `median` of the elements that
    are not NaN (NaN, index 0, where all are): NaNs sort last, and the lower median is
    taken at place (count - 1) // 2 of each lane's own count."""
    a = _lane_axis("NanMedian", input, axis)
    if not isinstance(keepdims, bool):
        raise TypeError(f"For 'NanMedian', 'keepdims' must be a bool, but got {keepdims!r}")
    if not input.dtype.is_float:
        return median(input, axis, keepdims)
    nan = isnan(input)
    _, order = sort(select(nan, constant(float("inf"), input.dtype), input), a)
    count = reduce_sum(cast_to(logical_not(nan), D.int32), a, True)
    place = select(less(count, 1), constant(0, D.int32), floor_divide(sub(count, 1), 2))
    index = gather_elements(order, a, place)
    values = gather_elements(input, a, index)
    if not keepdims:
        values, index = squeeze(values, a), squeeze(index, a)
    return values, cast_to(index, D.int64)
