"""Cells for test_parameter_resources (graph mode reads their source from this file)."""

from __future__ import annotations

import numpy as np

import mindjit as ms
from mindjit import nn, ops


class BigAndSmall(nn.Cell):
    """A 64x64 f32 Parameter (16 KiB: a dense_resource) and a 4-element one (inline)."""

    def __init__(self, n=64):
        super().__init__()
        rng = np.random.default_rng(0)
        big = rng.standard_normal((n, n)).astype(np.float32)
        self.big = ms.Parameter(ms.Tensor(big), name="big")
        self.small = ms.Parameter(ms.Tensor(np.arange(4, dtype=np.float32)), name="small")

    def construct(self, x):
        return ops.matmul(x, self.big) + ops.reduce_sum(self.small)


class Accumulate(nn.Cell):
    """The graph assigns a large Parameter: the new value is written back."""

    def __init__(self):
        super().__init__()
        self.acc = ms.Parameter(ms.Tensor(np.zeros((40, 40), np.float32)), name="acc")

    def construct(self, x):
        ops.assign(self.acc, self.acc + x)
        return self.acc * 2
