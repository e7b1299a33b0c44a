"""`nn.FractionalMaxPool2d` / `nn.FractionalMaxPool3d(kernel_size, output_size=None,
output_ratio=None, return_indices=False, _random_samples=None)`: the Cells of
frontend/ops/fractional_pool.py (pseudo-random windows from `_random_samples`, or
from uniform draws of the default generator at each call)."""

from __future__ import annotations

from typing import Any

from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.ops.fractional_pool import fractional_max_pool


class _FractionalMaxPool(Cell):
    DIMS = 0

    def __init__(
        self,
        kernel_size: Any,
        output_size: Any = None,
        output_ratio: Any = None,
        return_indices: bool = False,
        _random_samples: Any = None,
    ):
        super().__init__()
        name = f"fractional_max_pool{self.DIMS}d"
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"For {name}, 'output_size' and 'output_ratio' can not be Noneat the same time, "
                "but got None and None ."
            )
        self.kernel_size, self.output_size, self.output_ratio = (
            kernel_size,
            output_size,
            output_ratio,
        )
        self.return_indices = return_indices
        self._random_samples = _random_samples

    def construct(self, x):
        return fractional_max_pool(
            x,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            self._random_samples,
            self.DIMS,
            f"fractional_max_pool{self.DIMS}d",
        )


class FractionalMaxPool2d(_FractionalMaxPool):
    DIMS = 2


class FractionalMaxPool3d(_FractionalMaxPool):
    DIMS = 3
