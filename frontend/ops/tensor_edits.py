"""What Tensor's editing methods compute (MindSpore 2.10's `Tensor.choose`,
`fill_diagonal`, `index_put`, `masked_scatter`, `itemset`, `resize`): each
returns a new tensor and leaves `self` as it was, as MindSpore's do.

All have static shapes, so they are compositions and run in both modes with
gradients: the positions that change are a constant mask (fill_diagonal,
itemset), linear positions combined in (index_put: segment_reduce.combine_rows),
or a rank among the True elements of the mask (masked_scatter: the k-th True
takes source's k-th element).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.cast import promote
from mindjit.frontend.ops.gather_ops import _tensor, gather, gather_elements, known, nd_linear
from mindjit.frontend.ops.promotion import as_operand, is_tensor
from mindjit.frontend.ops.scan import cumsum
from mindjit.frontend.ops.segment_reduce import combine_rows
from mindjit.frontend.tensor import Tensor


def _value_like(x: Any, value: Any) -> Any:
    v = as_operand(value, "value")
    return array.cast(v, x.dtype) if is_tensor(v) and v.dtype != x.dtype else v


def choose(x: Any, choices: Any, mode: str = "clip") -> Any:
    """numpy's choose: out[i] = choices[x[i]][i] (all broadcast together); an index
    out of range is clipped ('clip') or wrapped ('wrap')."""
    name = "choose"
    a = _tensor(x, name, "self")
    if a.dtype.is_float or a.dtype.is_bool:
        raise TypeError(f"For '{name}', the tensor must hold integers, got {a.dtype}")
    if mode == "raise":
        raise NotImplementedError('"raise" mode is not implemented')
    if mode not in ("clip", "wrap"):
        raise ValueError(f"For '{name}', 'mode' must be 'clip' or 'wrap', got {mode!r}")
    items = [as_operand(c, "choices") for c in choices]
    if not items:
        raise ValueError(f"For '{name}', 'choices' must not be empty")
    items = list(promote(*items, what=name)) if len(items) > 1 else items
    shape = tuple(np.broadcast_shapes(tuple(a.shape), *(tuple(c.shape) for c in items)))
    stacked = array.stack([array.broadcast_to(c, shape) for c in items], 0)
    n = len(items)
    idx = array.cast(a, D.int64)
    if mode == "clip":
        idx = fmath.minimum(fmath.maximum(idx, 0), n - 1)
    else:
        idx = fmath.remainder(idx, n)
    idx = array.broadcast_to(idx, shape)
    return array.reshape(gather_elements(stacked, 0, array.expand_dims(idx, 0)), shape)


def _diagonal_mask(shape: tuple[int, ...], wrap: bool) -> np.ndarray:
    flat = np.zeros(math.prod(shape), bool)
    if len(shape) == 2:
        rows, cols = shape
        step = cols + 1
        end = flat.size if wrap else cols * min(rows, cols)
        flat[:end:step] = True
    else:
        n = shape[0]
        step = sum(n**k for k in range(len(shape)))
        flat[::step] = True
    return flat.reshape(shape)


def fill_diagonal(x: Any, fill_value: Any, wrap: bool = False) -> Any:
    """numpy's fill_diagonal on a copy: the main diagonal set to fill_value; a tall
    2-D matrix with wrap restarts the diagonal every cols + 1 rows."""
    t = _tensor(x, "fill_diagonal", "self")
    shape = tuple(t.shape)
    if len(shape) < 2:
        raise ValueError(
            f"For 'fill_diagonal', the tensor must be at least 2-D, got {len(shape)}-D"
        )
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError(
            "The primitive[FillDiagonal] argument [input_x] must be a Tensor with the same "
            "size in all dimensions when its dimension is greater than 2"
        )
    if isinstance(fill_value, bool) or not isinstance(fill_value, int | float):
        raise TypeError(f"For 'fill_diagonal', 'fill_value' must be a number, got {fill_value!r}")
    mask = Tensor(_diagonal_mask(shape, bool(wrap)))
    return fmath.select(mask, array.full_like(t, fill_value), t)


def index_put(x: Any, indices: Any, values: Any, accumulate: bool = False) -> Any:
    """A copy of x with x[indices] = values (accumulate: += values, every repeat
    adds); `indices` a tuple of int tensors addressing the first len(indices) axes."""
    name = "index_put"
    t = _tensor(x, name, "self")
    if not isinstance(indices, tuple | list) or not indices:
        raise TypeError(f"For '{name}', 'indices' must be a non-empty tuple of Tensors")
    for i in indices:
        if not is_tensor(i) or i.dtype not in (D.int32, D.int64):
            raise TypeError(f"For '{name}', each index must be an int32 or int64 Tensor")
    if not isinstance(accumulate, bool):
        raise TypeError(f"For '{name}', 'accumulate' must be a bool, got {accumulate!r}")
    shape = tuple(t.shape)
    k = len(indices)
    if k > len(shape):
        raise ValueError(f"For '{name}', too many indices ({k}) for a {len(shape)}-D tensor")
    v = _tensor(values, name, "values")
    if v.dtype != t.dtype:
        raise TypeError(
            f"For '{name}', 'values' must have the dtype of self ({t.dtype}), got {v.dtype}"
        )
    ishape = tuple(np.broadcast_shapes(*(tuple(i.shape) for i in indices)))
    vectors = array.stack([array.broadcast_to(array.cast(i, D.int64), ishape) for i in indices], -1)
    count = math.prod(ishape)
    lin = array.reshape(nd_linear(name, vectors, shape[:k]), (count,))
    rows = array.reshape(t, (math.prod(shape[:k]), *shape[k:]))
    full = ishape + shape[k:]
    try:
        np.broadcast_shapes(tuple(v.shape), full)
    except ValueError:
        raise ValueError(
            f"For '{name}', 'values' of shape {tuple(v.shape)} cannot be broadcast to {full}"
        ) from None
    updates = array.broadcast_to(v, full) if tuple(v.shape) != full else v
    updates = array.reshape(updates, (count, *shape[k:]))
    out = combine_rows("add" if accumulate else "update", rows, lin, updates)
    return array.reshape(out, shape)


def masked_scatter(x: Any, mask: Any, source: Any) -> Any:
    """A copy of x whose elements where `mask` (broadcast to x) is True take source's
    elements in order."""
    name = "MaskedScatter"
    t = _tensor(x, name, "self")
    m = _tensor(mask, name, "mask")
    s = _tensor(source, name, "source")
    if not m.dtype.is_bool:
        raise TypeError(f"For '{name}', 'mask' must be a bool Tensor, got {m.dtype}")
    if s.dtype != t.dtype:
        raise TypeError(f"For '{name}', 'source' must have the dtype of self ({t.dtype})")
    if len(m.shape) > len(t.shape):
        raise TypeError(f"For '{name}', 'mask' must not have more dimensions than self")
    shape = tuple(t.shape)
    mb = array.broadcast_to(m, shape) if tuple(m.shape) != shape else m
    values = known(m)
    if values is not None and np.broadcast_to(values, shape).sum() > s.size:
        raise ValueError(f"For '{name}', number of elements of updates < number of ones in mask.")
    n = max(math.prod(shape), 1)
    flat_mask = array.reshape(mb, (n,))
    rank = fmath.sub(cumsum(array.cast(flat_mask, D.int32), 0), 1)
    rank = fmath.minimum(fmath.maximum(rank, 0), max(s.size - 1, 0))
    taken = gather(array.reshape(s, (max(s.size, 1),)), rank, 0)
    return array.reshape(fmath.select(flat_mask, taken, array.reshape(t, (n,))), shape)


def itemset(x: Any, *args: Any) -> Any:
    """numpy's itemset on a copy: `itemset(value)` (one element), `itemset(i, value)`
    (flat index) or `itemset((i, j, ...), value)`."""
    t = _tensor(x, "itemset", "self")
    shape = tuple(t.shape)
    size = math.prod(shape)
    if len(args) == 1:
        if size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        pos, value = 0, args[0]
    elif len(args) == 2:
        where, value = args
        if isinstance(where, int) and not isinstance(where, bool):
            pos = where + size if where < 0 else where
            if not 0 <= pos < size:
                raise IndexError(f"index {where} is out of bounds for size {size}")
        elif isinstance(where, tuple) and len(where) == len(shape):
            pos = int(np.ravel_multi_index(tuple(int(i) for i in where), shape, mode="raise"))
        else:
            raise TypeError(
                f"For 'itemset', the index must be an int or a tuple of {len(shape)} ints"
            )
    else:
        raise TypeError(f"'itemset' takes 1 or 2 arguments, got {len(args)}")
    mask = np.zeros(size, bool)
    mask[pos] = True
    v = array.cast(as_operand(value, "value"), t.dtype)
    return fmath.select(Tensor(mask.reshape(shape)), v, t)


def resize(x: Any, *new_shape: Any) -> Any:
    """numpy's ndarray.resize on a copy: the flattened elements in `new_shape`,
    cut short or padded with zeros."""
    t = _tensor(x, "resize", "self")
    if len(new_shape) == 1 and isinstance(new_shape[0], tuple | list):
        new_shape = tuple(new_shape[0])
    if not new_shape or any(
        isinstance(d, bool) or not isinstance(d, int) or d < 0 for d in new_shape
    ):
        raise ValueError(f"For 'resize', the new shape must be non-negative ints, got {new_shape}")
    size, want = math.prod(t.shape), math.prod(new_shape)
    flat = array.reshape(t, (size,))
    if want < size:
        flat = flat[:want]
    elif want > size:
        flat = array.concat([flat, array.zeros((want - size,), t.dtype)], 0)
    return array.reshape(flat, tuple(new_shape))


__all__: list[str] = []
