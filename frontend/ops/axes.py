"""Moving axes and reading diagonals, with MindSpore 2.10's names: `ops.swapaxes`,
`ops.swapdims`, `ops.moveaxis`, `ops.movedim`, `ops.t`, `ops.trace`,
`ops.diagonal`, `ops.diag`; all compositions of transpose, select, reduce_sum and
slicing, so both modes and gradients follow.

MindSpore's `ops.t` transposes a 2-D tensor and returns any other rank unchanged
(a 3-D one too); `ops.trace` takes only a 2-D tensor (a RuntimeError otherwise),
while `Tensor.trace(offset, axis1, axis2, dtype)` is numpy's, integer inputs
summed in int64.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import reshape, transpose
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.indexing import getitem
from mindjit.frontend.ops.math import _tensor, select
from mindjit.frontend.ops.promotion import constant
from mindjit.frontend.ops.reduce import reduce_sum


def _axis(axis: Any, rank: int, name: str) -> int:
    """An axis in [-rank, rank), as MindSpore checks it (TypeError, ValueError)."""
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"For ops.{name}, the axis argument must be integer, but got {type(axis)}.")
    r = max(rank, 1)
    if not -r <= axis < r:
        raise ValueError(f"The 'axis' must be in the range of [{-r}, {r}), but got {axis}.")
    return axis % r


def swapaxes(input: Any, axis0: int, axis1: int) -> Any:  # noqa: A002
    """`ops.swapaxes(input, axis0, axis1)`: the tensor with two axes interchanged."""
    x = _tensor(input, "swapaxes")
    rank = len(x.shape)
    a, b = _axis(axis0, rank, "swapaxes"), _axis(axis1, rank, "swapaxes")
    perm = list(range(rank))
    if rank:
        perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, tuple(perm)) if a != b else x


def swapdims(input: Any, dim0: int, dim1: int) -> Any:  # noqa: A002
    """`ops.swapdims(input, dim0, dim1)`: `ops.swapaxes`."""
    return swapaxes(input, dim0, dim1)


def moveaxis(x: Any, source: Any, destination: Any) -> Any:
    """`ops.moveaxis(x, source, destination)`: the axes `source` (an int or a tuple)
    moved to the positions `destination`, the others kept in order."""
    t = _tensor(x, "moveaxis")
    rank = len(t.shape)
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError(
            f"For 'moveaxis', 'source' and 'destination' must have the same number of "
            f"axes, but got {len(src)} and {len(dst)}"
        )
    s = [_axis(a, rank, "moveaxis") for a in src]
    d = [_axis(a, rank, "moveaxis") for a in dst]
    if len(set(s)) != len(s) or len(set(d)) != len(d):
        raise ValueError("For 'moveaxis', 'source' and 'destination' must not repeat an axis")
    rest = iter(a for a in range(rank) if a not in s)
    placed = dict(zip(d, s, strict=True))
    perm = tuple(placed[i] if i in placed else next(rest) for i in range(rank))
    return transpose(t, perm) if perm != tuple(range(rank)) else t


def movedim(x: Any, source: Any, destination: Any) -> Any:
    """`ops.movedim(x, source, destination)`: `ops.moveaxis`."""
    return moveaxis(x, source, destination)


def t(input: Any) -> Any:  # noqa: A002
    """`ops.t(input)`: a 2-D tensor transposed; any other rank returned as it is."""
    x = _tensor(input, "t")
    return transpose(x, (1, 0)) if len(x.shape) == 2 else x


def matrix_transpose(input: Any) -> Any:  # noqa: A002
    """`Tensor.mT`: the last two axes swapped (a ValueError below rank 2, as MindSpore)."""
    x = _tensor(input, "mT")
    return swapaxes(x, -2, -1)


def _diagonal_sums(x: Any, offset: int, a1: int, a2: int) -> tuple[Any, int, int]:
    """x with axes a1, a2 moved last, masked to the diagonal `offset` and summed over
    the last axis: (values along a1, where the diagonal starts on it, its length)."""
    rank = len(x.shape)
    moved = moveaxis(x, (a1, a2), (rank - 2, rank - 1))
    n1, n2 = x.shape[a1], x.shape[a2]
    mask = constant(np.eye(n1, n2, offset, dtype=bool), D.bool_)
    sums = reduce_sum(select(mask, moved, 0), (rank - 1,))  # (not mul: inf * 0 is nan)
    start = max(0, -offset)
    length = max(0, min(n1 - start, n2 - max(0, offset)))
    return sums, start, length


def _diag_axes(x: Any, offset: Any, axis1: Any, axis2: Any, name: str) -> tuple[int, int, int]:
    rank = len(x.shape)
    if rank < 2:
        raise ValueError(f"For '{name}', the input must be at least 2-D, but got {rank}-D")
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise TypeError(f"For '{name}', 'offset' must be an int, but got {type(offset).__name__}")
    a1, a2 = normalize_axis(axis1, rank, name), normalize_axis(axis2, rank, name)
    if a1 == a2:
        raise ValueError(f"For '{name}', 'axis1' and 'axis2' must differ, but both are {a1}")
    return offset, a1, a2


def diagonal(input: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:  # noqa: A002
    """`ops.diagonal(input, offset=0, dim1=0, dim2=1)`: the diagonal of the (dim1,
    dim2) planes as the last axis of the result."""
    x = _tensor(input, "diagonal")
    off, a1, a2 = _diag_axes(x, offset, dim1, dim2, "diagonal")
    sums, start, length = _diagonal_sums(x, off, a1, a2)
    return getitem(sums, (Ellipsis, slice(start, start + length)))


def trace(input: Any) -> Any:  # noqa: A002
    """`ops.trace(input)`: the sum of a 2-D tensor's main diagonal, in its dtype."""
    x = _tensor(input, "trace")
    if len(x.shape) != 2:
        raise RuntimeError(
            f"For Primitive[Trace], the rank of the input must be 2, but got {len(x.shape)}!"
        )
    if x.dtype.is_bool:
        raise TypeError("For 'trace', the input must be a number tensor, but got a Bool tensor")
    return reduce_sum(diagonal(x))


def tensor_trace(
    input: Any,  # noqa: A002
    offset: int = 0,
    axis1: int = 0,
    axis2: int = 1,
    dtype: Any = None,
) -> Any:
    """`Tensor.trace(offset=0, axis1=0, axis2=1, dtype=None)`, numpy's: the sums of the
    diagonals of the (axis1, axis2) planes; integers and bools are summed in int64."""
    x = _tensor(input, "trace")
    off, a1, a2 = _diag_axes(x, offset, axis1, axis2, "trace")
    if dtype is not None:
        x = cast_to(x, D.to_dtype(dtype))
    elif not x.dtype.is_float:
        x = cast_to(x, D.int64)
    sums, start, length = _diagonal_sums(x, off, a1, a2)
    return reduce_sum(getitem(sums, (Ellipsis, slice(start, start + length))), (-1,))


def diag(input: Any) -> Any:  # noqa: A002
    """`ops.diag(input)`: a tensor of rank 2k with `input` (rank k) on its diagonal,
    out[i1..ik, i1..ik] = input[i1..ik]."""
    x = _tensor(input, "diag")
    if not x.shape:
        raise ValueError("For 'diag', the input must have rank >= 1, but got a scalar tensor")
    n = int(np.prod(x.shape))
    flat = reshape(x, (n, 1))
    out = select(constant(np.eye(n, dtype=bool), D.bool_), flat, 0)
    return reshape(out, tuple(x.shape) * 2)


__all__ = [
    "diag",
    "diagonal",
    "matrix_transpose",
    "moveaxis",
    "movedim",
    "swapaxes",
    "swapdims",
    "t",
    "tensor_trace",
    "trace",
]
