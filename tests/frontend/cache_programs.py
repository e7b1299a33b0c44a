"""Programs of the compile-cache tests (graph mode reads their source here).

Run as a script, `python cache_programs.py NAME` runs one program in a fresh
process (the cache is set by the environment) and prints its result as JSON.
"""

from __future__ import annotations

import dataclasses
import json
import sys

import numpy as np

import mindjit as ms
from mindjit import Parameter, nn, ops

K = 2.0  # a global the graphs fold


@ms.jit
def docs_func(input_x, input_y):
    """The docs' compile-cache example."""
    output = input_x
    for _ in range(200):
        output = input_x + input_x * input_y + output
    return output


def helper(x):
    return x * K


@ms.jit
def uses_global(x):
    return helper(x) + 1


def make_adder(n):
    @ms.jit
    def add_n(x):
        return x + n

    return add_n


@ms.jit_class
class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        return x * self.k


class ScaleNet(nn.Cell):
    """An attribute, a jit_class instance and a Parameter the graph reads."""

    def __init__(self, scale=3.0, k=5.0):
        super().__init__()
        self.scale = scale
        self.scaler = Scaler(k)
        self.w = Parameter(ms.Tensor(np.arange(3, dtype=np.float32)), name="w")

    def construct(self, x):
        return self.scaler.apply(x) * self.scale + self.w


class HalveUntilSmall(nn.Cell):
    """A data-dependent loop: its plan is not captured, so a hit decodes the module."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(ms.Tensor(np.arange(3, dtype=np.float32)), name="w")

    def construct(self, x):
        while x.sum() > 1:
            x = x / 2
        return x + self.w


class Accumulate(nn.Cell):
    """Assigns its Parameter: a cache hit must bind this process's Parameter."""

    def __init__(self):
        super().__init__()
        self.total = Parameter(ms.Tensor(np.zeros(3, np.float32)), name="total")

    def construct(self, x):
        ops.assign(self.total, self.total + x)
        return self.total * 1


class LazyConfig:
    """A plain config object (its repr is an address), as examples/gpt.py's GPTConfig."""

    def __init__(self, hidden: int):
        self.hidden = hidden


@dataclasses.dataclass
class LazyDataConfig:
    hidden: int


class LazySlotsConfig:
    """A config with __slots__ and no hash (no __dict__ to read its fields from)."""

    __slots__ = ("hidden",)
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, hidden: int):
        self.hidden = hidden


class LazyOpaqueConfig:
    """A config with no fields at all and no hash: nothing stable to key it by."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]
    hidden = 3


class LazyBlock(nn.Cell):
    @ms.lazy_inline
    def __init__(self, config):
        super().__init__()
        self.dense = nn.Dense(config.hidden, config.hidden, weight_init="ones")

    def construct(self, x):
        return ops.tanh(self.dense(x))


class LazyNet(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.blocks = nn.CellList([LazyBlock(config) for _ in range(3)])

    def construct(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def run(name: str) -> list:
    x = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    if name == "docs":
        return docs_func(ms.Tensor([1], ms.float32), ms.Tensor([2], ms.float32)).asnumpy().tolist()
    if name == "global":
        return uses_global(x).asnumpy().tolist()
    if name == "scale":
        return ScaleNet()(x).asnumpy().tolist()
    if name == "accumulate":
        net = Accumulate()
        net(x)
        out = net(x)
        return [out.asnumpy().tolist(), net.total.asnumpy().tolist()]
    configs = {
        "lazy_object": LazyConfig,
        "lazy_dataclass": LazyDataConfig,
        "lazy_slots": LazySlotsConfig,
        "lazy_opaque": lambda hidden: LazyOpaqueConfig(),
    }
    if name in configs:
        config = configs[name](3)
        return LazyNet(config)(x.reshape(1, 3)).asnumpy().tolist()
    raise SystemExit(f"no program {name}")


if __name__ == "__main__":
    ms.set_context(mode=ms.GRAPH_MODE)
    print(json.dumps(run(sys.argv[1])))
