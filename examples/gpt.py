"""A GPT-like network: N transformer Blocks called in a loop, with or without @lazy_inline.

Each Block (its own 12 Parameters): layer norm, single-head self-attention
(q, k, v projections, scaled scores, softmax, weighted sum, output projection),
residual add, layer norm, an MLP of two Dense layers with tanh-approximated
GELU, residual add. `LazyBlock` is the same Block with `@ms.lazy_inline` on its
`__init__`, as MindSpore's docs decorate their GPT Block; `GPT(config,
lazy=True)` builds it from those.

Used by the `make run` demo and by benchmarks/lazy_inline.py.
"""

from __future__ import annotations

import math

import mindjit as ms
from mindjit import nn, ops


class GPTConfig:
    def __init__(self, layers: int, hidden: int = 256, seq: int = 32, batch: int = 1):
        self.layers, self.hidden, self.seq, self.batch = layers, hidden, seq, batch
        self.ffn = 4 * hidden


class Block(nn.Cell):
    def __init__(self, config):
        super().__init__()
        h = config.hidden
        self.ln1 = nn.LayerNorm((h,), epsilon=1e-5)
        self.q = nn.Dense(h, h, has_bias=False)
        self.k = nn.Dense(h, h, has_bias=False)
        self.v = nn.Dense(h, h, has_bias=False)
        self.o = nn.Dense(h, h, has_bias=False)
        self.ln2 = nn.LayerNorm((h,), epsilon=1e-5)
        self.fc1 = nn.Dense(h, config.ffn)
        self.fc2 = nn.Dense(config.ffn, h)
        self.gelu = nn.GELU()
        self.scale = 1.0 / math.sqrt(h)

    def construct(self, x):
        h = self.ln1(x)
        scores = ops.matmul(self.q(h), self.k(h).T) * self.scale
        attn = ops.matmul(ops.softmax(scores, -1), self.v(h))
        x = x + self.o(attn)
        return x + self.fc2(self.gelu(self.fc1(self.ln2(x))))


class LazyBlock(Block):
    @ms.lazy_inline
    def __init__(self, config):
        super().__init__(config)


class GPT(nn.Cell):
    """The GPT pattern of MindSpore's lazy_inline docs: a CellList of Block(config)."""

    def __init__(self, config: GPTConfig, lazy: bool):
        super().__init__()
        block = LazyBlock if lazy else Block
        self.blocks = nn.CellList([block(config) for _ in range(config.layers)])
        self.seq, self.hidden = config.seq, config.hidden

    def construct(self, x):
        batch = x.shape[0]
        x = ops.reshape(x, (batch * self.seq, self.hidden))
        for block in self.blocks:
            x = block(x)
        return ops.reshape(x, (batch, self.seq, self.hidden))
