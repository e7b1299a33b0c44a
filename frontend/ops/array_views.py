"""Rearranging and picking along an axis: `ops.index_select`, `ops.narrow`,
`ops.roll`, `ops.meshgrid`, as compositions of gather, get_item (slices),
concat, reshape and broadcast_to, so gradients and both modes follow."""

from __future__ import annotations

from typing import Any

from mindjit.frontend.ops.array import broadcast_to, concat, reshape
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.gather_ops import gather
from mindjit.frontend.ops.indexing import getitem
from mindjit.frontend.ops.math import _tensor
from mindjit.frontend.ops.promotion import is_tensor


def _int(value: Any, what: str, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{name}', the '{what}' must be an int, but got {value!r}")
    return value


def _along(x: Any, axis: int, start: int, stop: int) -> Any:
    """x[..., start:stop, ...] on `axis`."""
    return getitem(x, (slice(None),) * axis + (slice(start, stop),))


def index_select(input: Any, axis: int, index: Any) -> Any:  # noqa: A002
    """`ops.index_select(input, axis, index)`: the slices of `input` at the 1-D int
    `index` along `axis` (the result keeps input's rank)."""
    name = "index_select"
    x = _tensor(input, name)
    if not is_tensor(index):
        raise TypeError(
            f"For '{name}', the 'index' must be a Tensor, but got {type(index).__name__}"
        )
    if index.dtype.is_float or index.dtype.is_bool:
        raise TypeError(f"For '{name}', the 'index' must be int32 or int64, but got {index.dtype}")
    if len(index.shape) != 1:
        raise ValueError(f"For '{name}', the 'index' must be 1-D, but got {tuple(index.shape)}")
    _int(axis, "axis", name)
    return gather(x, index, axis)


def narrow(input: Any, axis: int, start: int, length: int) -> Any:  # noqa: A002
    """`ops.narrow(input, axis, start, length)`: `length` elements from `start` on `axis`."""
    name = "narrow"
    x = _tensor(input, name)
    a = normalize_axis(_int(axis, "axis", name), len(x.shape), name)
    size = x.shape[a]
    s, n = _int(start, "start", name), _int(length, "length", name)
    if not -size <= s <= size:
        raise ValueError(f"For '{name}', the 'start' must be in [{-size}, {size}], but got {s}")
    s %= size if size else 1
    if n < 0 or s + n > size:
        raise ValueError(
            f"For '{name}', 'start' + 'length' must be in [0, {size}], but got start {start} "
            f"and length {length}"
        )
    return _along(x, a, s, s + n)


def roll(input: Any, shifts: Any, dims: Any = None) -> Any:  # noqa: A002
    """`ops.roll(input, shifts, dims=None)`: elements shifted by `shifts` along `dims`,
    wrapping around; without dims the flattened tensor is rolled."""
    name = "roll"
    x = _tensor(input, name)
    shift_list = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    for s in shift_list:
        _int(s, "shifts", name)
    if dims is None:
        if len(shift_list) != 1:
            raise ValueError(f"For '{name}', without 'dims' the 'shifts' must be one int")
        flat = reshape(x, (-1,))
        return reshape(roll(flat, shift_list[0], 0), tuple(x.shape))
    dim_list = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(dim_list) != len(shift_list):
        raise ValueError(
            f"For '{name}', 'shifts' and 'dims' must have the same length, but got "
            f"{len(shift_list)} and {len(dim_list)}"
        )
    out = x
    for s, d in zip(shift_list, dim_list, strict=True):
        a = normalize_axis(_int(d, "dims", name), len(x.shape), name)
        size = x.shape[a]
        k = s % size if size else 0
        if k:
            out = concat([_along(out, a, size - k, size), _along(out, a, 0, size - k)], a)
    return out


def meshgrid(*inputs: Any, indexing: str = "xy") -> tuple[Any, ...]:
    """`ops.meshgrid(*inputs, indexing='xy')`: coordinate grids of 1-D tensors; 'xy'
    (Cartesian) swaps the first two output axes, 'ij' (matrix) does not."""
    name = "meshgrid"
    if len(inputs) == 1 and isinstance(inputs[0], tuple | list):
        inputs = tuple(inputs[0])
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For '{name}', the 'indexing' must be 'xy' or 'ij', but got {indexing!r}")
    if len(inputs) < 2:
        raise ValueError(f"For '{name}', at least 2 input tensors are needed, got {len(inputs)}")
    tensors = [_tensor(t, name) for t in inputs]
    if any(len(t.shape) != 1 for t in tensors):
        raise ValueError(f"For '{name}', every input must be 1-D")
    if len({t.dtype for t in tensors}) != 1:
        raise TypeError(f"For '{name}', every input must have the same dtype")
    sizes = [t.shape[0] for t in tensors]
    order = list(range(len(tensors)))
    if indexing == "xy":
        order[0], order[1] = 1, 0
    out_shape = tuple(sizes[i] for i in order)
    grids = []
    for i, t in enumerate(tensors):
        axis = order.index(i)
        shape = tuple(sizes[i] if j == axis else 1 for j in range(len(tensors)))
        grids.append(broadcast_to(reshape(t, shape), out_shape))
    return tuple(grids)


__all__ = ["index_select", "meshgrid", "narrow", "roll"]
