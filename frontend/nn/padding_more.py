"""ReflectionPad1d/2d/3d and ReplicationPad1d/2d/3d of MindSpore 2.10 (issue 38).

`padding` is an int (every side) or a tuple (left, right[, top, bottom[, front,
back]]) from the last axis backwards. Reflection mirrors without the edge
(frontend/ops/mirror_pad.py's mirror_pad_axes; each amount below its axis' size, a ValueError
otherwise) on the last len(padding) / 2 axes of any input of at least that rank.
Replication repeats the edge; it takes the unbatched or batched rank only
((C, W) or (N, C, W) for 1d, ...), and a negative amount crops.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.ops.mirror_pad import mirror_pad_axes
from mindjit.frontend.ops.split import slice_axis


def _padding(padding: Any, n: int, name: str, nonnegative: bool) -> tuple[int, ...]:
    if isinstance(padding, int) and not isinstance(padding, bool):
        padding = (padding,) * (2 * n)
    if not isinstance(padding, tuple):
        raise TypeError(
            f"For '{name}' the input 'padding' must be an integer or tuple, but got "
            f"{type(padding).__name__}"
        )
    if len(padding) % 2 != 0:
        raise ValueError(
            f"For '{name}' the length of input 'padding' must be divisible by 2, but got "
            f"padding of length {len(padding)}. "
        )
    if not all(isinstance(i, int) for i in padding):
        raise TypeError(
            f"For '{name}' every element in 'padding' must be integer, but got {padding}. "
        )
    if nonnegative and not all(i >= 0 for i in padding):
        raise ValueError(
            f"For '{name}' every element in 'padding' must be >= 0. but got {padding}. "
        )
    return padding


def _pairs(padding: tuple[int, ...], rank: int) -> tuple[tuple[int, int], ...]:
    """(before, after) for every axis of a rank-`rank` input, axis 0 first."""
    pairs = [(padding[2 * i], padding[2 * i + 1]) for i in range(len(padding) // 2)]
    return tuple([(0, 0)] * (rank - len(pairs)) + pairs[::-1])


class _ReflectionPadNd(Cell):
    NAME = "ReflectionPadNd"
    DIMS = 1

    def __init__(self, padding: Any):
        super().__init__()
        self.padding = _padding(padding, self.DIMS, self.NAME, True)

    def construct(self, x):
        if not self.padding:
            return x
        rank, k = len(x.shape), len(self.padding) // 2
        if rank < k:
            raise ValueError(
                f"For padding with length {2 * k}, the dimension of the tensor should be at "
                f"least {k}, but got {rank}"
            )
        pairs = _pairs(self.padding, rank)
        for size, (before, after) in zip(x.shape, pairs, strict=True):
            if before >= size or after >= size:
                raise ValueError(
                    "For 'MirrorPad', paddings must be no greater than the dimension size: "
                    f"[{before}], [{after}] not less than [{size}]"
                )
        return mirror_pad_axes(x, pairs, False)


class ReflectionPad1d(_ReflectionPadNd):
    """`nn.ReflectionPad1d(padding)`: (left, right) on the last axis."""

    NAME = "ReflectionPad1d"


class ReflectionPad2d(_ReflectionPadNd):
    """`nn.ReflectionPad2d(padding)`: (left, right, top, bottom) on the last two axes."""

    NAME = "ReflectionPad2d"
    DIMS = 2


class ReflectionPad3d(_ReflectionPadNd):
    """`nn.ReflectionPad3d(padding)`: (left, right, top, bottom, front, back)."""

    NAME = "ReflectionPad3d"
    DIMS = 3


def _edge(x: Any, axis: int, before: int, after: int) -> Any:
    size = x.shape[axis]
    if before < 0 or after < 0:
        x = slice_axis(x, axis, max(-before, 0), size - max(-after, 0))
        before, after = max(before, 0), max(after, 0)
        size = x.shape[axis]
    pieces = []
    reps = [1] * len(x.shape)
    if before:
        reps[axis] = before
        pieces.append(ops.tile(slice_axis(x, axis, 0, 1), tuple(reps)))
    pieces.append(x)
    if after:
        reps[axis] = after
        pieces.append(ops.tile(slice_axis(x, axis, size - 1, size), tuple(reps)))
    return ops.concat(tuple(pieces), axis) if len(pieces) > 1 else x


class _ReplicationPadNd(Cell):
    NAME = "ReplicationPadNd"
    DIMS = 1

    def __init__(self, padding: Any):
        super().__init__()
        self.padding = _padding(padding, self.DIMS, self.NAME, False)

    def construct(self, x):
        rank = len(x.shape)
        if rank < self.DIMS + 1:
            raise ValueError(
                "For primitive[PadV3], the input dims for edge, reflect or circular mode must be "
                f"greater than or equal to 3, but got {rank}."
            )
        if rank > self.DIMS + 2:
            raise ValueError(
                f"For '{self.NAME}', the input must be {self.DIMS + 1}-D or {self.DIMS + 2}-D, "
                f"but got {rank}-D."
            )
        for axis, (before, after) in enumerate(_pairs(self.padding, rank)):
            if before or after:
                x = _edge(x, axis, before, after)
        return x


class ReplicationPad1d(_ReplicationPadNd):
    """`nn.ReplicationPad1d(padding)`: (left, right) on the last axis of (C, W) or (N, C, W)."""

    NAME = "ReplicationPad1d"


class ReplicationPad2d(_ReplicationPadNd):
    """`nn.ReplicationPad2d(padding)`: (left, right, top, bottom), 3-D or 4-D inputs."""

    NAME = "ReplicationPad2d"
    DIMS = 2


class ReplicationPad3d(_ReplicationPadNd):
    """`nn.ReplicationPad3d(padding)`: (left, right, top, bottom, front, back), 4-D or 5-D."""

    NAME = "ReplicationPad3d"
    DIMS = 3
