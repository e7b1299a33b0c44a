"""MindSpore 2.10's sparse Cells (issue 38):

- SparseToDense(): a COOTensor's dense tensor (MindSpore's deprecated name of
  `COOTensor.to_dense()`).
- SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)(indices, values,
  sparse_shape, dense): the product of the (N, C) sparse matrix given by COO
  indices (n, 2) and values (n,) with a dense matrix; adjoint_st transposes the
  sparse one, adjoint_dt the dense one. It is a gather of dense rows and a
  segment sum into the result's rows (static shapes, both modes, gradients of
  values and dense), never a dense copy of the sparse matrix.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.ops.gather_ops import known
from mindjit.frontend.ops.promotion import is_tensor


class SparseToDense(Cell):
    """`nn.SparseToDense()`: construct(sparse_tensor) -> its dense tensor."""

    def construct(self, sparse_tensor: Any) -> Any:
        return sparse_tensor.to_dense()


def _shape(sparse_shape: Any) -> tuple[int, ...]:
    if is_tensor(sparse_shape):
        value = known(sparse_shape)
        if value is None:
            raise ValueError(
                "For 'SparseTensorDenseMatmul', 'sparse_shape' must be a constant in a graph, not a computed tensor."
            )
        sparse_shape = tuple(int(v) for v in value.reshape(-1))
    if not isinstance(sparse_shape, tuple) or len(sparse_shape) != 2:
        raise ValueError(
            f"For 'SparseTensorDenseMatmul', 'sparse_shape' must be a 2-tuple, but got {sparse_shape}."
        )
    return sparse_shape


class SparseTensorDenseMatmul(Cell):
    """`nn.SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)`."""

    def __init__(self, adjoint_st: bool = False, adjoint_dt: bool = False):
        super().__init__()
        for name, flag in (("adjoint_st", adjoint_st), ("adjoint_dt", adjoint_dt)):
            if not isinstance(flag, bool):
                raise TypeError(
                    f"For 'SparseTensorDenseMatmul', the type of '{name}' should be 'bool', "
                    f"but got type '{type(flag).__name__}'."
                )
        self.adj_st, self.adj_dt = adjoint_st, adjoint_dt

    def construct(self, indices: Any, values: Any, sparse_shape: Any, dense: Any) -> Any:
        return _matmul(indices, values, sparse_shape, dense, self.adj_st, self.adj_dt)


def _matmul(
    indices: Any, values: Any, sparse_shape: Any, dense: Any, adj_st: bool, adj_dt: bool
) -> Any:
    name = "SparseTensorDenseMatmul"
    for what, t in (("indices", indices), ("values", values), ("dense", dense)):
        if not is_tensor(t):
            raise TypeError(f"For '{name}', '{what}' must be a Tensor, but got {type(t).__name__}.")
    if str(indices.dtype) not in ("Int32", "Int64"):
        raise TypeError(f"For '{name}', 'indices' must be int32 or int64, but got {indices.dtype}.")
    if values.dtype != dense.dtype:
        raise TypeError(
            f"For '{name}', 'values' and 'dense' must have one dtype, but got {values.dtype} and {dense.dtype}."
        )
    shape = _shape(sparse_shape)
    if (
        len(indices.shape) != 2
        or indices.shape[1] != 2
        or tuple(values.shape) != (indices.shape[0],)
    ):
        raise ValueError(f"For '{name}', 'indices' must be (n, 2) and 'values' (n,).")
    if len(dense.shape) != 2:
        raise ValueError(f"For '{name}', 'dense' must be 2-D, but got {len(dense.shape)}-D.")
    if adj_dt:
        dense = ops.transpose(dense, (1, 0))
    rows, inner = (shape[1], shape[0]) if adj_st else shape
    if dense.shape[0] != inner:
        raise ValueError(
            f"For '{name}', the dense matrix's rows ({dense.shape[0]}) must equal the sparse matrix's "
            f"columns ({inner})."
        )
    n = indices.shape[0]
    if n == 0:
        return ops.zeros((rows, dense.shape[1]), dense.dtype)
    r = ops.reshape(indices[:, 1:2] if adj_st else indices[:, 0:1], (n,))
    c = ops.reshape(indices[:, 0:1] if adj_st else indices[:, 1:2], (n,))
    terms = ops.reshape(values, (n, 1)) * ops.gather(dense, c, 0)
    return ops.unsorted_segment_sum(terms, r, rows)


__all__ = ["SparseTensorDenseMatmul", "SparseToDense"]
