"""Sentiment classification with `nn.LSTM`, as MindSpore's RNN tutorial writes it:
`nn.Embedding` (pretrained-style table, `padding_idx`), a 2-layer bidirectional
`nn.LSTM` (batch_first, dropout between the layers), the last layer's two final
hidden states concatenated into a Dense, `nn.BCEWithLogitsLoss` and Adam through
`value_and_grad`. The data are synthetic: a review is positive when it holds
more "good" words than "bad" ones.

    python examples/models/sentiment.py [--steps 5] [--device Ascend]
"""

from __future__ import annotations

import argparse
import math

import numpy as np

import mindjit as ms
from mindjit import Tensor, nn, ops
from mindjit.common.initializer import HeUniform, Uniform

VOCAB, EMBED, PAD = 40, 16, 0
GOOD, BAD = range(1, 6), range(6, 11)


class RNN(nn.Cell):
    def __init__(
        self,
        embeddings: np.ndarray,
        hidden_dim: int = 16,
        output_dim: int = 1,
        n_layers: int = 2,
        bidirectional: bool = True,
        dropout: float = 0.3,
        pad_idx: int = PAD,
    ):
        super().__init__()
        vocab_size, embedding_dim = embeddings.shape
        self.embedding = nn.Embedding(
            vocab_size, embedding_dim, embedding_table=Tensor(embeddings), padding_idx=pad_idx
        )
        self.rnn = nn.LSTM(
            embedding_dim,
            hidden_dim,
            num_layers=n_layers,
            bidirectional=bidirectional,
            dropout=dropout,
            batch_first=True,
        )
        weight_init = HeUniform(math.sqrt(5))
        bias_init = Uniform(1 / math.sqrt(hidden_dim * 2))
        self.fc = nn.Dense(hidden_dim * 2, output_dim, weight_init=weight_init, bias_init=bias_init)
        self.dropout = nn.Dropout(p=dropout)

    def construct(self, inputs):
        embedded = self.dropout(self.embedding(inputs))
        _, (hidden, _) = self.rnn(embedded)
        hidden = self.dropout(ops.concat((hidden[-2, :, :], hidden[-1, :, :]), axis=1))
        return self.fc(hidden)


def build() -> RNN:
    """The network with a seeded 'pretrained' embedding table (call after ms.set_seed)."""
    table = np.random.default_rng(7).standard_normal((VOCAB, EMBED)).astype(np.float32)
    return RNN(table)


def synthetic_batch(batch: int = 16, seq: int = 10, seed: int = 0) -> tuple[Tensor, Tensor]:
    """Token ids (batch, seq) padded with PAD at the end, and float labels (batch, 1)."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(11, VOCAB, (batch, seq))
    y = (np.arange(batch) % 2).astype(np.float32)
    for b in range(batch):
        lead, other = (GOOD, BAD) if y[b] else (BAD, GOOD)
        ids[b, rng.choice(seq - 2, 3, replace=False)] = rng.choice(list(lead), 3)
        ids[b, rng.integers(0, seq - 2)] = rng.choice(list(other))
        ids[b, seq - 1 - rng.integers(0, 2) :] = PAD
    return Tensor(ids.astype(np.int32)), Tensor(y[:, None])


def train_step_fn(model: nn.Cell, lr: float = 0.03):
    loss_fn = nn.BCEWithLogitsLoss(reduction="mean")
    optimizer = nn.Adam(model.trainable_params(), learning_rate=lr)

    def forward_fn(data, label):
        return loss_fn(model(data), label)

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

    def train_step(data, label):
        loss, grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    model.set_train()
    return train_step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--device", default="CPU", choices=["CPU", "Ascend"])
    args = parser.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device)
    ms.set_seed(1)
    net = build()
    step = ms.jit(train_step_fn(net))
    x, y = synthetic_batch()
    for i in range(args.steps):
        print(f"step {i}: loss {float(step(x, y).asnumpy()):.4f}")


if __name__ == "__main__":
    main()
