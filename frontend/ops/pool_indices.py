"""Where a max pooling's maximum was, for any number of spatial axes and any windows.

Each spatial axis is described by its taps: tap t of output position o reads
input element idx[t][o] when valid[t][o] (padding and the ragged end of an
adaptive window are not valid). For every combination of taps, in row-major
order, the gathered input is compared with the pooled maximum; the first
combination that equals it and is valid gives the flat index into the spatial
elements of each channel (d * H * W + h * W + w), as MindSpore's and PyTorch's
CPU kernels pick the first maximum of a window. No mindir op: gathers with
constant indices, compares and selects, as frontend/ops/pool_argmax.py does for
2-d windows of one size. The result is an integer tensor: no gradient.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import broadcast_to
from mindjit.frontend.ops.gather_ops import gather
from mindjit.frontend.ops.math import equal, logical_and, logical_not, logical_or, select
from mindjit.frontend.ops.promotion import constant

Taps = list[tuple[np.ndarray, np.ndarray]]  # per tap: (index per output, valid per output)


def window_taps(size: int, out: int, k: int, s: int, d: int, lo: int) -> Taps:
    """The taps of a strided, dilated window with `lo` padding before the input."""
    o = np.arange(out)
    taps = []
    for t in range(k):
        at = o * s + t * d - lo
        taps.append((at, (at >= 0) & (at < size)))
    return taps


def adaptive_taps(size: int, out: int) -> Taps:
    """The taps of adaptive windows [floor(o * size / out), ceil((o + 1) * size / out))."""
    lo = np.array([(o * size) // out for o in range(out)])
    hi = np.array([-(-((o + 1) * size) // out) for o in range(out)])
    return [(lo + t, lo + t < hi) for t in range(int((hi - lo).max()))]


def argmax_indices(x: Any, out: Any, taps: list[Taps], dtype: D.DType = D.int64) -> Any:
    """The flat spatial index of `out` (the pooled maximum of `x`, same leading axes)."""
    lead = len(x.shape) - len(taps)
    sizes = x.shape[lead:]
    strides = [int(np.prod(sizes[a + 1 :])) for a in range(len(sizes))]
    out_shape = tuple(out.shape)
    # the gathered input per prefix of taps, so axis a gathers once per combination before it
    gathered: dict[tuple[int, ...], Any] = {(): x}
    for combo in itertools.product(*[range(len(t)) for t in taps]):
        for depth in range(1, len(combo) + 1):
            key = combo[:depth]
            if key not in gathered:
                at = np.clip(taps[depth - 1][combo[depth - 1]][0], 0, sizes[depth - 1] - 1)
                gathered[key] = gather(gathered[key[:-1]], constant(at, D.int32), lead + depth - 1)
    index = taken = None
    for combo in itertools.product(*[range(len(t)) for t in taps]):
        valid = np.ones((), bool)
        flat = np.zeros((), np.int64)
        for a, t in enumerate(combo):
            at, ok = taps[a][t]
            shape = [1] * len(taps)
            shape[a] = len(at)
            valid = valid & ok.reshape(shape)
            flat = flat + at.reshape(shape) * strides[a]
        if not valid.any():
            continue
        hit = equal(gathered[combo], out)
        if not valid.all():
            hit = logical_and(hit, constant(np.broadcast_to(valid, out_shape[lead:]), D.bool_))
        if taken is not None:
            hit = logical_and(hit, logical_not(taken))
        taken = hit if taken is None else logical_or(taken, hit)
        at_c = broadcast_to(constant(flat, dtype), out_shape)
        index = at_c if index is None else select(hit, at_c, index)
    return index
