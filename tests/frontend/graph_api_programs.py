"""Programs for test_graph_api (graph mode reads their source from this file)."""

from __future__ import annotations

import mindjit as ms
from mindjit import nn, ops


def double(x):
    return x * 2


def identity(x):
    return x


class Doubler(nn.Cell):
    def construct(self, x):
        return x * 2


class JitConstruct(nn.Cell):
    @ms.jit
    def construct(self, x):
        return x + 1


class Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = ms.Parameter(ms.Tensor(0.0, ms.float32), name="count")

    def construct(self, x):
        ops.assign(self.count, self.count + 1)
        return x + self.count


def with_print(x):
    print("x is", x)
    y = x + 1
    print(y)
    return y
