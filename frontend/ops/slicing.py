"""`ops.StridedSlice`, `ops.strided_slice`, `ops.Slice` and `ops.slice`: constant
slices written MindSpore's way, translated to a Python index and taken by
`getitem` (one `mindir.get_item`).

StridedSlice's masks are bit sets over the positions of begin/end/strides: bit i
of `begin_mask` / `end_mask` ignores begin[i] / end[i] (the whole range that
way), `ellipsis_mask` makes position i a `...`, `new_axis_mask` a new size-1
axis, `shrink_axis_mask` an int index begin[i] (the axis is dropped). A negative
stride walks an axis backwards: that axis is reversed (`ops.flip`, mindir.reverse)
and sliced forwards, so the gradient is a reverse of a pad.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.ops.conv import flip
from mindjit.frontend.ops.indexing import _expand, getitem
from mindjit.frontend.ops.math import _tensor
from mindjit.frontend.ops.primitives import Primitive


def _ints(value: Any, what: str, name: str) -> tuple[int, ...]:
    if isinstance(value, list):
        value = tuple(value)
    if not isinstance(value, tuple) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise TypeError(f"For '{name}', the '{what}' must be a tuple of ints, but got {value!r}")
    return value


def _mask(value: Any, what: str, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{name}', the '{what}' must be an int, but got {value!r}")
    if value < 0:
        raise ValueError(f"For '{name}', the '{what}' must be non-negative, but got {value}")
    return value


def _take(x: Any, items: list[Any]) -> Any:
    """`x[items]`, reversing the axes that a negative-step slice walks backwards."""
    shape = tuple(x.shape)
    expanded = _expand(tuple(items), len(shape))
    axis = 0
    flips: list[int] = []
    out: list[Any] = []
    for item in expanded:
        if item is None:
            out.append(None)
            continue
        if isinstance(item, slice) and item.step is not None and item.step < 0:
            dim = shape[axis]
            start, stop, step = item.indices(dim)
            # element i of x is element dim-1-i of the reversed axis
            item = slice(dim - 1 - start, dim - 1 - stop, -step)
            flips.append(axis)
        out.append(item)
        axis += 1
    if flips:
        x = flip(x, tuple(flips))
    return getitem(x, tuple(out))


def strided_slice(
    input_x: Any,
    begin: Any,
    end: Any,
    strides: Any,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
) -> Any:
    """`ops.strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0,
    ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)`."""
    name = "StridedSlice"
    x = _tensor(input_x, name)
    b = _ints(begin, "begin", name)
    e = _ints(end, "end", name)
    s = _ints(strides, "strides", name)
    if not len(b) == len(e) == len(s):
        raise ValueError(
            f"For '{name}', 'begin', 'end' and 'strides' must have the same length, but got "
            f"{len(b)}, {len(e)} and {len(s)}"
        )
    if any(v == 0 for v in s):
        raise ValueError(f"For '{name}', the 'strides' must not contain 0, but got {s}")
    masks = [
        _mask(m, w, name)
        for m, w in (
            (begin_mask, "begin_mask"),
            (end_mask, "end_mask"),
            (ellipsis_mask, "ellipsis_mask"),
            (new_axis_mask, "new_axis_mask"),
            (shrink_axis_mask, "shrink_axis_mask"),
        )
    ]
    bm, em, elm, nm, sm = masks
    if bin(elm).count("1") > 1:
        raise ValueError(f"For '{name}', only one bit of 'ellipsis_mask' may be set, got {elm}")
    items: list[Any] = []
    for i in range(len(b)):
        bit = 1 << i
        if elm & bit:
            items.append(Ellipsis)
        elif nm & bit:
            items.append(None)
        elif sm & bit:
            items.append(b[i])
        else:
            items.append(slice(None if bm & bit else b[i], None if em & bit else e[i], s[i]))
    return _take(x, items)


def slice_(input_x: Any, begin: Any, size: Any) -> Any:
    """`ops.slice(input_x, begin, size)`: size[i] elements from begin[i] on axis i
    (-1: to the end of the axis)."""
    name = "Slice"
    x = _tensor(input_x, name)
    b = _ints(begin, "begin", name)
    n = _ints(size, "size", name)
    shape = tuple(x.shape)
    if not len(b) == len(n) == len(shape):
        raise ValueError(
            f"For '{name}', the lengths of 'begin' and 'size' must equal the rank of "
            f"'input_x' ({len(shape)}), but got {len(b)} and {len(n)}"
        )
    items = []
    for axis, (start, count, dim) in enumerate(zip(b, n, shape, strict=True)):
        stop = dim if count == -1 else start + count
        if start < 0 or count < -1 or stop > dim:
            raise ValueError(
                f"For '{name}', axis {axis} of size {dim} cannot give {count} elements from "
                f"{start} (begin {b}, size {n}, shape {shape})"
            )
        items.append(slice(start, stop, 1))
    return getitem(x, tuple(items))


class StridedSlice(Primitive):
    """`StridedSlice(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
    shrink_axis_mask=0)(input_x, begin, end, strides)`."""

    def __init__(
        self,
        begin_mask: int = 0,
        end_mask: int = 0,
        ellipsis_mask: int = 0,
        new_axis_mask: int = 0,
        shrink_axis_mask: int = 0,
    ):
        super().__init__()
        self.masks = tuple(
            _mask(m, w, "StridedSlice")
            for m, w in (
                (begin_mask, "begin_mask"),
                (end_mask, "end_mask"),
                (ellipsis_mask, "ellipsis_mask"),
                (new_axis_mask, "new_axis_mask"),
                (shrink_axis_mask, "shrink_axis_mask"),
            )
        )

    def __call__(self, input_x: Any, begin: Any, end: Any, strides: Any) -> Any:
        return strided_slice(input_x, begin, end, strides, *self.masks)


class Slice(Primitive):
    """`Slice()(input_x, begin, size)`."""

    def __call__(self, input_x: Any, begin: Any, size: Any) -> Any:
        return slice_(input_x, begin, size)


__all__ = ["Slice", "StridedSlice", "slice_", "strided_slice"]
