"""MindSpore's sparse tensors: `COOTensor`, `RowTensor` and the deprecated
`SparseTensor` (`CSRTensor` is in sparse_csr.py), with MindSpore 2.10's
constructor checks, properties and methods, and what all sparse tensors share
(`SparseBase`).

A sparse tensor is a few dense tensors (indices, values, indptr) and a static
dense shape. Every method composes dense ops (scatter, gather, segment sums,
compares), so it runs the same in PyNative mode and in a graph, where the fields
are graph values. The class takes part in `frontend/structure.py`'s
flattening (`__ms_struct__` / `__ms_rebuild__`): a sparse tensor is a graph's
argument or result like a tuple of its fields, as in MindSpore, where
COOTensor/CSRTensor are graph types. The ops functions on them are in
sparse_ops.py (static shapes), sparse_patterns.py (result sizes that depend on
the indices) and sparse_unary.py (coo_abs ... csr_tanh); methods that call them
import those modules inside the method, as they import this one.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.gather_ops import gather, gather_nd
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.scatter_ops import tensor_scatter_add
from mindjit.frontend.ops.sort import sort
from mindjit.frontend.tensor import Tensor

INDEX_DTYPES = (D.int16, D.int32, D.int64)


def tensor_like(x: Any) -> bool:
    return is_tensor(x) and not isinstance(x, SparseBase)


def check_sparse_input(indices: Any, values: Any, shape: Any) -> None:
    if not tensor_like(indices):
        raise TypeError(f"For SparseTensors, 'indices' must be Tensor, but got {type(indices)}.")
    if not tensor_like(values):
        raise TypeError(f"For SparseTensors, 'values' must be Tensor, but got {type(values)}.")
    if not isinstance(shape, tuple):
        raise TypeError(f"For SparseTensors, 'shape' must be tuple, but got {type(shape)}.")


def check_shape_items(shape: tuple, what: str) -> None:
    for sh in shape:
        if not isinstance(sh, int) or isinstance(sh, bool):
            raise TypeError(
                f"For {what}, the element type of 'shape' must be int, but got {type(sh)}"
            )
        if sh <= 0:
            raise ValueError(
                f"For {what}, the element of 'shape' must be positive, but got {sh} in {shape}."
            )


class SparseBase:
    """What the sparse tensors share: the dense shape, dtype/size/ndim, and the
    structure hooks that carry them through graphs."""

    _fields: tuple[str, ...] = ()

    @classmethod
    def _copied(cls, source: Any, arg: str, given: tuple) -> tuple:
        """The fields and shape of `source`, the `<kind>_tensor=` argument `arg`
        (MindSpore's checks: a tensor of this kind, and no other argument given)."""
        if not isinstance(source, cls):
            raise TypeError(f"Expect input `{arg}` to be a {cls.__name__}, but got {type(source)}")
        if any(g is not None for g in given):
            names = ", ".join(f"`{f}`" for f in (*cls._fields, "shapes"))
            raise TypeError(f"If input `{arg}` is provided, {names} should all be `None`")
        return (*(getattr(source, "_" + f) for f in cls._fields), source._shape)

    def __ms_struct__(self) -> tuple[Any, tuple]:
        return self._shape, tuple(getattr(self, "_" + f) for f in self._fields)

    @classmethod
    def __ms_rebuild__(cls, static: Any, fields: tuple) -> Any:
        obj = object.__new__(cls)
        for name, value in zip(cls._fields, fields):
            setattr(obj, "_" + name, value)
        obj._shape = static
        return obj

    @property
    def values(self) -> Any:
        return self._values

    @property
    def indices(self) -> Any:
        return self._indices

    @property
    def dtype(self) -> D.DType:
        return self._values.dtype

    @property
    def size(self) -> int:
        return math.prod(self._values.shape)

    @property
    def itemsize(self) -> int:
        return np.dtype(self._values.dtype.numpy).itemsize

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def __repr__(self) -> str:
        parts = ", ".join(f"{f}={getattr(self, '_' + f)!r}" for f in self._fields)
        return f"{type(self).__name__}(shape={list(self._shape)}, dtype={self.dtype}, {parts})"


class COOTensor(SparseBase):
    """`COOTensor(indices=None, values=None, shape=None, coo_tensor=None)`: the dense
    tensor of `shape` (2-D) with dense[indices[i]] = values[i]; indices (N, 2) int16,
    int32 or int64, values (N,)."""

    _fields = ("indices", "values")

    def __init__(
        self, indices: Any = None, values: Any = None, shape: Any = None, coo_tensor: Any = None
    ):
        if coo_tensor is not None:
            indices, values, shape = self._copied(
                coo_tensor, "coo_tensor", (indices, values, shape)
            )
        else:
            check_sparse_input(indices, values, shape)
            _check_coo_shape(tuple(indices.shape), tuple(values.shape), shape)
            if indices.dtype not in INDEX_DTYPES:
                raise TypeError(
                    "For COOTensor, the type of 'indices' must be one of [int16, int32, int64], but got "
                    f"{indices.dtype}."
                )
        self._indices, self._values, self._shape = indices, values, shape

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    def to_dense(self) -> Any:
        zeros = array.zeros(self._shape, self._values.dtype)
        if self._values.shape[0] == 0:
            return zeros
        return tensor_scatter_add(zeros, self._indices, self._values)

    def astype(self, dtype: Any) -> COOTensor:
        return COOTensor(self._indices, self._values.astype(dtype), self._shape)

    def to_tuple(self) -> tuple[Any, Any, tuple[int, ...]]:
        return self._indices, self._values, self._shape

    def abs(self) -> COOTensor:
        return COOTensor(self._indices, fmath.abs(self._values), self._shape)

    def add(self, other: COOTensor, thresh: Any) -> COOTensor:
        from mindjit.frontend.ops import sparse_patterns  # it imports this module

        return sparse_patterns.coo_add(self, other, thresh)

    def coalesce(self) -> COOTensor:
        from mindjit.frontend.ops import sparse_patterns  # it imports this module

        shape = Tensor(np.array(self._shape, np.int64))
        idx, vals, _ = sparse_patterns.coalesce(
            array.transpose(self._indices, (1, 0)), self._values, shape
        )
        return COOTensor(array.transpose(idx, (1, 0)), vals, self._shape)

    def to_csr(self) -> Any:
        """Sorted by row (stable: a row keeps its elements' order); MindSpore's coo2csr
        takes int32 row indices only."""
        from mindjit.frontend.ops import sparse_ops  # it imports this module
        from mindjit.frontend.ops.sparse_csr import CSRTensor  # it imports this module

        if self._indices.dtype != D.int32:
            raise TypeError(
                f"The dtype of row_indices only support Int32 for now, but got {self._indices.dtype}."
            )
        rows = array.reshape(self._indices[:, 0:1], (self._indices.shape[0],))
        cols = array.reshape(self._indices[:, 1:2], (self._indices.shape[0],))
        if rows.shape[0] == 0:
            return CSRTensor(
                Tensor(np.zeros((self._shape[0] + 1,), np.int32)), cols, self._values, self._shape
            )
        rows, order = sort(rows)
        indptr = sparse_ops.coo2csr(rows, self._shape[0])
        return CSRTensor(
            indptr, gather(cols, order, 0), gather(self._values, order, 0), self._shape
        )

    def __neg__(self) -> COOTensor:
        return COOTensor(self._indices, fmath.neg(self._values), self._shape)

    def _same_shape(self, other: Any) -> None:
        if self._shape != tuple(other.shape):
            raise ValueError("Input tensors should have the same shape.")

    def __add__(self, other: Any) -> Any:
        self._same_shape(other)
        if isinstance(other, COOTensor):
            return self.add(other, Tensor(np.zeros((), self._values.dtype.numpy)))
        if tensor_like(other):
            return tensor_scatter_add(other, self._indices, self._values)
        raise TypeError(f"COOTensor add with {type(other)} is not supported.")

    def __sub__(self, other: Any) -> Any:
        self._same_shape(other)
        if isinstance(other, COOTensor):
            return self.add(-other, Tensor(np.zeros((), self._values.dtype.numpy)))
        if tensor_like(other):
            return tensor_scatter_add(fmath.neg(other), self._indices, self._values)
        raise TypeError(f"COOTensor subtract with {type(other)} is not supported.")

    def __mul__(self, other: Any) -> COOTensor:
        self._same_shape(other)
        if tensor_like(other):
            picked = gather_nd(other, self._indices)
            return COOTensor(self._indices, fmath.mul(self._values, picked), self._shape)
        raise TypeError(f"COOTensor multiply with {type(other)} is not supported.")

    def __truediv__(self, other: Any) -> COOTensor:
        self._same_shape(other)
        if tensor_like(other):
            picked = gather_nd(other, self._indices)
            return COOTensor(self._indices, fmath.div(self._values, picked), self._shape)
        raise TypeError(f"COOTensor divide with {type(other)} is not supported.")


def _check_coo_shape(indices_shp: tuple, values_shp: tuple, shape: tuple) -> None:
    if len(shape) != 2:
        raise ValueError(f"For COOTensor, the length of 'shape' must be 2, but got {shape}.")
    if indices_shp == (0,) and values_shp == (0,):
        return
    check_shape_items(shape, "COOTensor")
    if values_shp and math.prod(shape) < values_shp[0]:
        raise ValueError(
            f"For COOTensor, shape is too small: ({math.prod(shape)}) to hold all values({values_shp[0]})."
        )
    if len(indices_shp) != 2:
        raise ValueError(
            f"For COOTensor, 'indices' must be a 2-dimensional tensor, but got a {len(indices_shp)}"
            "-dimensional tensor."
        )
    if len(values_shp) != 1:
        raise ValueError(
            f"For COOTensor, 'values' must be a 1-dimensional tensor, but got a {len(values_shp)}"
            "-dimensional tensor."
        )
    if indices_shp[0] != values_shp[0]:
        raise ValueError(
            "For COOTensor, 'indices.shape[0]' must be euqal to 'values.shape[0]', but got "
            f"'indices.shape[0]' = {indices_shp[0]} and 'values.shape[0]' = {values_shp[0]}."
        )
    if indices_shp[1] != 2:
        raise ValueError(f"For COOTensor, 'indices.shape[1]' must be 2, but got {indices_shp[1]}.")


class RowTensor(SparseBase):
    """`RowTensor(indices=None, values=None, shape=None, row_tensor=None)`: the rows
    values[i] of a dense tensor of `shape` at rows indices[i] (1-D); `dense_shape`."""

    _fields = ("indices", "values")

    def __init__(
        self, indices: Any = None, values: Any = None, shape: Any = None, row_tensor: Any = None
    ):
        if row_tensor is not None:
            indices, values, shape = self._copied(
                row_tensor, "row_tensor", (indices, values, shape)
            )
        else:
            check_sparse_input(indices, values, shape)
        self._indices, self._values, self._shape = indices, values, shape

    @property
    def dense_shape(self) -> tuple[int, ...]:
        return self._shape


class SparseTensor(SparseBase):
    """`SparseTensor(indices, values, shape)`: MindSpore's deprecated name of a COO
    tensor (indices, values and shape only)."""

    _fields = ("indices", "values")

    def __init__(self, indices: Any, values: Any, shape: Any):
        check_sparse_input(indices, values, shape)
        self._indices, self._values, self._shape = indices, values, shape

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape


__all__ = [
    "COOTensor",
    "RowTensor",
    "SparseBase",
    "SparseTensor",
    "check_sparse_input",
    "tensor_like",
]
