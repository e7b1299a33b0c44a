"""`nn.LRN(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region='ACROSS_CHANNELS')`:
ops.lrn (frontend/ops/lrn.py) with its arguments checked when the Cell is built."""

from __future__ import annotations

from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.ops.lrn import check_lrn_args, lrn


class LRN(Cell):
    def __init__(
        self,
        depth_radius: int = 5,
        bias: float = 1.0,
        alpha: float = 1.0,
        beta: float = 0.5,
        norm_region: str = "ACROSS_CHANNELS",
    ):
        super().__init__()
        check_lrn_args(depth_radius, bias, alpha, beta, norm_region)
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region

    def construct(self, input_x):
        return lrn(input_x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)
