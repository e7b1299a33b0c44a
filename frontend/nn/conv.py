"""`nn.Conv2d`: MindSpore 2.x's signature and defaults, NCHW.

The weight is (out_channels, in_channels / group, kh, kw), named "weight";
the bias (`has_bias`, default False) is (out_channels,). With `weight_init`
None the weight is HeUniform(sqrt(5)) (U(+-1/sqrt(fan_in))) and the bias
U(+-1/sqrt(fan_in)), as MindSpore 2.3+ does. `pad_mode` is resolved by
frontend/ops/conv.py when the layer is built or called: the same explicit pads
in graph mode and PyNative.
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.init import HeUniform, Uniform, initializer
from mindjit.frontend.ops.conv import PAD_MODES, conv2d_padded, four_pads, pair, resolve_pads
from mindjit.frontend.tensor import Parameter


def check_channels(
    name: str, in_channels: Any, out_channels: Any, group: Any, detailed: bool = True
) -> None:
    """MindSpore's checks of a convolution's channel counts and group (`detailed`:
    the 2-d layers' message naming the three numbers; Conv3d's says less)."""
    for what, v in (("in_channels", in_channels), ("out_channels", out_channels)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"For '{name}', '{what}' must be a positive int, got {v!r}")
    if isinstance(group, bool) or not isinstance(group, int) or group < 1:
        raise TypeError(f"For '{name}', 'group' must be a positive int, got {group!r}")
    if in_channels % group or out_channels % group:
        if not detailed:
            raise ValueError(
                "The argument 'group' should be divisible by 'in_channels' and 'out_channels'"
            )
        raise ValueError(
            f"For '{name}', the argument 'group' should be divisible by 'in_channels' and "
            f"'out_channels', but got group {group}, in_channels {in_channels}, "
            f"out_channels {out_channels}"
        )


def conv_parameters(
    shape: tuple[int, ...],
    out_channels: int,
    has_bias: bool,
    weight_init: Any,
    bias_init: Any,
    dtype: Any,
) -> tuple[Parameter, Parameter | None]:
    """A convolution's weight of `shape` (its `weight_shape()`) and bias of
    `out_channels` (or None), with MindSpore's defaults: HeUniform(sqrt(5)) and
    Uniform(1 / sqrt(fan_in)), fan_in = shape[1] * the kernel's size."""
    fan_in = shape[1] * math.prod(shape[2:])
    weight = Parameter(
        initializer(HeUniform(math.sqrt(5)) if weight_init is None else weight_init, shape, dtype),
        name="weight",
    )
    if not has_bias:
        return weight, None
    default = Uniform(1 / math.sqrt(fan_in)) if fan_in else "zeros"
    bias = Parameter(
        initializer(default if bias_init is None else bias_init, (out_channels,), dtype),
        name="bias",
    )
    return weight, bias


class Conv2d(Cell):
    NAME = "Conv2d"

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        pad_mode: str = "same",
        padding: Any = 0,
        dilation: Any = 1,
        group: int = 1,
        has_bias: bool = False,
        weight_init: Any = None,
        bias_init: Any = None,
        data_format: str = "NCHW",
        dtype: Any = D.float32,
    ):
        super().__init__()
        name = self.NAME
        check_channels(name, in_channels, out_channels, group)
        if data_format != "NCHW":
            raise ValueError(f"For '{name}', only data_format 'NCHW' is supported on this device")
        if not isinstance(pad_mode, str) or pad_mode not in PAD_MODES:
            raise ValueError(
                f"For '{name}', 'pad_mode' must be one of {list(PAD_MODES)}, got {pad_mode!r}"
            )
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = pair(kernel_size, name, "kernel_size")
        self.stride = pair(stride, name, "stride")
        self.dilation = pair(dilation, name, "dilation")
        self.pad_mode = pad_mode
        self.padding = four_pads(padding, name)
        if pad_mode != "pad" and self.padding != (0, 0, 0, 0):
            raise ValueError(
                f"For '{name}', the 'padding' must be zero when 'pad_mode' is not 'pad', got "
                f"pad_mode '{pad_mode}' and padding {padding!r}"
            )
        self.group = group
        self.has_bias = bool(has_bias)
        self.weight, self.bias = conv_parameters(
            self.weight_shape(), out_channels, self.has_bias, weight_init, bias_init, dtype
        )

    def weight_shape(self) -> tuple[int, ...]:
        """(out_channels, in_channels / group, kh, kw)."""
        return (self.out_channels, self.in_channels // self.group, *self.kernel_size)

    def construct(self, x):
        return self.conv2d(x)

    def conv2d(self, x):
        """The layer on an NCHW input (Conv1d's construct calls it on its (N, C, 1, W) view)."""
        pads = resolve_pads(
            self.NAME,
            self.pad_mode,
            self.padding,
            x.shape[2:],
            self.kernel_size,
            self.stride,
            self.dilation,
        )
        out = conv2d_padded(x, self.weight, self.stride, self.dilation, pads, self.group, self.NAME)
        if self.has_bias:
            out = out + ops.reshape(self.bias, (1, self.out_channels, 1, 1))
        return out

    def extend_repr(self) -> str:
        return (
            f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
            f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
            f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
            f"has_bias={self.has_bias}"
        )
