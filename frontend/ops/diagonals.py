"""MindSpore 2.10's diagonal and triangle builders, composed of the ops mindjit has
(so both modes and gradients follow): `ops.diag_embed`, `ops.diagflat`,
`ops.block_diag`, `ops.diagonal_scatter`, `ops.matrix_band_part`, `ops.tril_indices`
and `ops.triu_indices` (constants).

`diag_embed` multiplies the input by a constant one-hot (L, n, n) tensor and sums
over L: no scatter op is needed, and the gradient is the diagonal read back.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import concat, expand_dims, reshape, transpose
from mindjit.frontend.ops.cast import cast_to, promote
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.math import mul, select
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
    n = x.shape[-1] + abs(offset)
    return _embed(x, offset, d1, d2, n, n)


def _embed(x: Any, offset: int, d1: int, d2: int, rows: int, cols: int) -> Any:
    """x's last axis laid on the `offset` diagonal of (rows, cols) planes at output
    axes d1 and d2, zeros elsewhere (x's other axes fill the output's others)."""
    length = x.shape[-1]
    rank = len(x.shape) + 1
    basis = np.zeros((length, rows, cols))
    k = np.arange(length)
    basis[k, k + max(-offset, 0), k + max(offset, 0)] = 1
    spread = reduce_sum(mul(expand_dims(expand_dims(x, -1), -1), constant(basis, x.dtype)), -3)
    lead = iter(range(rank - 2))
    perm = [rank - 2 if p == d1 else rank - 1 if p == d2 else next(lead) for p in range(rank)]
    return transpose(spread, perm)


def diagonal_scatter(input: Any, src: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:  # noqa: A002
    """`ops.diagonal_scatter(input, src, offset=0, dim1=0, dim2=1)`: input with its
    `offset` diagonal of the (dim1, dim2) planes replaced by `src` (the shape
    `ops.diagonal` gives)."""
    name = "diagonal_scatter"
    if not is_tensor(input) or not is_tensor(src):
        raise TypeError(f"For {name}, 'input' and 'src' must be Tensors")
    rank = len(input.shape)
    d1, d2 = normalize_axis(dim1, rank, name), normalize_axis(dim2, rank, name)
    if d1 == d2:
        raise ValueError(f"For {name}, 'dim1' and 'dim2' must differ")
    rows, cols = input.shape[d1], input.shape[d2]
    length = max(0, min(rows - max(-offset, 0), cols - max(offset, 0)))
    others = tuple(d for a, d in enumerate(input.shape) if a not in (d1, d2))
    if tuple(src.shape) != (*others, length):
        raise ValueError(
            f"For {name}, the shape of src should equal to the shape of input diagonal,but got "
            f"src.shape {tuple(src.shape)} and diagonal shape {(*others, length)}."
        )
    if length == 0:
        return input
    on = np.zeros((rows, cols), bool)
    k = np.arange(length)
    on[k + max(-offset, 0), k + max(offset, 0)] = True
    mask = constant(
        on.reshape([rows if a == d1 else cols if a == d2 else 1 for a in range(rank)]), D.bool_
    )
    spread = _embed(cast_to(src, input.dtype), offset, d1, d2, rows, cols)
    return select(mask, spread, input)


def matrix_band_part(x: Any, lower: int, upper: int) -> Any:
    """`ops.matrix_band_part(x, lower, upper)`: the last two axes' band: elements with
    i - j <= lower and j - i <= upper kept (a negative bound keeps that whole
    triangle), zeros elsewhere."""
    name = "MatrixBandPart"
    if not is_tensor(x):
        raise TypeError(f"For primitive[{name}], 'x' must be a Tensor, but got {type(x)}")
    if len(x.shape) < 2:
        raise ValueError(
            f"For primitive[{name}], the x shape size must be greater than or equal to 2, "
            f"but got {len(x.shape)}."
        )
    if not _is_int(lower) or not _is_int(upper):
        raise TypeError(f"For primitive[{name}], 'lower' and 'upper' must be ints")
    rows, cols = x.shape[-2:]
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return select(constant(keep, D.bool_), x, cast_to(0, x.dtype))


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
