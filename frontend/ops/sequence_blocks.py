"""Sequences and spatial blocks: `ops.sequence_mask`, `ops.reverse_sequence`,
`ops.batch_to_space_nd`, `ops.space_to_batch_nd` (MindSpore 2.10's deprecated
but CPU-runnable names).

Each is a composition of reshapes, transposes, pads, compares and gathers, so
both modes and the gradients come for free:

- sequence_mask(lengths, maxlen): lengths[..., None] > iota(maxlen); without
  maxlen the width is max(lengths), a value, so in a graph `lengths` must be a
  constant (nonzero's rule);
- reverse_sequence: gather_elements along seq_dim at L_b - 1 - j for j < L_b;
- batch_to_space_nd / space_to_batch_nd: the last M axes are spatial (MindSpore's
  offset N - M); the batch axis splits into the block offsets (major) and the
  batch, which interleave with the spatial axes; then crop, or pad first.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.conv import pad
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.gather_ops import _indices, _int, _tensor, gather_elements, known
from mindjit.frontend.ops.slicing import strided_slice
from mindjit.frontend.tensor import Tensor


def sequence_mask(lengths: Any, maxlen: Any = None) -> Any:
    """`ops.sequence_mask(lengths, maxlen=None)`: bool, shape lengths.shape + (maxlen,),
    True where the position is below the length."""
    name = "sequence_mask"
    if not hasattr(lengths, "dtype") or lengths.dtype not in (D.int32, D.int64):
        got = getattr(lengths, "dtype", type(lengths).__name__)
        raise TypeError(
            f"The 'lengths' doesn't support '{got}' and expect to receive "
            f"[mindspore.int64, mindspore.int32]."
        )
    if maxlen is None:
        values = known(lengths)
        if values is None or current_graph() is not None and not isinstance(lengths, Tensor):
            raise ValueError(
                f"For '{name}', without 'maxlen' the width of the result is max(lengths), a "
                "value: in GRAPH_MODE 'lengths' must be a constant, or give 'maxlen'"
            )
        maxlen = int(values.max()) if values.size else 0
    else:
        maxlen = _int(maxlen, name, "maxlen")
        if not 0 < maxlen <= 2147483647:
            raise ValueError(
                f"For '{name}', the 'maxlen' must be in range of (0, 2147483647], but got "
                f"{maxlen} with type 'int'."
            )
    iota = Tensor(np.arange(maxlen, dtype=lengths.dtype.numpy))
    return fmath.less(iota, array.expand_dims(lengths, -1))


def reverse_sequence(x: Any, seq_lengths: Any, seq_dim: int, batch_dim: int = 0) -> Any:
    """`ops.reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0)`: in each batch
    slice b, the first seq_lengths[b] elements along seq_dim reversed."""
    name = "ReverseSequence"
    x = _tensor(x, name, "x")
    lengths = _indices(seq_lengths, name, "seq_lengths")
    rank = len(x.shape)
    s = normalize_axis(_int(seq_dim, name, "seq_dim"), rank, name)
    b = normalize_axis(_int(batch_dim, name, "batch_dim"), rank, name)
    if s == b:
        raise ValueError(f"For '{name}', 'seq_dim' and 'batch_dim' must differ, got {s}")
    if tuple(lengths.shape) != (x.shape[b],):
        raise ValueError(
            f"For '{name}', 'seq_lengths' must have shape ({x.shape[b]},), got "
            f"{tuple(lengths.shape)}"
        )
    values = known(lengths)
    if values is not None:
        for i, v in enumerate(values.tolist()):
            if v > x.shape[s] or v < 0:
                raise RuntimeError(f"Invalid seq_lengths[{i}]: {v}")
    n = x.shape[s]
    length = array.cast(lengths, D.int64)
    shape_b = [1] * rank
    shape_b[b] = x.shape[b]
    shape_j = [1] * rank
    shape_j[s] = n
    length = array.reshape(length, tuple(shape_b))
    j = Tensor(np.arange(n, dtype=np.int64).reshape(shape_j))
    flipped = fmath.sub(fmath.sub(length, 1), j)
    index = fmath.select(fmath.less(j, length), flipped, j)
    return gather_elements(x, s, array.broadcast_to(index, tuple(x.shape)))


def _blocks(value: Any, m: int, name: str, what: str) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,) * m
    if not isinstance(value, tuple | list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise TypeError(f"For '{name}', '{what}' must be an int or a tuple of ints, got {value!r}")
    if len(value) != m or any(v < 1 for v in value):
        raise ValueError(f"For '{name}', '{what}' must be {m} ints >= 1, got {value}")
    return tuple(value)


def _pairs(value: Any, name: str, what: str) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, tuple | list) or not all(
        isinstance(p, tuple | list)
        and len(p) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in p)
        for p in value
    ):
        raise TypeError(f"For '{name}', '{what}' must be a list of [int, int] pairs, got {value!r}")
    if any(v < 0 for p in value for v in p):
        raise ValueError(f"For '{name}', every value of '{what}' must be >= 0, got {value}")
    return tuple((p[0], p[1]) for p in value)


def batch_to_space_nd(input_x: Any, block_shape: Any, crops: Any) -> Any:
    """`ops.batch_to_space_nd(input_x, block_shape, crops)`: the batch axis' blocks
    moved into the last M (spatial) axes, which are then cropped."""
    name = "batch_to_space_nd"
    x = _tensor(input_x, name, "input_x")
    pairs = _pairs(crops, name, "crops")
    m = len(pairs)
    blocks = _blocks(block_shape, m, name, "block_shape")
    shape = tuple(x.shape)
    rank = len(shape)
    if rank < m + 1:
        raise ValueError(f"For '{name}', 'input_x' must have rank >= {m + 1}, got {rank}")
    p = math.prod(blocks)
    if shape[0] % p:
        raise ValueError(
            f"For '{name}', the batch dimension ({shape[0]}) must be divisible by the product "
            f"of 'block_shape' ({p})"
        )
    off = rank - m
    spatial = shape[off:]
    for i, ((lo, hi), bs, d) in enumerate(zip(pairs, blocks, spatial)):
        if lo + hi >= d * bs:
            raise ValueError(
                f"For '{name}', crops[{i}] ({lo}, {hi}) must be less than "
                f"input_shape[{i + off}] * block_shape[{i}] = {d * bs}"
            )
    n = shape[0] // p
    middle = shape[1:off]
    y = array.reshape(x, (*blocks, n, *middle, *spatial))
    # axes: blocks 0..m-1, batch m, middle m+1 .. m+len(middle), spatial after
    first = m + 1 + len(middle)
    perm = [m, *range(m + 1, first)]
    for i in range(m):
        perm += [first + i, i]
    y = array.transpose(y, tuple(perm))
    full = tuple(d * bs for d, bs in zip(spatial, blocks))
    y = array.reshape(y, (n, *middle, *full))
    if any(lo or hi for lo, hi in pairs):
        begin = (0,) * off + tuple(lo for lo, _ in pairs)
        end = (n, *middle) + tuple(d - hi for d, (_, hi) in zip(full, pairs))
        y = strided_slice(y, begin, end, (1,) * rank)
    return y


def space_to_batch_nd(input_x: Any, block_size: Any, paddings: Any) -> Any:
    """`ops.space_to_batch_nd(input_x, block_size, paddings)`: the last M (spatial)
    axes zero-padded, then split into blocks that move into the batch axis."""
    name = "space_to_batch_nd"
    x = _tensor(input_x, name, "input_x")
    pairs = _pairs(paddings, name, "paddings")
    m = len(pairs)
    blocks = _blocks(block_size, m, name, "block_size")
    shape = tuple(x.shape)
    rank = len(shape)
    if rank < m + 1:
        raise ValueError(f"For '{name}', 'input_x' must have rank >= {m + 1}, got {rank}")
    off = rank - m
    padded = tuple(d + lo + hi for d, (lo, hi) in zip(shape[off:], pairs))
    for i, (d, bs) in enumerate(zip(padded, blocks)):
        if d % bs:
            raise ValueError(
                f"For '{name}', the padded spatial dimension {i} ({d}) must be divisible by "
                f"block_size[{i}] ({bs})"
            )
    if any(lo or hi for lo, hi in pairs):
        flat = [v for lo, hi in reversed(pairs) for v in (lo, hi)]
        x = pad(x, flat)
    n = shape[0]
    middle = shape[1:off]
    split = [v for d, bs in zip(padded, blocks) for v in (d // bs, bs)]
    y = array.reshape(x, (n, *middle, *split))
    first = off
    block_axes = [first + 2 * i + 1 for i in range(m)]
    perm = [*block_axes, 0, *range(1, off), *(first + 2 * i for i in range(m))]
    y = array.transpose(y, tuple(perm))
    return array.reshape(
        y, (n * math.prod(blocks), *middle, *(d // bs for d, bs in zip(padded, blocks)))
    )


__all__ = ["batch_to_space_nd", "reverse_sequence", "sequence_mask", "space_to_batch_nd"]
