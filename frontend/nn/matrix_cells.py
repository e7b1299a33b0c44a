"""`mindspore.nn`'s MatrixDiag, MatrixDiagPart, MatrixSetDiag, ChannelShuffle and
L1Regularizer of MindSpore 2.10 (issue 38), from mindjit's ops:

- MatrixDiag(): (..., N) -> (..., N, N) with x on the diagonals (x times an eye).
- MatrixDiagPart(): (..., M, N) -> (..., min(M, N)), the main diagonals.
- MatrixSetDiag(): construct(x, diagonal), x with its main diagonals replaced.
  The three take float16, float32, int32, int8 and uint8 only (a TypeError
  otherwise); MindSpore 2.10 marks them deprecated and has no CPU kernel.
- ChannelShuffle(groups): (N, C, ...) viewed as (N, groups, C / groups, -1),
  the two middle axes swapped.
- L1Regularizer(scale): scale * sum(|weights|), a float32 scalar (float64 for
  float64 weights: MindSpore multiplies by a float32 Tensor).
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.layers_more import check_type

_DIAG_TYPES = (D.float16, D.float32, D.int32, D.int8, D.uint8)


def _check_diag_dtype(name: str, **tensors: Any) -> None:
    for what, t in tensors.items():
        if t.dtype not in _DIAG_TYPES:
            raise TypeError(
                f"For '{name}', the type of '{what}' should be in [Float16, Float32, Int32, "
                f"Int8, UInt8], but got {t.dtype}."
            )
    dtypes = [t.dtype for t in tensors.values()]
    if len(set(dtypes)) > 1:
        raise TypeError(f"For '{name}', the inputs must have the same dtype, but got {dtypes}.")


def _eye(rows: int, cols: int, dtype: Any) -> Any:
    return ops.cast(ops.eye(rows, cols, D.float32), dtype)


def _check_rank(x: Any, name: str) -> None:
    if len(x.shape) < 2:
        raise ValueError(
            f"For '{name}', the 'x rank' must be int and must >= 2, but got "
            f"'{len(x.shape)}' with type 'int'."
        )


class MatrixDiag(Cell):
    """`nn.MatrixDiag()`: a batch of diagonal matrices from a batch of vectors."""

    def construct(self, input_x):
        _check_diag_dtype("MatrixDiag", x=input_x)
        n = input_x.shape[-1]
        return ops.expand_dims(input_x, -1) * _eye(n, n, input_x.dtype)


class MatrixDiagPart(Cell):
    """`nn.MatrixDiagPart()`: the main diagonal of each matrix of the batch."""

    def construct(self, input_x):
        _check_rank(input_x, "_get_matrix_diag_part_assist")
        _check_diag_dtype("MatrixDiagPart", x=input_x)
        m, n = input_x.shape[-2], input_x.shape[-1]
        masked = input_x * _eye(m, n, input_x.dtype)
        if m < n:
            return ops.reduce_sum(masked, -1)
        return ops.reduce_sum(masked, -2)


class MatrixSetDiag(Cell):
    """`nn.MatrixSetDiag()`: construct(x, diagonal); diagonal (..., min(M, N))."""

    def construct(self, input_x, diagonal):
        _check_rank(input_x, "_get_matrix_diag_part_assist")
        _check_diag_dtype("MatrixSetDiag", x=input_x, diagonal=diagonal)
        shape = tuple(input_x.shape)
        m, n = shape[-2], shape[-1]
        if m < n:
            want, what = shape[:-1], "x shape excluding the last dimension"
        else:
            want, what = shape[:-2] + shape[-1:], "x shape excluding the second last dimension"
        if tuple(diagonal.shape) != want:
            raise ValueError(
                f"For 'MatrixSetDiag', the diagonal shape should be = {what}: {list(want)}, "
                f"but got {list(diagonal.shape)}."
            )
        eye = _eye(m, n, input_x.dtype)
        if m < n:  # diagonal (..., m): along the rows
            placed = ops.expand_dims(diagonal, -1) * eye
        else:  # diagonal (..., n): along the columns
            placed = ops.expand_dims(diagonal, -2) * eye
        return input_x - input_x * eye + placed


class ChannelShuffle(Cell):
    """`nn.ChannelShuffle(groups)`: the channels of (N, C, ...) interleaved by group."""

    def __init__(self, groups: int):
        super().__init__()
        if not isinstance(groups, int):
            raise TypeError(
                f"For ChannelShuffle, the param `groups` must be int, but got {type(groups)}."
            )
        if groups < 1:
            raise ValueError(
                f"For ChannelShuffle, the param `groups` must be larger than 0, but got {groups}."
            )
        self.groups = groups

    def construct(self, x):
        shape = tuple(x.shape)
        n, c = shape[0], shape[1]
        out = ops.reshape(x, (n, self.groups, c // self.groups, -1))
        out = ops.transpose(out, (0, 2, 1, 3))
        return ops.reshape(out, shape)


class L1Regularizer(Cell):
    """`nn.L1Regularizer(scale)`: construct(weights) = scale * sum(|weights|)."""

    def __init__(self, scale: Any):
        super().__init__()
        check_type(scale, "scale", (int, float), "L1Regularizer")
        if scale <= 0:
            raise ValueError(
                f"For 'L1Regularizer', the 'scale' must be greater than 0, but got {scale}."
            )
        if math.isinf(scale) or math.isnan(scale):
            raise ValueError(
                f"For 'L1Regularizer', the 'scale' can not be INF or NAN, but got {scale}."
            )
        self.scale = float(scale)

    def construct(self, weights):
        if weights.dtype == D.bool_:
            raise TypeError("The 'weights' doesn't support 'Bool', it must be a number type.")
        total = ops.reduce_sum(ops.abs(weights))
        return ops.cast(total, D.float64 if total.dtype == D.float64 else D.float32) * self.scale
