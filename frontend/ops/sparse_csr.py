"""MindSpore's `CSRTensor` (compressed sparse rows), with MindSpore 2.10's
constructor checks, properties and methods; `csr_rows`, the row of each stored
element, which every CSR op builds on (an (nnz, rows) compare of indptr with an
iota: static shapes, so it runs in graphs on computed fields). See
sparse_tensor.py for what the sparse tensors share and how they cross graph
boundaries.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.reduce import reduce_sum
from mindjit.frontend.ops.scatter_ops import tensor_scatter_add
from mindjit.frontend.ops.sparse_tensor import (
    INDEX_DTYPES,
    COOTensor,
    SparseBase,
    check_sparse_input,
    tensor_like,
)
from mindjit.frontend.tensor import Tensor


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


class CSRTensor(SparseBase):
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
            given = (indptr, indices, values, shape)
            indptr, indices, values, shape = self._copied(csr_tensor, "csr_tensor", given)
        else:
            if not tensor_like(indptr):
                raise TypeError(f"For CSRTensor, 'indptr' must be Tensor, but got {type(indptr)}.")
            check_sparse_input(indices, values, shape)
            _check_csr_shape(tuple(indptr.shape), tuple(indices.shape), tuple(values.shape), shape)
            for what, t in (("indptr", indptr), ("indices", indices)):
                if t.dtype not in INDEX_DTYPES:
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

        if not tensor_like(dense_vector):
            raise TypeError(
                "For 'CSRTensor.mv', the type of 'dense_vector' should be one of '[Tensor, Tensor]', "
                f"but got type '{type(dense_vector).__name__}'."
            )
        return sparse_ops.csr_mv(self, dense_vector)

    def mm(self, matrix: Any) -> Any:
        """The product with a dense (N, K) matrix (MindSpore's CSRTensor x CSRTensor is GPU only)."""
        from mindjit.frontend.ops import sparse_ops  # it imports this module

        if not tensor_like(matrix):
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


__all__ = ["CSRTensor", "csr_rows"]
