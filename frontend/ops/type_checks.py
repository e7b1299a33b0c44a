"""Type checks folded at compile time: `ops.isinstance_` (`ops.IsInstance`),
`ops.is_tensor`, and the primitive `ops.StopGradient`. In graph mode they run while
the graph is traced, on the value's type (a graph's tensor is a Tensor), and give a
Python bool, as MindSpore's constant-only IsInstance does."""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.gradient_ops import stop_gradient
from mindjit.frontend.ops.primitives import _simple
from mindjit.frontend.ops.promotion import is_tensor as _tensor_like


def _type_of(value: Any) -> Any:
    """MindSpore's type of a constant: Python scalars are Bool, Int64 and Float32."""
    if isinstance(value, bool):
        return D.bool_
    if isinstance(value, int):
        return D.int64
    if isinstance(value, float):
        return D.float32
    return type(value)


def isinstance_(x: Any, constant_type: Any) -> bool:
    """`ops.isinstance_(x, constant_type)`: whether `x`'s type is `constant_type`, a
    mindjit dtype (`ops.isinstance_(1, ms.int32)` is False: a Python int is Int64). A
    tensor's type is a tensor type, never an element dtype (use `x.dtype ==`)."""
    if not isinstance(constant_type, D.DType):
        raise TypeError(
            f"For 'IsInstance', the input 'type_' must be a mindspore dtype, but got "
            f"{constant_type!r}."
        )
    if _tensor_like(x):
        return False
    return _type_of(x) == constant_type


def is_tensor(obj: Any) -> bool:
    """`ops.is_tensor(obj)`: whether `obj` is a Tensor (a graph's tensor is one)."""
    return _tensor_like(obj)


IsInstance = _simple("IsInstance", isinstance_, "ops.IsInstance()(inst, type_)")
StopGradient = _simple("StopGradient", stop_gradient, "ops.StopGradient()(value)")
