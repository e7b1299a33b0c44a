"""Scatters that write their first argument: `ops.scatter_add/sub/mul/div/max/min/
update` (rows of axis 0 at `indices`), `ops.scatter_nd_add/sub/mul/div/max/min/
update` (index vectors, as scatter_nd), `ops.inplace_index_add` (along an axis),
and the row ops `ops.inplace_add/sub/update`, which do not write.

MindSpore's kernels write into `input_x`: a Parameter is updated, and so is a
plain Tensor in PyNative; the result is the new value. Here the new value is an
honest composition (segment_reduce.combine_rows, so graph mode and gradients
come for free) and the write is `ops.assign`'s: an Assign that auto-monad orders
in graph mode, the Parameter's memory in PyNative. A plain Tensor takes the new
value in PyNative (as `x[i] = v` does); in a graph it cannot be written, and
the new value is only returned.

Duplicate indices, as MindSpore's CPU kernels: add/sub apply every update,
mul/div multiply/divide by every one, max/min take the extreme, update keeps
the last. Known indices out of range: MindSpore's RuntimeError (a ValueError for
the inplace_* row ops, as MindSpore checks them when inferring).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.ops import array
from mindjit.frontend.ops.axes import moveaxis
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.effects import assign
from mindjit.frontend.ops.gather_ops import _indices, _int, _tensor, check_in_range
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.scatter_ops import nd_rows
from mindjit.frontend.ops.segment_reduce import combine_rows
from mindjit.frontend.tensor import Parameter, Tensor


def write_back(target: Any, new: Any) -> Any:
    """`target` takes `new` (see the module's docstring); returns the new value."""
    if isinstance(target, Parameter):
        written = assign(target, new)
        return new if current_graph() is None else written
    if current_graph() is None and isinstance(target, Tensor):
        target._set_value(new)
    return new


def _same_dtype(name: str, x: Any, u: Any) -> None:
    if u.dtype != x.dtype:
        raise TypeError(
            f"For '{name}', 'updates' must have the dtype of 'input_x' ({x.dtype}), got {u.dtype}"
        )
    if x.dtype.is_bool:
        raise TypeError(f"For '{name}', 'input_x' must be a number tensor, got Bool")


def _scatter_rows(kind: str, prim: str, input_x: Any, indices: Any, updates: Any) -> Any:
    x = _tensor(input_x, prim, "input_x")
    idx = _indices(indices, prim, "indices")
    u = _tensor(updates, prim, "updates")
    _same_dtype(prim, x, u)
    shape = tuple(x.shape)
    if not shape:
        raise ValueError(f"For {prim}, 'input_x' must have rank >= 1, got a scalar")
    if tuple(u.shape) != tuple(idx.shape) + shape[1:]:
        raise ValueError(
            f"For {prim}, updates_shape = indices_shape + input_x_shape[1:], but got "
            f"input_x_shape: {shape}, indices_shape: {tuple(idx.shape)}, updates_shape: "
            f"{tuple(u.shape)}."
        )
    check_in_range(prim, "indices", idx, shape[0])
    k = math.prod(idx.shape)
    new = combine_rows(kind, x, array.reshape(idx, (k,)), array.reshape(u, (k, *shape[1:])))
    return write_back(x, new)


def scatter_add(input_x: Any, indices: Any, updates: Any) -> Any:
    """`ops.scatter_add(input_x, indices, updates)`: input_x[indices[i]] += updates[i]."""
    return _scatter_rows("add", "ScatterAdd", input_x, indices, updates)


def scatter_sub(input_x: Any, indices: Any, updates: Any) -> Any:
    """input_x[indices[i]] -= updates[i]: `Tensor.scatter_sub` (MindSpore has no
    ops.scatter_sub function, only the ScatterSub primitive)."""
    return _scatter_rows("sub", "ScatterSub", input_x, indices, updates)


def scatter_mul(input_x: Any, indices: Any, updates: Any) -> Any:
    """`ops.scatter_mul(input_x, indices, updates)`: input_x[indices[i]] *= updates[i]."""
    return _scatter_rows("mul", "ScatterMul", input_x, indices, updates)


def scatter_div(input_x: Any, indices: Any, updates: Any) -> Any:
    """`ops.scatter_div(input_x, indices, updates)`: input_x[indices[i]] /= updates[i]
    (integers: rounded toward zero)."""
    return _scatter_rows("div", "ScatterDiv", input_x, indices, updates)


def scatter_max(input_x: Any, indices: Any, updates: Any) -> Any:
    """`ops.scatter_max(input_x, indices, updates)`: input_x[indices[i]] = max(input_x[
    indices[i]], updates[i])."""
    return _scatter_rows("max", "ScatterMax", input_x, indices, updates)


def scatter_min(input_x: Any, indices: Any, updates: Any) -> Any:
    """`ops.scatter_min(input_x, indices, updates)`: input_x[indices[i]] = min(input_x[
    indices[i]], updates[i])."""
    return _scatter_rows("min", "ScatterMin", input_x, indices, updates)


def scatter_update(input_x: Any, indices: Any, updates: Any) -> Any:
    """`ops.scatter_update(input_x, indices, updates)`: input_x[indices[i]] = updates[i]
    (a repeated index keeps its last update)."""
    return _scatter_rows("update", "ScatterUpdate", input_x, indices, updates)


# --- index vectors -------------------------------------------------------------------


def _scatter_nd(kind: str, name: str, input_x: Any, indices: Any, updates: Any) -> Any:
    x = _tensor(input_x, name, "input_x")
    u = _tensor(updates, name, "updates")
    _same_dtype(name, x, u)
    rows, lin, flat = nd_rows(name, x, indices, updates)
    return write_back(x, array.reshape(combine_rows(kind, rows, lin, flat), tuple(x.shape)))


def _locking(use_locking: Any, name: str) -> None:
    if not isinstance(use_locking, bool):
        raise TypeError(f"For '{name}', 'use_locking' must be a bool, got {use_locking!r}")


def scatter_nd_add(input_x: Any, indices: Any, updates: Any, use_locking: bool = False) -> Any:
    """`ops.scatter_nd_add(input_x, indices, updates, use_locking=False)`."""
    _locking(use_locking, "scatter_nd_add")
    return _scatter_nd("add", "scatter_nd_add", input_x, indices, updates)


def scatter_nd_sub(input_x: Any, indices: Any, updates: Any, use_locking: bool = False) -> Any:
    """`ops.scatter_nd_sub(input_x, indices, updates, use_locking=False)`."""
    _locking(use_locking, "scatter_nd_sub")
    return _scatter_nd("sub", "scatter_nd_sub", input_x, indices, updates)


def scatter_nd_mul(input_x: Any, indices: Any, updates: Any, use_locking: bool = False) -> Any:
    """`ops.scatter_nd_mul(input_x, indices, updates, use_locking=False)`."""
    _locking(use_locking, "scatter_nd_mul")
    return _scatter_nd("mul", "scatter_nd_mul", input_x, indices, updates)


def scatter_nd_div(input_x: Any, indices: Any, updates: Any, use_locking: bool = False) -> Any:
    """`ops.scatter_nd_div(input_x, indices, updates, use_locking=False)`."""
    _locking(use_locking, "scatter_nd_div")
    return _scatter_nd("div", "scatter_nd_div", input_x, indices, updates)


def scatter_nd_max(input_x: Any, indices: Any, updates: Any, use_locking: bool = False) -> Any:
    """`ops.scatter_nd_max(input_x, indices, updates, use_locking=False)`."""
    _locking(use_locking, "scatter_nd_max")
    return _scatter_nd("max", "scatter_nd_max", input_x, indices, updates)


def scatter_nd_min(input_x: Any, indices: Any, updates: Any, use_locking: bool = False) -> Any:
    """`ops.scatter_nd_min(input_x, indices, updates, use_locking=False)`."""
    _locking(use_locking, "scatter_nd_min")
    return _scatter_nd("min", "scatter_nd_min", input_x, indices, updates)


def scatter_nd_update(input_x: Any, indices: Any, updates: Any, use_locking: bool = True) -> Any:
    """`ops.scatter_nd_update(input_x, indices, updates, use_locking=True)`: a repeated
    index vector keeps its last update."""
    _locking(use_locking, "scatter_nd_update")
    return _scatter_nd("update", "scatter_nd_update", input_x, indices, updates)


# --- along an axis, and rows --------------------------------------------------------


def inplace_index_add(var: Any, indices: Any, updates: Any, axis: int) -> Any:
    """`ops.inplace_index_add(var, indices, updates, axis)`: var[..., indices[i], ...] +=
    updates[..., i, ...] along `axis`; `var` is written (a Parameter, or a Tensor in
    PyNative)."""
    name = "InplaceIndexAdd"
    x = _tensor(var, name, "var")
    idx = _indices(indices, name, "indices")
    u = _tensor(updates, name, "updates")
    _same_dtype(name, x, u)
    shape = tuple(x.shape)
    a = normalize_axis(_int(axis, name, "axis"), len(shape), name)
    if len(idx.shape) != 1:
        raise ValueError(f"For '{name}', 'indices' must be 1-D, got shape {tuple(idx.shape)}")
    want = shape[:a] + (idx.shape[0],) + shape[a + 1 :]
    if tuple(u.shape) != want:
        raise ValueError(f"For '{name}', 'updates' must have shape {want}, got {tuple(u.shape)}")
    check_in_range(name, "indices", idx, shape[a])
    moved = moveaxis(x, a, 0) if a else x
    rows = combine_rows("add", moved, idx, moveaxis(u, a, 0) if a else u)
    return write_back(x, moveaxis(rows, 0, a) if a else rows)


def _row_indices(name: str, indices: Any, n: int, allow_tensor: bool) -> Any:
    if is_tensor(indices):
        if not allow_tensor:
            raise TypeError(f"For '{name}', 'indices' must be an int or a tuple of ints")
        return _indices(indices, name, "indices")
    items = (indices,) if isinstance(indices, int) else indices
    if not isinstance(items, tuple | list) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in items
    ):
        raise TypeError(
            f"For '{name}', 'indices' must be an int or a tuple of ints, got {indices!r}"
        )
    for i in items:
        if not 0 <= i < n:
            raise ValueError(
                f"For primitive[{name}], the value of indices must be in [0,{n}), but got {i}."
            )
    return Tensor(np.asarray(items, np.int32))


def _inplace_rows(kind: str, name: str, x: Any, v: Any, indices: Any) -> Any:
    x = _tensor(x, name, "x")
    v = _tensor(v, name, "v")
    if v.dtype != x.dtype:
        raise TypeError(f"For primitive[{name}], the input type must be same.")
    if len(v.shape) != len(x.shape):
        raise ValueError(
            f"For primitive[{name}], the rank of x must be equal to rank of v which is "
            f"{len(x.shape)} , but got {len(v.shape)}."
        )
    idx = _row_indices(name, indices, x.shape[0], kind == "update")
    check_in_range(name, "indices", idx, x.shape[0])
    if idx.shape[0] != v.shape[0] or tuple(v.shape[1:]) != tuple(x.shape[1:]):
        raise ValueError(
            f"For primitive[{name}], the size of indices must be equal to {v.shape[0]} , "
            f"but got {idx.shape[0]}."
        )
    return combine_rows(kind, x, idx, v)


def inplace_add(x: Any, v: Any, indices: Any) -> Any:
    """`ops.inplace_add(x, v, indices)`: x with x[indices[i]] += v[i] (a new tensor)."""
    return _inplace_rows("add", "InplaceAdd", x, v, indices)


def inplace_sub(x: Any, v: Any, indices: Any) -> Any:
    """`ops.inplace_sub(x, v, indices)`: x with x[indices[i]] -= v[i] (a new tensor)."""
    return _inplace_rows("sub", "InplaceSub", x, v, indices)


def inplace_update(x: Any, v: Any, indices: Any) -> Any:
    """`ops.inplace_update(x, v, indices)`: x with x[indices[i]] = v[i] (a new tensor;
    a repeated index keeps its last row); `indices` may also be an int Tensor."""
    return _inplace_rows("update", "InplaceUpdateV2", x, v, indices)


__all__ = [
    "inplace_add",
    "inplace_index_add",
    "inplace_sub",
    "inplace_update",
    "scatter_add",
    "scatter_div",
    "scatter_max",
    "scatter_min",
    "scatter_mul",
    "scatter_nd_add",
    "scatter_nd_div",
    "scatter_nd_max",
    "scatter_nd_min",
    "scatter_nd_mul",
    "scatter_nd_sub",
    "scatter_nd_update",
    "scatter_update",
]
