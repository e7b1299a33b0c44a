"""BiDense, CentralCrop and ImageGradients of MindSpore 2.10 (issue 38):

- BiDense(in1_channels, in2_channels, out_channels, weight_init=None,
  bias_init=None, has_bias=True, dtype=float32): y[..., o] = sum_ij x1[..., i]
  W[o, i, j] x2[..., j] + b[o]; W and b from Uniform(1 / sqrt(in1_channels)).
- CentralCrop(central_fraction): the central (h - 2 * top, w - 2 * left) window
  of a (C, H, W) or (N, C, H, W) image, top = int((h - h * fraction) / 2).
- ImageGradients(): (dy, dx) of an (N, C, H, W) batch, forward differences with
  a zero last row / column.
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.init import Uniform, initializer
from mindjit.frontend.nn.layers_more import check_type, positive_int
from mindjit.frontend.ops.layer_functions import bidense
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.split import slice_axis
from mindjit.frontend.tensor import Parameter


class BiDense(Cell):
    """`nn.BiDense`: a bilinear layer of two inputs with the same leading shape."""

    def __init__(
        self,
        in1_channels: int,
        in2_channels: int,
        out_channels: int,
        weight_init: Any = None,
        bias_init: Any = None,
        has_bias: bool = True,
        dtype: Any = D.float32,
    ):
        super().__init__()
        for what, v in (
            ("in1_channels", in1_channels),
            ("in2_channels", in2_channels),
            ("out_channels", out_channels),
        ):
            positive_int(v, what, "BiDense")
        if not isinstance(has_bias, bool):
            raise TypeError(
                f"For 'BiDense', the 'has_bias' must be a bool, but got {type(has_bias).__name__}."
            )
        self.in1_channels, self.in2_channels = in1_channels, in2_channels
        self.out_channels, self.has_bias = out_channels, has_bias
        bound = 1 / math.sqrt(in1_channels)
        shape = (out_channels, in1_channels, in2_channels)
        if is_tensor(weight_init) and tuple(weight_init.shape) != shape:
            raise ValueError(
                "For 'BiDense', weight init shape error. The ndim of 'weight_init' must be equal "
                "to 3, the first dim must be equal to 'out_channels', the second dim must be "
                "equal to 'in1_channels', and the third dim must be equal to 'in2_channels'. But "
                f"got 'weight_init': {weight_init}, 'out_channels': {out_channels}, "
                f"'in_channels': {in1_channels}, 'in2_channels': {in2_channels}"
            )
        init = Uniform(bound) if weight_init is None else weight_init
        self.weight = Parameter(initializer(init, shape, dtype), name="weight")
        if has_bias:
            if is_tensor(bias_init) and tuple(bias_init.shape) != (out_channels,):
                raise ValueError(
                    "For 'BiDense', bias init shape error. The ndim of 'bias_init' should be "
                    "equal to 1, and the first dim must be equal to 'out_channels'. But got "
                    f"'bias_init': {bias_init}, 'out_channels': {out_channels}."
                )
            init = Uniform(bound) if bias_init is None else bias_init
            self.bias = Parameter(initializer(init, (out_channels,), dtype), name="bias")

    def construct(self, input1, input2):
        for what, t in (("input1", input1), ("input2", input2)):
            if not is_tensor(t):
                raise TypeError(
                    f"For 'BiDense', the '{what}' must be a Tensor, but got {type(t).__name__}"
                )
        s1, s2 = tuple(input1.shape), tuple(input2.shape)
        for what, last, want, channels in (
            ("input1", s1[-1], self.in1_channels, "in1_channels"),
            ("input2", s2[-1], self.in2_channels, "in2_channels"),
        ):
            if last != want:
                raise ValueError(
                    f"For 'BiDense', the last dimension of '{what}' must be same as "
                    f"'{channels}', but got {last} of '{what}' and {want} of '{channels}'"
                )
        if s1[:-1] != s2[:-1]:
            raise ValueError(
                "For 'BiDense', the dimensions except the last of 'input1' must be same as "
                f"'input2', but got {s1} of 'input1' and {s2} of 'input2'"
            )
        return bidense(input1, input2, self.weight, self.bias if self.has_bias else None)

    def extend_repr(self) -> str:
        s = (
            f"in1_channels={self.in1_channels}, in2_channels={self.in2_channels}, "
            f"output_channels={self.out_channels}"
        )
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        return s


class CentralCrop(Cell):
    """`nn.CentralCrop(central_fraction)`: central_fraction a float in (0, 1]."""

    def __init__(self, central_fraction: float):
        super().__init__()
        check_type(central_fraction, "central_fraction", (float,), "CentralCrop")
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(
                "For 'CentralCrop', the 'central_fraction' must be in range of (0.0, 1.0], but "
                f"got {central_fraction} with type 'float'."
            )
        self.central_fraction = central_fraction

    def construct(self, image):
        shape = tuple(image.shape)
        if len(shape) not in (3, 4):
            raise ValueError(f"CentralCrop image must be 3d or 4d, but got shape {shape}")
        if self.central_fraction == 1.0:
            return image
        h, w = shape[-2], shape[-1]
        top = int((float(h) - float(h * self.central_fraction)) / 2)
        left = int((float(w) - float(w * self.central_fraction)) / 2)
        rank = len(shape)
        image = slice_axis(image, rank - 2, top, h - top)
        return slice_axis(image, rank - 1, left, w - left)


def _difference(images: Any, axis: int) -> Any:
    size = images.shape[axis]
    zero_shape = tuple(1 if a == axis else d for a, d in enumerate(images.shape))
    last = ops.zeros(zero_shape, images.dtype)
    if size == 1:
        return last
    step = slice_axis(images, axis, 1, size) - slice_axis(images, axis, 0, size - 1)
    return ops.concat((step, last), axis)


class ImageGradients(Cell):
    """`nn.ImageGradients()`: construct(images) -> (dy, dx), each of images' shape."""

    def construct(self, images):
        if len(images.shape) != 4:
            raise ValueError(
                "For 'ImageGradients', the dimension of 'images' must be 4d, but got "
                f"{len(images.shape)}."
            )
        return _difference(images, 2), _difference(images, 3)
