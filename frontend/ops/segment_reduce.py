"""Segment reductions other than the sum: `ops.unsorted_segment_max`,
`ops.unsorted_segment_min`, `ops.unsorted_segment_prod`, and the row combiner
that the scatter families (scatter_params.py, scatter_ops.py) build on.

mindir has one segment op, the sum (gather_ops.py). The others are honest
compositions, so they run in both modes and their gradients come for free:
a (segments, rows) mask compares each row's id with a constant iota, the rows
are selected into a (segments, rows, ...) tensor (elsewhere the reduction's
identity), and that is reduced over the rows axis. It costs segments x rows
elements, which is fine for the sizes these ops are used at.

MindSpore's values where a segment is empty: the dtype's lowest value for max
(-FLT_MAX for float32, not -inf), its highest for min, 1 for prod. Its CPU
kernels raise RuntimeError for an id outside [0, num_segments) (the sum drops
it); a known id does here too, one computed in a graph selects nothing.
Ties in max/min share the gradient equally (MindSpore's too).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.contract import prod
from mindjit.frontend.ops.gather_ops import _indices, _int, _tensor, known, unsorted_segment_sum
from mindjit.frontend.ops.promotion import as_operand
from mindjit.frontend.ops.reduce import reduce_any, reduce_max, reduce_min
from mindjit.frontend.tensor import Tensor


def _identity(kind: str, dtype: D.DType) -> Any:
    if kind == "prod":
        return 1
    info = np.finfo(dtype.numpy) if dtype.is_float else np.iinfo(dtype.numpy)
    return info.min if kind == "max" else info.max


def segment_rows(kind: str, rows: Any, ids: Any, n: int) -> Any:
    """`rows` (k, ...) reduced by `kind` ('max', 'min', 'prod') into `n` segments by
    the int ids (k,); an id outside [0, n) joins no segment."""
    k = rows.shape[0]
    rest = tuple(rows.shape[1:])
    fill = _identity(kind, rows.dtype)
    if k == 0:
        return array.full((n, *rest), fill, dtype=rows.dtype)
    iota = Tensor(np.arange(n, dtype=ids.dtype.numpy).reshape(n, 1))
    mask = fmath.equal(array.reshape(ids, (1, k)), iota)  # (n, k)
    mask = array.reshape(mask, (n, k) + (1,) * len(rest))
    spread = array.broadcast_to(array.reshape(rows, (1, k, *rest)), (n, k, *rest))
    filler = array.full((n, k, *rest), fill, dtype=rows.dtype)
    picked = fmath.select(mask, spread, filler)
    if kind == "max":
        return reduce_max(picked, 1)
    if kind == "min":
        return reduce_min(picked, 1)
    return prod(picked, 1)


def _segment(kind: str, x: Any, segment_ids: Any, num_segments: Any) -> Any:
    prim = f"UnsortedSegment{kind.capitalize()}"
    name = f"unsorted_segment_{kind}"
    x = _tensor(as_operand(x, f"'{name}' x"), name, "x")
    ids = _indices(segment_ids, name, "segment_ids")
    n = _int(num_segments, name, "num_segments")
    if n <= 0:
        raise ValueError(
            f"For primitive[{prim}], the num_segments's value must be greater than 0, but got {n}."
        )
    if x.dtype.is_bool:
        raise TypeError(f"For '{name}', 'x' must be a number tensor, got Bool")
    if tuple(x.shape[: len(ids.shape)]) != tuple(ids.shape):
        raise ValueError(
            f"For '{name}', the shape of 'segment_ids' {tuple(ids.shape)} must be a prefix of "
            f"the shape of 'x' {tuple(x.shape)}"
        )
    values = known(ids)
    if values is not None and values.size and ((values < 0) | (values >= n)).any():
        raise RuntimeError(f"For '{prim}', segment_ids value should be [0, {n})")
    k = math.prod(ids.shape)
    rest = tuple(x.shape[len(ids.shape) :])
    return segment_rows(
        kind, array.reshape(x, (k, *rest)), array.reshape(ids, (k,)) if k else ids, n
    )


def unsorted_segment_max(x: Any, segment_ids: Any, num_segments: Any) -> Any:
    """`ops.unsorted_segment_max(x, segment_ids, num_segments)`: out[s] is the maximum
    of the slices of `x` whose id is s (the dtype's lowest value if none)."""
    return _segment("max", x, segment_ids, num_segments)


def unsorted_segment_min(x: Any, segment_ids: Any, num_segments: Any) -> Any:
    """`ops.unsorted_segment_min(x, segment_ids, num_segments)`: out[s] is the minimum
    of the slices of `x` whose id is s (the dtype's highest value if none)."""
    return _segment("min", x, segment_ids, num_segments)


def unsorted_segment_prod(x: Any, segment_ids: Any, num_segments: Any) -> Any:
    """`ops.unsorted_segment_prod(x, segment_ids, num_segments)`: out[s] is the product
    of the slices of `x` whose id is s (1 if none)."""
    return _segment("prod", x, segment_ids, num_segments)


# --- the scatter families' combiner ------------------------------------------------------

COMBINERS = ("add", "sub", "mul", "div", "max", "min", "update")


def last_writes(lin: Any) -> Any:
    """`lin` (k,) with every position that a later row also writes set to -1, so
    each target keeps only its last update (what MindSpore's CPU kernels do)."""
    k = lin.shape[0]
    if k <= 1:
        return lin
    same = fmath.equal(array.reshape(lin, (k, 1)), array.reshape(lin, (1, k)))
    later = Tensor(np.triu(np.ones((k, k), bool), 1))  # [i, j]: j comes after i
    overwritten = reduce_any(fmath.logical_and(same, later), 1)
    return fmath.select(overwritten, Tensor(np.array(-1, lin.dtype.numpy)), lin)


def combine_rows(kind: str, x: Any, lin: Any, updates: Any) -> Any:
    """`x` (R, ...) with the rows of `updates` (k, ...) combined by `kind` into its
    rows at `lin` (k,; -1 or out of range: nowhere). Duplicate targets: add/sub sum
    their updates, mul/div multiply them, max/min take the extreme, update keeps
    the last one."""
    r = x.shape[0]
    k = lin.shape[0]
    bcast = (r,) + (1,) * (len(x.shape) - 1)
    if k == 0:
        return x
    if kind in ("add", "sub"):
        summed = unsorted_segment_sum(updates, lin, r)
        return fmath.add(x, summed) if kind == "add" else fmath.sub(x, summed)
    ones = array.ones((k,), D.int32)
    hit = array.reshape(fmath.greater(unsorted_segment_sum(ones, lin, r), 0), bcast)
    if kind == "update":
        kept = last_writes(lin)
        return fmath.select(hit, unsorted_segment_sum(updates, kept, r), x)
    if kind in ("mul", "div"):
        p = segment_rows("prod", updates, lin, r)
        if kind == "mul":
            return fmath.mul(x, p)
        q = fmath.div(x, p) if x.dtype.is_float else fmath._trunc_div(x, p)
        return fmath.select(hit, q, x)  # (x / 1 is x: keeps the dtype's exact value)
    extreme = segment_rows(kind, updates, lin, r)
    pick = fmath.maximum if kind == "max" else fmath.minimum
    return fmath.select(hit, pick(x, extreme), x)


__all__ = ["unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod"]
