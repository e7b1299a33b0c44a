"""Type checks folded at compile time: `ops.isinstance_` (`ops.IsInstance`),
`ops.is_tensor`, `ops.typeof`, `ops.isconstant`, and the primitive
`ops.StopGradient`. In graph mode they run while the graph is traced, on the
value's type (a graph's tensor is a Tensor), and give a Python value, as
MindSpore's constant-only IsInstance does.

`typeof(x)` is `Tensor[Int32]` for a tensor (`mstype.tensor_type(mstype.int32)`),
the dtype for a number (bool Bool, int Int64, float Float32), and a type named
after the Python type otherwise (`Tuple`, `List`, `String`, `None`).
`isconstant(x)` is False only for a tensor the graph being compiled computes (an
argument, an op's result): a Tensor written in the program, and any Python
value, is a constant, in PyNative mode too, as MindSpore's example prints for
`Tensor(-1)`."""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.graph_value import GraphValue
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


def isconstant(x: Any) -> bool:
    """`ops.isconstant(x)`: False for a tensor the graph being compiled computes."""
    return not isinstance(x, GraphValue)


def typeof(x: Any) -> Any:
    """`ops.typeof(x)`: the type of `x` (see the module doc)."""
    if _tensor_like(x):
        return D.TensorType(x.dtype)
    found = _type_of(x)
    return found if isinstance(found, D.DType) else ObjectType(found)


class ObjectType:
    """The type of a value that is neither a tensor nor a number: equal to another of
    the same Python type, named as MindSpore names it."""

    _NAMES = {tuple: "Tuple", list: "List", str: "String", dict: "Dictionary", type(None): "None"}

    def __init__(self, cls: type):
        self.cls = cls

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObjectType) and other.cls is self.cls

    def __hash__(self) -> int:
        return hash(self.cls)

    def __repr__(self) -> str:
        return self._NAMES.get(self.cls, self.cls.__name__)


IsInstance = _simple("IsInstance", isinstance_, "ops.IsInstance()(inst, type_)")
StopGradient = _simple("StopGradient", stop_gradient, "ops.StopGradient()(value)")
