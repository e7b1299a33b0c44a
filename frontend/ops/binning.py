"""MindSpore 2.10's binning functions, composed of comparisons and sums (static
shapes, so both modes follow): `ops.searchsorted`, `ops.bucketize` and `ops.histc`.

`searchsorted` counts, for each value, the sorted elements below it (left) or not
above it (right): one comparison per (value, element) pair. `histc` compares every
element's bin number with every bin. Neither is differentiable (counts), as in
MindSpore.

MindSpore 2.10's rules, which mindjit follows: `ops.searchsorted` gives int64 (int32
with out_int32) but `Tensor.searchsorted` int32; `histc` of an int32 tensor counts in
int32 and of a float tensor (float16 too) in float32, takes min == max as the data's
range, and drops the elements outside [min, max].
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import expand_dims, reshape
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.gather_ops import gather_elements
from mindjit.frontend.ops.math import (
    add,
    div,
    equal,
    floor,
    greater_equal,
    less,
    less_equal,
    logical_and,
    minimum,
    mul,
    sub,
)
from mindjit.frontend.ops.promotion import constant, is_tensor
from mindjit.frontend.ops.reduce import amax, amin, reduce_sum


def searchsorted(
    sorted_sequence: Any,
    values: Any,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: Any = None,
    sorter: Any = None,
) -> Any:
    """`ops.searchsorted(sorted_sequence, values, *, out_int32=False, right=False,
    side=None, sorter=None)`: where each value would go in the sorted last axis to
    keep it sorted (`right`/side="right": after equal elements)."""
    name = "SearchSorted"
    if not is_tensor(sorted_sequence) or not is_tensor(values):
        raise TypeError(
            f"For '{name}', 'sorted_sequence' and 'values' must be Tensors, but got "
            f"{type(sorted_sequence).__name__} and {type(values).__name__}"
        )
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"For '{name}', 'side' must be 'left' or 'right', but got {side!r}")
        if right and side == "left":
            raise ValueError(f"For '{name}', side='left' and right=True contradict each other")
        right = side == "right"
    if sorted_sequence.dtype != values.dtype:
        raise RuntimeError(
            f"For '{name}', 'sorted_sequence' and 'values' must have one dtype, but got "
            f"{sorted_sequence.dtype} and {values.dtype}"
        )
    seq = sorted_sequence
    if sorter is not None:
        seq = gather_elements(seq, len(seq.shape) - 1, sorter)
    lead = tuple(seq.shape[:-1])
    if lead and tuple(values.shape[:-1]) != lead:
        raise ValueError(
            f"For '{name}', the leading dimensions of 'sorted_sequence' {tuple(seq.shape)} "
            f"and 'values' {tuple(values.shape)} must match"
        )
    before = less_equal if right else less
    v = values if len(values.shape) else reshape(values, (1,))
    below = before(expand_dims(seq, -2), expand_dims(v, -1))  # (..., V, S)
    count = reduce_sum(cast_to(below, D.int32), -1)
    if not len(values.shape):
        count = reshape(count, ())
    return cast_to(count, D.int32 if out_int32 else D.int64)


def histc(input: Any, bins: int = 100, min: float = 0.0, max: float = 0.0) -> Any:  # noqa: A002
    """`ops.histc(input, bins=100, min=0.0, max=0.0)`: the counts of input's elements
    in `bins` equal-width bins over [min, max] (the data's range when min == max)."""
    name = "Histogram"
    if not is_tensor(input):
        raise TypeError(f"For '{name}', the input must be a Tensor, but got {type(input)}")
    if input.dtype not in (D.float16, D.float32, D.int32):
        raise TypeError(
            f"For primitive[{name}], the input argument[x] must be a type of "
            f"{{Tensor[Float16], Tensor[Float32], Tensor[Int32]}}, but got {input.dtype}."
        )
    if isinstance(bins, bool) or not isinstance(bins, int) or bins <= 0:
        raise ValueError(f"For '{name}', the 'bins' must be int and must > 0, but got {bins!r}.")
    if min > max:
        raise ValueError(f"For '{name}', the 'min' should be <= max: {max}, but got {min}.")
    x = reshape(cast_to(input, D.float32), (-1,))
    if min == max:
        lo, hi = amin(x), amax(x)
    else:
        lo, hi = constant(float(min), D.float32), constant(float(max), D.float32)
    inside = logical_and(greater_equal(x, lo), less_equal(x, hi))
    width = sub(hi, lo)
    safe = add(cast_to(equal(width, 0), D.float32), width)  # a constant input: one bin
    slot = minimum(floor(div(mul(sub(x, lo), bins), safe)), bins - 1)
    hits = equal(expand_dims(slot, 1), constant(np.arange(bins, dtype=np.float32), D.float32))
    counts = reduce_sum(cast_to(logical_and(hits, expand_dims(inside, 1)), D.float32), 0)
    return cast_to(counts, D.int32 if input.dtype == D.int32 else D.float32)


def bucketize(input: Any, boundaries: Any, *, right: bool = False) -> Any:  # noqa: A002
    """`ops.bucketize(input, boundaries, *, right=False)`: for each element, the int32
    number of the ascending `boundaries` (a list of floats) below it (right: not
    above it)."""
    if not is_tensor(input):
        raise TypeError(f"For 'Bucketize', the input must be a Tensor, but got {type(input)}")
    if not isinstance(boundaries, list | tuple) or not all(
        isinstance(b, int | float) and not isinstance(b, bool) for b in boundaries
    ):
        raise TypeError(
            f"For 'Bucketize', 'boundaries' must be a list of numbers, got {boundaries!r}"
        )
    if list(boundaries) != sorted(boundaries):
        raise ValueError("For 'Bucketize', 'boundaries' must be sorted in ascending order")
    if not boundaries:
        return cast_to(less(cast_to(input, D.float32), float("-inf")), D.int32)
    edges = constant(
        np.asarray(boundaries, np.float64), D.float32 if not input.dtype == D.float64 else D.float64
    )
    x = cast_to(input, edges.dtype)
    before = less_equal if right else less
    below = before(edges, expand_dims(x, -1))
    return reduce_sum(cast_to(below, D.int32), -1)
