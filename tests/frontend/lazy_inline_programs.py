"""Lazy-inline models (graph mode reads their source here)."""

from __future__ import annotations

import numpy as np

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops


class Config:
    def __init__(self, hidden: int):
        self.hidden = hidden


def _weight(rng: np.random.Generator, *shape: int) -> Tensor:
    return Tensor((rng.standard_normal(shape) * 0.3).astype(np.float32))


class Block(nn.Cell):
    @ms.lazy_inline
    def __init__(self, config, seed):
        super().__init__()
        rng = np.random.default_rng(seed)
        h = config.hidden
        self.dense = nn.Dense(h, h, weight_init=_weight(rng, h, h))
        self.scale = Parameter(_weight(rng, h), name="scale")

    def construct(self, x):
        return ops.tanh(self.dense(x)) * self.scale + x


class GPT(nn.Cell):
    """The GPT pattern: a CellList of Block(config)."""

    def __init__(self, n: int, hidden: int = 8):
        super().__init__()
        config = Config(hidden)
        self.blocks = nn.CellList([Block(config, 0) for _ in range(n)])
        # every Block gets its own (distinct) weights after construction
        rng = np.random.default_rng(1)
        for block in self.blocks:
            block.dense.weight.set_data(_weight(rng, hidden, hidden))
            block.scale.set_data(_weight(rng, hidden))

    def construct(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class PipelineCell(nn.Cell):
    """MindSpore's PipelineCell pattern: the same network called micro_size times."""

    def __init__(self, network, micro_size: int):
        super().__init__()
        self.network = network
        self.micro_size = micro_size

    def construct(self, x):
        out = x * 0
        for i in range(self.micro_size):
            out = out + self.network(x * (i + 1))
        return out


class Inner(nn.Cell):
    @ms.lazy_inline
    def __init__(self, hidden):
        super().__init__()
        self.w = Parameter(Tensor(np.full((hidden,), 0.5, np.float32)), name="w")

    def construct(self, x):
        return x * self.w + 1


class Outer(nn.Cell):
    @ms.lazy_inline
    def __init__(self, hidden):
        super().__init__()
        self.a = Inner(hidden)
        self.b = Inner(hidden)

    def construct(self, x):
        return self.b(self.a(x))


class Nested(nn.Cell):
    def __init__(self, hidden: int = 4):
        super().__init__()
        self.outers = nn.CellList([Outer(hidden) for _ in range(3)])
        rng = np.random.default_rng(2)
        for p in self.get_parameters():
            p.set_data(Tensor(rng.standard_normal(p.shape).astype(np.float32)))

    def construct(self, x):
        for o in self.outers:
            x = o(x)
        return x


class Scaled(nn.Cell):
    @ms.lazy_inline
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def construct(self, x):
        return x * self.factor


class TwoScaled(nn.Cell):
    def __init__(self):
        super().__init__()
        self.first = Scaled(2.0)
        self.second = Scaled(2.0)
        self.second.factor = 10.0  # changed after __init__: must not reuse first's graph

    def construct(self, x):
        return self.first(x) + self.second(x)


class Assigning(nn.Cell):
    @ms.lazy_inline
    def __init__(self):
        super().__init__()
        self.count = Parameter(Tensor(np.zeros((2,), np.float32)), name="count")

    def construct(self, x):
        ops.assign(self.count, self.count + x)
        return self.count * 2


class AssignTwice(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([Assigning(), Assigning()])

    def construct(self, x):
        a = self.layers[0](x)
        b = self.layers[1](x + 1)
        return a + b


class StoreThenRead(nn.Cell):
    @ms.lazy_inline
    def __init__(self):
        super().__init__()
        self.state = Parameter(Tensor(np.zeros((2,), np.float32)), name="state")

    def construct(self, x):
        ops.assign(self.state, x * 2)
        return ops.tanh(self.state)


class CalledTwice(nn.Cell):
    """One assigning Block called twice, the first call's result used only after the
    second call: its reader of the Parameter (`tanh(state)`, fused into `a - b` on
    the CPU) must still run before the second call's Assign, inlined late
    (MS_DEV_CELL_REUSE=2) or not. The differential fuzzer's seed 395, minimized."""

    def __init__(self):
        super().__init__()
        self.block = StoreThenRead()

    def construct(self, x):
        a = self.block(x)
        b = self.block(x + 1)
        return a - b
