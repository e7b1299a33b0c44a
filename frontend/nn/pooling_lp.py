"""LPPool1d / LPPool2d of MindSpore 2.10 (issue 38), as ops.lp_pool1d/2d compute
them: (sign(a) * |a| * k) ** (1 / p), a the average pool of x ** p over windows of
k elements (stride = kernel_size by default, no padding, ceil_mode as in the avg
pools). A negative x with a fractional power gives NaN, as in MindSpore.
LPPool1d takes (C, L) or (N, C, L), LPPool2d (N, C, H, W).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell


def _norm_type(norm_type: Any, name: str) -> float:
    if isinstance(norm_type, bool) or not isinstance(norm_type, float | int):
        raise TypeError(
            f"For {name}, the type of 'norm_type' must be float or int, but got {type(norm_type)}"
        )
    if norm_type == 0:
        raise ValueError(f"For {name}, the value of 'norm_type' can not be 0.")
    return float(norm_type)


def _pair(value: Any) -> tuple[int, int]:
    return tuple(value) if isinstance(value, tuple | list) else (value, value)


def _lp(x: Any, p: float, kernel: tuple[int, int], stride: Any, ceil_mode: bool) -> Any:
    out = ops.avg_pool2d(ops.pow(x, p), kernel, stride, 0, ceil_mode)
    scaled = ops.sign(out) * ops.relu(ops.abs(out)) * float(kernel[0] * kernel[1])
    return ops.pow(scaled, 1.0 / p)


class LPPool1d(Cell):
    """`nn.LPPool1d(norm_type, kernel_size, stride=None, ceil_mode=False)`."""

    def __init__(
        self, norm_type: Any, kernel_size: int, stride: Any = None, ceil_mode: bool = False
    ):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def construct(self, x):
        p = _norm_type(self.norm_type, "lp_pool1d")
        k = self.kernel_size
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(
                f"For 'avg_pool1d', the 'kernel_size' must be int and must >= 1, but got '{k}' "
                f"with type '{type(k).__name__}'."
            )
        rank = len(x.shape)
        if rank not in (2, 3):
            raise ValueError(
                f"For primitive[AvgPool3D], the x_rank must be equal to 5, but got {rank + 3}."
            )
        stride = k if self.stride is None else self.stride
        x4 = ops.expand_dims(x, -2)
        if rank == 2:
            x4 = ops.expand_dims(x4, 0)
        out = _lp(x4, p, (1, k), (1, stride), self.ceil_mode)
        out = ops.squeeze(out, -2)
        return ops.squeeze(out, 0) if rank == 2 else out


class LPPool2d(Cell):
    """`nn.LPPool2d(norm_type, kernel_size, stride=None, ceil_mode=False)`."""

    def __init__(
        self, norm_type: Any, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
    ):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def construct(self, x):
        p = _norm_type(self.norm_type, "lp_pool2d")
        if len(x.shape) != 4:
            raise ValueError(
                "For primitive[AvgPool3D], the x_rank must be equal to 5, but got "
                f"{len(x.shape) + 1}."
            )
        kernel = _pair(self.kernel_size)
        stride = kernel if self.stride is None else _pair(self.stride)
        return _lp(x, p, kernel, stride, self.ceil_mode)
