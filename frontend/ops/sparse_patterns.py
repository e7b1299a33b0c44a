"""Sparse ops whose result size depends on the indices' values: `ops.coalesce`,
`ops.coo_add`, `ops.csr_add` and `ops.sparse_segment_mean` (MindSpore 2.10).

mindjit's graphs have static shapes, so the index arithmetic (which positions
merge, how many there are) runs on the host, on index tensors whose values are
known: in PyNative mode always, in GRAPH_MODE when they are constants of the
program (a Tensor written in it); an index the graph computes is a ValueError,
as for `ops.nonzero` (value_shapes.py). The values are then combined with dense
ops (segment sums into the output positions), so they keep their gradient and,
except in coo_add whose threshold reads them, may be computed by the graph.

Semantics: `coalesce` sorts the indices row-major and sums duplicates (for any
input order; MindSpore's CPU kernel expects sorted input). `coo_add` is
MindSpore's SparseAdd (TensorFlow's): a merge of the two index lists, taken as
sorted; an index in both is kept only if |sum| >= thresh, one in a single
input always. `csr_add` gives alpha * a + beta * b on the union of the two
patterns, columns ascending in each row; a zero sum is kept.
`sparse_segment_mean`'s result has segment_ids[-1] + 1 rows (ids sorted, as MindSpore's
CPU kernel requires; an empty segment is 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.gather_ops import gather, known, unsorted_segment_sum
from mindjit.frontend.ops.promotion import is_tensor, promote_types
from mindjit.frontend.ops.sparse_csr import CSRTensor
from mindjit.frontend.ops.sparse_tensor import COOTensor
from mindjit.frontend.tensor import Tensor


def _host(x: Any, name: str, what: str) -> np.ndarray:
    """The value of an index tensor, which must be known when the op is built."""
    v = known(x)
    if v is None:
        raise ValueError(
            f"For '{name}', the shape of the result depends on the values of '{what}', and in "
            "GRAPH_MODE mindjit compiles static shapes only: it must be a constant here (a "
            "Tensor written in the program); call it in PyNative mode for a computed one"
        )
    return v


def _scatter(values: Any, slots: np.ndarray, n: int) -> Any:
    """values[i] summed into output slot slots[i] (-1: dropped), n slots."""
    if n == 0:
        return Tensor(np.zeros((0, *values.shape[1:]), values.dtype.numpy))
    if values.shape[0] == 0:
        return array.zeros((n, *values.shape[1:]), values.dtype)
    return unsorted_segment_sum(values, Tensor(slots.astype(np.int32)), n)


def _type_error(prim: str, arg: str, allowed: str, got: D.DType) -> TypeError:
    return TypeError(
        f"For primitive[{prim}], the input argument[{arg}] must be a type of {{{allowed}}}, "
        f"but got Tensor[{got}]."
    )


def coalesce(x_indices: Any, x_values: Any, x_shape: Any) -> tuple[Any, Any, Any]:
    """`ops.coalesce(x_indices, x_values, x_shape)`: the indices (ndim, n) int64 made
    unique (row-major order) with their values summed: (y_indices, y_values, y_shape)."""
    for arg, t in (("x_indices", x_indices), ("x_values", x_values), ("x_shape", x_shape)):
        if not is_tensor(t):
            raise TypeError(
                f"For 'Coalesce', '{arg}' must be a Tensor, but got {type(t).__name__}."
            )
    if x_values.dtype not in (D.float16, D.float32, D.float64):
        raise _type_error(
            "Coalesce", "x_values", "Tensor[Float16], Tensor[Float32]", x_values.dtype
        )
    for arg, t in (("x_indices", x_indices), ("x_shape", x_shape)):
        if t.dtype != D.int64:
            raise _type_error("Coalesce", arg, "Tensor[Int64]", t.dtype)
    if len(x_values.shape) != 1 or len(x_shape.shape) != 1:
        raise ValueError("For 'Coalesce', x_values and x_shape must be 1-D tensors.")
    if len(x_indices.shape) != 2:
        raise ValueError(
            f"For 'Coalesce', x_indices must be a 2-D tensor, but got {len(x_indices.shape)}-D."
        )
    ndim, n = x_indices.shape
    if n != x_values.shape[0]:
        raise ValueError(
            f"For 'Coalesce', x_indices.shape[1] ({n}) must equal x_values.shape[0] ({x_values.shape[0]})."
        )
    if ndim != x_shape.shape[0]:
        raise ValueError(
            f"For 'Coalesce', x_indices.shape[0] ({ndim}) must equal x_shape.shape[0] ({x_shape.shape[0]})."
        )
    idx = _host(x_indices, "coalesce", "x_indices")
    if (idx < 0).any():
        raise ValueError(
            "For 'Coalesce', the values of elements of x_indices must be non-negative."
        )
    limits = known(x_shape)
    if limits is not None and n and (idx >= limits.reshape(ndim, 1)).any():
        raise ValueError(
            "For 'Coalesce', the values of elements of x_indices exceed the limit set by x_shape."
        )
    if n == 0:
        return x_indices, x_values, x_shape
    unique, inverse = np.unique(idx.T, axis=0, return_inverse=True)
    values = _scatter(x_values, inverse.reshape(-1), unique.shape[0])
    return Tensor(np.ascontiguousarray(unique.T.astype(np.int64))), values, x_shape


def coo_add(x1: Any, x2: Any, thresh: Any) -> COOTensor:
    """`ops.coo_add(x1, x2, thresh)`: x1 + x2 as a COOTensor (see the module's note)."""
    if not isinstance(x1, COOTensor) or not isinstance(x2, COOTensor):
        raise TypeError(
            "For functional operator coo_add, both inputs x1 and x2 must be type of COOTensor."
        )
    if not is_tensor(thresh):
        raise TypeError(
            f"For 'coo_add', 'thresh' must be a Tensor, but got {type(thresh).__name__}."
        )
    if thresh.shape:
        raise ValueError(f"For 'coo_add', thresh's dim must be 0, but got {len(thresh.shape)}.")
    for k, x in ((1, x1), (2, x2)):
        if x.indices.dtype != D.int64:
            raise _type_error("SparseAdd", f"x{k}_indices", "Tensor[Int64]", x.indices.dtype)
    if x1.shape != x2.shape:
        raise ValueError(
            f"For 'coo_add', the shapes must be equal, but got {x1.shape} and {x2.shape}."
        )
    dtype = promote_types(x1.dtype, x2.dtype)
    v1, v2 = x1.values.astype(dtype), x2.values.astype(dtype)
    a = _host(x1.indices, "coo_add", "x1.indices")
    b = _host(x2.indices, "coo_add", "x2.indices")
    av = _host(v1, "coo_add", "x1.values")
    bv = _host(v2, "coo_add", "x2.values")
    limit = _host(thresh.astype(dtype), "coo_add", "thresh").item()
    out, slot_a, slot_b = [], np.full(len(a), -1), np.full(len(b), -1)
    i = j = 0
    while i < len(a) and j < len(b):
        ka, kb = tuple(a[i]), tuple(b[j])
        if ka < kb:
            slot_a[i], i = len(out), i + 1
            out.append(ka)
        elif kb < ka:
            slot_b[j], j = len(out), j + 1
            out.append(kb)
        else:
            if abs(av[i] + bv[j]) >= limit:
                slot_a[i] = slot_b[j] = len(out)
                out.append(ka)
            i, j = i + 1, j + 1
    for rest in range(i, len(a)):
        slot_a[rest] = len(out)
        out.append(tuple(a[rest]))
    for rest in range(j, len(b)):
        slot_b[rest] = len(out)
        out.append(tuple(b[rest]))
    n = len(out)
    values = fmath.add(_scatter(v1, slot_a, n), _scatter(v2, slot_b, n))
    indices = Tensor(np.array(out, np.int64).reshape(n, 2))
    return COOTensor(indices, values, x1.shape)


def csr_add(a: Any, b: Any, alpha: Any, beta: Any) -> CSRTensor:
    """`ops.csr_add(a, b, alpha, beta)`: alpha * a + beta * b as a CSRTensor."""
    if not isinstance(a, CSRTensor) or not isinstance(b, CSRTensor):
        raise TypeError(
            "For functional operator csr_add, both inputs a and b must be type of CSRTensor."
        )
    if not is_tensor(alpha) or not is_tensor(beta):
        raise TypeError(
            "For functional operator csr_add, both inputs alpha and beta must be Tensor."
        )
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(
            f"For 'csr_add', a and b must be 2-D of one shape, but got {a.shape} and {b.shape}."
        )
    dtype = promote_types(a.dtype, b.dtype)
    ptr_dtype = promote_types(a.indptr.dtype, b.indptr.dtype)
    idx_dtype = promote_types(a.indices.dtype, b.indices.dtype)
    cols = a.shape[1]

    def keys(x: CSRTensor, which: str) -> np.ndarray:
        ptr = _host(x.indptr, "csr_add", f"{which}.indptr").astype(np.int64)
        col = _host(x.indices, "csr_add", f"{which}.indices").astype(np.int64)
        return np.repeat(np.arange(len(ptr) - 1), np.diff(ptr)) * cols + col

    ka, kb = keys(a, "a"), keys(b, "b")
    union = np.unique(np.concatenate([ka, kb]))
    n = union.shape[0]
    sa = fmath.mul(a.values.astype(dtype), array.reshape(alpha.astype(dtype), ()))
    sb = fmath.mul(b.values.astype(dtype), array.reshape(beta.astype(dtype), ()))
    values = fmath.add(
        _scatter(sa, np.searchsorted(union, ka), n), _scatter(sb, np.searchsorted(union, kb), n)
    )
    rows = union // cols
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=a.shape[0]))])
    return CSRTensor(
        Tensor(indptr.astype(ptr_dtype.numpy)),
        Tensor((union % cols).astype(idx_dtype.numpy)),
        values,
        a.shape,
    )


def sparse_segment_mean(x: Any, indices: Any, segment_ids: Any) -> Any:
    """`ops.sparse_segment_mean(x, indices, segment_ids)`: out[s] is the mean of the
    rows x[indices[j]] with segment_ids[j] == s (0 for an empty segment)."""
    prim = "SparseSegmentMean"
    for arg, t in (("x", x), ("indices", indices), ("segment_ids", segment_ids)):
        if not is_tensor(t):
            raise TypeError(f"For primitive[{prim}], the input argument[{arg}] must be a Tensor.")
    if x.dtype not in (D.float16, D.float32, D.float64):
        raise _type_error(prim, "x", "Tensor[Float16], Tensor[Float32], Tensor[Float64]", x.dtype)
    for arg, t in (("indices", indices), ("segment_ids", segment_ids)):
        if t.dtype not in (D.int32, D.int64):
            raise _type_error(prim, arg, "Tensor[Int32], Tensor[Int64]", t.dtype)
    if indices.dtype != segment_ids.dtype:
        raise TypeError(f"For primitive[{prim}], the input type must be same.")
    if not x.shape:
        raise ValueError(f"For '{prim}', x must have at least one dimension.")
    if len(indices.shape) != 1 or len(segment_ids.shape) != 1:
        raise ValueError(f"For '{prim}', indices and segment_ids must be 1-D tensors.")
    if indices.shape[0] != segment_ids.shape[0]:
        raise ValueError(f"For '{prim}', indices and segment_ids must have the same length.")
    ids = _host(segment_ids, "sparse_segment_mean", "segment_ids").astype(np.int64)
    if ids.size and ((ids < 0).any() or (np.diff(ids) < 0).any()):
        raise RuntimeError(f"For '{prim}', segment_ids must be non-negative and sorted.")
    known_idx = known(indices)
    if (
        known_idx is not None
        and known_idx.size
        and ((known_idx < 0) | (known_idx >= x.shape[0])).any()
    ):
        raise RuntimeError(f"For '{prim}', indices must be in the range [0, {x.shape[0]}).")
    n = int(ids[-1]) + 1 if ids.size else 0
    rows = gather(x, indices, 0)
    total = _scatter(rows, ids, n)
    count = np.maximum(np.bincount(ids, minlength=n), 1).astype(x.dtype.numpy)
    return fmath.div(total, Tensor(count.reshape((n,) + (1,) * (len(x.shape) - 1))))


__all__ = ["coalesce", "coo_add", "csr_add", "sparse_segment_mean"]
