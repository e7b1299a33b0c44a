"""Splitting a tensor into pieces along an axis: `ops.split`, `ops.chunk`, `ops.Split`.

Shapes are static, so every piece is a constant slice: one `mindir.get_item` per
piece (no split op in mindir). The pieces come back as a Python tuple, which
graph mode unpacks and iterates like any tuple (`i, f, g, o = ops.split(gates,
4, 1)` in an LSTM cell); each slice's gradient is the cotangent padded back into
place, so the pieces' gradients add up to the input's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mindjit.dialects import mindir as M
from mindjit.frontend.ops.core import normalize_axis, run
from mindjit.frontend.ops.promotion import is_tensor


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def require_tensor(x: Any, name: str, what: str = "input") -> Any:
    if not is_tensor(x):
        raise TypeError(f"For '{name}', '{what}' must be a Tensor, got {type(x).__name__}")
    return x


def slice_axis(x: Any, axis: int, start: int, stop: int) -> Any:
    """`x[..., start:stop, ...]` on `axis` (one `mindir.get_item`)."""
    shape = tuple(x.shape)
    starts = [start if a == axis else 0 for a in range(len(shape))]
    limits = [stop if a == axis else d for a, d in enumerate(shape)]
    strides = [1] * len(shape)

    def build(e: Any, v: list[Any]) -> Any:
        return e.value(M.GetItemOp.get(v[0], starts, limits, strides, ()))

    key = ("get_item", tuple(starts), tuple(limits), tuple(strides), ())
    return run(key, build, x)


def split_sizes(x: Any, axis: int, sizes: Sequence[int]) -> tuple[Any, ...]:
    """The consecutive pieces of `x` along `axis` with these sizes (summing to the axis)."""
    out = []
    start = 0
    for size in sizes:
        out.append(slice_axis(x, axis, start, start + size))
        start += size
    return tuple(out)


def _axis(x: Any, axis: Any, name: str) -> int:
    rank = len(x.shape)
    if rank == 0:
        raise ValueError(f"For '{name}', the input must have rank >= 1, got a scalar tensor")
    return normalize_axis(axis, rank, name)


def split(tensor: Any, split_size_or_sections: Any, axis: int = 0) -> tuple[Any, ...]:
    """`ops.split(tensor, split_size_or_sections, axis=0)`: an int splits into chunks of
    that size (the last one smaller when the axis does not divide); a tuple or list gives
    each piece's size, which must add up to the axis."""
    x = require_tensor(tensor, "split", "tensor")
    ax = _axis(x, axis, "split")
    dim = x.shape[ax]
    spec = split_size_or_sections
    if _is_int(spec):
        if spec <= 0:
            raise ValueError(
                f"For 'split', 'split_size_or_sections' must be greater than 0, got {spec}"
            )
        sizes = [min(spec, dim - start) for start in range(0, dim, spec)] or [0]
    elif isinstance(spec, tuple | list):
        if not all(_is_int(s) for s in spec):
            raise TypeError(
                f"For 'split', each element of 'split_size_or_sections' must be an int, "
                f"got {spec!r}"
            )
        if any(s < 0 for s in spec):
            raise ValueError(
                f"For 'split', the elements of 'split_size_or_sections' must be >= 0, got {spec}"
            )
        if sum(spec) != dim:
            raise ValueError(
                f"For 'split', the sum of 'split_size_or_sections' ({sum(spec)}) must equal "
                f"the size of axis {ax} ({dim})"
            )
        sizes = list(spec)
    else:
        raise TypeError(
            "For 'split', 'split_size_or_sections' must be an int or a tuple or list of ints, "
            f"got {type(spec).__name__}"
        )
    return split_sizes(x, ax, sizes)


def chunk(input: Any, chunks: int, axis: int = 0) -> tuple[Any, ...]:
    """`ops.chunk(input, chunks, axis=0)`: at most `chunks` pieces of size
    ceil(n / chunks), the last one smaller (so there may be fewer than `chunks`)."""
    x = require_tensor(input, "chunk")
    if not _is_int(chunks):
        raise TypeError(f"For 'chunk', 'chunks' must be an int, got {type(chunks).__name__}")
    if chunks <= 0:
        raise ValueError(f"For 'chunk', 'chunks' must be greater than 0, got {chunks}")
    ax = _axis(x, axis, "chunk")
    dim = x.shape[ax]
    size = -(-dim // chunks)
    return split(x, max(size, 1), ax)


def split_equal(input_x: Any, axis: int, output_num: int) -> tuple[Any, ...]:
    """The primitive `ops.Split(axis, output_num)(x)`: `output_num` equal pieces."""
    x = require_tensor(input_x, "Split", "input_x")
    if not _is_int(output_num):
        raise TypeError(f"For 'Split', 'output_num' must be an int, got {output_num!r}")
    if output_num <= 0:
        raise ValueError(f"For 'Split', 'output_num' must be greater than 0, got {output_num}")
    ax = _axis(x, axis, "Split")
    dim = x.shape[ax]
    if dim % output_num:
        raise ValueError(
            f"For 'Split', the size of axis {ax} ({dim}) must be divisible by "
            f"'output_num' ({output_num})"
        )
    return split_sizes(x, ax, [dim // output_num] * output_num)
