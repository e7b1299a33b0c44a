"""`mindspore.ops.functional`: the functional ops, as `F`.

    from mindjit.ops import functional as F
    loss = F.depend(loss, self.optimizer(grads))
    x = F.cast(F.reshape(x, (F.shape(x)[0], -1)), mstype.float16)

MindSpore's functional module is its function API (`mindspore.ops.function`,
what `ops.cast` is) plus a few primitive instances under old names
(`F.tensor_mul`, `F.identity`) and graph helpers (`F.partial`, `F.tuple_len`).
So this is a view (frontend/ms_modules.py) of mindjit.ops's functions, looked up
when asked (a class, such as ops.Cast, is not one of them), with those old names
defined below in terms of them. A function mindjit does not implement is an
AttributeError that names it.
"""

from __future__ import annotations

import functools
from typing import Any

from mindjit.frontend.ms_modules import attribute_hooks
from mindjit.frontend.ops.math import (
    div,
    floor_divide,
    greater,
    greater_equal,
    less,
    less_equal,
    mul,
    neg,
    pow,
    remainder,
    sub,
)
from mindjit.frontend.ops.primitives_nn import Identity

#: `mindjit.ops`, where the names are looked up: the face attaches itself once it
#: has them all (ops/__init__.py), so this view imports no face
_ops: Any = None


def attach(face: Any) -> None:
    global _ops
    _ops = face


# MindSpore's functional names for primitive instances (functional.py, function/math_func.py)
tensor_sub = sub
tensor_mul = mul
tensor_div = div
tensor_floordiv = floor_divide
tensor_mod = remainder
tensor_pow = pow
tensor_lt = less
tensor_le = less_equal
tensor_gt = greater
tensor_ge = greater_equal
neg_tensor = neg
identity = Identity()

# graph helpers: in a graph as in Python they are the plain operations
partial = functools.partial
tuple_len = len
list_len = len


def make_tuple(*elements: Any) -> tuple[Any, ...]:
    """`F.make_tuple(a, b, ...)`: the tuple `(a, b, ...)`."""
    return elements


_OWN = (
    "identity list_len make_tuple neg_tensor partial tensor_div tensor_floordiv "
    "tensor_ge tensor_gt tensor_le tensor_lt tensor_mod tensor_mul tensor_pow tensor_sub "
    "tuple_len"
).split()


def _is_function(value: Any) -> bool:
    return callable(value) and not isinstance(value, type)


def _lookup(name: str) -> Any:
    value = getattr(_ops, name, None) if name in _ops.__all__ else None
    return value if _is_function(value) else None


def _names() -> list[str]:
    return sorted({n for n in _ops.__all__ if _is_function(getattr(_ops, n))} | set(_OWN))


__getattr__, __dir__ = attribute_hooks("ops.functional", _lookup, _names)
