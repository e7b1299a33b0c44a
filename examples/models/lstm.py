"""An LSTM written by hand, the way MindSpore users write a recurrent cell before
reaching for `nn.LSTM`: one Dense for the input and one for the hidden state,
`ops.split` into the four gates, and a Python `for` over the time steps that
graph mode unrolls; trained as a sequence classifier with `nn.TrainOneStepCell`.

    python examples/models/lstm.py [--steps 5] [--seq 12] [--device Ascend]
"""

from __future__ import annotations

import argparse

import numpy as np

import mindjit as ms
from mindjit import Tensor, nn, ops


class LSTMCell(nn.Cell):
    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.hidden_size = hidden_size
        self.ih = nn.Dense(input_size, 4 * hidden_size)
        self.hh = nn.Dense(hidden_size, 4 * hidden_size, has_bias=False)

    def construct(self, x, h, c):
        gates = self.ih(x) + self.hh(h)
        i, f, g, o = ops.split(gates, self.hidden_size, axis=1)
        i = ops.sigmoid(i)
        f = ops.sigmoid(f)
        g = ops.tanh(g)
        o = ops.sigmoid(o)
        c = f * c + i * g
        h = o * ops.tanh(c)
        return h, c


class LSTMClassifier(nn.Cell):
    def __init__(self, input_size: int = 8, hidden_size: int = 32, num_classes: int = 4):
        super().__init__()
        self.hidden_size = hidden_size
        self.cell = LSTMCell(input_size, hidden_size)
        self.fc = nn.Dense(hidden_size, num_classes)

    def construct(self, x):
        batch, steps = x.shape[0], x.shape[1]
        h = ops.zeros((batch, self.hidden_size), ms.float32)
        c = ops.zeros((batch, self.hidden_size), ms.float32)
        for t in range(steps):
            h, c = self.cell(x[:, t, :], h, c)
        return self.fc(h)


def synthetic_batch(batch: int = 16, seq: int = 12, seed: int = 0) -> tuple[Tensor, Tensor]:
    """Sequences whose class is the quadrant of their mean in the first two features."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, seq, 8)).astype(np.float32)
    mean = x[:, :, :2].mean(axis=1)
    y = ((mean[:, 0] > 0) * 2 + (mean[:, 1] > 0)).astype(np.int32)
    return Tensor(x), Tensor(y)


def train_net(net: nn.Cell, lr: float = 0.01) -> nn.TrainOneStepCell:
    loss = nn.CrossEntropyLoss()
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Adam(net.trainable_params(), lr))
    train.set_train()
    return train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--seq", type=int, default=12)
    parser.add_argument("--device", default="CPU", choices=["CPU", "Ascend"])
    args = parser.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device)
    ms.set_seed(1)
    train = train_net(LSTMClassifier())
    x, y = synthetic_batch(seq=args.seq)
    for i in range(args.steps):
        print(f"step {i}: loss {float(train(x, y).asnumpy()):.4f}")


if __name__ == "__main__":
    main()
