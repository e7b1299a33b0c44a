"""Spread and size of a tensor: `ops.var` / `std` / `var_mean` / `std_mean`, `ops.norm`.

Compositions of reductions: var = sum((x - mean)^2) / (N - ddof) with the mean
kept for broadcasting, std = sqrt(var); the vector norms are sums and maxima of
|x| (MindSpore 2.x's table: None/2 -> sqrt(sum x^2), inf -> max|x|, -inf ->
min|x|, 0 -> count of non-zeros, p -> sum(|x|^p)^(1/p)) and the matrix norms
'fro', 1, -1, inf, -inf are sums then max/min. The singular-value norms (2, -2,
'nuc' on matrices) need an SVD, which mindjit does not have: they raise
NotImplementedError. Integer inputs compute in float32.
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import cast, squeeze
from mindjit.frontend.ops.cast import float_input
from mindjit.frontend.ops.core import normalize_axes, normalize_axis
from mindjit.frontend.ops.math import abs as abs_
from mindjit.frontend.ops.math import div, mul, not_equal, pow, sqrt, sub
from mindjit.frontend.ops.reduce import reduce_max, reduce_mean, reduce_min, reduce_sum
from mindjit.frontend.ops.split import require_tensor


def _axes(axis: Any, rank: int, name: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, bool) or not (
        isinstance(axis, int)
        or (isinstance(axis, tuple | list) and all(isinstance(a, int) for a in axis))
    ):
        raise TypeError(
            f"For '{name}', 'axis' must be None, an int or a tuple of ints, got {axis!r}"
        )
    axes = normalize_axes(axis, rank, name)
    return axes or tuple(range(rank))


def _moments(name: str, input: Any, axis: Any, ddof: Any, keepdims: Any) -> tuple[Any, Any]:
    """(variance, mean) over `axis`."""
    x = require_tensor(input, name)
    if x.dtype.is_bool:
        raise TypeError(f"For '{name}', the input must be a number tensor, got {x.dtype}")
    if not isinstance(keepdims, bool):
        raise TypeError(f"For '{name}', 'keepdims' must be a bool, got {keepdims!r}")
    if not isinstance(ddof, int):
        raise TypeError(f"For '{name}', 'ddof' must be an int or a bool, got {ddof!r}")
    x = float_input(x)
    axes = _axes(axis, len(x.shape), name)
    count = math.prod(x.shape[a] for a in axes)
    mean = reduce_mean(x, axes, True)
    centered = sub(x, mean)
    var = div(reduce_sum(mul(centered, centered), axes, keepdims), float(count - int(ddof)))
    if not keepdims:
        mean = reduce_mean(x, axes, False)
    return var, mean


def var(input: Any, axis: Any = None, ddof: Any = 0, keepdims: bool = False) -> Any:
    """`ops.var(input, axis=None, ddof=0, keepdims=False)`: divisor N - ddof
    (ddof=True means 1)."""
    return _moments("var", input, axis, ddof, keepdims)[0]


def std(input: Any, axis: Any = None, ddof: Any = 0, keepdims: bool = False) -> Any:
    """`ops.std(input, axis=None, ddof=0, keepdims=False)`: sqrt of `var`."""
    return sqrt(_moments("std", input, axis, ddof, keepdims)[0])


def var_mean(input: Any, axis: Any = None, ddof: Any = 0, keepdims: bool = False) -> Any:
    """`ops.var_mean(...)`: the tuple (var, mean)."""
    return _moments("var_mean", input, axis, ddof, keepdims)


def std_mean(input: Any, axis: Any = None, ddof: Any = 0, keepdims: bool = False) -> Any:
    """`ops.std_mean(...)`: the tuple (std, mean)."""
    v, m = _moments("std_mean", input, axis, ddof, keepdims)
    return sqrt(v), m


# --- norm -----------------------------------------------------------------------------

_INF = float("inf")


def _vector_norm(x: Any, ord: Any, axes: tuple[int, ...], keep: bool) -> Any:  # noqa: A002
    if isinstance(ord, str):
        raise TypeError(f"For 'norm', a vector norm's 'ord' must be a number, got {ord!r}")
    if ord is None or ord == 2:
        return sqrt(reduce_sum(mul(x, x), axes, keep))
    a = abs_(x)
    if ord == _INF:
        return reduce_max(a, axes, keep)
    if ord == -_INF:
        return reduce_min(a, axes, keep)
    if ord == 0:
        return reduce_sum(cast(not_equal(x, 0.0), x.dtype), axes, keep)
    if ord == 1:
        return reduce_sum(a, axes, keep)
    p = float(ord)
    return pow(reduce_sum(pow(a, p), axes, keep), 1.0 / p)


def _matrix_norm(x: Any, ord: Any, axes: tuple[int, int], keep: bool) -> Any:  # noqa: A002
    row, col = axes
    if ord is None or ord == "fro":
        return sqrt(reduce_sum(mul(x, x), axes, keep))
    if ord in ("nuc", 2, -2):  # from the singular values
        from mindjit.frontend.ops.linalg_svd import matrix_norm  # a cycle: it imports this module

        return matrix_norm(x, ord, axes, keep)
    if isinstance(ord, str) or ord not in (1, -1, _INF, -_INF):
        raise ValueError(
            f"For 'norm', a matrix norm's 'ord' must be one of None, 'fro', 'nuc', "
            f"inf, -inf, 1, -1, 2, -2, got {ord!r}"
        )
    # 1 / -1: max/min over columns of the column sums; inf / -inf: the same for rows
    summed, other = (row, col) if ord in (1, -1) else (col, row)
    sums = reduce_sum(abs_(x), (summed,), True)
    pick = reduce_max if ord in (1, _INF) else reduce_min
    out = pick(sums, (other,), True)
    return out if keep else squeeze(out, axes)


def norm(
    A: Any,  # noqa: N803 - MindSpore's name
    ord: Any = None,  # noqa: A002
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Any:
    """`ops.norm(A, ord=None, dim=None, keepdim=False, *, dtype=None)`: a vector norm over
    an int `dim` (or a 1-D A), a matrix norm over a 2-tuple `dim` (or a 2-D A); with
    dim and ord both None the 2-norm of all elements."""
    x = require_tensor(A, "norm", "A")
    if dtype is not None:
        x = cast(x, D.to_dtype(dtype))
    if x.dtype.is_bool:
        raise TypeError(f"For 'norm', 'A' must be a number tensor, got {x.dtype}")
    x = float_input(x)
    keep = bool(keepdim)
    rank = len(x.shape)
    if dim is None:
        if ord is None:
            return _vector_norm(x, None, tuple(range(rank)), keep)
        if rank == 1:
            return _vector_norm(x, ord, (0,), keep)
        if rank == 2:
            return _matrix_norm(x, ord, (0, 1), keep)
        raise ValueError(
            f"For 'norm', 'A' must be 1-D or 2-D when 'dim' is None and 'ord' is not, "
            f"got shape {x.shape}"
        )
    if isinstance(dim, int) and not isinstance(dim, bool):
        return _vector_norm(x, ord, (normalize_axis(dim, rank, "norm"),), keep)
    if isinstance(dim, tuple | list) and all(
        isinstance(d, int) and not isinstance(d, bool) for d in dim
    ):
        if len(dim) == 1:
            return _vector_norm(x, ord, (normalize_axis(dim[0], rank, "norm"),), keep)
        if len(dim) == 2:
            a, b = (normalize_axis(d, rank, "norm") for d in dim)
            if a == b:
                raise ValueError(f"For 'norm', the two axes of 'dim' are the same: {dim}")
            return _matrix_norm(x, ord, (a, b), keep)
        raise ValueError(f"For 'norm', 'dim' must have 1 or 2 axes, got {dim}")
    raise TypeError(f"For 'norm', 'dim' must be an int or a tuple of ints, got {dim!r}")
