"""A two-layer LSTM over time written two ways: a Python `for t in range(seq)` that graph mode
unrolls (one copy of the cell per step: the graph, and its compile time, grow with the
sequence), and a `while t < seq_len` with `t` a tensor, which stays one `mindir.while`
whatever the length (its gradient is the reverse-mode transform through the loop, with
the per-step values recorded on a stack). Same cell (`nn.LSTMCell`), same Dense head,
same initial weights: both train to the same losses.

    python examples/lstm_while.py [--seq 50] [--steps 3] [--kind while|unrolled] [--pynative]

benchmarks/while_grad.py compares the two train steps' compile time.
"""

from __future__ import annotations

import argparse

import numpy as np

import mindjit as ms
from mindjit import Tensor, nn, ops


class LSTMOverTime(nn.Cell):
    """Two stacked `nn.LSTMCell`s applied to x[t] for t < seq (x: seq x batch x
    features), then a Dense head on the last hidden state. `unrolled`: a Python for
    over range(seq)."""

    def __init__(self, features: int, hidden: int, outputs: int, seq: int, unrolled: bool):
        super().__init__()
        self.lower = nn.LSTMCell(features, hidden)
        self.upper = nn.LSTMCell(hidden, hidden)
        self.head = nn.Dense(hidden, outputs)
        self.hidden = hidden
        self.seq = seq
        self.unrolled = unrolled

    def construct(self, x):
        h1 = ops.zeros((x.shape[1], self.hidden), ms.float32)
        c1, h2, c2 = h1, h1, h1
        if self.unrolled:
            for t in range(self.seq):
                h1, c1 = self.lower(x[t], (h1, c1))
                h2, c2 = self.upper(h1, (h2, c2))
        else:
            t = Tensor(0, ms.int32)
            while t < self.seq:
                h1, c1 = self.lower(x[t], (h1, c1))
                h2, c2 = self.upper(h1, (h2, c2))
                t = t + 1
        return self.head(h2)


def build(
    seq: int,
    unrolled: bool,
    features: int = 8,
    hidden: int = 32,
    outputs: int = 4,
    lr: float = 0.05,
) -> nn.Cell:
    """The train step: TrainOneStepCell(WithLossCell(net, MSELoss), Momentum); the
    weights come from seed 0, so both kinds start from the same values."""
    ms.set_seed(0)
    net = LSTMOverTime(features, hidden, outputs, seq, unrolled)
    loss = nn.WithLossCell(net, nn.MSELoss())
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), lr, 0.9))
    step.set_train()
    return step


def batch(seq: int, batch_size: int = 16, features: int = 8, outputs: int = 4):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((seq, batch_size, features)).astype(np.float32)
    y = rng.standard_normal((batch_size, outputs)).astype(np.float32)
    return Tensor(x), Tensor(y)


def train(step: nn.Cell, inputs, steps: int) -> list[float]:
    return [float(step(*inputs).asnumpy()) for _ in range(steps)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seq", type=int, default=50)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--kind", choices=["while", "unrolled"], default="while")
    ap.add_argument("--pynative", action="store_true", help="run op by op instead")
    args = ap.parse_args()
    ms.set_context(mode=ms.PYNATIVE_MODE if args.pynative else ms.GRAPH_MODE)
    step = build(args.seq, args.kind == "unrolled")
    for k, loss in enumerate(train(step, batch(args.seq), args.steps)):
        print(f"step {k}: loss {loss:.6f}")


if __name__ == "__main__":
    main()
