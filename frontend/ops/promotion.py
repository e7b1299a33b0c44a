"""MindSpore's implicit type conversion, in one place.

- Tensor with tensor: the operands are cast to the higher of the two dtypes in
  `bool < uint8 < int8 < int16 < int32 < int64 < float16 < float32 < float64`
  (MindSpore's implicit conversion list), except that a signed and an unsigned
  integer meet in the smallest signed type holding both: uint8 with int8 is
  int16 (MindSpore's rule); the wider unsigned types follow numpy (uint16 with
  int16 is int32, uint32 with int32 int64), and uint64 with a signed integer,
  which no integer type holds, is a TypeError. Two unsigned types give the wider.
- Tensor with a Python (or numpy) number: the number takes the tensor's dtype,
  except that a float number with an integer/bool tensor gives float32 and an
  int number with a bool tensor gives int64 (so `Tensor([1]) * 0.5` is float32).
- Numbers only: int -> int64, float -> float32, bool -> bool (like `Tensor(x)`).

Numbers become 0-d Tensors of the chosen dtype, so they reach `apply_op` as
inputs: the eager cache is shared by all values, and in graph mode they become
`mindir.constant`s.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.tensor import Tensor

_ORDER: tuple[D.DType, ...] = (
    D.bool_,
    D.int8,
    D.int16,
    D.int32,
    D.int64,
    D.float16,
    D.float32,
    D.float64,
)
_RANK = {d: i for i, d in enumerate(_ORDER)}


_UNSIGNED = (D.uint8, D.uint16, D.uint32, D.uint64)
_SIGNED = (D.int8, D.int16, D.int32, D.int64)


def promote_types(a: D.DType, b: D.DType) -> D.DType:
    """The dtype two tensors are computed in."""
    if a.is_unsigned or b.is_unsigned:
        return _promote_unsigned(a, b)
    return a if _RANK[a] >= _RANK[b] else b


def _promote_unsigned(a: D.DType, b: D.DType) -> D.DType:
    if not a.is_unsigned:
        a, b = b, a
    if b.is_bool:
        return a
    if b.is_float:
        return b
    width = a.numpy.itemsize
    if b.is_unsigned:
        return a if width >= b.numpy.itemsize else b
    if b.numpy.itemsize > width:
        return b
    if width == 8:
        raise TypeError(
            f"the dtypes {a} and {b} have no common type (uint64 with a signed integer)"
        )
    return _SIGNED[_SIGNED.index(D.from_numpy(f"i{width}")) + 1]


def is_tensor(x: Any) -> bool:
    """A Tensor (incl. Parameter) or a GraphValue: something ops take as an input."""

    return isinstance(x, Tensor | GraphValue)


def is_number(x: Any) -> bool:
    return isinstance(x, numbers.Number | np.bool_) and not isinstance(x, complex)


def scalar_dtype(value: Any, tensor_dtype: D.DType) -> D.DType:
    """The dtype a number takes next to a tensor of `tensor_dtype`."""
    if isinstance(value, bool | np.bool_):
        return tensor_dtype
    if isinstance(value, numbers.Integral):
        return D.int64 if tensor_dtype.is_bool else tensor_dtype
    return tensor_dtype if tensor_dtype.is_float else D.float32


def default_dtype(value: Any) -> D.DType:
    """The dtype of `Tensor(value)` for a lone number."""
    if isinstance(value, bool | np.bool_):
        return D.bool_
    if isinstance(value, np.generic):
        return D.from_numpy(value.dtype)
    if isinstance(value, numbers.Integral):
        return D.int64
    return D.float32


def constant(value: Any, dtype: D.DType) -> Any:
    """A 0-d (or array-shaped) Tensor holding `value` as `dtype`."""

    return Tensor._wrap(np.asarray(value, dtype=dtype.numpy))


def as_operand(x: Any, what: str = "input") -> Any:
    """Tensors stay; numpy arrays and lists become Tensors; numbers are left for `promote`."""

    if is_tensor(x) or is_number(x):
        return x
    if isinstance(x, np.ndarray | list | tuple):
        return Tensor(x)
    raise TypeError(f"{what} must be a Tensor or a number, got {type(x).__name__}")


def result_dtype(*args: Any) -> D.DType:
    """The dtype `promote` would cast `args` to."""
    tensors = [a for a in args if is_tensor(a)]
    if tensors:
        target = tensors[0].dtype
        for t in tensors[1:]:
            target = promote_types(target, t.dtype)
        base = target
        for a in args:
            if not is_tensor(a):
                target = promote_types(target, scalar_dtype(a, base))
        return target
    target = default_dtype(args[0])
    for a in args[1:]:
        target = promote_types(target, default_dtype(a))
    return target
