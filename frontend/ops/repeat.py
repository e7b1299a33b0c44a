"""Repeating a tensor: `ops.tile`, `ops.repeat_interleave` (`Tensor.repeat`), `ops.expand`.

All are reshape -> broadcast_to -> reshape, which is what they are: tiling by
`m` puts a new axis of size `m` before an axis and broadcasts along it;
repeating each element `r` times puts it after. The gradient is then the
broadcast's (a sum over the repeats) and every engine runs them. Per-element
repeat counts (a list) join broadcast slices with one concat.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend.ops.array import _shape_tuple, broadcast_to, concat, reshape, zeros
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.split import require_tensor, slice_axis


def _is_int(v: Any) -> bool:
    return isinstance(v, int | np.integer) and not isinstance(v, bool)


def tile(input: Any, dims: Any) -> Any:
    """`ops.tile(input, dims)`: `input` repeated dims[i] times along axis i. A shorter
    `dims` is padded with 1s in front; a longer one adds leading axes to `input`."""
    x = require_tensor(input, "tile")
    if not isinstance(dims, tuple | list) or not all(_is_int(d) for d in dims):
        raise TypeError(f"For 'tile', 'dims' must be a tuple of ints, got {dims!r}")
    reps = [int(d) for d in dims]
    if any(d < 0 for d in reps):
        raise ValueError(f"For 'tile', the elements of 'dims' must be >= 0, got {tuple(dims)}")
    shape = list(x.shape)
    rank = max(len(shape), len(reps))
    shape = [1] * (rank - len(shape)) + shape
    reps = [1] * (rank - len(reps)) + reps
    out_shape = tuple(s * r for s, r in zip(shape, reps))
    if 0 in reps:
        return zeros(out_shape, x.dtype)
    if all(r == 1 for r in reps):
        return reshape(x, out_shape) if tuple(x.shape) != out_shape else x
    inter: list[int] = []
    wide: list[int] = []
    for s, r in zip(shape, reps):
        if r != 1:
            inter.append(1)
            wide.append(r)
        inter.append(s)
        wide.append(s)
    return reshape(broadcast_to(reshape(x, tuple(inter)), tuple(wide)), out_shape)


def _repeat_each(x: Any, axis: int, r: int) -> Any:
    """Each slice along `axis` repeated `r` times in place."""
    shape = list(x.shape)
    inter = shape[: axis + 1] + [1] + shape[axis + 1 :]
    wide = shape[: axis + 1] + [r] + shape[axis + 1 :]
    out = shape[:axis] + [shape[axis] * r] + shape[axis + 1 :]
    return reshape(broadcast_to(reshape(x, tuple(inter)), tuple(wide)), tuple(out))


def _counts(repeats: Any, name: str) -> int | list[int]:
    if is_tensor_like(repeats):
        repeats = np.asarray(repeats.asnumpy()).tolist()
    if _is_int(repeats):
        return int(repeats)
    if isinstance(repeats, tuple | list) and all(_is_int(r) for r in repeats):
        return [int(r) for r in repeats]
    raise TypeError(
        f"For '{name}', 'repeats' must be an int or a tuple or list of ints, got {repeats!r}"
    )


def is_tensor_like(v: Any) -> bool:
    """A Tensor with a value now (a graph's tensors have none: repeats must be constant)."""
    return hasattr(v, "asnumpy")


def repeat_interleave(input: Any, repeats: Any, axis: int | None = None) -> Any:
    """`ops.repeat_interleave(input, repeats, axis=None)`: each element repeated along
    `axis` (numpy.repeat); `axis=None` flattens first. `repeats` is an int or one count
    per element of the axis."""
    return _repeat("repeat_interleave", input, repeats, axis)


def _repeat(name: str, input: Any, repeats: Any, axis: Any) -> Any:
    x = require_tensor(input, name)
    counts = _counts(repeats, name)
    if axis is None:
        x = reshape(x, (-1,))
        ax = 0
    else:
        ax = normalize_axis(axis, len(x.shape), name)
        if not x.shape:
            x = reshape(x, (1,))
    n = x.shape[ax]
    if isinstance(counts, list) and len(counts) == 1:
        counts = counts[0]
    if isinstance(counts, int):
        if counts < 0:
            raise ValueError(f"For '{name}', 'repeats' must be >= 0, got {counts}")
        if counts == 0:
            return slice_axis(x, ax, 0, 0)
        return x if counts == 1 else _repeat_each(x, ax, counts)
    if len(counts) != n:
        raise ValueError(
            f"For '{name}', 'repeats' must have one count per element of axis {ax} "
            f"({n}), got {len(counts)}"
        )
    if any(r < 0 for r in counts):
        raise ValueError(f"For '{name}', 'repeats' must be >= 0, got {counts}")
    pieces = []
    for i, r in enumerate(counts):
        if r:
            piece = slice_axis(x, ax, i, i + 1)
            pieces.append(piece if r == 1 else _repeat_each(piece, ax, r))
    if not pieces:
        return slice_axis(x, ax, 0, 0)
    return pieces[0] if len(pieces) == 1 else concat(pieces, ax)


def repeat(input: Any, repeats: Any, axis: int | None = None) -> Any:
    """`Tensor.repeat(repeats, axis=None)`: numpy.repeat (as `repeat_interleave`)."""
    return _repeat("repeat", input, repeats, axis)


def expand(input_x: Any, size: Any) -> Any:
    """`ops.expand(input_x, size)`: broadcast to `size` (a tuple or a constant Tensor;
    -1 keeps that axis)."""
    x = require_tensor(input_x, "expand", "input_x")
    shape = _shape_tuple(size, "expand")
    try:
        return broadcast_to(x, shape)
    except ValueError:
        raise ValueError(
            f"For 'expand', cannot expand a tensor of shape {tuple(x.shape)} to {shape}"
        ) from None


def expand_as(input: Any, other: Any) -> Any:
    """`Tensor.expand_as(other)`: broadcast to `other`'s shape."""
    x = require_tensor(input, "expand_as")
    y = require_tensor(other, "expand_as", "other")
    return broadcast_to(x, tuple(y.shape))
