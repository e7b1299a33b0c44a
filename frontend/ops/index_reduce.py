"""Index reductions with MindSpore 2.x's signatures: `argmax`, `argmin`, and `max` /
`min` returning (values, indices).

`ops.argmax` returns int64 indices (MindSpore 2.x builds Argmax with int64);
`ops.argmin` returns int32 (Argmin's default `output_type`); `ops.max`/`ops.min`
return int32 indices (ArgMaxWithValue's). A scalar's argmax is 0; `dim=None`
looks at the flattened tensor. Ties give the first index, NaN counts as the
largest/smallest (numpy's rule).

The values of `max`/`min` are the chosen elements picked by a one-hot mask
(`sum(select(index == iota, x, 0))` along the axis), so their gradient flows to
the chosen element only, as MindSpore's ArgMaxWithValue bprop does (the
gradient of `reduce_max` is shared by all tied elements).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.dialects import mindir as M
from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import reshape
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.core import normalize_axis, run
from mindjit.frontend.ops.math import equal, maximum, minimum, select
from mindjit.frontend.ops.promotion import as_operand, constant, default_dtype, is_tensor
from mindjit.frontend.ops.reduce import reduce_sum


def _tensor(x: Any, name: str) -> Any:
    x = as_operand(x, f"'{name}' input")
    if not is_tensor(x):
        x = constant(x, default_dtype(x))
    return cast_to(x, D.int32) if x.dtype.is_bool else x


def _check_bool(value: Any, what: str, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', the '{what}' must be a bool, got {type(value).__name__}")
    return value


def _arg(name: str, op_cls: Any, x: Any, axis: int, keep: bool, index: D.DType) -> Any:
    def build(e: Any, v: list[Any]) -> Any:
        return e.value(op_cls.get(v[0], axis, keep, index.mlir))

    return run((name, axis, keep, index.name), build, x)


def _arg_reduce(name: str, op_cls: Any, input: Any, dim: Any, keepdim: Any, index: D.DType) -> Any:
    keep = _check_bool(keepdim, "keepdim" if name == "argmax" else "keepdims", name)
    x = _tensor(input, name)
    rank = len(x.shape)
    if rank == 0:
        return constant(0, index)
    if dim is None:
        return _arg(name, op_cls, reshape(x, (-1,)), 0, False, index)
    axis = normalize_axis(dim, rank, name)
    return _arg(name, op_cls, x, axis, keep, index)


def arg_reduce(name: str, input: Any, axis: int, keep: bool, index: D.DType) -> Any:
    """`argmax`/`argmin` (`name`) along one axis with a chosen index dtype (primitives)."""
    op_cls = M.ArgMaxOp if name == "argmax" else M.ArgMinOp
    x = _tensor(input, name)
    if not x.shape:
        return constant(0, index)
    return _arg(name, op_cls, x, normalize_axis(axis, len(x.shape), name), keep, index)


def argmax(input: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """`ops.argmax(input, dim=None, keepdim=False)`: int64 indices of the maxima."""
    return _arg_reduce("argmax", M.ArgMaxOp, input, dim, keepdim, D.int64)


def argmin(input: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """`ops.argmin(input, axis=None, keepdims=False)`: int32 indices of the minima."""
    return _arg_reduce("argmin", M.ArgMinOp, input, axis, keepdims, D.int32)


def pick(x: Any, index: Any, axis: int) -> Any:
    """`x`'s elements at `index` (x's shape with `axis` of size 1) along `axis`, the
    axis kept: a one-hot select and a sum, so the gradient reaches those elements."""
    shape = [1] * len(x.shape)
    shape[axis] = x.shape[axis]
    iota = constant(np.arange(x.shape[axis]).reshape(shape), index.dtype)
    chosen = select(equal(index, iota), x, constant(0, x.dtype))
    return reduce_sum(chosen, axis, True)


def _with_value(
    name: str, op_cls: Any, input: Any, axis: Any, keepdims: Any, initial: Any, where: Any
) -> tuple[Any, Any]:
    keep = _check_bool(keepdims, "keepdims", name)
    if not is_tensor(input):
        raise TypeError(f"For '{name}', the input must be a Tensor, got {type(input).__name__}")
    x = input
    if x.dtype.is_bool:
        raise TypeError(f"For '{name}', the input must be a number tensor, got a Bool tensor")
    if initial is not None and (isinstance(initial, bool) or not isinstance(initial, int | float)):
        raise TypeError(f"For '{name}', 'initial' must be a scalar, got {type(initial).__name__}")
    if where is not None:
        if initial is None:
            raise ValueError(f"For '{name}', 'initial' must be given together with 'where'")
        x = select(where, x, initial)
    if axis is None:  # every element; the index is 0 (MindSpore's documented rule)
        flat = reshape(x, (-1,)) if x.shape else reshape(x, (1,))
        index = _arg(name, op_cls, flat, 0, True, D.int32)
        values = reshape(pick(flat, index, 0), ())
        index = constant(0, D.int32)
    else:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For '{name}', 'axis' must be an int, got {type(axis).__name__}")
        if not x.shape:
            raise ValueError(f"For '{name}', axis {axis} is out of range for a rank-0 tensor")
        ax = normalize_axis(axis, len(x.shape), name)
        kept = _arg(name, op_cls, x, ax, True, D.int32)
        values = pick(x, kept, ax)
        index = kept
        if not keep:
            dropped = tuple(d for i, d in enumerate(x.shape) if i != ax)
            index, values = reshape(kept, dropped), reshape(values, dropped)
    if initial is not None:
        values = (maximum if name == "max" else minimum)(values, initial)
    return values, index


def max(  # noqa: A001
    input: Any, axis: Any = None, keepdims: bool = False, *, initial: Any = None, where: Any = None
) -> tuple[Any, Any]:
    """`ops.max(input, axis=None, keepdims=False, *, initial=None, where=None)`:
    (maximum values, their int32 indices) along `axis`."""
    return _with_value("max", M.ArgMaxOp, input, axis, keepdims, initial, where)


def min(  # noqa: A001
    input: Any, axis: Any = None, keepdims: bool = False, *, initial: Any = None, where: Any = None
) -> tuple[Any, Any]:
    """`ops.min(input, axis=None, keepdims=False, *, initial=None, where=None)`:
    (minimum values, their int32 indices) along `axis`."""
    return _with_value("min", M.ArgMinOp, input, axis, keepdims, initial, where)
