"""A ResNet-18-shaped network at CIFAR size, written as MindSpore's model zoo writes
ResNet (models/official/cv/ResNet/src/resnet.py): `_conv3x3` / `_bn` helpers,
`ResidualBlockBase` blocks with a 1x1 downsample, a `ReduceMean` over H and W,
`nn.Flatten` and a Dense end point; trained with `nn.TrainOneStepCell`:

    python examples/models/resnet.py [--steps 5] [--width 16] [--batch 8] [--device Ascend]

Four stages of two basic blocks (ResNet-18's [2, 2, 2, 2]), 32x32 inputs, the
stem a 3x3 convolution as the CIFAR variants use; `--width` is the first
stage's channel count (64 in ResNet-18, 16 by default to keep a CPU run short).
BatchNorm uses batch statistics while training (`set_train()`) and the moving
ones in eval, where the moving statistics are what training left.
"""

from __future__ import annotations

import argparse

import numpy as np

import mindjit as ms
from mindjit import Tensor, nn, ops


def _conv3x3(in_channel: int, out_channel: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(in_channel, out_channel, 3, stride=stride, pad_mode="pad", padding=1)


def _conv1x1(in_channel: int, out_channel: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(in_channel, out_channel, 1, stride=stride, pad_mode="same")


def _bn(channel: int) -> nn.BatchNorm2d:
    return nn.BatchNorm2d(
        channel, eps=1e-4, momentum=0.9, gamma_init=1, beta_init=0, moving_mean_init=0,
        moving_var_init=1,
    )  # fmt: skip


class ResidualBlockBase(nn.Cell):
    """conv3x3-BN-ReLU-conv3x3-BN, plus the (downsampled) input, then ReLU."""

    expansion = 1

    def __init__(self, in_channel: int, out_channel: int, stride: int = 1):
        super().__init__()
        self.conv1 = _conv3x3(in_channel, out_channel, stride=stride)
        self.bn1d = _bn(out_channel)
        self.conv2 = _conv3x3(out_channel, out_channel, stride=1)
        self.bn2d = _bn(out_channel)
        self.relu = nn.ReLU()
        self.down_sample = stride != 1 or in_channel != out_channel
        if self.down_sample:
            self.down_sample_layer = nn.SequentialCell(
                [_conv1x1(in_channel, out_channel, stride), _bn(out_channel)]
            )

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1d(self.conv1(x)))
        out = self.bn2d(self.conv2(out))
        if self.down_sample:
            identity = self.down_sample_layer(identity)
        return self.relu(out + identity)


class ResNet(nn.Cell):
    def __init__(self, layer_nums, in_channels, out_channels, strides, num_classes=10):
        super().__init__()
        self.conv1 = _conv3x3(3, in_channels[0])
        self.bn1 = _bn(in_channels[0])
        self.relu = ops.ReLU()
        self.layer1 = self._make_layer(layer_nums[0], in_channels[0], out_channels[0], strides[0])
        self.layer2 = self._make_layer(layer_nums[1], in_channels[1], out_channels[1], strides[1])
        self.layer3 = self._make_layer(layer_nums[2], in_channels[2], out_channels[2], strides[2])
        self.layer4 = self._make_layer(layer_nums[3], in_channels[3], out_channels[3], strides[3])
        self.mean = ops.ReduceMean(keep_dims=True)
        self.flatten = nn.Flatten()
        self.end_point = nn.Dense(out_channels[3], num_classes)

    @staticmethod
    def _make_layer(layer_num, in_channel, out_channel, stride):
        layers = [ResidualBlockBase(in_channel, out_channel, stride=stride)]
        for _ in range(1, layer_num):
            layers.append(ResidualBlockBase(out_channel, out_channel, stride=1))
        return nn.SequentialCell(layers)

    def construct(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        c2 = self.layer1(x)
        c3 = self.layer2(c2)
        c4 = self.layer3(c3)
        c5 = self.layer4(c4)
        out = self.mean(c5, (2, 3))
        out = self.flatten(out)
        return self.end_point(out)


def resnet18(num_classes: int = 10, width: int = 16) -> ResNet:
    w = [width, width * 2, width * 4, width * 8]
    return ResNet([2, 2, 2, 2], [w[0], w[0], w[1], w[2]], w, [1, 2, 2, 2], num_classes)


def synthetic_batch(batch: int = 8, seed: int = 0) -> tuple[Tensor, Tensor]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, 3, 32, 32)).astype(np.float32)
    return Tensor(x), Tensor(rng.integers(0, 10, batch).astype(np.int32))


def train_net(net: nn.Cell, lr: float = 0.01) -> nn.TrainOneStepCell:
    """The model zoo's train step: loss, Momentum, TrainOneStepCell, training mode."""
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), lr, 0.9)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    train.set_train()
    return train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--device", default="CPU", choices=["CPU", "Ascend"])
    args = parser.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device)
    ms.set_seed(1)
    net = resnet18(width=args.width)
    train = train_net(net)
    x, y = synthetic_batch(args.batch)
    for i in range(args.steps):
        print(f"step {i}: loss {float(train(x, y).asnumpy()):.4f}")
    net.set_train(False)
    pred = net(x).asnumpy().argmax(axis=1)
    print(f"eval accuracy on the training batch: {(pred == y.asnumpy()).mean():.2f}")


if __name__ == "__main__":
    main()
