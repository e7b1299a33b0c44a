"""`mindspore.nn`'s math Cells of MindSpore 2.10 (issue 38), from mindjit's ops:

- Range(start, limit=None, delta=1): numpy's arange computed once; float32 when
  any bound is a float, else int32 (deprecated in MindSpore, still there).
- MatMul(transpose_x1=False, transpose_x2=False): numpy-style matmul with
  broadcast batch axes; a 1-D operand is a row (left) or column (right), two
  1-D operands give their dot product.
- Moments(axis=None, keep_dims=None): (mean, variance) over `axis` (() = all),
  float16 / float32 only (float16 computed in float32).
- ReduceLogSumExp(axis, keep_dims=False): log(sum(exp(x - max))) + max, the max
  over the whole tensor as in MindSpore.
- IGamma(): the regularized lower incomplete gamma function P(a, x),
  `ops.igamma` (frontend/ops/special_igamma.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.layers_more import check_type
from mindjit.frontend.tensor import Tensor


class Range(Cell):
    """`nn.Range(start, limit=None, delta=1)`: construct() returns the range."""

    def __init__(self, start: Any, limit: Any = None, delta: Any = 1):
        super().__init__()
        if delta == 0:
            raise ValueError("For 'Range', the 'delta' can not be zero.")
        data = np.arange(start, limit, delta)
        dtype = D.float32 if data.dtype == np.float64 else D.int32
        self.result_tensor = Tensor(data, dtype=dtype)

    def construct(self):
        return self.result_tensor


class MatMul(Cell):
    """`nn.MatMul(transpose_x1=False, transpose_x2=False)`: x1 @ x2, each optionally
    with its last two axes swapped first."""

    def __init__(self, transpose_x1: bool = False, transpose_x2: bool = False):
        super().__init__()
        check_type(transpose_x1, "transpose_x1", (bool,), "MatMul")
        check_type(transpose_x2, "transpose_x2", (bool,), "MatMul")
        self.transpose_x1, self.transpose_x2 = transpose_x1, transpose_x2

    def construct(self, x1, x2):
        r1, r2 = len(x1.shape), len(x2.shape)
        col = x1.shape[-2] if self.transpose_x1 and r1 > 1 else x1.shape[-1]
        row = x2.shape[-1] if self.transpose_x2 and r2 > 1 else x2.shape[-2 if r2 > 1 else -1]
        if col != row:
            raise ValueError(
                "For 'MatMul', the column of matrix dimensions of 'x1' must be equal to the row "
                f"of matrix dimensions of 'x2', but got 'x1_col' {col} and 'x2_row' {row}."
            )
        if self.transpose_x1 and r1 > 1:
            x1 = ops.swapaxes(x1, -1, -2)
        if self.transpose_x2 and r2 > 1:
            x2 = ops.swapaxes(x2, -1, -2)
        return ops.matmul(x1, x2)


class Moments(Cell):
    """`nn.Moments(axis=None, keep_dims=None)`: construct(x) -> (mean, variance)."""

    def __init__(self, axis: Any = None, keep_dims: Any = None):
        super().__init__()
        axis = () if axis is None else axis
        if isinstance(axis, tuple):
            for i, item in enumerate(axis):
                check_type(item, f"axis[{i}]", (int,), "Moments")
        self.axis = check_type(axis, "axis", (int, tuple), "Moments")
        keep_dims = False if keep_dims is None else keep_dims
        self.keep_dims = check_type(keep_dims, "keep_dims", (bool,), "Moments")

    def construct(self, x):
        dtype = x.dtype
        if dtype not in (D.float16, D.float32):
            raise TypeError(
                "For 'Moments', the 'input x' should be one of [mindspore.float16, "
                f"mindspore.float32], but got 'mindspore.{str(dtype).lower()}'."
            )
        if dtype == D.float16:
            x = ops.cast(x, D.float32)
        mean = ops.reduce_mean(x, self.axis, True)
        variance = ops.reduce_mean(ops.square(x - ops.stop_gradient(mean)), self.axis, True)
        if not self.keep_dims:
            mean = ops.reduce_mean(mean, self.axis)
            variance = ops.reduce_mean(variance, self.axis)
        if dtype == D.float16:
            return ops.cast(mean, D.float16), ops.cast(variance, D.float16)
        return mean, variance


class ReduceLogSumExp(Cell):
    """`nn.ReduceLogSumExp(axis, keep_dims=False)`: log(sum(exp(x))) over `axis`."""

    def __init__(self, axis: Any, keep_dims: bool = False):
        super().__init__()
        check_type(axis, "axis", (int, list, tuple), "ReduceLogSumExp")
        check_type(keep_dims, "keep_dims", (bool,), "ReduceLogSumExp")
        self.axis = tuple(axis) if isinstance(axis, list) else axis
        self.keep_dims = keep_dims

    def construct(self, x):
        if not x.dtype.is_float:
            raise TypeError(
                "For primitive[Exp], the input argument[input] must be a type of {BFloat16, "
                "Bool, Complex128, Complex64, Float16, Float32, Float64, Int64}, but got "
                f"{x.dtype}."
            )
        x_max = ops.reduce_max(x)
        sumexp = ops.reduce_sum(ops.exp(x - x_max), self.axis, self.keep_dims)
        return ops.log(sumexp) + x_max


class IGamma(Cell):
    """`nn.IGamma()`: construct(a, x) is `ops.igamma(a, x)`, broadcast."""

    def construct(self, a: Any, x: Any) -> Any:
        return ops.igamma(a, x)
