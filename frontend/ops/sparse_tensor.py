"""MindSpore's sparse tensors: `COOTensor`, `CSRTensor`, `RowTensor` and the
deprecated `SparseTensor`, with MindSpore 2.10's constructor checks, properties
and methods.

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
from mindjit.frontend.ops.reduce import reduce_sum
from mindjit.frontend.ops.scatter_ops import tensor_scatter_add
from mindjit.frontend.ops.sort import sort
from mindjit.frontend.tensor import Tensor

_INDEX_DTYPES = (D.int16, D.int32, D.int64)


def _tensor_like(x: Any) -> bool:
    return is_tensor(x) and not isinstance(x, _Sparse)


def _check_sparse_input(indices: Any, values: Any, shape: Any) -> None:
    if not _tensor_like(indices):
        raise TypeError(f"For SparseTensors, 'indices' must be Tensor, but got {type(indices)}.")
    if not _tensor_like(values):
        raise TypeError(f"For SparseTensors, 'values' must be Tensor, but got {type(values)}.")
    if not isinstance(shape, tuple):
        raise TypeError(f"For SparseTensors, 'shape' must be tuple, but got {type(shape)}.")


def _check_shape_items(shape: tuple, what: str) -> None:
    for sh in shape:
        if not isinstance(sh, int) or isinstance(sh, bool):
            raise TypeError(
                f"For {what}, the element type of 'shape' must be int, but got {type(sh)}"
            )
        if sh <= 0:
            raise ValueError(
                f"For {what}, the element of 'shape' must be positive, but got {sh} in {shape}."
            )


def csr_rows(indptr: Any, nnz: int) -> Any:
    """The row of each of the `nnz` stored elements of a CSR matrix: row[j] is the
    number of k >= 1 with indptr[k] <= j (static shapes: an (nnz, rows) compare)."""
    if nnz == 0:
        return Tensor(np.zeros((0,), indptr.dtype.numpy))
    m = indptr.shape[0] - 1
    if m == 0:
        return Tensor(np.zeros((nnz,), indptr.dtype.numpy))
    ends = array.reshape(indptr[1:], (1, m))
    j = Tensor(np.arange(nnz, dtype=indptr.dtype.numpy).reshape(nnz, 1))
    return array.cast(reduce_sum(array.cast(fmath.less_equal(ends, j), D.int32), 1), indptr.dtype)


class _Sparse:
    """What the sparse tensors share: the dense shape, dtype/size/ndim, and the
    structure hooks that carry them through graphs."""

    _fields: tuple[str, ...] = ()

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


class COOTensor(_Sparse):
    """`COOTensor(indices=None, values=None, shape=None, coo_tensor=None)`: the dense
    tensor of `shape` (2-D) with dense[indices[i]] = values[i]; indices (N, 2) int16,
    int32 or int64, values (N,)."""

    _fields = ("indices", "values")

    def __init__(
        self, indices: Any = None, values: Any = None, shape: Any = None, coo_tensor: Any = None
    ):
        if coo_tensor is not None:
            if not isinstance(coo_tensor, COOTensor):
                raise TypeError(
                    f"Expect input `coo_tensor` to be a COOTensor, but got {type(coo_tensor)}"
                )
            if not (indices is None and values is None and shape is None):
                raise TypeError(
                    "If input `coo_tensor` is provided, `indices`, `values`, `shapes` should all be `None`"
                )
            indices, values, shape = coo_tensor._indices, coo_tensor._values, coo_tensor._shape
        else:
            _check_sparse_input(indices, values, shape)
            _check_coo_shape(tuple(indices.shape), tuple(values.shape), shape)
            if indices.dtype not in _INDEX_DTYPES:
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

    def to_csr(self) -> CSRTensor:
        """Sorted by row (stable: a row keeps its elements' order); MindSpore's coo2csr
        takes int32 row indices only."""
        from mindjit.frontend.ops import sparse_ops  # it imports this module

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
        if _tensor_like(other):
            return tensor_scatter_add(other, self._indices, self._values)
        raise TypeError(f"COOTensor add with {type(other)} is not supported.")

    def __sub__(self, other: Any) -> Any:
        self._same_shape(other)
        if isinstance(other, COOTensor):
            return self.add(-other, Tensor(np.zeros((), self._values.dtype.numpy)))
        if _tensor_like(other):
            return tensor_scatter_add(fmath.neg(other), self._indices, self._values)
        raise TypeError(f"COOTensor subtract with {type(other)} is not supported.")

    def __mul__(self, other: Any) -> COOTensor:
        self._same_shape(other)
        if _tensor_like(other):
            picked = gather_nd(other, self._indices)
            return COOTensor(self._indices, fmath.mul(self._values, picked), self._shape)
        raise TypeError(f"COOTensor multiply with {type(other)} is not supported.")

    def __truediv__(self, other: Any) -> COOTensor:
        self._same_shape(other)
        if _tensor_like(other):
            picked = gather_nd(other, self._indices)
            return COOTensor(self._indices, fmath.div(self._values, picked), self._shape)
        raise TypeError(f"COOTensor divide with {type(other)} is not supported.")


def _check_coo_shape(indices_shp: tuple, values_shp: tuple, shape: tuple) -> None:
    if len(shape) != 2:
        raise ValueError(f"For COOTensor, the length of 'shape' must be 2, but got {shape}.")
    if indices_shp == (0,) and values_shp == (0,):
        return
    _check_shape_items(shape, "COOTensor")
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


class CSRTensor(_Sparse):
    """`CSRTensor(indptr=None, indices=None, values=None, shape=None, csr_tensor=None)`:
    row i's stored elements are indices/values[indptr[i]:indptr[i+1]] (column
    positions and values); values may have trailing dims (values.shape[1:] ==
    shape[2:])."""

    _fields = ("indptr", "indices", "values")

    def __init__(
        self,
        indptr: Any = None,
        indices: Any = None,
        values: Any = None,
        shape: Any = None,
        csr_tensor: Any = None,
    ):
        if csr_tensor is not None:
            if not isinstance(csr_tensor, CSRTensor):
                raise TypeError(
                    f"Expect input `csr_tensor` to be a CSRTensor, but got {type(csr_tensor)}"
                )
            if not (indptr is None and indices is None and values is None and shape is None):
                raise TypeError(
                    "If input `csr_tensor` is provided, `indptr`, `indices`, `values`, `shapes` should all be `None`"
                )
            indptr, indices, values, shape = csr_tensor.to_tuple()
        else:
            if not _tensor_like(indptr):
                raise TypeError(f"For CSRTensor, 'indptr' must be Tensor, but got {type(indptr)}.")
            _check_sparse_input(indices, values, shape)
            _check_csr_shape(tuple(indptr.shape), tuple(indices.shape), tuple(values.shape), shape)
            for what, t in (("indptr", indptr), ("indices", indices)):
                if t.dtype not in _INDEX_DTYPES:
                    raise TypeError(
                        f"For CSRTensor, {what} must have int16 or int32 or int64 data type, but got {t.dtype}."
                    )
        self._indptr, self._indices, self._values, self._shape = indptr, indices, values, shape

    @property
    def indptr(self) -> Any:
        return self._indptr

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    def to_tuple(self) -> tuple[Any, Any, Any, tuple[int, ...]]:
        return self._indptr, self._indices, self._values, self._shape

    def rows(self) -> Any:
        return csr_rows(self._indptr, self._values.shape[0])

    def to_dense(self) -> Any:
        zeros = array.zeros(self._shape, self._values.dtype)
        nnz = self._values.shape[0]
        if nnz == 0:
            return zeros
        rows = self.rows()
        cols = array.cast(self._indices, rows.dtype)
        return tensor_scatter_add(zeros, array.stack((rows, cols), 1), self._values)

    def to_coo(self) -> COOTensor:
        from mindjit.frontend.ops import sparse_ops  # it imports this module

        if self.ndim != 2:
            raise ValueError("Currently only support 2-D CSRTensor when converting to COOTensor.")
        rows = sparse_ops.csr2coo(self._indptr, self._values.shape[0])
        cols = (
            self._indices if self._indices.dtype == D.int32 else array.cast(self._indices, D.int32)
        )
        return COOTensor(array.stack((rows, cols), 1), self._values, self._shape)

    def astype(self, dtype: Any) -> CSRTensor:
        return CSRTensor(self._indptr, self._indices, self._values.astype(dtype), self._shape)

    def abs(self) -> CSRTensor:
        return CSRTensor(self._indptr, self._indices, fmath.abs(self._values), self._shape)

    def mv(self, dense_vector: Any) -> Any:
        from mindjit.frontend.ops import sparse_ops  # it imports this module

        if not _tensor_like(dense_vector):
            raise TypeError(
                "For 'CSRTensor.mv', the type of 'dense_vector' should be one of '[Tensor, Tensor]', "
                f"but got type '{type(dense_vector).__name__}'."
            )
        return sparse_ops.csr_mv(self, dense_vector)

    def mm(self, matrix: Any) -> Any:
        """The product with a dense (N, K) matrix (MindSpore's CSRTensor x CSRTensor is GPU only)."""
        from mindjit.frontend.ops import sparse_ops  # it imports this module

        if not _tensor_like(matrix):
            raise TypeError(
                f"For 'CSRTensor.mm', the type of 'matrix' should be Tensor, but got type '{type(matrix).__name__}'."
            )
        return sparse_ops.csr_mv(self, matrix)

    def sum(self, axis: int) -> Any:
        from mindjit.frontend.ops import sparse_ops  # it imports this module

        return sparse_ops.csr_reduce_sum(self, axis)

    def add(self, b: CSRTensor, alpha: Any, beta: Any) -> CSRTensor:
        from mindjit.frontend.ops import sparse_patterns  # it imports this module

        return sparse_patterns.csr_add(self, b, alpha, beta)

    def __neg__(self) -> CSRTensor:
        return CSRTensor(self._indptr, self._indices, fmath.neg(self._values), self._shape)

    def __mul__(self, other: Any) -> Any:
        from mindjit.frontend.ops import sparse_ops  # it imports this module

        return sparse_ops.csr_mul(self, other)

    def __truediv__(self, other: Any) -> Any:
        from mindjit.frontend.ops import sparse_ops  # it imports this module

        return sparse_ops.csr_div(self, other)

    def _add(self, other: Any, sign: int, verb: str) -> CSRTensor:
        if self._shape != tuple(other.shape):
            raise ValueError("Input tensors should have the same shape.")
        if not isinstance(other, CSRTensor):
            raise TypeError(f"CSRTensor {verb} with {type(other)} is not supported.")
        one = Tensor(np.ones((), self._values.dtype.numpy))
        return self.add(other, one, Tensor(np.full((), sign, self._values.dtype.numpy)))

    def __add__(self, other: Any) -> CSRTensor:
        return self._add(other, 1, "add")

    def __sub__(self, other: Any) -> CSRTensor:
        return self._add(other, -1, "subtract")


def _check_csr_shape(
    indptr_shp: tuple, indices_shp: tuple, values_shp: tuple, shape: tuple
) -> None:
    if indptr_shp == (0,) and indices_shp == (0,) and values_shp == (0,):
        return
    for item in shape:
        if not isinstance(item, int) or isinstance(item, bool):
            raise TypeError(
                f"For CSRTensor, the element type of shape must be int, but got {type(item)}"
            )
        if item <= 0:
            raise ValueError(
                f"For CSRTensor, the element of shape must be positive, but got {item}"
            )
    for item in values_shp:
        if item <= 0:
            raise ValueError(f"The element of shape must be positive, but got {item}")
    if math.prod(shape) < math.prod(values_shp):
        raise ValueError(
            f"Shape total size: {math.prod(shape)} is too small to hold {math.prod(values_shp)} non-zero values."
        )
    if len(indices_shp) != 1:
        raise ValueError(
            f"For CSRTensor, indices must be a 1-dimensional tensor, but got a {len(indices_shp)} dimension tensor."
        )
    if len(indptr_shp) != 1:
        raise ValueError(
            f"For CSRTensor, indptr must be a 1-dimensional tensor, but got a {len(indptr_shp)} dimension tensor."
        )
    if shape[0] + 1 != indptr_shp[0]:
        raise ValueError(
            f"For CSRTensor, indptr must have length (1 + shape[0]), but got: {indptr_shp[0]}"
        )
    if indices_shp[0] != values_shp[0]:
        raise ValueError(
            "For CSRTensor, indices and values must equal in their shape, "
            f"but got indices shape: {indices_shp[0]}, values shape: {values_shp[0]}."
        )
    if len(values_shp) + 1 != len(shape):
        raise ValueError(
            "Values' dimension should equal to CSRTensor's dimension - 1, but got"
            f"Values' dimension: {len(values_shp)} , CSRTensor's dimension: {len(shape)}"
        )
    if tuple(values_shp[1:]) != tuple(shape[2:]):
        raise ValueError(
            "CSRTensor's shape[2: ] must be equal to value's shape[1: ],"
            f"but CSRTensor's shape[2: ] got: {shape[2:]} and value's shape[1: ]got: {values_shp[1:]}"
        )


class RowTensor(_Sparse):
    """`RowTensor(indices=None, values=None, shape=None, row_tensor=None)`: the rows
    values[i] of a dense tensor of `shape` at rows indices[i] (1-D); `dense_shape`."""

    _fields = ("indices", "values")

    def __init__(
        self, indices: Any = None, values: Any = None, shape: Any = None, row_tensor: Any = None
    ):
        if row_tensor is not None:
            if not isinstance(row_tensor, RowTensor):
                raise TypeError(
                    f"Expect input `row_tensor` to be a RowTensor, but got {type(row_tensor)}"
                )
            if not (indices is None and values is None and shape is None):
                raise TypeError(
                    "If input `row_tensor` is provided, `indices`, `values`, `shapes` should all be `None`"
                )
            indices, values, shape = row_tensor._indices, row_tensor._values, row_tensor._shape
        else:
            _check_sparse_input(indices, values, shape)
        self._indices, self._values, self._shape = indices, values, shape

    @property
    def dense_shape(self) -> tuple[int, ...]:
        return self._shape


class SparseTensor(_Sparse):
    """`SparseTensor(indices, values, shape)`: MindSpore's deprecated name of a COO
    tensor (indices, values and shape only)."""

    _fields = ("indices", "values")

    def __init__(self, indices: Any, values: Any, shape: Any):
        _check_sparse_input(indices, values, shape)
        self._indices, self._values, self._shape = indices, values, shape

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape


__all__ = ["COOTensor", "CSRTensor", "RowTensor", "SparseTensor", "csr_rows"]
