"""`ops.quantile(input, q, axis=None, keepdims=False)` and `ops.nanquantile`: the
q-th quantiles along `axis` (all elements when None), linear interpolation
between the two nearest sorted values (numpy's and torch's default).

MindSpore 2.10 documents them but has no CPU kernel (Quantile raises at run
time), so the reference is the documentation and numpy: a scalar q removes the
axis; a 1-D q Tensor (input's dtype) puts a leading axis of len(q). quantile is
NaN for a slice with a NaN; nanquantile ignores NaNs (NaN when all are).

A composition: sort (NaNs last), then gather the two neighbours of position
q * (count - 1) and interpolate, so both modes and the gradients come for free.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.axes import moveaxis
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.gather_ops import _tensor, gather_elements, known
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.reduce import reduce_any, reduce_sum
from mindjit.frontend.ops.sort import sort
from mindjit.frontend.tensor import Tensor


def _q(q: Any, x: Any, name: str) -> tuple[Any, bool]:
    """q as a 1-D tensor of x's dtype, and whether it was a scalar."""
    if is_tensor(q):
        if q.dtype != x.dtype:
            raise TypeError(f"For primitive[{name}], the input type must be same.")
        if len(q.shape) > 1:
            raise ValueError(f"For '{name}', 'q' must be a scalar or 1-D, got shape {q.shape}")
        values = known(q)
        if values is not None and ((values < 0) | (values > 1)).any():
            raise ValueError(f"For '{name}', the 'q' must in the range [0, 1], but got: {values}.")
        return (array.reshape(q, (1,)) if not q.shape else q), not q.shape
    if isinstance(q, bool) or not isinstance(q, int | float):
        raise TypeError(f"For '{name}', 'q' must be a float or a Tensor, got {q!r}")
    if not 0 <= q <= 1:
        raise ValueError(f"For '{name}', the 'q' must in the range [0, 1], but got: {q}.")
    return Tensor(np.asarray([q], x.dtype.numpy)), True


def _quantile(name: str, input: Any, q: Any, axis: Any, keepdims: bool, ignore_nan: bool) -> Any:  # noqa: A002
    x = _tensor(input, name, "input")
    if x.dtype not in (D.float32, D.float64):
        raise TypeError(
            f"For primitive[{name}], the input argument[input] must be a type of "
            f"{{Tensor[Float32], Tensor[Float64]}}, but got Tensor[{x.dtype}]."
        )
    if not isinstance(keepdims, bool):
        raise TypeError(f"For '{name}', 'keepdims' must be a bool, got {keepdims!r}")
    qs, scalar = _q(q, x, name)
    shape = tuple(x.shape)
    if axis is None:
        data, a = array.reshape(x, (max(x.size, 1),)), 0
    else:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For '{name}', 'axis' must be an int or None, got {axis!r}")
        data, a = x, normalize_axis(axis, len(shape), name)
    data = moveaxis(data, a, -1) if a != len(data.shape) - 1 else data
    n = data.shape[-1]
    lead = tuple(data.shape[:-1])
    ordered = sort(data, -1)[0]  # NaNs last
    isnan = fmath.not_equal(ordered, ordered)
    if ignore_nan:
        count = fmath.sub(n, reduce_sum(array.cast(isnan, x.dtype), -1, True))  # (..., 1)
    else:
        count = Tensor(np.asarray(n, x.dtype.numpy))
    k = qs.shape[0]
    qb = array.reshape(qs, (k,) + (1,) * (len(lead) + 1))  # (k, 1.., 1)
    pos = fmath.mul(qb, fmath.maximum(fmath.sub(count, 1), 0))  # (k, ..., 1)
    lo = fmath.floor(pos)
    frac = fmath.sub(pos, lo)
    hi = fmath.minimum(fmath.add(lo, 1), fmath.maximum(fmath.sub(count, 1), 0))
    full = (k, *lead, 1)
    spread = array.broadcast_to(array.expand_dims(ordered, 0), (k, *lead, n))
    lo_i = array.broadcast_to(array.cast(lo, D.int64), full)
    hi_i = array.broadcast_to(array.cast(hi, D.int64), full)
    below = gather_elements(spread, -1, lo_i)
    above = gather_elements(spread, -1, hi_i)
    out = fmath.add(below, fmath.mul(fmath.sub(above, below), frac))  # (k, ..., 1)
    nan = Tensor(np.asarray(np.nan, x.dtype.numpy))
    if ignore_nan:
        out = fmath.select(array.broadcast_to(fmath.less_equal(count, 0), out.shape), nan, out)
    else:
        any_nan = reduce_any(isnan, -1, True)
        out = fmath.select(array.broadcast_to(any_nan, out.shape), nan, out)
    out = array.reshape(out, (k, *lead))
    if keepdims:
        kept = (1,) * len(shape) if axis is None else shape[:a] + (1,) + shape[a + 1 :]
        out = array.reshape(out, (k, *kept))
    return array.reshape(out, tuple(out.shape[1:])) if scalar else out


def quantile(input: Any, q: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A002
    """`ops.quantile(input, q, axis=None, keepdims=False)`."""
    return _quantile("Quantile", input, q, axis, keepdims, False)


def nanquantile(input: Any, q: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A002
    """`ops.nanquantile(input, q, axis=None, keepdims=False)`: NaNs ignored."""
    return _quantile("NanQuantile", input, q, axis, keepdims, True)


__all__ = ["nanquantile", "quantile"]
