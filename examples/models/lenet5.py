"""LeNet5 as MindSpore's model zoo writes it (models/official/cv/lenet), trained a
few steps on synthetic data: `python examples/models/lenet5.py [--device Ascend]`.

Graph mode compiles the whole train step (forward, mindir-grad's backward,
the Momentum update); the same step in PyNative gives the same losses.
"""

from __future__ import annotations

import argparse

import numpy as np

import mindjit as ms
from mindjit import Tensor, nn
from mindjit.common.initializer import Normal


class LeNet5(nn.Cell):
    def __init__(self, num_class=10, num_channel=1):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120, weight_init=Normal(0.02))
        self.fc2 = nn.Dense(120, 84, weight_init=Normal(0.02))
        self.fc3 = nn.Dense(84, num_class, weight_init=Normal(0.02))
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        x = self.fc3(x)
        return x


def train_step_fn(net: nn.Cell, lr: float = 0.01):
    """MindSpore 2.x's functional train step: value_and_grad + an optimizer."""
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), lr, 0.9)

    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    return step


def synthetic_batch(batch: int = 32, seed: int = 0) -> tuple[Tensor, Tensor]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, 1, 32, 32)).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int32)
    return Tensor(x), Tensor(y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--device", default="CPU", choices=["CPU", "Ascend"])
    args = parser.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device)
    ms.set_seed(1)
    net = LeNet5()
    step = ms.jit(train_step_fn(net))
    x, y = synthetic_batch()
    for i in range(args.steps):
        print(f"step {i}: loss {float(step(x, y).asnumpy()):.4f}")


if __name__ == "__main__":
    main()
