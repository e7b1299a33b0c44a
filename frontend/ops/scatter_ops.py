"""Scatters at index vectors, MindSpore 2.x signatures: `ops.scatter_nd(indices,
updates, shape)`, `ops.tensor_scatter_add(input_x, indices, updates)`,
`ops.tensor_scatter_update(input_x, indices, updates)` (and their primitives).

The last axis of `indices` (int32/int64, shape (..., N)) addresses the first N
axes of the result, so `updates` has shape indices.shape[:-1] + shape[N:]. Each
is an honest composition of the gather family's ops (gather_ops.py), so the
gradients come for free: the index vectors become linear positions
(`nd_linear`, as gather_nd does) and the updates are summed into their rows by
`unsorted_segment_sum`, whose gradient gathers the output's gradient back:

- scatter_nd: zeros of `shape` plus the updates (duplicate indices add up, as
  MindSpore documents);
- tensor_scatter_add: input_x plus the same sum;
- tensor_scatter_sub/mul/div/max/min: input_x combined with the updates by
  segment_reduce.combine_rows (duplicates: every update applies);
- tensor_scatter_update: the updates where some index hit, input_x elsewhere.
  MindSpore leaves duplicate indices unspecified; here their updates add up,
  as tensor_scatter_elements does. The gradient is MindSpore's: input_x's is
  zero where an update replaced it, each update's is the output's gradient at
  its index.

A known index out of range is MindSpore's RuntimeError; one computed in a graph
scatters nowhere.
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.gather_ops import _indices, _tensor, nd_linear, unsorted_segment_sum
from mindjit.frontend.ops.segment_reduce import combine_rows


def _shape(shape: Any, name: str) -> tuple[int, ...]:
    if not isinstance(shape, tuple | list) or not all(
        isinstance(d, int) and not isinstance(d, bool) for d in shape
    ):
        raise TypeError(f"For '{name}', the 'shape' must be a tuple of ints, but got {shape!r}")
    if not shape or any(d < 1 for d in shape):
        raise ValueError(f"For '{name}', every element of 'shape' must be >= 1, but got {shape}")
    return tuple(shape)


def _scatter(name: str, indices: Any, updates: Any, shape: tuple[int, ...]) -> Any:
    """Zeros of `shape` (updates' dtype) with the updates summed in at the indices."""
    idx = _indices(indices, name, "indices")
    u = _tensor(updates, name, "updates")
    if u.dtype.is_bool:
        raise TypeError(f"For '{name}', 'updates' must be a number tensor, got Bool")
    if not idx.shape:
        raise ValueError(f"For '{name}', 'indices' must have rank >= 1, got a scalar")
    n = idx.shape[-1]
    if n > len(shape):
        raise ValueError(
            f"For '{name}', indices.shape[-1] ({n}) must not exceed the rank of the output "
            f"({len(shape)})"
        )
    want = tuple(idx.shape[:-1]) + shape[n:]
    if tuple(u.shape) != want:
        raise ValueError(
            f"For '{name}', the shape of 'updates' must be indices.shape[:-1] + "
            f"shape[indices.shape[-1]:] = {want}, but got {tuple(u.shape)}"
        )
    lin = nd_linear(name, idx, shape[:n])
    rows = math.prod(idx.shape[:-1])
    flat_updates = array.reshape(u, (rows, *shape[n:]))
    summed = unsorted_segment_sum(flat_updates, array.reshape(lin, (rows,)), math.prod(shape[:n]))
    return array.reshape(summed, shape)


def scatter_nd(indices: Any, updates: Any, shape: Any) -> Any:
    """`ops.scatter_nd(indices, updates, shape)`: zeros of `shape` with `updates` added
    at `indices`."""
    return _scatter("scatter_nd", indices, updates, _shape(shape, "scatter_nd"))


def _input(name: str, input_x: Any, updates: Any) -> Any:
    x = _tensor(input_x, name, "input_x")
    u = _tensor(updates, name, "updates")
    if u.dtype != x.dtype:
        raise TypeError(
            f"For '{name}', 'updates' must have the dtype of 'input_x' ({x.dtype}), got {u.dtype}"
        )
    return x


def tensor_scatter_add(input_x: Any, indices: Any, updates: Any) -> Any:
    """`ops.tensor_scatter_add(input_x, indices, updates)`: input_x with `updates` added
    at `indices`."""
    name = "tensor_scatter_add"
    x = _input(name, input_x, updates)
    return fmath.add(x, _scatter(name, indices, updates, tuple(x.shape)))


def tensor_scatter_update(input_x: Any, indices: Any, updates: Any) -> Any:
    """`ops.tensor_scatter_update(input_x, indices, updates)`: input_x with the slices at
    `indices` replaced by `updates`."""
    name = "tensor_scatter_update"
    x = _input(name, input_x, updates)
    shape = tuple(x.shape)
    scattered = _scatter(name, indices, updates, shape)
    n = indices.shape[-1]
    ones = array.ones(tuple(indices.shape[:-1]), D.int32)
    hits = _scatter(name, indices, ones, shape[:n])
    hit = array.reshape(fmath.greater(hits, 0), shape[:n] + (1,) * (len(shape) - n))
    return fmath.select(hit, scattered, x)


def nd_rows(name: str, x: Any, indices: Any, updates: Any) -> tuple[Any, Any, Any]:
    """(x as (R, ...) rows, the linear row of each index vector (k,), updates as
    (k, ...) rows) for a scatter of `updates` into `x` at the index vectors on the
    last axis of `indices` (checked as scatter_nd checks them)."""
    idx = _indices(indices, name, "indices")
    u = _tensor(updates, name, "updates")
    shape = tuple(x.shape)
    if not idx.shape:
        raise ValueError(f"For '{name}', 'indices' must have rank >= 1, got a scalar")
    n = idx.shape[-1]
    if n > len(shape):
        raise ValueError(
            f"For '{name}', indices.shape[-1] ({n}) must not exceed the rank of 'input_x' "
            f"({len(shape)})"
        )
    want = tuple(idx.shape[:-1]) + shape[n:]
    if tuple(u.shape) != want:
        raise ValueError(
            f"For '{name}', the shape of 'updates' must be indices.shape[:-1] + "
            f"input_x.shape[indices.shape[-1]:] = {want}, but got {tuple(u.shape)}"
        )
    k = math.prod(idx.shape[:-1])
    lin = array.reshape(nd_linear(name, idx, shape[:n]), (k,))
    rows = array.reshape(x, (math.prod(shape[:n]), *shape[n:]))
    return rows, lin, array.reshape(u, (k, *shape[n:]))


def _tensor_scatter(kind: str, name: str, input_x: Any, indices: Any, updates: Any) -> Any:
    x = _input(name, input_x, updates)
    if x.dtype.is_bool:
        raise TypeError(f"For '{name}', 'input_x' must be a number tensor, got Bool")
    rows, lin, u = nd_rows(name, x, indices, updates)
    return array.reshape(combine_rows(kind, rows, lin, u), tuple(x.shape))


def tensor_scatter_sub(input_x: Any, indices: Any, updates: Any) -> Any:
    """`ops.tensor_scatter_sub(input_x, indices, updates)`: input_x with `updates`
    subtracted at `indices` (duplicates: each is subtracted)."""
    return _tensor_scatter("sub", "tensor_scatter_sub", input_x, indices, updates)


def tensor_scatter_mul(input_x: Any, indices: Any, updates: Any) -> Any:
    """`ops.tensor_scatter_mul(input_x, indices, updates)`: input_x multiplied by
    `updates` at `indices` (duplicates: by each)."""
    return _tensor_scatter("mul", "tensor_scatter_mul", input_x, indices, updates)


def tensor_scatter_div(input_x: Any, indices: Any, updates: Any) -> Any:
    """`ops.tensor_scatter_div(input_x, indices, updates)`: input_x divided by
    `updates` at `indices` (integers: rounded toward zero)."""
    return _tensor_scatter("div", "tensor_scatter_div", input_x, indices, updates)


def tensor_scatter_max(input_x: Any, indices: Any, updates: Any) -> Any:
    """`ops.tensor_scatter_max(input_x, indices, updates)`: the maximum of input_x and
    the `updates` at `indices`."""
    return _tensor_scatter("max", "tensor_scatter_max", input_x, indices, updates)


def tensor_scatter_min(input_x: Any, indices: Any, updates: Any) -> Any:
    """`ops.tensor_scatter_min(input_x, indices, updates)`: the minimum of input_x and
    the `updates` at `indices`."""
    return _tensor_scatter("min", "tensor_scatter_min", input_x, indices, updates)


__all__ = [
    "scatter_nd",
    "tensor_scatter_add",
    "tensor_scatter_div",
    "tensor_scatter_max",
    "tensor_scatter_min",
    "tensor_scatter_mul",
    "tensor_scatter_sub",
    "tensor_scatter_update",
]
