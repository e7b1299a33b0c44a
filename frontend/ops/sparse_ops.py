"""The functional ops on sparse tensors whose result shape is known from the
inputs' shapes (MindSpore 2.10's `ops.make_coo_tensor`, the getters, `ops.coo2csr`,
`ops.csr2coo`, `ops.csr_to_coo`, `ops.csr_mul`/`csr_div`/`csr_mv`/`csr_reduce_sum`,
`ops.csr_gather`, `ops.csr_softmax`, `ops.coo_concat`).

Each composes dense ops over the sparse tensors' fields (sparse_tensor.py, sparse_csr.py): the
row of each CSR element comes from comparing indptr with an iota, products and
row sums are gathers and segment sums, coo_concat a stable argsort of the
row-major keys. So they run in PyNative mode and in graphs on computed fields,
and their values keep their gradient. The ops whose result size depends on the
indices' values (coalesce, coo_add, csr_add, sparse_segment_mean) are in
sparse_patterns.py.

MindSpore runs several of these (csr_mul, csr_div, csr_mv, csr_reduce_sum,
csr_gather, coo2csr, csr2coo) as AKG kernels on CPU; the meanings here are
their documented ones: coo2csr and csr2coo take int32 only, as MindSpore's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.gather_ops import gather, gather_nd, unsorted_segment_sum
from mindjit.frontend.ops.promotion import is_tensor, promote_types
from mindjit.frontend.ops.reduce import reduce_sum
from mindjit.frontend.ops.segment_reduce import segment_rows
from mindjit.frontend.ops.sort import argsort
from mindjit.frontend.ops.sparse_csr import CSRTensor, csr_rows
from mindjit.frontend.ops.sparse_tensor import COOTensor, RowTensor
from mindjit.frontend.tensor import Tensor

# --- makers and getters ------------------------------------------------------------------


def make_coo_tensor(indices: Any, values: Any, dense_shape: Any) -> COOTensor:
    """`ops.make_coo_tensor(indices, values, dense_shape)`: a COOTensor."""
    return COOTensor(indices, values, dense_shape)


def make_sparse_tensor(indices: Any, values: Any, dense_shape: Any) -> COOTensor:
    """`ops.make_sparse_tensor(indices, values, dense_shape)`: MindSpore's deprecated
    name of make_coo_tensor."""
    return COOTensor(indices, values, dense_shape)


def make_csr_tensor(indptr: Any, indices: Any, values: Any, dense_shape: Any) -> CSRTensor:
    """`ops.make_csr_tensor(indptr, indices, values, dense_shape)`: a CSRTensor."""
    return CSRTensor(indptr, indices, values, dense_shape)


def make_row_tensor(indices: Any, values: Any, dense_shape: Any) -> RowTensor:
    """`ops.make_row_tensor(indices, values, dense_shape)`: a RowTensor."""
    return RowTensor(indices, values, dense_shape)


make_row_tensor_inner = make_row_tensor


def _getter(prim: str, cls: type, field: str) -> Any:
    def get(x: Any) -> Any:
        if not isinstance(x, cls):
            raise TypeError(
                f"For '{prim}', input[0] should be {cls.__name__}, but got {type(x).__name__}."
            )
        return x.__ms_struct__()[0] if field == "shape" else getattr(x, "_" + field)

    get.__name__ = get.__qualname__ = prim
    get.__doc__ = f"`ops` getter: the {field} of a {cls.__name__}."
    return get


coo_tensor_get_dense_shape = _getter("COOTensorGetDenseShape", COOTensor, "shape")
coo_tensor_get_indices = _getter("COOTensorGetIndices", COOTensor, "indices")
coo_tensor_get_values = _getter("COOTensorGetValues", COOTensor, "values")
csr_tensor_get_dense_shape = _getter("CSRTensorGetDenseShape", CSRTensor, "shape")
csr_tensor_get_indices = _getter("CSRTensorGetIndices", CSRTensor, "indices")
csr_tensor_get_indptr = _getter("CSRTensorGetIndptr", CSRTensor, "indptr")
csr_tensor_get_values = _getter("CSRTensorGetValues", CSRTensor, "values")
row_tensor_get_dense_shape = _getter("RowTensorGetDenseShape", RowTensor, "shape")
row_tensor_get_indices = _getter("RowTensorGetIndices", RowTensor, "indices")
row_tensor_get_values = _getter("RowTensorGetValues", RowTensor, "values")

# --- conversions (static shapes) -----------------------------------------------------


def _int32_only(x: Any, what: str) -> Any:
    if not is_tensor(x):
        raise TypeError(f"The type of {what} must be Tensor, but got {type(x).__name__}.")
    if x.dtype != D.int32:
        raise TypeError(f"The dtype of {what} only support Int32 for now, but got {x.dtype}.")
    return x


def coo2csr(row_indices: Any, height: int) -> Any:
    """`ops.coo2csr(row_indices, height)`: the int32 indptr (height + 1,) of sorted
    int32 row indices: indptr[i] = how many rows are < i."""
    rows = _int32_only(row_indices, "row_indices")
    if isinstance(height, bool) or not isinstance(height, int):
        raise TypeError(f"For 'COO2CSR', 'height' must be an int, but got {type(height).__name__}.")
    n = rows.shape[0]
    if n == 0:
        return Tensor(np.zeros((height + 1,), np.int32))
    iota = Tensor(np.arange(height + 1, dtype=np.int32).reshape(height + 1, 1))
    below = fmath.less(array.reshape(rows, (1, n)), iota)
    return array.cast(array.reshape(_sum1(below), (height + 1,)), D.int32)


def _sum1(mask: Any) -> Any:
    return reduce_sum(array.cast(mask, D.int32), 1)


def csr2coo(indptr: Any, nnz: int) -> Any:
    """`ops.csr2coo(indptr, nnz)`: the int32 row index of each of the nnz elements."""
    ptr = _int32_only(indptr, "Indptr")
    if isinstance(nnz, bool) or not isinstance(nnz, int):
        raise TypeError(f"For 'CSR2COO', 'nnz' must be an int, but got {type(nnz).__name__}.")
    return csr_rows(ptr, nnz)


def csr_to_coo(tensor: Any) -> COOTensor:
    """`ops.csr_to_coo(tensor)`: the 2-D CSRTensor as a COOTensor (int32 indices)."""
    if not isinstance(tensor, CSRTensor):
        raise TypeError("For functional operator csr_to_coo, input argument must be a CSRTensor.")
    if tensor.ndim > 2:
        raise ValueError("Currently only support 2-D CSRTensor when converting to COOTensor.")
    rows = array.cast(tensor.rows(), D.int32)
    cols = array.cast(tensor.indices, D.int32)
    return COOTensor(array.stack((rows, cols), 1), tensor.values, tensor.shape)


# --- CSR with dense operands (static shapes) ---------------------------------------------


def _csr(x: Any, name: str) -> CSRTensor:
    if not isinstance(x, CSRTensor):
        raise TypeError(f"For '{name}', the input must be a CSRTensor, but got {type(x).__name__}.")
    return x


def _coords(x: CSRTensor) -> Any:
    rows = x.rows()
    return array.stack((rows, array.cast(x.indices, rows.dtype)), 1)


def _csr_binary(x: Any, y: Any, name: str, op: Any) -> Any:
    x = _csr(x, name)
    if isinstance(y, bool | int | float):
        y = Tensor(y)
    if not is_tensor(y):
        raise TypeError(f"For '{name}', 'y' must be a Tensor, but got {type(y).__name__}.")
    dtype = promote_types(x.dtype, y.dtype)
    values, y = x.values.astype(dtype), y.astype(dtype)
    if y.size == 1 and len(y.shape) <= 2:  # MindSpore's is_scalar: the values alone
        if len(y.shape) > x.ndim:
            raise ValueError("dense tensor cannot broadcast to the sparse tensor.")
        return op(values, array.reshape(y, ()))
    if values.shape[0] == 0:
        return CSRTensor(x.indptr, x.indices, values, x.shape)
    dense = array.broadcast_to(y, x.shape)
    return CSRTensor(x.indptr, x.indices, op(values, gather_nd(dense, _coords(x))), x.shape)


def csr_mul(x: Any, y: Any) -> Any:
    """`ops.csr_mul(x, y)`: x * y at x's stored elements (y dense, broadcast to x) as
    a CSRTensor; a scalar y gives the values alone (a dense Tensor), as MindSpore."""
    return _csr_binary(x, y, "csr_mul", fmath.mul)


def csr_div(x: Any, y: Any) -> Any:
    """`ops.csr_div(x, y)`: x / y at x's stored elements (see csr_mul)."""
    return _csr_binary(x, y, "csr_div", fmath.div)


def csr_mv(csr_tensor: Any, dense: Any) -> Any:
    """`ops.csr_mv(csr_tensor, dense)`: the dense (M, K) product with a dense (N, K)."""
    x = _csr(csr_tensor, "csr_mv")
    if not is_tensor(dense):
        raise TypeError(f"For 'csr_mv', 'dense' must be a Tensor, but got {type(dense).__name__}.")
    if len(dense.shape) != 2 or x.ndim != 2:
        raise ValueError(
            f"Currently, only support 2-D inputs! But csr tensor has {x.ndim} dimensions, and dense tensor "
            f"has {len(dense.shape)} dimension(s). "
        )
    if dense.shape[0] != x.shape[1]:
        raise ValueError(
            f"For 'csr_mv', dense.shape[0] ({dense.shape[0]}) must equal the CSRTensor's shape[1] ({x.shape[1]})."
        )
    dtype = promote_types(x.dtype, dense.dtype)
    values, dense = x.values.astype(dtype), dense.astype(dtype)
    m, k = x.shape[0], dense.shape[1]
    if values.shape[0] == 0:
        return array.zeros((m, k), dtype)
    picked = gather(dense, x.indices, 0)  # (nnz, K)
    terms = fmath.mul(array.reshape(values, (values.shape[0], 1)), picked)
    return unsorted_segment_sum(terms, x.rows(), m)


def csr_reduce_sum(csr_tensor: Any, axis: int) -> Any:
    """`ops.csr_reduce_sum(csr_tensor, axis)`: the sum of each row, shape (M, 1); axis
    must be 1 (or -1)."""
    x = _csr(csr_tensor, "csr_reduce_sum")
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"For CSRReduceSum, `axis` must be an int, but got {type(axis).__name__}.")
    if axis not in (1, 1 - x.ndim):
        raise ValueError(
            f"For CSRReduceSum, `axis` should be 1 or 1-dim. But got `axis`: {axis}and `1- dim`: {1 - x.ndim}."
        )
    m, rest = x.shape[0], tuple(x.shape[2:])
    if x.values.shape[0] == 0:
        return array.zeros((m, 1, *rest), x.dtype)
    return array.reshape(unsorted_segment_sum(x.values, x.rows(), m), (m, 1, *rest))


def csr_gather(indptr: Any, indices: Any, dense: Any, sparse_shape: Any) -> Any:
    """`ops.csr_gather(indptr, indices, dense, sparse_shape)`: dense's elements at the
    CSR pattern's positions, shape (nnz, *dense.shape[2:])."""
    for what, t in (("indptr", indptr), ("indices", indices), ("dense", dense)):
        if not is_tensor(t):
            raise TypeError(
                f"For 'CSRGather', '{what}' must be a Tensor, but got {type(t).__name__}."
            )
    if tuple(dense.shape) != tuple(sparse_shape):
        raise ValueError(
            f"For 'CSRGather', the shape of 'dense' {tuple(dense.shape)} must equal 'sparse_shape' "
            f"{tuple(sparse_shape)}."
        )
    nnz = indices.shape[0]
    rows = csr_rows(indptr, nnz)
    return gather_nd(dense, array.stack((rows, array.cast(indices, rows.dtype)), 1))


def csr_softmax(logits: Any, dtype: Any) -> CSRTensor:
    """`ops.csr_softmax(logits, dtype)`: the softmax of each row's stored values."""
    if not isinstance(logits, CSRTensor):
        raise TypeError(
            "For functional operator sparse_matrix_softmax, logits must be type of CSRTensor."
        )
    dt = D.to_dtype(dtype)
    if dt not in (D.float32, D.float64):
        raise TypeError(
            f"For 'SparseMatrixSoftmax', 'dtype' must be float32 or float64, but got {dt}."
        )
    values = logits.values.astype(dt)
    nnz, m = values.shape[0], logits.shape[0]
    if nnz == 0:
        return CSRTensor(logits.indptr, logits.indices, values, logits.shape)
    rows = logits.rows()
    top = gather(segment_rows("max", values, rows, m), rows, 0)
    e = fmath.exp(fmath.sub(values, top))
    total = gather(unsorted_segment_sum(e, rows, m), rows, 0)
    return CSRTensor(logits.indptr, logits.indices, fmath.div(e, total), logits.shape)


# --- COO concat (static shape) ---------------------------------------------------------


def coo_concat(sp_input: Any, concat_dim: int = 0) -> COOTensor:
    """`ops.coo_concat(sp_input, concat_dim=0)`: the COOTensors (or (indices, values,
    shape) tuples) joined along concat_dim, indices in row-major order."""
    if not isinstance(sp_input, list | tuple):
        raise TypeError(
            f"For coo_concat, 'sp_input' must be a list or tuple, but got {type(sp_input).__name__}."
        )
    if len(sp_input) < 2:
        raise ValueError("For coo_concat, not support COOTensor input number < 2.")
    parts = [x.to_tuple() if isinstance(x, COOTensor) else tuple(x) for x in sp_input]
    for k, (idx, _, _) in enumerate(parts):
        if idx.dtype != D.int64:
            raise TypeError(
                f"For primitive[SparseConcat], the input argument[indices{k}] must be a type of "
                f"{{Tensor[Int64]}}, but got Tensor[{idx.dtype}]."
            )
    rank = len(parts[0][2])
    if (
        isinstance(concat_dim, bool)
        or not isinstance(concat_dim, int)
        or not -rank <= concat_dim < rank
    ):
        raise ValueError(
            f"For coo_concat, 'concat_dim' must be in range [{-rank}, {rank}), but got {concat_dim}."
        )
    dim = concat_dim % rank
    out_shape = list(parts[0][2])
    offset, pieces = 0, []
    for k, (idx, _, shape) in enumerate(parts):
        if k:
            out_shape[dim] += shape[dim]
        shift = np.zeros((1, rank), np.int64)
        shift[0, dim] = offset
        pieces.append(fmath.add(idx, Tensor(shift)))
        offset += shape[dim]
    indices = array.concat(pieces, 0)
    values = array.concat([p[1] for p in parts], 0)
    n = indices.shape[0]
    if n == 0:
        return COOTensor(indices, values, tuple(out_shape))
    strides = np.array([int(np.prod(out_shape[d + 1 :])) for d in range(rank)], np.int64)
    key = fmath.mul(indices, Tensor(strides.reshape(1, rank)))
    order = argsort(reduce_sum(key, 1))  # stable: equal indices keep their order
    return COOTensor(gather(indices, order, 0), gather(values, order, 0), tuple(out_shape))


__all__ = [
    "coo2csr",
    "coo_concat",
    "coo_tensor_get_dense_shape",
    "coo_tensor_get_indices",
    "coo_tensor_get_values",
    "csr2coo",
    "csr_div",
    "csr_gather",
    "csr_mul",
    "csr_mv",
    "csr_reduce_sum",
    "csr_softmax",
    "csr_tensor_get_dense_shape",
    "csr_tensor_get_indices",
    "csr_tensor_get_indptr",
    "csr_tensor_get_values",
    "csr_to_coo",
    "make_coo_tensor",
    "make_csr_tensor",
    "make_row_tensor",
    "make_row_tensor_inner",
    "make_sparse_tensor",
    "row_tensor_get_dense_shape",
    "row_tensor_get_indices",
    "row_tensor_get_values",
]
