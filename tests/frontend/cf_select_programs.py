"""Programs for test_cf_to_select (graph mode reads their source from this file);
the docs' if_net and select_net are in examples/docs_programs.py."""

from __future__ import annotations

import mindjit as ms
from mindjit import nn, ops


class Clipper(nn.Cell):
    """Nested ifs on reduced conditions and a Parameter nothing assigns."""

    def __init__(self):
        super().__init__()
        self.scale = ms.Parameter(ms.Tensor([0.5, 2.0, -1.0], ms.float32), name="scale")

    def construct(self, x):
        if x.sum() > 0:
            if x.max() > 2:
                y = x * self.scale
            else:
                y = x - 1
        else:
            y = ops.exp(x)
        return y + 1


class Counter(nn.Cell):
    """An if that assigns a Parameter: it must stay an if."""

    def __init__(self):
        super().__init__()
        self.count = ms.Parameter(ms.Tensor([0.0], ms.float32), name="count")

    def construct(self, x):
        if x.sum() > 0:
            ops.assign(self.count, self.count + 1)
        return x + self.count
