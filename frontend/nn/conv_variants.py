"""`nn.Conv1d` and `nn.Conv2dTranspose`: MindSpore 2.x's signatures, defaults and weights.

Both are `nn.Conv2d` underneath, as in MindSpore:
- Conv1d (NCW) is a Conv2d with a (1, k) kernel over an (N, C, 1, W) view:
  its weight is (out_channels, in_channels / group, 1, k), as MindSpore stores
  it, and `padding` (an int) pads the left and the right.
- Conv2dTranspose's weight is (in_channels, out_channels / group, kh, kw): it
  is the input gradient of the convolution from out_channels to in_channels
  with that weight (frontend/ops/conv_transpose.py). As MindSpore's Cell does,
  `output_padding` (pad_mode "pad" only, < max(stride, dilation)) appends
  zeros at the bottom / right of the result, after the bias.
The HeUniform(sqrt(5)) weight and U(1/sqrt(fan_in)) bias take fan_in from the
weight's shape (shape[1] * kh * kw), as MindSpore's _Conv does.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.conv import Conv2d
from mindjit.frontend.ops.conv import four_pads, pair
from mindjit.frontend.ops.conv_transpose import conv_transpose2d
from mindjit.frontend.ops.promotion import is_tensor


def _int(value: Any, what: str, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{name}', '{what}' must be an int, got {value!r}")
    return value


class Conv1d(Conv2d):
    NAME = "Conv1d"

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int,
        stride: int = 1,
        pad_mode: str = "same",
        padding: int = 0,
        dilation: int = 1,
        group: int = 1,
        has_bias: bool = False,
        weight_init: Any = None,
        bias_init: Any = None,
        dtype: Any = D.float32,
    ):
        for what, v in (
            ("kernel_size", kernel_size),
            ("stride", stride),
            ("padding", padding),
            ("dilation", dilation),
        ):
            _int(v, what, self.NAME)
        if padding < 0:
            raise ValueError(f"For '{self.NAME}', 'padding' must be >= 0, got {padding}")
        if is_tensor(weight_init) and len(weight_init.shape) == 3:
            weight_init = ops.expand_dims(weight_init, 2)
        super().__init__(
            in_channels,
            out_channels,
            (1, kernel_size),
            (1, stride),
            pad_mode,
            (0, 0, padding, padding),
            (1, dilation),
            group,
            has_bias,
            weight_init,
            bias_init,
            dtype=dtype,
        )

    def construct(self, x):
        if len(x.shape) != 3:
            raise ValueError(
                f"For '{self.NAME}', the input must be 3-D (N, C, W), got shape {tuple(x.shape)}"
            )
        return ops.squeeze(self.conv2d(ops.expand_dims(x, 2)), 2)


class Conv2dTranspose(Conv2d):
    NAME = "Conv2dTranspose"

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        pad_mode: str = "same",
        padding: Any = 0,
        output_padding: Any = 0,
        dilation: Any = 1,
        group: int = 1,
        has_bias: bool = False,
        weight_init: Any = None,
        bias_init: Any = None,
        dtype: Any = D.float32,
    ):
        name = self.NAME
        four_pads(padding, name)
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            pad_mode,
            padding,
            dilation,
            group,
            has_bias,
            weight_init,
            bias_init,
            dtype=dtype,
        )
        self.output_padding = pair(output_padding, name, "output_padding", minimum=0)
        for axis, extra in enumerate(self.output_padding):
            limit = max(self.stride[axis], self.dilation[axis])
            if extra >= limit:
                raise ValueError(
                    f"For '{name}', 'output_padding' must be in range of [0, max(stride, "
                    f"dilation)) = [0, {limit}) on spatial axis {axis}, got {output_padding!r}"
                )
        if pad_mode != "pad" and any(self.output_padding):
            raise ValueError(
                f"For '{name}', when 'output_padding' is not zero, 'pad_mode' must be 'pad', "
                f"got '{pad_mode}'"
            )

    def weight_shape(self) -> tuple[int, ...]:
        """(in_channels, out_channels / group, kh, kw)."""
        return (self.in_channels, self.out_channels // self.group, *self.kernel_size)

    def construct(self, x):
        out = conv_transpose2d(
            x,
            self.weight,
            self.pad_mode,
            self.padding,
            self.stride,
            self.dilation,
            self.group,
            self.NAME,
        )
        if self.has_bias:
            out = out + ops.reshape(self.bias, (1, self.out_channels, 1, 1))
        if any(self.output_padding):
            out = ops.pad(out, (0, self.output_padding[1], 0, self.output_padding[0]))
        return out

    def extend_repr(self) -> str:
        return super().extend_repr() + f", output_padding={self.output_padding}"
