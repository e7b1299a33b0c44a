"""Index-driven ops: gather, unsorted_segment_sum, and what composes from them.

`gather` and `unsorted_segment_sum` are mindir ops (each the other's
gradient). The rest are honest compositions, so their gradients come for free:

- `gather_elements` (GatherD) and `gather_nd` gather from a flattened view at
  linear indices computed from the index tensor;
- `tensor_scatter_elements` / `scatter` sum the updates into a flattened view
  with `unsorted_segment_sum` ('none' replaces the hit elements; MindSpore
  leaves duplicate indices unspecified, here they add up);
- `one_hot` compares the indices with a constant iota and selects.

Out-of-range indices: MindSpore's CPU kernels raise RuntimeError. Where the
indices are known when the op is built (a Tensor in PyNative, a constant in a
graph) the same RuntimeError is raised here; indices computed in a graph are
only known when it runs, and then an out-of-range index gathers zeros (and
scatters nowhere), as the mindir ops define.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.dialects import mindir as M
from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.ops import array, reduce
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.core import normalize_axis, run
from mindjit.frontend.ops.promotion import as_operand, is_tensor
from mindjit.frontend.tensor import Parameter, Tensor

_INDEX_DTYPES = (D.int32, D.int64)


def _tensor(x: Any, name: str, what: str) -> Any:
    if not is_tensor(x):
        raise TypeError(f"For '{name}', '{what}' must be a Tensor, got {type(x).__name__}")
    return x


def _indices(x: Any, name: str, what: str) -> Any:
    x = _tensor(x, name, what)
    if x.dtype not in _INDEX_DTYPES:
        raise TypeError(f"For '{name}', '{what}' must be a Tensor of int32 or int64, got {x.dtype}")
    return x


def _int(value: Any, name: str, what: str) -> int:
    if is_tensor(value) and isinstance(value, Tensor) and value.size == 1:
        value = value.asnumpy().reshape(()).item()
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"For '{name}', '{what}' must be an int, got {type(value).__name__}")
    return int(value)


def known(x: Any) -> np.ndarray | None:
    """The value of `x` if it is fixed when the op is built, else None."""
    if not isinstance(x, Tensor) or (isinstance(x, Parameter) and current_graph() is not None):
        return None
    return x.asnumpy()


def check_in_range(name: str, what: str, indices: Any, n: int) -> None:
    """MindSpore's RuntimeError for a known index outside [0, n)."""
    values = known(indices)
    if values is None or values.size == 0:
        return
    bad = (values < 0) | (values >= n)
    if bad.any():
        raise RuntimeError(
            f"For '{name}', the '{what}' must be in the range [0, {n}), but got "
            f"{values[bad].reshape(-1)[0]}"
        )


def _iconst(values: Any, dtype: D.DType) -> Tensor:
    return Tensor(np.asarray(values, dtype=dtype.numpy))


# --- the mindir ops -----------------------------------------------------------------


def gather(input_params: Any, input_indices: Any, axis: Any, batch_dims: int = 0) -> Any:
    """`ops.gather(input_params, input_indices, axis, batch_dims=0)`: the slices of
    `input_params` along `axis` at each index; shape params.shape[:axis] +
    indices.shape + params.shape[axis + 1:]."""
    params = _tensor(input_params, "gather", "input_params")
    indices = _indices(input_indices, "gather", "input_indices")
    axis = _int(axis, "gather", "axis")
    if _int(batch_dims, "gather", "batch_dims") != 0:
        raise ValueError(f"For 'gather', only batch_dims=0 is supported, got {batch_dims}")
    rank = len(params.shape)
    if rank == 0:
        raise ValueError("For 'gather', 'input_params' must have rank >= 1, got a scalar")
    a = normalize_axis(axis, rank, "gather")
    check_in_range("gather", "input_indices", indices, params.shape[a])
    return _gather(params, indices, a)


def _gather(params: Any, indices: Any, axis: int) -> Any:
    """mindir.gather, no range check: an out-of-range index gathers zeros."""
    return run(
        ("gather", axis), lambda e, v: e.value(M.GatherOp.get(v[0], v[1], axis)), params, indices
    )


def lookup_rows(table: Any, ids: Any) -> Any:
    """The rows of `table` at `ids` (shape ids.shape + table.shape[1:]); an id out of
    range gives a row of zeros, as MindSpore's nn.Embedding documents."""
    return _gather(table, _indices(ids, "Embedding", "x"), 0)


def unsorted_segment_sum(input_x: Any, segment_ids: Any, num_segments: Any) -> Any:
    """`ops.unsorted_segment_sum(input_x, segment_ids, num_segments)`: out[s] is the
    sum of the slices of `input_x` whose id is s; ids outside [0, num_segments)
    are dropped (MindSpore's CPU kernel)."""
    x = _tensor(as_operand(input_x, "'unsorted_segment_sum' input_x"), "unsorted_segment_sum", "x")
    ids = _indices(segment_ids, "unsorted_segment_sum", "segment_ids")
    n = _int(num_segments, "unsorted_segment_sum", "num_segments")
    if n <= 0:
        raise ValueError(f"For 'unsorted_segment_sum', 'num_segments' must be > 0, got {n}")
    if x.dtype.is_bool:
        raise TypeError("For 'unsorted_segment_sum', 'input_x' must be a number tensor, got Bool")
    if tuple(x.shape[: len(ids.shape)]) != tuple(ids.shape):
        raise ValueError(
            f"For 'unsorted_segment_sum', the shape of 'segment_ids' {tuple(ids.shape)} must be "
            f"a prefix of the shape of 'input_x' {tuple(x.shape)}"
        )

    def build(e: Any, v: list[Any]) -> Any:
        return e.value(M.UnsortedSegmentSumOp.get(v[0], v[1], n))

    return run(("unsorted_segment_sum", n), build, x, ids)


# --- compositions ----------------------------------------------------------------------


def _elementwise_linear(name: str, shape: tuple[int, ...], index: Any, dim: int) -> Any:
    """Linear positions in a `shape` tensor of `index` along `dim` (the other axes
    are the index's own coordinates); -1 where the index is out of range."""
    strides = [math.prod(shape[k + 1 :]) for k in range(len(shape))]
    grid = np.indices(tuple(index.shape), dtype=np.int64)
    base = sum(
        (grid[k] * strides[k] for k in range(len(shape)) if k != dim),
        np.zeros(index.shape, np.int64),
    )
    dtype = D.int64 if math.prod(shape) >= 2**31 else index.dtype
    idx = index if index.dtype == dtype else array.cast(index, dtype)
    lin = fmath.add(fmath.mul(idx, _iconst(strides[dim], dtype)), _iconst(base, dtype))
    inside = fmath.logical_and(fmath.greater_equal(idx, 0), fmath.less(idx, shape[dim]))
    return fmath.select(inside, lin, _iconst(-1, dtype))


def _check_index_shape(name: str, x: Any, index: Any, dim: int) -> None:
    if len(index.shape) != len(x.shape):
        raise ValueError(
            f"For '{name}', 'index' must have the rank of 'input' ({len(x.shape)}), got "
            f"{len(index.shape)}"
        )
    for k, (i, s) in enumerate(zip(index.shape, x.shape)):
        if k != dim and i > s:
            raise ValueError(
                f"For '{name}', 'index'.shape[{k}] ({i}) must not exceed 'input'.shape[{k}] ({s})"
            )


def gather_elements(input: Any, dim: int, index: Any) -> Any:  # noqa: A002
    """`ops.gather_elements(input, dim, index)` (GatherD): out[i][j] = input[index[i][j]][j]
    for dim 0, likewise for other dims; shape of `index`."""
    x = _tensor(input, "gather_elements", "input")
    index = _indices(index, "gather_elements", "index")
    d = normalize_axis(_int(dim, "gather_elements", "dim"), len(x.shape), "gather_elements")
    _check_index_shape("gather_elements", x, index, d)
    check_in_range("gather_elements", "index", index, x.shape[d])
    shape = tuple(x.shape)
    flat = array.reshape(x, (max(math.prod(shape), 1),))
    return gather(flat, _elementwise_linear("gather_elements", shape, index, d), 0)


def gather_nd(input_x: Any, indices: Any) -> Any:
    """`ops.gather_nd(input_x, indices)`: the slices input_x[indices[..., :]]; shape
    indices.shape[:-1] + input_x.shape[indices.shape[-1]:]."""
    x = _tensor(input_x, "gather_nd", "input_x")
    indices = _indices(indices, "gather_nd", "indices")
    if not indices.shape:
        raise ValueError("For 'gather_nd', 'indices' must have rank >= 1, got a scalar")
    shape, n = tuple(x.shape), indices.shape[-1]
    if n > len(shape):
        raise ValueError(
            f"For 'gather_nd', indices.shape[-1] ({n}) must not exceed the rank of 'input_x' "
            f"({len(shape)})"
        )
    lin = nd_linear("gather_nd", indices, shape[:n])
    flat = array.reshape(x, (math.prod(shape[:n]), *shape[n:]))
    return gather(flat, lin, 0)


def nd_linear(name: str, indices: Any, dims: tuple[int, ...]) -> Any:
    """The linear positions in a `dims`-shaped grid of the index vectors on the last
    axis of `indices` (shape indices.shape[:-1]); -1 for a vector out of range
    (MindSpore's RuntimeError when the indices are known)."""
    values = known(indices)
    if values is not None and values.size:
        bad = (values < 0) | (values >= np.asarray(dims))
        if bad.any():
            raise RuntimeError(
                f"For '{name}', the 'indices' must be in the range [0, {list(dims)}), "
                f"but got {values[bad].reshape(-1)[0]}"
            )
    n = len(dims)
    dtype = D.int64 if math.prod(dims) >= 2**31 else indices.dtype
    idx = indices if indices.dtype == dtype else array.cast(indices, dtype)
    strides = [math.prod(dims[k + 1 : n]) for k in range(n)]
    lin = reduce.reduce_sum(fmath.mul(idx, _iconst(strides, dtype)), -1)
    inside = reduce.reduce_all(
        fmath.logical_and(fmath.greater_equal(idx, 0), fmath.less(idx, _iconst(dims, dtype))),
        -1,
    )
    return fmath.select(inside, lin, _iconst(-1, dtype))


_REDUCTIONS = ("none", "add")


def tensor_scatter_elements(
    input_x: Any, indices: Any, updates: Any, axis: int = 0, reduction: str = "none"
) -> Any:
    """`ops.tensor_scatter_elements(input_x, indices, updates, axis=0, reduction='none')`:
    input_x with updates[i][j] written to (reduction 'add': added to) position
    [indices[i][j]][j] for axis 0, likewise for other axes. Duplicate indices
    with 'none' are unspecified in MindSpore; here their updates add up."""
    x = _tensor(input_x, "tensor_scatter_elements", "input_x")
    index = _indices(indices, "tensor_scatter_elements", "indices")
    u = _tensor(updates, "tensor_scatter_elements", "updates")
    if reduction not in _REDUCTIONS:
        raise ValueError(
            f"For 'tensor_scatter_elements', 'reduction' must be one of {list(_REDUCTIONS)}, "
            f"got {reduction!r}"
        )
    if u.dtype != x.dtype:
        raise TypeError(
            f"For 'tensor_scatter_elements', 'updates' must have the dtype of 'input_x' "
            f"({x.dtype}), got {u.dtype}"
        )
    if tuple(u.shape) != tuple(index.shape):
        raise ValueError(
            f"For 'tensor_scatter_elements', 'updates' must have the shape of 'indices' "
            f"{tuple(index.shape)}, got {tuple(u.shape)}"
        )
    name = "tensor_scatter_elements"
    d = normalize_axis(_int(axis, name, "axis"), len(x.shape), name)
    _check_index_shape(name, x, index, d)
    check_in_range(name, "indices", index, x.shape[d])
    shape = tuple(x.shape)
    size = max(math.prod(shape), 1)
    lin = _elementwise_linear(name, shape, index, d)
    added = array.reshape(unsorted_segment_sum(u, lin, size), shape)
    if reduction == "add":
        return fmath.add(x, added)
    ones = array.ones(tuple(index.shape), D.int32)
    hit = fmath.greater(array.reshape(unsorted_segment_sum(ones, lin, size), shape), 0)
    return fmath.select(hit, added, x)


def scatter(input: Any, axis: int, index: Any, src: Any) -> Any:  # noqa: A002
    """`ops.scatter(input, axis, index, src)`: tensor_scatter_elements(input, index, src, axis)."""
    return tensor_scatter_elements(input, index, src, axis)


def _value_dtype(value: Any, name: str) -> D.DType:
    if is_tensor(value):
        return value.dtype
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise TypeError(f"For '{name}', 'on_value' and 'off_value' must be Tensors or numbers")
    return D.int64 if isinstance(value, int | np.integer) else D.float32


def one_hot(indices: Any, depth: int, on_value: Any = 1, off_value: Any = 0, axis: int = -1) -> Any:
    """`ops.one_hot(indices, depth, on_value=1, off_value=0, axis=-1)`: `on_value`
    where the new axis' position equals the index, else `off_value`; an index
    outside [0, depth) gives a line of `off_value`. Dtype: on_value's (a Python
    int is int64, a float float32)."""
    index = _indices(indices, "one_hot", "indices")
    depth = _int(depth, "one_hot", "depth")
    if depth < 0:
        raise ValueError(f"For 'one_hot', 'depth' must be >= 0, got {depth}")
    axis = _int(axis, "one_hot", "axis")
    rank = len(index.shape)
    if not -1 <= axis <= rank:
        raise ValueError(f"For 'one_hot', 'axis' must be in [-1, {rank}], got {axis}")
    a = rank if axis == -1 else axis
    dtype = _value_dtype(on_value, "one_hot")
    if dtype not in (D.int32, D.int64, D.float16, D.float32, D.float64):
        raise TypeError(
            f"For 'one_hot', 'on_value' must be int32, int64, float16 or float32, got {dtype}"
        )
    iota = np.arange(depth, dtype=index.dtype.numpy).reshape((depth,) + (1,) * (rank - a))
    hit = fmath.equal(array.expand_dims(index, a), Tensor(iota))
    on = on_value if is_tensor(on_value) else _iconst(on_value, dtype)
    off = array.cast(off_value, dtype) if is_tensor(off_value) else _iconst(off_value, dtype)
    on = on if on.dtype == dtype else array.cast(on, dtype)
    return fmath.select(hit, on, off)
