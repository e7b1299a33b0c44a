"""A MobileNetV2-shaped network at CIFAR size, written as MindSpore's model zoo writes
MobileNetV2 (models/official/cv/MobileNetV2/src/mobilenetV2.py): `ConvBNReLU`
(convolution, BatchNorm, ReLU6; depthwise when `groups` is the channel count),
`InvertedResidual` blocks (1x1 expansion, 3x3 depthwise, 1x1 linear projection,
the input added back when the shape allows), a global average pool and a Dense
head; the last stage carries MobileNetV3's squeeze-and-excite (ReLU, HSigmoid)
and an HSwish. Trained with Momentum in a `nn.TrainOneStepCell`:

    python examples/models/mobilenet.py [--steps 5] [--width 8] [--batch 8] [--device Ascend]

`--width` is the stem's channel count (32 in MobileNetV2; 8 by default to keep
a CPU run short); the blocks' expansion ratio is MobileNetV2's 6.
"""

from __future__ import annotations

import argparse

import resnet  # the same CIFAR-size batch and train step
from resnet import synthetic_batch

import mindjit as ms
from mindjit import nn, ops


def _bn(channel: int) -> nn.BatchNorm2d:
    return nn.BatchNorm2d(channel, eps=1e-3, momentum=0.9)


class ConvBNReLU(nn.Cell):
    """Conv2d (depthwise when groups == in_planes) + BatchNorm + ReLU6."""

    def __init__(self, in_planes: int, out_planes: int, kernel_size=3, stride=1, groups=1):
        super().__init__()
        padding = (kernel_size - 1) // 2
        conv = nn.Conv2d(
            in_planes, out_planes, kernel_size, stride, pad_mode="pad", padding=padding,
            group=groups,
        )  # fmt: skip
        self.features = nn.SequentialCell([conv, _bn(out_planes), nn.ReLU6()])

    def construct(self, x):
        return self.features(x)


class SqueezeExcite(nn.Cell):
    """MobileNetV3's channel attention: pool, 1x1 reduce, ReLU, 1x1 expand, HSigmoid."""

    def __init__(self, channel: int, reduction: int = 4):
        super().__init__()
        hidden = max(channel // reduction, 4)
        self.pool = ops.ReduceMean(keep_dims=True)
        self.reduce = nn.Conv2d(channel, hidden, 1, has_bias=True)
        self.relu = nn.ReLU()
        self.expand = nn.Conv2d(hidden, channel, 1, has_bias=True)
        self.gate = nn.HSigmoid()

    def construct(self, x):
        s = self.gate(self.expand(self.relu(self.reduce(self.pool(x, (2, 3))))))
        return x * s


class InvertedResidual(nn.Cell):
    def __init__(self, inp: int, oup: int, stride: int, expand_ratio: int, use_se=False):
        super().__init__()
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvBNReLU(inp, hidden_dim, kernel_size=1))
        layers.append(ConvBNReLU(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim))
        if use_se:
            layers.append(SqueezeExcite(hidden_dim))
        layers.extend([nn.Conv2d(hidden_dim, oup, 1, 1, has_bias=False), _bn(oup)])
        self.conv = nn.SequentialCell(layers)

    def construct(self, x):
        out = self.conv(x)
        if self.use_res_connect:
            return x + out
        return out


class MobileNetV2(nn.Cell):
    """Stem, inverted residual stages [t, c, n, s], a 1x1 conv, pooling, Dense."""

    def __init__(self, num_classes: int = 10, width: int = 8):
        super().__init__()
        settings = [  # expansion t, channels c, repeats n, stride s, squeeze-excite
            [1, width // 2, 1, 1, False],
            [6, width, 2, 2, False],
            [6, width * 2, 2, 2, True],
        ]
        features = [ConvBNReLU(3, width, stride=1)]
        in_ch = width
        for t, c, n, s, se in settings:
            for i in range(n):
                features.append(InvertedResidual(in_ch, c, s if i == 0 else 1, t, se))
                in_ch = c
        self.last_channel = width * 8
        features.append(nn.Conv2d(in_ch, self.last_channel, 1, has_bias=False))
        features.append(_bn(self.last_channel))
        self.features = nn.SequentialCell(features)
        self.hswish = nn.HSwish()
        self.mean = ops.ReduceMean(keep_dims=False)
        self.head = nn.Dense(self.last_channel, num_classes, has_bias=True)

    def construct(self, x):
        x = self.hswish(self.features(x))
        return self.head(self.mean(x, (2, 3)))


def train_net(net: nn.Cell, lr: float = 0.05) -> nn.TrainOneStepCell:
    """The ResNet example's train step (loss, Momentum, TrainOneStepCell), at lr 0.05."""
    return resnet.train_net(net, lr)


__all__ = ["MobileNetV2", "synthetic_batch", "train_net"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--width", type=int, default=8)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--device", default="CPU", choices=["CPU", "Ascend"])
    args = parser.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device)
    ms.set_seed(1)
    net = MobileNetV2(width=args.width)
    train = train_net(net)
    x, y = synthetic_batch(args.batch)
    for i in range(args.steps):
        print(f"step {i}: loss {float(train(x, y).asnumpy()):.4f}")


if __name__ == "__main__":
    main()
