"""MindSpore's higher-order (Taylor-mode) derivatives: `ops.jet(fn, primals,
series)` and `ops.derivative(fn, primals, order)`.

`jet` gives the first n derivatives of t -> fn(x(t)) at t = 0 along the curve
x(t) = primals + sum_k series[k-1] t^k / k!, k = 1..n (series[k-1] is the k-th
derivative of the input, the leading axis of `series`), which is what
MindSpore's Taylor operation computes; `derivative(fn, primals, order)` is its
order-th term for series (1, 0, ..., 0): the order-th derivative along the
all-ones direction.

mindjit has no Taylor-mode rules; it gets the same values exactly by nesting
its forward mode (`ops.jvp`, itself a gradient of a gradient) over the scalar t:
the k-th derivative is k nested jvps with tangent 1, traced and compiled as one
graph (also in PyNative, as ops.jvp is). The cost grows as 2^k, so this is for
the small orders MindSpore's examples use. Integer primals are taken as float32,
as in MindSpore; a tuple of outputs gives lists (out_primals, out_series), as
MindSpore's do.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.grad_functional import _traced, jvp
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.tensor import Tensor


def _tensors(value: Any, what: str, name: str) -> tuple[Any, ...]:
    items = tuple(value) if isinstance(value, tuple | list) else (value,)
    if not items or not all(isinstance(v, Tensor | GraphValue) for v in items):
        raise TypeError(
            f"For `F.{name}`, the '{what}' must be a Tensor or a tuple of Tensors, but got "
            f"{type(value).__name__}."
        )
    return tuple(v if v.dtype.is_float else ops.cast(v, D.float32) for v in items)


def _power(t: Any, k: int) -> Any:
    """t ** k by multiplications (exact derivatives at t = 0)."""
    out = t
    for _ in range(k - 1):
        out = out * t
    return out


def _along(fn: Callable[..., Any], primals: tuple, series: tuple) -> Callable[..., Any]:
    """t -> fn(primals + sum_k series[k-1] t^k / k!)."""

    @_traced
    def along(t):
        points = []
        for x, s in zip(primals, series, strict=True):
            point = x
            for k in range(1, s.shape[0] + 1):
                point = point + s[k - 1] * (_power(t, k) / float(math.factorial(k)))
            points.append(point)
        return fn(*points)

    return along


def _nested(g: Callable[..., Any], order: int) -> Callable[..., Any]:
    """t -> the order-th derivative of g at t."""
    for _ in range(order):
        g = _differentiate(g)
    return g


def _differentiate(g: Callable[..., Any]) -> Callable[..., Any]:
    @_traced
    def dg(t):
        return jvp(g, t, ops.ones_like(t))[1]

    return dg


def _pack(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _stack(rows: list) -> Any:
    if isinstance(rows[0], tuple):
        return [ops.stack([row[i] for row in rows]) for i in range(len(rows[0]))]
    return ops.stack(rows)


def _jet_terms(primals: Any, series: Any) -> tuple[tuple, tuple, int]:
    """(primals, series, n), checked (called as Python, also in a graph)."""
    xs = _tensors(primals, "primals", "jet")
    ss = _tensors(series, "series", "jet")
    if len(xs) != len(ss):
        raise ValueError(
            f"For `F.jet`, the number of 'series' ({len(ss)}) must be the number of "
            f"'primals' ({len(xs)})."
        )
    for x, s in zip(xs, ss, strict=True):
        if s.ndim != x.ndim + 1 or tuple(s.shape[1:]) != tuple(x.shape):
            raise ValueError(
                f"For `F.jet`, each series must have shape (n,) + the primal's shape "
                f"{tuple(x.shape)}, but got {tuple(s.shape)}."
            )
    orders = {int(s.shape[0]) for s in ss}
    if len(orders) != 1 or 0 in orders:
        raise ValueError("For `F.jet`, every series must hold the same number (>= 1) of terms.")
    return xs, ss, orders.pop()


def _derivative_terms(primals: Any, order: Any) -> tuple[tuple, tuple]:
    """(primals, the series (1,) of ones), checked."""
    if isinstance(order, bool) or not isinstance(order, int):
        raise TypeError("For `F.derivative`, the type of order must be int.")
    if order < 1:
        raise ValueError(
            f"For `F.derivative`, value of order should not be less than 1, but got {order}."
        )
    xs = _tensors(primals, "primals", "derivative")
    return xs, tuple(ops.expand_dims(ops.ones_like(x), 0) for x in xs)


def _origin(xs: tuple) -> Any:
    return ops.zeros((), xs[0].dtype)


@_traced
def jet(fn: Callable[..., Any], primals: Any, series: Any) -> tuple[Any, Any]:
    """`ops.jet(fn, primals, series)`: (fn(primals), its 1st..n-th derivatives along
    the curve the series describe, stacked on a leading axis)."""
    xs, ss, n = _jet_terms(primals, series)
    g = _along(fn, xs, ss)
    t = _origin(xs)
    rows = [_nested(g, k)(t) for k in range(1, n + 1)]
    return _pack(fn(*xs)), _stack(rows)


@_traced
def derivative(fn: Callable[..., Any], primals: Any, order: Any) -> tuple[Any, Any]:
    """`ops.derivative(fn, primals, order)`: (fn(primals), its order-th derivative
    along the all-ones direction)."""
    xs, ss = _derivative_terms(primals, order)
    out = _nested(_along(fn, xs, ss), order)(_origin(xs))
    return _pack(fn(*xs)), _pack(out)


__all__ = ["derivative", "jet"]
