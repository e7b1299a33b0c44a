"""More ops whose result's shape depends on the input's values: `ops.argwhere`,
`ops.bincount`, `ops.unique_consecutive`. They run as `ops.nonzero` and
`ops.unique` do (frontend/ops/value_shapes.py): in PyNative mode, or in GRAPH_MODE on
constant inputs, folded while the graph is traced; a computed input there is a
ValueError. The static-shape part is mindir ops, the count is read back.

MindSpore 2.10's rules, which mindjit follows: `bincount` counts in float32 even
without weights, skips negative values, and takes a float input's integer part;
`unique_consecutive`'s inverse and counts are int64.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import eager
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.gather_ops import gather, unsorted_segment_sum
from mindjit.frontend.ops.reduce import reduce_any, reduce_max
from mindjit.frontend.ops.scan import cumsum
from mindjit.frontend.ops.split import require_tensor
from mindjit.frontend.ops.value_shapes import _check_constant, _count, _nonzero
from mindjit.frontend.tensor import Tensor


def argwhere(input: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.argwhere(input)`: the int64 coordinates of the nonzero elements, shape
    (count, rank), as `ops.nonzero`."""
    name = "argwhere"
    x = require_tensor(input, name)
    if not x.shape:
        raise ValueError(f"For '{name}', the rank of 'input' must be >= 1, but got 0")
    _check_constant(x, name)
    with eager():
        return _nonzero(x, tuple(x.shape))


def bincount(input: Any, weights: Any = None, minlength: int = 0) -> Any:  # noqa: A002
    """`ops.bincount(input, weights=None, minlength=0)`: how often each value 0..max
    occurs in the 1-D `input` (the sum of its `weights` instead), at least `minlength`
    long; float32."""
    name = "bincount"
    x = require_tensor(input, name)
    if len(x.shape) != 1:
        raise ValueError(f"For '{name}', 'input' must be 1-D, but got {tuple(x.shape)}")
    if isinstance(minlength, bool) or not isinstance(minlength, int) or minlength < 0:
        raise ValueError(f"For '{name}', 'minlength' must be a non-negative int, got {minlength!r}")
    if weights is not None:
        require_tensor(weights, name, "weights")
        if tuple(weights.shape) != tuple(x.shape):
            raise ValueError(f"For '{name}', 'weights' must have input's shape {tuple(x.shape)}")
    _check_constant(x, name)
    with eager():
        ids = array.cast(x, D.int32)
        top = _count(reduce_max(ids)) + 1 if x.shape[0] else 0
        length = max(top, minlength)
        w = (
            Tensor(np.ones(x.shape, np.float32))
            if weights is None
            else array.cast(weights, D.float32)
        )
        if length == 0:
            return Tensor(np.zeros((0,), np.float32))
        return unsorted_segment_sum(w, ids, length)  # a negative id is dropped


def unique_consecutive(
    input: Any,  # noqa: A002
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: Any = None,
) -> Any:
    """`ops.unique_consecutive(input, return_inverse=False, return_counts=False,
    dim=None)`: each run of equal consecutive elements (slices along `dim`) kept once;
    with the int64 run number of every element and the run lengths if asked."""
    name = "unique_consecutive"
    x = require_tensor(input, name)
    _check_constant(x, name)
    with eager():
        if dim is None:
            rows = array.reshape(x, (-1, 1))
            axis = 0
        else:
            axis = normalize_axis(dim, len(x.shape), name)
            perm = [axis] + [a for a in range(len(x.shape)) if a != axis]
            rows = array.reshape(array.transpose(x, perm), (x.shape[axis], -1))
        n = rows.shape[0]
        if n == 0:
            empty = Tensor(np.zeros((0,), np.int64))
            return _outputs(
                array.reshape(x, (0,)) if dim is None else x,
                empty,
                empty,
                return_inverse,
                return_counts,
            )
        changed = reduce_any(fmath.not_equal(rows[1:], rows[:-1]), 1)
        first = array.concat((Tensor(np.ones((1,), np.bool_)), changed), 0)
        group = fmath.sub(cumsum(array.cast(first, D.int32), 0), 1)
        runs = _count(group[-1]) + 1
        starts = array.reshape(_nonzero(first, (n,)), (runs,))
        source = array.reshape(x, (-1,)) if dim is None else x
        values = gather(source, starts, axis)
        counts = array.cast(
            unsorted_segment_sum(Tensor(np.ones((n,), np.int32)), group, runs), D.int64
        )
        inverse = array.cast(group, D.int64)
        if dim is None:
            inverse = array.reshape(inverse, tuple(x.shape))
        return _outputs(values, inverse, counts, return_inverse, return_counts)


def _outputs(values: Any, inverse: Any, counts: Any, with_inverse: bool, with_counts: bool) -> Any:
    if not with_inverse and not with_counts:
        return values
    out = [values]
    if with_inverse:
        out.append(inverse)
    if with_counts:
        out.append(counts)
    return tuple(out)
