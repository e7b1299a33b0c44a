"""`nn.LPPool1d` / `nn.LPPool2d(norm_type, kernel_size, stride=None, ceil_mode=False)`:
the Cells of ops.lp_pool1d / lp_pool2d (frontend/ops/lp_pool.py, which says how
MindSpore 2.10 computes them)."""

from __future__ import annotations

from typing import Any

from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.ops.lp_pool import lp_pool1d, lp_pool2d


class _LPPool(Cell):
    def __init__(
        self, norm_type: Any, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
    ):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode


class LPPool1d(_LPPool):
    """`nn.LPPool1d(norm_type, kernel_size, stride=None, ceil_mode=False)`."""

    def construct(self, x):
        return lp_pool1d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPool):
    """`nn.LPPool2d(norm_type, kernel_size, stride=None, ceil_mode=False)`."""

    def construct(self, x):
        return lp_pool2d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)
