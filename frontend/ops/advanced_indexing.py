"""Tensor and list indices in reads, and item assignment (`x[index] = v`).

Both follow numpy's (and MindSpore's) indexing rules and compose from existing
mindir ops, so gradients come from theirs:

- An index whose value is known when the op is built (ints, slices with any
  step, `...`, `None`, lists, numpy arrays, a Tensor in PyNative mode or a
  constant Tensor in a graph, bool masks among them) is resolved on a constant
  map of linear positions, `np.arange(x.size).reshape(x.shape)[index]`: numpy
  itself decides the result's shape (including where advanced-index axes go
  when slices separate them) and raises IndexError for an index out of range.
  A read is then one `mindir.gather` of the flattened tensor at those
  positions; an assignment broadcasts `v` to the selected region, places it
  with a gather and keeps the rest of `x` with `mindir.select` on a constant
  mask. Repeated positions: the last write wins, as numpy.
- An index computed in a graph (a tensor only known when the graph runs):
  one int tensor among ints, slices and `...` (`x[idx]`, `x[:, idx]`,
  `x[argmax]`) reads with `mindir.gather` along its axis; `x[idx] = v`
  scatters with `mindir.unsorted_segment_sum` after zeroing the values a later
  repeat of their index overwrites (the last write wins, as on known indices)
  and selects; `x[mask] = v` is
  `select(mask, v, x)`. A bool mask read (`x[mask]`) has a data-dependent
  shape, which a static-shape compiler cannot give: it is refused (ValueError).

Item assignment never writes into a tensor: it returns a new one. PyNative's
`Tensor.__setitem__` then replaces the Tensor object's value (as MindSpore's
does); graph mode rebinds the name (frontend/graph/tensor_items.py).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.gather_ops import _gather, known, unsorted_segment_sum
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.reduce import reduce_any
from mindjit.frontend.tensor import Tensor

_INDEX_TYPES = "int, bool, None, ellipsis, slice, Tensor, list or tuple"


def _items(index: Any) -> list[Any]:
    return list(index) if isinstance(index, tuple) else [index]


def _is_dynamic(item: Any) -> bool:
    """A tensor whose value is only known when the graph runs."""
    return is_tensor(item) and known(item) is None


def _basic_item(item: Any) -> bool:
    if item is None or item is Ellipsis:
        return True
    if isinstance(item, bool | np.bool_):
        return False
    if isinstance(item, int | np.integer):
        return True
    if isinstance(item, slice):
        return item.step is None or (isinstance(item.step, int | np.integer) and item.step > 0)
    return False


def is_basic(index: Any) -> bool:
    """Ints, positive-step slices, `...` and None: the plain `mindir.get_item` path."""
    return all(_basic_item(i) for i in _items(index))


def _const_item(item: Any) -> Any:
    """An index item as numpy takes it, or raise MindSpore's TypeError."""
    if item is None or item is Ellipsis or isinstance(item, slice):
        if isinstance(item, slice):
            for bound in (item.start, item.stop, item.step):
                if bound is not None and (
                    isinstance(bound, bool) or not isinstance(bound, int | np.integer)
                ):
                    raise TypeError(
                        f"slice indices must be integers or None, got {type(bound).__name__}"
                    )
            if item.step == 0:
                raise ValueError("slice step cannot be zero")
        return item
    if isinstance(item, bool | np.bool_ | int | np.integer):
        return item
    if is_tensor(item) or isinstance(item, np.ndarray | list | tuple):
        arr = known(item) if is_tensor(item) else np.asarray(item)
        if arr.dtype.kind not in "biu" or (arr.size == 0 and isinstance(item, list | tuple)):
            if arr.size == 0:
                return np.zeros((0,), np.int64)
            raise TypeError(
                f"tensor and list indices must be int or bool, got {arr.dtype} "
                f"(an index may be {_INDEX_TYPES})"
            )
        return arr
    raise TypeError(f"tensor index must be {_INDEX_TYPES}, got {type(item).__name__}")


def _positions(shape: tuple[int, ...], index: Any) -> np.ndarray:
    """The linear positions `x[index]` selects, shaped like the result."""
    items = tuple(_const_item(i) for i in _items(index))
    if not shape and any(isinstance(i, np.ndarray) and i.dtype.kind != "b" for i in items):
        raise IndexError("too many indices for tensor of dimension 0")
    pos = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    try:
        return np.asarray(pos[items])
    except IndexError as exc:
        raise IndexError(f"{exc} (tensor of shape {shape})") from None


def _dynamic_parts(x: Any, index: Any) -> tuple[list[Any], int, int]:
    """The items with the single run-time tensor replaced by a full slice, the
    axis of `x` it indexes, and its position among the items; or raise why the
    index is not supported."""
    items = _items(index)
    dyn = [k for k, i in enumerate(items) if _is_dynamic(i)]
    if len(dyn) > 1:
        raise IndexError(
            "only one tensor index computed in the graph is supported in a tensor index "
            "(the others must be constants); combine them with ops.gather_nd"
        )
    at = dyn[0]
    rest = items[:at] + items[at + 1 :]
    if not all(_basic_item(i) or isinstance(i, slice) for i in rest) or any(
        i is None for i in rest
    ):
        raise IndexError(
            "a tensor index computed in the graph can only be combined with ints, slices and '...'"
        )
    rank = len(x.shape)
    used = sum(1 for i in items if i is not Ellipsis)
    if used > rank:
        raise IndexError(f"too many indices for tensor of dimension {rank}")
    if any(i is Ellipsis for i in items[:at]):
        axis = rank - (len(items) - at)
    else:
        axis = at
    items = list(items)
    items[at] = slice(None)
    return items, axis, at


def _wrap_negative(idx: Any, n: int) -> Any:
    return fmath.select(idx < 0, idx + n, idx)


def getitem(x: Any, index: Any) -> Any:
    """`x[index]` for any index numpy accepts whose result shape is static."""
    from mindjit.frontend.ops.indexing import getitem as basic_getitem  # it imports this module

    items = _items(index)
    if any(_is_dynamic(i) for i in items):
        return _dynamic_getitem(x, index, basic_getitem)
    shape = tuple(x.shape)
    pos = _positions(shape, index)
    flat = array.reshape(x, (max(math.prod(shape), 1),)) if shape else array.reshape(x, (1,))
    if pos.size == 0:  # an empty selection: an empty slice of the flat tensor
        return array.reshape(basic_getitem(flat, slice(0, 0)), pos.shape)
    ids = _int_const(pos.reshape(-1))
    out = _gather(flat, ids, 0)
    return array.reshape(out, pos.shape)


def _int_const(values: np.ndarray) -> Any:
    return Tensor(np.ascontiguousarray(values, dtype=np.int32))


def _dynamic_getitem(x: Any, index: Any, basic_getitem: Any) -> Any:
    idx = [i for i in _items(index) if _is_dynamic(i)][0]
    if idx.dtype == D.bool_:
        raise ValueError(
            "indexing with a bool mask computed in the graph (x[mask]) gives a result whose "
            "shape depends on the data; mindjit compiles static shapes: use "
            "ops.select(mask, x, 0) (or a constant mask)"
        )
    if np.dtype(idx.dtype.numpy).kind not in "iu":
        raise TypeError(f"a tensor index must be int or bool, got {idx.dtype}")
    items, axis, at = _dynamic_parts(x, index)
    # the int items are advanced indices too (numpy): with one separated from the
    # tensor by a slice, the tensor's axes go first
    advanced = [k for k, i in enumerate(items) if k == at or _is_int(i)]
    to_front = any(b - a > 1 for a, b in zip(advanced, advanced[1:]))
    squeezed_before = sum(1 for k, i in enumerate(items) if k < at and _is_int(i))
    base = basic_getitem(x, tuple(items))
    gaxis = axis - squeezed_before
    n = x.shape[axis]
    out = _gather(base, _wrap_negative(array.cast(idx, D.int32), n), gaxis)
    if to_front and gaxis > 0:
        k = len(idx.shape)
        rank = len(out.shape)
        perm = list(range(gaxis, gaxis + k)) + [
            a for a in range(rank) if not gaxis <= a < gaxis + k
        ]
        out = array.transpose(out, perm)
    return out


def _is_int(item: Any) -> bool:
    return isinstance(item, int | np.integer) and not isinstance(item, bool | np.bool_)


# --- item assignment -------------------------------------------------------------------


def _value_tensor(value: Any, dtype: D.DType) -> Any:
    """`v` as a tensor of x's dtype (a number, a tensor, or a tuple/list of them)."""
    if is_tensor(value):
        return array.cast(value, dtype) if value.dtype != dtype else value
    if isinstance(value, bool | int | float | np.number | np.bool_):
        return Tensor(np.asarray(value, dtype=dtype.numpy))
    if isinstance(value, list | tuple | np.ndarray):
        if isinstance(value, list | tuple) and any(is_tensor(v) for v in value):
            return array.stack([_value_tensor(v, dtype) for v in value], 0)
        arr = np.asarray(value)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"the value assigned to a tensor item must be numbers, got {arr.dtype}")
        return Tensor(arr.astype(dtype.numpy))
    raise TypeError(
        "the value assigned to a tensor item must be a number, a Tensor, or a tuple or "
        f"list of them, got {type(value).__name__}"
    )


def _broadcast(v: Any, shape: tuple[int, ...]) -> Any:
    try:
        np.broadcast_shapes(tuple(v.shape), shape)
        ok = len(v.shape) <= len(shape) and np.broadcast_shapes(tuple(v.shape), shape) == shape
    except ValueError:
        ok = False
    if not ok:
        # numpy also drops leading 1s of the value (x[0] = v with v of shape (1, n))
        squeezed = tuple(v.shape)
        while len(squeezed) > len(shape) and squeezed[0] == 1:
            squeezed = squeezed[1:]
        if squeezed != tuple(v.shape) and _fits(squeezed, shape):
            v = array.reshape(v, squeezed)
        else:
            raise ValueError(
                f"could not broadcast the value of shape {tuple(v.shape)} to the indexed "
                f"region of shape {shape}"
            )
    return v if tuple(v.shape) == shape else array.broadcast_to(v, shape)


def _fits(src: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    try:
        return len(src) <= len(shape) and np.broadcast_shapes(src, shape) == shape
    except ValueError:
        return False


def setitem(x: Any, index: Any, value: Any) -> Any:
    """The tensor `x` with `x[index] = value` applied (x itself is unchanged)."""
    if not is_tensor(x):
        raise TypeError(f"item assignment needs a Tensor, got {type(x).__name__}")
    shape = tuple(x.shape)
    v = _value_tensor(value, x.dtype)
    if any(_is_dynamic(i) for i in _items(index)):
        return _dynamic_setitem(x, index, v)
    pos = _positions(shape, index)
    if pos.size == 0:
        return x
    v = _broadcast(v, pos.shape)
    lin = pos.reshape(-1)
    mask = np.zeros(math.prod(shape), dtype=bool)
    mask[lin] = True
    cond = Tensor(mask.reshape(shape))
    if pos.size == math.prod(shape) and np.array_equal(lin, np.arange(lin.size)):
        return array.reshape(v, shape) if shape else array.reshape(v, ())
    if v.size == 1:
        return fmath.select(cond, array.reshape(v, ()), x)
    src = np.zeros(math.prod(shape), dtype=np.int64)
    src[lin] = np.arange(lin.size)
    placed = _gather(array.reshape(v, (lin.size,)), _int_const(src), 0)
    return fmath.select(cond, array.reshape(placed, shape), x)


def _dynamic_setitem(x: Any, index: Any, v: Any) -> Any:
    shape = tuple(x.shape)
    items = _items(index)
    idx = [i for i in items if _is_dynamic(i)][0]
    if idx.dtype == D.bool_:
        if len(items) != 1:
            raise IndexError(
                "a bool mask computed in the graph must be the only index in an assignment"
            )
        k = len(idx.shape)
        if tuple(idx.shape) != shape[:k]:
            raise IndexError(
                f"the mask of shape {tuple(idx.shape)} does not match the tensor of shape {shape}"
            )
        if not _fits(tuple(v.shape), shape[k:]):
            raise ValueError(
                f"assigning through a mask computed in the graph needs a value broadcastable "
                f"to {shape[k:]} (the selected count is only known when the graph runs), got "
                f"shape {tuple(v.shape)}"
            )
        cond = array.reshape(idx, tuple(idx.shape) + (1,) * (len(shape) - k))
        return fmath.select(cond, v if v.size == 1 else array.broadcast_to(v, shape), x)
    if np.dtype(idx.dtype.numpy).kind not in "iu":
        raise TypeError(f"a tensor index must be int or bool, got {idx.dtype}")
    if len(items) != 1 and not all(
        i is Ellipsis or (isinstance(i, slice) and i == slice(None)) for i in items[1:]
    ):
        raise IndexError(
            "assigning through a tensor index computed in the graph supports x[idx] = v "
            "(the index on the first axis) only"
        )
    if not shape:
        raise IndexError("too many indices for tensor of dimension 0")
    if x.dtype == D.bool_:
        raise TypeError(
            "assigning through a tensor index computed in the graph needs a number tensor"
        )
    n = shape[0]
    ids = array.reshape(_wrap_negative(array.cast(idx, D.int32), n), (-1,))
    count = math.prod(idx.shape)
    region = tuple(idx.shape) + shape[1:]
    v = _broadcast(v, region)
    v = array.reshape(v, (count, *shape[1:]))

    # repeated indices: the last write wins, as numpy (and this op on known indices)
    if count > 1:
        same = array.reshape(ids, (count, 1)) == array.reshape(ids, (1, count))
        later = Tensor(np.triu(np.ones((count, count), bool), 1))
        overwritten = reduce_any(fmath.logical_and(same, later), 1)
        dropped = array.reshape(overwritten, (count,) + (1,) * (len(shape) - 1))
        v = fmath.select(dropped, Tensor(np.zeros((), x.dtype.numpy)), v)
    scattered = unsorted_segment_sum(v, ids, n)
    ones = Tensor(np.ones((count,), np.float32))
    hits = unsorted_segment_sum(ones, ids, n) > 0
    cond = array.reshape(hits, (n,) + (1,) * (len(shape) - 1))
    return fmath.select(cond, scattered, x)
