"""MLIR types and constant attributes as numpy dtypes, shapes and values.

Everything here runs at plan time, so the run-time code never looks at xDSL
attributes: tensors are `np.ndarray`s and scalars are numpy scalars
(`np.float32`, `np.bool_`, `np.int64` for `index`, ...).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FloatAttr,
    IntegerAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation

from mindjit.backend.cpu.errors import ExecutionError, op_failure
from mindjit.ir.dtypes import numpy_dtype
from mindjit.ir.resources import blob


def element_dtype(t: Attribute, op: Operation | None = None) -> np.dtype:
    """The numpy dtype of a scalar MLIR type (i1 is bool, index is int64)."""
    if (found := numpy_dtype(t)) is not None:
        return found
    raise _type_error(op, f"element type {t} is not supported by the CPU executor")


def dtype_of(t: Attribute, op: Operation | None = None) -> np.dtype:
    """The dtype of a tensor's elements, or of a scalar type itself."""
    if isinstance(t, TensorType):
        return element_dtype(t.get_element_type(), op)
    return element_dtype(t, op)


def is_tensor(t: Attribute) -> bool:
    return isinstance(t, TensorType)


#: id(type) -> (type, its static shape): a module shares its few tensor types among
#: thousands of values, and xDSL rebuilds the shape tuple on every `get_shape`
_SHAPES: dict[int, tuple[Attribute, tuple[int, ...]]] = {}


def static_shape(t: Attribute, op: Operation | None = None) -> tuple[int, ...]:
    """The shape of a ranked tensor with static dims; () for scalars."""
    known = _SHAPES.get(id(t))
    if known is not None and known[0] is t:
        return known[1]
    if not isinstance(t, TensorType):
        return ()
    shape = tuple(int(d) for d in t.get_shape())
    if any(d < 0 for d in shape):
        raise _type_error(op, f"dynamic shapes are not supported by the CPU executor: {t}")
    if len(_SHAPES) > 65536:
        _SHAPES.clear()
    _SHAPES[id(t)] = (t, shape)  # the entry keeps `t` alive, so its id stays its own
    return shape


def dims_of(t: Attribute) -> tuple[int, ...]:
    """The shape of a ranked tensor with -1 for each dynamic dim; () for scalars.
    Only the kernels that run dynamic shapes (a loop's record, kernels_tensor.py)
    use it: every other kernel takes `static_shape`, which refuses them."""
    if not isinstance(t, TensorType):
        return ()
    return tuple(-1 if d < 0 else int(d) for d in t.get_shape())


def unsigned_twin(dtype: np.dtype) -> np.dtype:
    """The unsigned dtype of the same width (bool stays bool), for `ui` ops."""
    if dtype.kind == "i":
        return np.dtype(f"u{dtype.itemsize}")
    return dtype


def signed_twin(dtype: np.dtype) -> np.dtype:
    if dtype.kind == "u":
        return np.dtype(f"i{dtype.itemsize}")
    return dtype


def scalar_value(attr: Attribute, t: Attribute, op: Operation | None = None) -> Any:
    """A numpy scalar for an IntegerAttr/FloatAttr, wrapped to its type's width."""
    dtype = element_dtype(t, op)
    if isinstance(attr, FloatAttr):
        return dtype.type(attr.value.data)
    if isinstance(attr, IntegerAttr):
        value = int(attr.value.data)
        if dtype == np.bool_:
            return np.bool_(value & 1)
        bits = dtype.itemsize * 8
        value &= (1 << bits) - 1
        return np.array(value, dtype=unsigned_twin(dtype)).view(dtype)[()]
    raise _type_error(op, f"constant attribute {attr} is not supported by the CPU executor")


def dense_array(attr: Attribute, t: Attribute, op: Operation | None = None) -> np.ndarray:
    """A read-only array for a dense<...> elements attribute (splats included), or
    for a dense_resource<...> whose blob is available (see ir/resources.py)."""
    if isinstance(attr, DenseResourceAttr):
        return _resource_array(attr, t, op)
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        raise _type_error(
            op, f"constant attribute {attr.name} is not supported by the CPU executor"
        )
    dtype = dtype_of(t, op)
    shape = static_shape(t, op)
    elt = attr.get_element_type()
    raw = np.frombuffer(attr.data.data, dtype=np.dtype(elt.format))
    if dtype == np.bool_:
        raw = raw != 0
    values = raw.astype(dtype, copy=False)
    count = int(np.prod(shape, dtype=np.int64))
    if values.size == 1 and count != 1:
        values = np.broadcast_to(values.reshape(()), shape).copy()
    result = values.reshape(shape)
    result.flags.writeable = False
    return result


def _resource_array(attr: DenseResourceAttr, t: Attribute, op: Operation | None) -> np.ndarray:

    handle = attr.resource_handle.data
    value = blob(handle)
    if value is None:
        raise _type_error(op, f"dense_resource<{handle}> has no blob in this process")
    dtype, shape = dtype_of(t, op), static_shape(t, op)
    if value.dtype != dtype or tuple(value.shape) != shape:
        raise _type_error(
            op,
            f"dense_resource<{handle}> holds {value.dtype}{list(value.shape)}, "
            f"expected {describe_type(t)}",
        )
    view = value.view()
    view.flags.writeable = False
    return view


def describe_type(t: Attribute) -> str:
    """MLIR spelling of a type, for error messages."""
    return str(t)


def describe_value(value: object) -> str:
    """How a user-passed input looks, for 'expected ..., got ...' messages."""
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape} {value.dtype}"
    if isinstance(value, np.generic):
        return f"scalar {value.dtype}"
    return type(value).__name__


def _type_error(op: Operation | None, message: str) -> ExecutionError:
    return op_failure(op, message) if op is not None else ExecutionError(message)
