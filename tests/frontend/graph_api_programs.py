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


class DigitNamed(nn.Cell):
    """A CellList compiled on its own names its Parameters "0.weight", ...: names
    that start with a digit, not valid MLIR identifiers as they are."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor([1.0, 2.0, 3.0], ms.float32), name="0.weight")

    def construct(self, x):
        ops.assign(self.w, self.w + 1)
        return x * self.w


def with_print(x):
    print("x is", x)
    y = x + 1
    print(y)
    return y


def make_scaler(factor):
    """A closure: its graph folds `factor`, so each closure needs its own program."""

    def scale(x):
        return x * factor

    return ms.jit(scale)


def add_array(x, a):
    """`a` a numpy array: a constant of the program."""
    return x + ms.Tensor(a)


def scale_by(x, cfg):
    """`cfg` any object with a `k`: read as a constant where the graph calls this."""
    return x * cfg.k
