"""MindSpore 2.10's writes into slices and index sets, composed of the ops mindjit has
(select, gather, matmul), so both modes and gradients follow: `ops.index_fill`,
`ops.index_add`, `ops.select_scatter`, `ops.slice_scatter`, and `ops.masked_select`,
whose result's length depends on the mask's values: it runs as `ops.nonzero` does
(frontend/ops/value_shapes.py): in PyNative mode, or in GRAPH_MODE on constant
inputs, folded while the graph is traced; a computed input there is a ValueError.

MindSpore 2.10's rules, which mindjit follows: `index_fill` wants an int32 index (a
TypeError otherwise) and raises RuntimeError for an axis or index out of range;
`select_scatter`'s shape errors name slice_scatter, as MindSpore's do.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import eager
from mindjit.frontend.ops.array import broadcast_to, expand_dims, reshape, transpose
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.gather_ops import gather
from mindjit.frontend.ops.math import add, equal, less, matmul, select
from mindjit.frontend.ops.promotion import constant, is_tensor
from mindjit.frontend.ops.reduce import reduce_any
from mindjit.frontend.ops.value_shapes import _check_constant, _nonzero
from mindjit.frontend.tensor import Tensor


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _along(axis: int, rank: int) -> tuple[int, ...]:
    """The shape that lays a 1-D tensor along `axis` of a rank-`rank` tensor."""
    return tuple(-1 if a == axis else 1 for a in range(rank))


def _wrapped(index: Any, n: int) -> Any:
    """Negative indices counted from the end."""
    return select(less(index, 0), add(index, n), index)


def index_fill(x: Any, axis: Any, index: Any, value: Any) -> Any:
    """`ops.index_fill(x, axis, index, value)`: x with the slices at `index` (int32)
    along `axis` set to `value` (a number or a 0-d tensor)."""
    name = "IndexFill"
    if not is_tensor(x):
        raise TypeError(f"For '{name}', 'x' must be a Tensor, but got {type(x)}")
    if not is_tensor(index) or index.dtype != D.int32:
        got = index.dtype if is_tensor(index) else type(index).__name__
        raise TypeError(
            f"For primitive[{name}], the input argument[index] must be a type of "
            f"{{Tensor[Int32]}}, but got {got}."
        )
    rank = len(x.shape)
    if not _is_int(axis) and not (is_tensor(axis) and isinstance(axis, Tensor)):
        raise TypeError(f"For '{name}', 'axis' must be an int, but got {type(axis)}")
    axis = int(axis.asnumpy()) if is_tensor(axis) else axis
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise RuntimeError(
            f"For '{name}', the input of 'dim' out of range (expected to be in range of "
            f"[{-max(rank, 1)}, {max(rank, 1) - 1}], but got {axis})"
        )
    axis %= max(rank, 1)
    n = x.shape[axis] if rank else 1
    if isinstance(index, Tensor):  # a value the host knows: check it, as MindSpore's kernel
        bad = [int(i) for i in index.asnumpy().reshape(-1) if not -n <= int(i) < n]
        if bad:
            raise RuntimeError(
                f"For '{name}', the input of 'index' out of range (expected to be in range "
                f"of [{-n}, {n - 1}], but got {bad[0]})"
            )
    flat = _wrapped(reshape(index, (-1, 1)), n)
    hit = reduce_any(equal(flat, constant(np.arange(n, dtype=np.int32), D.int32)), 0)
    if rank:
        hit = reshape(hit, _along(axis, rank))
    return select(broadcast_to(hit, tuple(x.shape)), cast_to(value, x.dtype), x)


def _moved_last(t: Any, axis: int) -> tuple[Any, list[int]]:
    perm = [a for a in range(len(t.shape)) if a != axis] + [axis]
    return transpose(t, perm), perm


def index_add(
    x: Any, indices: Any, y: Any, axis: int, use_lock: bool = True, check_index_bound: bool = True
) -> Any:
    """`ops.index_add(x, indices, y, axis, ...)`: x with y's slices added at `indices`
    along `axis` (repeated indices add up); y.shape[axis] == len(indices)."""
    name = "IndexAdd"
    if not is_tensor(x) or not is_tensor(y) or not is_tensor(indices):
        raise TypeError(f"For '{name}', 'x', 'indices' and 'y' must be Tensors")
    rank = len(x.shape)
    if not _is_int(axis) or not -rank <= axis < rank:
        raise ValueError(f"For '{name}', 'axis' must be an int in [{-rank}, {rank}), got {axis}")
    axis %= rank
    if len(indices.shape) != 1:
        raise ValueError(f"For '{name}', 'indices' must be 1-D, but got {tuple(indices.shape)}")
    k, n = indices.shape[0], x.shape[axis]
    if len(y.shape) != rank or y.shape[axis] != k:
        raise ValueError(
            f"For primitive[{name}], the attribute[size of indices] must be equal to "
            f"{y.shape[axis] if len(y.shape) == rank else '?'}, but got {k}."
        )
    hit = equal(reshape(indices, (k, 1)), constant(np.arange(n, dtype=np.int32), D.int32))
    moved, perm = _moved_last(cast_to(y, x.dtype), axis)
    spread = matmul(moved, cast_to(hit, x.dtype))  # (..., k) @ (k, n)
    back = [perm.index(a) for a in range(rank)]
    return add(x, transpose(spread, back))


def slice_scatter(
    input: Any,  # noqa: A002
    src: Any,
    axis: int = 0,
    start: Any = None,
    end: Any = None,
    step: int = 1,
) -> Any:
    """`ops.slice_scatter(input, src, axis=0, start=None, end=None, step=1)`: input
    with input[..., start:end:step, ...] on `axis` replaced by `src`."""
    name = "slice_scatter"
    if not is_tensor(input) or not is_tensor(src):
        raise TypeError(f"For {name}, 'input' and 'src' must be Tensors")
    rank = len(input.shape)
    if not _is_int(axis) or not -rank <= axis < rank:
        raise ValueError(f"For {name}, 'axis' must be an int in [{-rank}, {rank}), got {axis}")
    axis %= rank
    n = input.shape[axis]
    positions = list(range(n))[slice(start, end, step)]
    want = tuple(len(positions) if a == axis else d for a, d in enumerate(input.shape))
    if tuple(src.shape) != want:
        raise ValueError(
            f"For {name}, src shape should be equal to the slice size,but got src shape "
            f"{tuple(src.shape)} and slice shape {want}"
        )
    slot = np.zeros(n, np.int32)
    inside = np.zeros(n, bool)
    for k, p in enumerate(positions):
        slot[p], inside[p] = k, True
    if not positions:
        return input
    spread = gather(cast_to(src, input.dtype), constant(slot, D.int32), axis)
    mask = constant(inside.reshape(_along(axis, rank)), D.bool_)
    return select(broadcast_to(mask, tuple(input.shape)), spread, input)


def select_scatter(input: Any, src: Any, axis: int, index: int) -> Any:  # noqa: A002
    """`ops.select_scatter(input, src, axis, index)`: input with the slice at `index`
    on `axis` replaced by `src` (input's shape without that axis)."""
    if not is_tensor(input) or not is_tensor(src):
        raise TypeError("For select_scatter, 'input' and 'src' must be Tensors")
    rank = len(input.shape)
    if not _is_int(axis) or not -rank <= axis < rank:
        raise ValueError(f"For select_scatter, 'axis' must be in [{-rank}, {rank}), got {axis}")
    axis %= rank
    if not _is_int(index):
        raise TypeError(f"For select_scatter, 'index' must be an int, but got {type(index)}")
    n = input.shape[axis]
    start = index + n if index < 0 else index
    return slice_scatter(input, expand_dims(src, axis), axis, start, start + 1)


def masked_select(input: Any, mask: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.masked_select(input, mask)`: the 1-D tensor of input's elements where the
    bool `mask` (broadcast with input) is True, in row-major order."""
    name = "masked_select"
    if not is_tensor(input) or not is_tensor(mask):
        raise TypeError(f"For '{name}', 'input' and 'mask' must be Tensors")
    if not mask.dtype.is_bool:
        raise RuntimeError(f"For '{name}', 'mask' must be a bool tensor, but got {mask.dtype}")
    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(mask.shape)))
    _check_constant(input, name)
    _check_constant(mask, name)
    with eager():
        size = math.prod(shape)
        flat_mask = reshape(broadcast_to(mask, shape), (size,))
        where = reshape(_nonzero(flat_mask, (size,)), (-1,))
        return gather(reshape(broadcast_to(input, shape), (size,)), where, 0)
