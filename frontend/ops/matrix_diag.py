"""MindSpore 2.10's band-of-diagonals ops (TensorFlow's MatrixDiagV3 family):
`ops.matrix_diag`, `ops.matrix_diag_part`, `ops.matrix_set_diag`.

The diagonals k[0] <= d <= k[1] of an (M, N) matrix are stacked top-down (row
k[1] - d), each d padded to the longest, `align` saying on which side a short
superdiagonal (first word) or subdiagonal (second word) is aligned. Every
position is static (the shapes are, and k, num_rows and num_cols are values the
program holds: Python ints or constant int32 Tensors), so each op is one gather
with an index table computed here, and a select against the padding value or
the input: both modes, every engine, gradients through the gather.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.ops.array import reshape
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.gather_ops import gather
from mindjit.frontend.ops.math import select
from mindjit.frontend.ops.promotion import constant, is_tensor
from mindjit.frontend.tensor import Parameter, Tensor

_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def _value(prim: str, name: str, v: Any, tensor_only: bool = False) -> np.ndarray:
    """A Python int or a constant int32 Tensor's value."""
    if is_tensor(v):
        if current_graph() is not None and (not isinstance(v, Tensor) or isinstance(v, Parameter)):
            raise ValueError(
                f"For '{prim}', '{name}' sets the result's shape: in GRAPH_MODE it must be a "
                "constant (a Tensor written in the program or a Python int)"
            )
        if v.dtype != D.int32:
            raise TypeError(
                f"For primitive[{prim}], the input argument[{name}] must be a type of "
                f"{{Tensor[Int32]}}, but got Tensor[{v.dtype.ms_name}]."
            )
        return np.asarray(v.asnumpy()).reshape(-1)
    if tensor_only or isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(
            f"For primitive[{prim}], the input {name} should be a Tensor, but got {type(v).__name__}."
        )
    return np.array([v])


def _k(prim: str, k: Any, tensor_only: bool = False) -> tuple[int, int, bool]:
    """(k0, k1, whether the diagonals have an axis of their own)."""
    ks = _value(prim, "k", k, tensor_only)
    if ks.size not in (1, 2):
        raise ValueError(f"For {prim}, k must have one or two values, got {ks.size}")
    k0, k1 = int(ks[0]), int(ks[-1])
    if k0 > k1:
        raise ValueError(
            f"For {prim}, k[0] must not be greater than k[1], but got k[0] is {k0}, k[1] is {k1}."
        )
    return k0, k1, ks.size == 2 and k0 != k1


def _align(prim: str, align: Any) -> tuple[bool, bool]:
    """(superdiagonals right-aligned, subdiagonals right-aligned)."""
    if align not in _ALIGNS:
        raise ValueError(
            f"For '{prim}', the 'align' must be str and must be in '{list(_ALIGNS)}', but got "
            f"'{align}'."
        )
    first, second = align.split("_")
    return first == "RIGHT", second == "RIGHT"


def _diag_len(m: int, n: int, d: int) -> int:
    return min(m + min(0, d), n - max(0, d))


def _offset(d: int, width: int, length: int, right: tuple[bool, bool]) -> int:
    """Where diagonal d (its length) starts in its row of `width`."""
    if (d >= 0 and right[0]) or (d <= 0 and right[1]):
        return width - length
    return 0


def _band_table(
    m: int, n: int, k0: int, k1: int, right: tuple[bool, bool], width: int
) -> np.ndarray:
    """For each (i, j) of the matrix, the flat position in the (rows, width)
    diagonals holding it (row k1 - d), or -1 off the band."""
    table = np.full((m, n), -1, np.int64)
    for i in range(m):
        for j in range(n):
            d = j - i
            if k0 <= d <= k1:
                p = j - max(d, 0)
                table[i, j] = (k1 - d) * width + p + _offset(d, width, _diag_len(m, n, d), right)
    return table


def _gather_flat(x: Any, lead: tuple[int, ...], size: int, table: np.ndarray) -> Any:
    flat = reshape(x, (*lead, size))
    idx = constant(np.maximum(table, 0).reshape(-1).astype(np.int32), D.int32)
    return reshape(gather(flat, idx, len(lead)), (*lead, *table.shape))


def _padding(prim: str, x: Any, padding_value: Any) -> Any:
    if is_tensor(padding_value):
        if len(padding_value.shape) != 0:
            raise ValueError(f"For {prim}, 'padding_value' must be a 0-d Tensor")
        if padding_value.dtype != x.dtype:
            raise TypeError(
                f"For '{prim}', the dtype of two args should be same, but the dtype of first arg "
                f"Tensor[{x.dtype.ms_name}] is not consistent with the dtype of second arg "
                f"Tensor[{padding_value.dtype.ms_name}]"
            )
        return padding_value
    return constant(padding_value, x.dtype)


def matrix_diag(
    x: Any,
    k: Any = 0,
    num_rows: Any = -1,
    num_cols: Any = -1,
    padding_value: Any = 0,
    align: str = "RIGHT_LEFT",
) -> Any:
    """`ops.matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0,
    align='RIGHT_LEFT')`: matrices with x's diagonals on the band k, padding_value
    elsewhere."""
    prim = "MatrixDiagV3"
    if not is_tensor(x):
        raise TypeError(f"For {prim}, 'x' must be a Tensor, but got {type(x)}")
    k0, k1, ranged = _k(prim, k)
    right = _align(prim, align)
    rows, cols = (
        int(_value(prim, name, v)[0])
        for name, v in (("num_rows", num_rows), ("num_cols", num_cols))
    )
    width = x.shape[-1]
    lead = tuple(x.shape[:-2] if ranged else x.shape[:-1])
    if ranged and x.shape[-2] != k1 - k0 + 1:
        raise ValueError(
            f"For {prim}, x.shape[-2] must be k[1] - k[0] + 1 = {k1 - k0 + 1}, got {x.shape[-2]}"
        )
    min_rows, min_cols = width - min(k1, 0), width + max(k0, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows < min_rows or cols < min_cols or (rows != min_rows and cols != min_cols):
        raise ValueError(
            f"For {prim}, the number of rows or columns is not consistent with the specified k and x."
        )
    table = _band_table(rows, cols, k0, k1, right, width)
    size = (k1 - k0 + 1) * width
    picked = _gather_flat(x, lead, size, table)
    pad = _padding(prim, x, padding_value)
    return select(
        constant(table >= 0, D.bool_),
        picked,
        cast_to(pad, x.dtype) if pad.dtype != x.dtype else pad,
    )


def matrix_diag_part(x: Any, k: Any, padding_value: Any, align: str = "RIGHT_LEFT") -> Any:
    """`ops.matrix_diag_part(x, k, padding_value, align='RIGHT_LEFT')`: the diagonals
    k (an int32 Tensor) of x's matrices, (..., num_diags, max_len) or (..., max_len)."""
    prim = "MatrixDiagPartV3"
    if not is_tensor(x) or len(x.shape) < 2:
        raise ValueError(f"For {prim}, 'x' must be a Tensor of rank >= 2")
    k0, k1, ranged = _k(prim, k, tensor_only=True)
    if not is_tensor(padding_value):
        raise TypeError(
            f"For primitive[{prim}], the input[2] should be a Tensor, but got {type(padding_value).__name__}."
        )
    pad = _padding(prim, x, padding_value)
    right = _align(prim, align)
    m, n = x.shape[-2], x.shape[-1]
    for kv in (k0, k1):
        if not -m < kv < n:
            raise ValueError(
                f"For {prim}, the value of k must be in (-x.shape[-2], x.shape[-1]), meaning the "
                f"value of k must be in ({-m}, {n}) in this case, but got {kv}."
            )
    width = min(m + min(k1, 0), n + min(-k0, 0))
    table = np.full((k1 - k0 + 1, width), -1, np.int64)
    for r in range(k1 - k0 + 1):
        d = k1 - r
        length = _diag_len(m, n, d)
        start = _offset(d, width, length, right)
        for p in range(length):
            table[r, start + p] = (p + max(-d, 0)) * n + p + max(d, 0)
    if not ranged:
        table = table[0]
    lead = tuple(x.shape[:-2])
    picked = _gather_flat(x, lead, m * n, table)
    return select(constant(table >= 0, D.bool_), picked, pad)


def matrix_set_diag(x: Any, diagonal: Any, k: Any = 0, align: str = "RIGHT_LEFT") -> Any:
    """`ops.matrix_set_diag(x, diagonal, k=0, align='RIGHT_LEFT')`: x with its
    diagonals k replaced by `diagonal`'s."""
    prim = "MatrixSetDiagV3"
    if not is_tensor(x) or not is_tensor(diagonal):
        raise TypeError(f"For {prim}, 'x' and 'diagonal' must be Tensors")
    if diagonal.dtype != x.dtype:
        raise TypeError(
            f"For {prim}, 'diagonal' must have x's dtype {x.dtype}, got {diagonal.dtype}"
        )
    k0, k1, ranged = _k(prim, k)
    right = _align(prim, align)
    m, n = x.shape[-2], x.shape[-1]
    width = min(m + min(k1, 0), n + min(-k0, 0))
    want = (*x.shape[:-2], k1 - k0 + 1, width) if ranged else (*x.shape[:-2], width)
    if tuple(diagonal.shape) != want:
        raise ValueError(
            f"For {prim}, diagonal.shape[-1] is not equal to max_diag_len calculated by "
            f"min(x.shape[-2] + min(k[1], 0), x.shape[-1] + min(-k[0], 0)), which value is {width} "
            f"in this case, but got diagonal.shape[-1] is {diagonal.shape[-1]} (diagonal must be {want})."
        )
    table = _band_table(m, n, k0, k1, right, width)
    picked = _gather_flat(diagonal, tuple(x.shape[:-2]), (k1 - k0 + 1) * width, table)
    return select(constant(table >= 0, D.bool_), picked, x)


__all__ = ["matrix_diag", "matrix_diag_part", "matrix_set_diag"]
