"""The network of MindSpore's Quick Start tutorial (MNIST), with its train and
test loops as the tutorial writes them, on synthetic 28x28 images:

    python examples/models/quickstart.py [--epochs 2] [--device Ascend]

`value_and_grad(..., has_aux=True)` returns the loss and the logits; the train
step is compiled whole with `@ms.jit`; the test loop counts `argmax(1) == label`.
"""

from __future__ import annotations

import argparse

import numpy as np

import mindjit as ms
from mindjit import Tensor, nn


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 512),
            nn.ReLU(),
            nn.Dense(512, 512),
            nn.ReLU(),
            nn.Dense(512, 10),
        )

    def construct(self, x):
        x = self.flatten(x)
        logits = self.dense_relu_sequential(x)
        return logits


def train_step_fn(model: nn.Cell, lr: float = 1e-2):
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(model.trainable_params(), lr)

    def forward_fn(data, label):
        logits = model(data)
        loss = loss_fn(logits, label)
        return loss, logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    return train_step


def synthetic_batch(batch: int = 64, seed: int = 0) -> tuple[Tensor, Tensor]:
    """MNIST-shaped data: each class a fixed random pattern plus noise."""
    rng = np.random.default_rng(seed)
    patterns = np.random.default_rng(1234).random((10, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int32)
    noise = rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)
    x = 4.0 * patterns[y] - 2.0 + 0.5 * noise
    return Tensor(x), Tensor(y)


def test_loop(model: nn.Cell, batches) -> float:
    model.set_train(False)
    correct, total = 0, 0
    for data, label in batches:
        pred = model(data)
        correct += (pred.argmax(1) == label).asnumpy().sum()
        total += len(data)
    return correct / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--device", default="CPU", choices=["CPU", "Ascend"])
    args = parser.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device)
    ms.set_seed(1)
    model = Network()
    train_step = ms.jit(train_step_fn(model))
    train = [synthetic_batch(seed=s) for s in range(8)]
    for epoch in range(args.epochs):
        model.set_train()
        for step, (data, label) in enumerate(train):
            loss = train_step(data, label)
            if step % 4 == 0:
                print(f"epoch {epoch} step {step}: loss {float(loss.asnumpy()):.4f}")
        accuracy = test_loop(model, [synthetic_batch(seed=100 + s) for s in range(2)])
        print(f"epoch {epoch}: test accuracy {100 * accuracy:.1f}%")


if __name__ == "__main__":
    main()
