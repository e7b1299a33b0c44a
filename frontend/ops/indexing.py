"""`x[...]` with constant indices: ints, slices, `...` and `None`.

The index is resolved against the static shape into one `mindir.get_item`
(normalized non-negative starts/limits, positive strides, int-indexed axes
squeezed), followed by a reshape when `None` adds axes. Tensor-valued and
negative-step indices are not supported and say so.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.dialects import mindir as M
from mindjit.frontend.ops import advanced_indexing
from mindjit.frontend.ops.array import reshape
from mindjit.frontend.ops.core import run


def _as_int(item: Any) -> int | None:
    """An int index (Python/numpy int, or a 0-d integer Tensor with a value)."""
    if isinstance(item, bool | np.bool_):
        return None
    if isinstance(item, int | np.integer):
        return int(item)
    asnumpy = getattr(item, "asnumpy", None)
    if asnumpy is not None:
        arr = asnumpy()
        if arr.ndim == 0 and arr.dtype.kind in "iu":
            return int(arr)
    return None


def _expand(index: Any, rank: int) -> list[Any]:
    """The index as one entry per input axis, plus `None`s, Ellipsis expanded."""
    items = list(index) if isinstance(index, tuple) else [index]
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    if used > rank:
        raise IndexError(f"too many indices for tensor of dimension {rank}")
    for at, item in enumerate(items):
        if item is Ellipsis:
            items[at : at + 1] = [slice(None)] * (rank - used)
            break
    real = sum(1 for i in items if i is not None)
    return items + [slice(None)] * (rank - real)


def getitem(x: Any, index: Any) -> Any:
    """`x[index]`: ints, slices, `...` and None here; tensor, list and bool indices
    and negative steps in advanced_indexing."""
    if not advanced_indexing.is_basic(index):
        return advanced_indexing.getitem(x, index)
    shape = tuple(x.shape)
    rank = len(shape)
    items = _expand(index, rank)
    starts: list[int] = []
    limits: list[int] = []
    strides: list[int] = []
    squeeze: list[int] = []
    out_shape: list[int] = []  # the result's shape including None axes
    has_new_axis = False
    axis = 0
    for item in items:
        if item is None:
            out_shape.append(1)
            has_new_axis = True
            continue
        if axis >= rank:
            break
        dim = shape[axis]
        i = _as_int(item)
        if i is not None:
            if not -dim <= i < dim:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {dim}")
            i %= dim
            starts.append(i)
            limits.append(i + 1)
            strides.append(1)
            squeeze.append(axis)
        elif isinstance(item, slice):
            step = 1 if item.step is None else _as_int(item.step)
            if step is None or step == 0:
                raise ValueError(f"slice step must be a non-zero int, got {item.step!r}")
            if step < 0:
                raise ValueError(
                    f"slices with a negative step ({item}) are not supported; "
                    "reverse with a positive step and ops instead"
                )
            start, stop, _ = slice(
                None if item.start is None else _int_bound(item.start),
                None if item.stop is None else _int_bound(item.stop),
                step,
            ).indices(dim)
            stop = max(stop, start)
            starts.append(start)
            limits.append(stop)
            strides.append(step)
            out_shape.append((stop - start + step - 1) // step)
        else:
            raise TypeError(
                f"tensor index must be a constant int, slice, ... or None, "
                f"got {type(item).__name__}"
            )
        axis += 1
    key = ("get_item", tuple(starts), tuple(limits), tuple(strides), tuple(squeeze))

    def build(e: Any, v: list[Any]) -> Any:
        return e.value(M.GetItemOp.get(v[0], starts, limits, strides, squeeze))

    result = run(key, build, x)
    if has_new_axis:
        result = reshape(result, tuple(out_shape))
    return result


def _int_bound(value: Any) -> int:
    i = _as_int(value)
    if i is None:
        raise TypeError(f"slice bounds must be constant ints, got {type(value).__name__}")
    return i
