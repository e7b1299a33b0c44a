"""`nn.MaxUnpool1d`, `nn.MaxUnpool2d`, `nn.MaxUnpool3d(kernel_size, stride=None,
padding=0)`: construct(x, indices, output_size=None) is frontend/ops/unpool.py's
max unpooling (values placed at a max pooling's indices, zeros elsewhere)."""

from __future__ import annotations

from typing import Any

from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.ops.unpool import max_unpool


class _MaxUnpool(Cell):
    DIMS = 0

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, x, indices, output_size=None):
        return max_unpool(
            x,
            indices,
            self.DIMS,
            self.kernel_size,
            self.stride,
            self.padding,
            output_size,
            self.cls_name,
        )

    def extend_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpool):
    DIMS = 1


class MaxUnpool2d(_MaxUnpool):
    DIMS = 2


class MaxUnpool3d(_MaxUnpool):
    DIMS = 3
