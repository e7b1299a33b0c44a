"""MindSpore's dtypes (`ms.float32`, ...) and their numpy and MLIR counterparts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute


@dataclass(frozen=True)
class DType:
    """A tensor element type. `repr` is MindSpore's (`Float32`), `name` numpy's."""

    name: str
    ms_name: str
    numpy: np.dtype
    mlir: Attribute

    def __repr__(self) -> str:
        return self.ms_name

    __str__ = __repr__

    @property
    def is_float(self) -> bool:
        return self.numpy.kind == "f"

    @property
    def is_bool(self) -> bool:
        return self.numpy.kind == "b"

    @property
    def is_unsigned(self) -> bool:
        return self.numpy.kind == "u"


float16 = DType("float16", "Float16", np.dtype(np.float16), f16)
float32 = DType("float32", "Float32", np.dtype(np.float32), f32)
float64 = DType("float64", "Float64", np.dtype(np.float64), f64)
int8 = DType("int8", "Int8", np.dtype(np.int8), i8)
int16 = DType("int16", "Int16", np.dtype(np.int16), i16)
int32 = DType("int32", "Int32", np.dtype(np.int32), i32)
int64 = DType("int64", "Int64", np.dtype(np.int64), i64)
uint8 = DType("uint8", "UInt8", np.dtype(np.uint8), IntegerType(8, Signedness.UNSIGNED))
uint16 = DType("uint16", "UInt16", np.dtype(np.uint16), IntegerType(16, Signedness.UNSIGNED))
uint32 = DType("uint32", "UInt32", np.dtype(np.uint32), IntegerType(32, Signedness.UNSIGNED))
uint64 = DType("uint64", "UInt64", np.dtype(np.uint64), IntegerType(64, Signedness.UNSIGNED))
bool_ = DType("bool", "Bool", np.dtype(np.bool_), i1)

# MindSpore's other spellings
half, single, double = float16, float32, float64
ubyte, ushort, uintc, uintp = uint8, uint16, uint32, uint64
int_, float_ = int32, float32

ALL: tuple[DType, ...] = (
    float16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool_,
)  # fmt: skip
_BY_NUMPY = {d.numpy: d for d in ALL}


def from_numpy(dtype: np.dtype | type) -> DType:
    """The mindjit dtype of a numpy dtype."""
    np_dtype = np.dtype(dtype)
    if np_dtype not in _BY_NUMPY:
        raise TypeError(f"dtype {np_dtype} is not supported by mindjit")
    return _BY_NUMPY[np_dtype]


def from_mlir(element: Attribute) -> DType:
    for d in ALL:
        if d.mlir == element:
            return d
    raise TypeError(f"element type {element} has no mindjit dtype")


def to_dtype(value: DType | np.dtype | type | str) -> DType:
    """Accept ms.float32, np.float32, 'float32' alike."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        for d in ALL:
            if value in (d.name, d.ms_name, d.ms_name.lower()):
                return d
        raise TypeError(f"unknown dtype '{value}'")
    return from_numpy(value)


def is_float_type(t: Attribute) -> bool:
    return isinstance(t, Float16Type | Float32Type | Float64Type)


def is_int_type(t: Attribute) -> bool:
    return isinstance(t, IntegerType)


# --- object types (`ops.typeof`) -------------------------------------------------------


@dataclass(frozen=True)
class TensorType:
    """The type of a tensor of one element type, as `ops.typeof` gives it:
    `Tensor[Float32]` (`mstype.tensor_type(mstype.float32)`); `mstype.tensor` is
    the type of tensors whatever their element type."""

    element: DType | None = None

    def element_type(self) -> DType | None:
        return self.element

    def __repr__(self) -> str:
        return "Tensor" if self.element is None else f"Tensor[{self.element.ms_name}]"

    __str__ = __repr__


tensor_type = TensorType
tensor = TensorType()
