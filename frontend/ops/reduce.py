"""Reductions with MindSpore 2.x's signatures (they differ in spelling per function:
`mean(x, axis, keep_dims)`, `sum(input, dim, keepdim)`, `amax(input, axis, keepdims)`).

`axis=None` or `()` reduces every axis (an empty mindir axis list means all).
Sums of bool tensors count in int64; means of int tensors are float32.
"""

from __future__ import annotations

from typing import Any

from mindjit.dialects import mindir as M
from mindjit.frontend import dtype as D
from mindjit.frontend.ops.cast import cast_to, float_input
from mindjit.frontend.ops.core import normalize_axes, run
from mindjit.frontend.ops.math import logical_not, neg
from mindjit.frontend.ops.promotion import as_operand, constant, default_dtype, is_tensor


def _tensor(x: Any, name: str) -> Any:
    x = as_operand(x, f"'{name}' input")
    return x if is_tensor(x) else constant(x, default_dtype(x))


def _reduce(name: str, op_cls: Any, x: Any, axis: Any, keep_dims: bool) -> Any:
    axes = normalize_axes(axis, len(x.shape), name)
    keep = bool(keep_dims)

    def build(e: Any, v: list[Any]) -> Any:
        return e.value(op_cls.get(v[0], axes, keep))

    return run((name, axes, keep), build, x)


def reduce_sum(x: Any, axis: Any = (), keep_dims: bool = False) -> Any:
    t = _tensor(x, "reduce_sum")
    if t.dtype.is_bool:
        t = cast_to(t, D.int64)
    return _reduce("reduce_sum", M.ReduceSumOp, t, axis, keep_dims)


def sum(input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:  # noqa: A001
    """`ops.sum(x, dim=None, keepdim=False, *, dtype=None)`."""
    t = _tensor(input, "sum")
    if dtype is not None:
        t = cast_to(t, D.to_dtype(dtype))
    return reduce_sum(t, dim, keepdim)


def reduce_mean(x: Any, axis: Any = (), keep_dims: bool = False) -> Any:
    t = float_input(_tensor(x, "reduce_mean"))
    return _reduce("reduce_mean", M.ReduceMeanOp, t, axis, keep_dims)


def mean(x: Any, axis: Any = None, keep_dims: bool = False) -> Any:
    """`ops.mean(x, axis=None, keep_dims=False)`."""
    return reduce_mean(x, axis, keep_dims)


def reduce_max(x: Any, axis: Any = (), keep_dims: bool = False) -> Any:
    t = _tensor(x, "reduce_max")
    if t.dtype.is_bool:  # any(): max over 0/1
        out = _reduce("reduce_max", M.ReduceMaxOp, cast_to(t, D.int32), axis, keep_dims)
        return cast_to(out, D.bool_)
    return _reduce("reduce_max", M.ReduceMaxOp, t, axis, keep_dims)


def amax(input: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """`ops.amax(x, axis=None, keepdims=False)`: the maximum over `axis` (all by default)."""
    return reduce_max(input, axis, keepdims)


def reduce_min(x: Any, axis: Any = (), keep_dims: bool = False) -> Any:
    """min(x) = -max(-x) (mindir has no reduce_min); bools via logical not."""

    t = _tensor(x, "reduce_min")
    if t.dtype.is_bool:
        return logical_not(reduce_max(logical_not(t), axis, keep_dims))
    return neg(reduce_max(neg(t), axis, keep_dims))


def amin(input: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return reduce_min(input, axis, keepdims)


def reduce_all(x: Any, axis: Any = (), keep_dims: bool = False) -> Any:
    return reduce_min(cast_to(_tensor(x, "all"), D.bool_), axis, keep_dims)


def reduce_any(x: Any, axis: Any = (), keep_dims: bool = False) -> Any:
    return reduce_max(cast_to(_tensor(x, "any"), D.bool_), axis, keep_dims)
