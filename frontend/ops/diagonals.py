"""MindSpore 2.10's diagonal and triangle builders, composed of the ops mindjit has
(so both modes and gradients follow): `ops.diag_embed`, `ops.diagflat`,
`ops.block_diag`, `ops.tril_indices` and `ops.triu_indices` (constants).

`diag_embed` multiplies the input by a constant one-hot (L, n, n) tensor and sums
over L: no scatter op is needed, and the gradient is the diagonal read back.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import concat, expand_dims, reshape, transpose
from mindjit.frontend.ops.cast import promote
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.math import mul
from mindjit.frontend.ops.promotion import constant, is_tensor
from mindjit.frontend.ops.reduce import reduce_sum


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def diag_embed(input: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:  # noqa: A002
    """`ops.diag_embed(input, offset=0, dim1=-2, dim2=-1)`: a tensor one rank higher
    whose (dim1, dim2) planes hold input's last axis on the `offset` diagonal."""
    name = "diag_embed"
    if not is_tensor(input):
        raise TypeError(f"For '{name}', 'input' must be a Tensor, but got {type(input)}")
    if not all(_is_int(v) for v in (offset, dim1, dim2)):
        raise TypeError(f"For '{name}', 'offset', 'dim1' and 'dim2' must be ints")
    rank = len(input.shape) + 1
    d1, d2 = normalize_axis(dim1, rank, name), normalize_axis(dim2, rank, name)
    if d1 == d2:
        raise ValueError(f"For '{name}', 'dim1' must not be identical to 'dim2'.")
    x = input if input.shape else reshape(input, (1,))
    length = x.shape[-1]
    n = length + abs(offset)
    basis = np.zeros((length, n, n))
    k = np.arange(length)
    basis[k, k + max(-offset, 0), k + max(offset, 0)] = 1
    spread = reduce_sum(mul(expand_dims(expand_dims(x, -1), -1), constant(basis, x.dtype)), -3)
    lead = iter(range(rank - 2))
    perm = [rank - 2 if p == d1 else rank - 1 if p == d2 else next(lead) for p in range(rank)]
    return transpose(spread, perm)


def diagflat(input: Any, offset: int = 0) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.diagflat(input, offset=0)`: a 2-D tensor with the flattened input on the
    `offset` diagonal."""
    if not is_tensor(input):
        raise TypeError(f"For diagflat, the input x must be tensor, but got {type(input)}")
    if not _is_int(offset):
        raise TypeError(f"For diagflat, the offset must be int, but got {type(offset)}")
    return diag_embed(reshape(input, (-1,)), offset)


def block_diag(*inputs: Any) -> Any:
    """`ops.block_diag(*inputs)`: the tensors (0-d, 1-D as a row, or 2-D) on the
    diagonal of one 2-D tensor, zeros elsewhere."""
    name = "block_diag"
    if not inputs:
        raise TypeError(f"For '{name}', at least one input is required")
    blocks = []
    for t in inputs:
        if not is_tensor(t):
            raise TypeError(f"For '{name}', each input must be a Tensor, but got {type(t)}")
        if len(t.shape) > 2:
            raise ValueError(f"For '{name}', each input must be at most 2-D, got {tuple(t.shape)}")
        blocks.append(reshape(t, (1, -1)) if len(t.shape) < 2 else t)
    blocks = promote(*blocks, what=name)
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        h, w = b.shape
        parts = []
        if left:
            parts.append(constant(np.zeros((h, left)), b.dtype))
        parts.append(b)
        if width - left - w:
            parts.append(constant(np.zeros((h, width - left - w)), b.dtype))
        rows.append(concat(parts, 1) if len(parts) > 1 else b)
        left += w
    return concat(rows, 0) if len(rows) > 1 else rows[0]


def _triangle(name: str, pick: Any, row: Any, col: Any, offset: Any, dtype: Any) -> Any:
    if not all(_is_int(v) for v in (row, col, offset)):
        raise TypeError(f"For '{name}', 'row', 'col' and 'offset' must be ints")
    if row < 0 or col < 0:
        raise ValueError(f"For '{name}', 'row' and 'col' must be non-negative, got {row}, {col}")
    target = D.to_dtype(dtype)
    if target not in (D.int32, D.int64):
        raise TypeError(f"For '{name}', 'dtype' must be mindspore.int32 or int64, got {target}")
    return constant(np.stack(pick(row, offset, col)).reshape(2, -1), target)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = D.int64) -> Any:
    """`ops.tril_indices(row, col, offset=0, *, dtype=mstype.int64)`: the (2, N)
    coordinates of a row x col matrix's lower triangle, row by row."""
    return _triangle("tril_indices", np.tril_indices, row, col, offset, dtype)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = D.int64) -> Any:
    """`ops.triu_indices(row, col, offset=0, *, dtype=mstype.int64)`: the (2, N)
    coordinates of a row x col matrix's upper triangle, row by row."""
    return _triangle("triu_indices", np.triu_indices, row, col, offset, dtype)
