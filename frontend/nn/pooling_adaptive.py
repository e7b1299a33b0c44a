"""`nn.AdaptiveAvgPool2d(output_size)` and `nn.AdaptiveMaxPool2d(output_size)`.

The Cells check `output_size` when built and call the functional ops of
frontend/ops/adaptive_pool.py (a composition of existing mindir ops).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.ops.adaptive_pool import (
    adaptive_avg_pool2d,
    adaptive_max_pool2d,
    output_hw,
)


class AdaptiveAvgPool2d(Cell):
    def __init__(self, output_size: Any):
        super().__init__()
        output_hw(output_size, (1, 1), "AdaptiveAvgPool2d")
        self.output_size = output_size

    def construct(self, input):
        return adaptive_avg_pool2d(input, self.output_size)

    def extend_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(Cell):
    def __init__(self, output_size: Any, return_indices: bool = False):
        super().__init__()
        output_hw(output_size, (1, 1), "AdaptiveMaxPool2d")
        if return_indices:
            raise NotImplementedError(
                "For 'AdaptiveMaxPool2d', return_indices=True is not supported yet"
            )
        self.output_size = output_size

    def construct(self, input):
        return adaptive_max_pool2d(input, self.output_size)

    def extend_repr(self) -> str:
        return f"output_size={self.output_size}"
