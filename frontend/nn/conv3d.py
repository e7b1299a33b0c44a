"""`nn.Conv3d` and `nn.Conv3dTranspose`: MindSpore 2.x's signatures, defaults and weights.

The layers hold their Parameters and check their arguments when built; the
computation is frontend/ops/conv3d.py's (one conv2d over stacked depth taps,
and its adjoint), so both modes, gradients and the devices come from there.
Conv3d's weight is (out_channels, in_channels / group, kd, kh, kw),
Conv3dTranspose's (in_channels, out_channels / group, kd, kh, kw); the weight
is HeUniform(sqrt(5)) and the bias U(1/sqrt(fan_in)) with fan_in = shape[1] *
kd * kh * kw, as MindSpore's _Conv. `padding` is an int or six ints (head,
tail, top, bottom, left, right); `output_padding` (pad_mode "pad" only) is
computed output, as MindSpore's Conv3DTranspose primitive.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.conv import check_channels, conv_parameters
from mindjit.frontend.ops.conv import PAD_MODES
from mindjit.frontend.ops.conv3d import (
    conv3d_padded,
    conv3d_transpose_padded,
    ncdhw,
    resolve_pads3d,
    six_pads,
    transpose_pads3d,
    triple,
)


class Conv3d(Cell):
    NAME = "Conv3d"

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
        data_format: str = "NCDHW",
        dtype: Any = D.float32,
    ):
        super().__init__()
        name = self.NAME
        check_channels(name, in_channels, out_channels, group, detailed=False)
        if data_format != "NCDHW":
            raise ValueError(
                f"For '{name}', the 'format' must be 'NCDHW' on this device, got '{data_format}'."
            )
        if not isinstance(pad_mode, str) or pad_mode.lower() not in PAD_MODES:
            raise ValueError(
                f"For '{name}', 'pad_mode' must be one of {list(PAD_MODES)}, got {pad_mode!r}"
            )
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = triple(kernel_size, name, "kernel_size")
        self.stride = triple(stride, name, "stride")
        self.dilation = triple(dilation, name, "dilation")
        self.pad_mode = pad_mode.lower()
        self.padding = six_pads(padding, name)
        if self.pad_mode != "pad" and any(self.padding):
            raise ValueError(
                f"For '{name}', the 'pad' must be zero or (0, 0, 0, 0, 0, 0) when 'pad_mode' is "
                f"not \"pad\", but got 'pad' is {padding!r} and 'pad_mode' is {pad_mode}."
            )
        self.group = group
        self.has_bias = bool(has_bias)
        self.weight, self.bias = conv_parameters(
            self.weight_shape(), out_channels, self.has_bias, weight_init, bias_init, dtype
        )

    def weight_shape(self) -> tuple[int, ...]:
        """(out_channels, in_channels / group, kd, kh, kw)."""
        return (self.out_channels, self.in_channels // self.group, *self.kernel_size)

    def _pads(self, x: Any) -> tuple[int, ...]:
        return resolve_pads3d(
            self.NAME,
            self.pad_mode,
            self.padding,
            x.shape[2:],
            self.kernel_size,
            self.stride,
            self.dilation,
        )

    def _with_bias(self, out: Any) -> Any:
        if self.has_bias:
            out = out + ops.reshape(self.bias, (1, self.out_channels, 1, 1, 1))
        return out

    def construct(self, x):
        x = ncdhw(x, self.NAME)
        out = conv3d_padded(
            x, self.weight, self.stride, self.dilation, self._pads(x), self.group, self.NAME
        )
        return self._with_bias(out)

    def extend_repr(self) -> str:
        return (
            f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
            f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
            f"padding={self.padding}, dilation={self.dilation}, group={self.group}, "
            f"has_bias={self.has_bias}"
        )


class Conv3dTranspose(Conv3d):
    NAME = "Conv3dTranspose"

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
        output_padding: Any = 0,
        has_bias: bool = False,
        weight_init: Any = None,
        bias_init: Any = None,
        data_format: str = "NCDHW",
        dtype: Any = D.float32,
    ):
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
            data_format,
            dtype,
        )
        name = "Conv3DTranspose"
        self.output_padding = triple(output_padding, name, "output_padding", 0)
        if self.pad_mode != "pad" and any(self.output_padding):
            raise ValueError(
                f"For '{name}', the 'output_padding' must be zero or (0, 0, 0) when 'pad_mode' "
                f"is not \"pad\", but got 'output_padding' is {self.output_padding} and "
                f"'pad_mode' is {self.pad_mode}."
            )
        for a, axis in enumerate("dhw"):
            limit = max(self.stride[a], self.dilation[a])
            if self.output_padding[a] >= limit:
                raise ValueError(
                    f"For '{name}', the 'output_padding_{axis} belonging [0, max(stride_{axis}, "
                    f"dilation_{axis}))' must be in range of [0, {limit}), but got "
                    f"{self.output_padding[a]}."
                )

    def weight_shape(self) -> tuple[int, ...]:
        """(in_channels, out_channels / group, kd, kh, kw)."""
        return (self.in_channels, self.out_channels // self.group, *self.kernel_size)

    def construct(self, x):
        x = ncdhw(x, self.NAME)
        pads = transpose_pads3d(
            self.NAME,
            self.pad_mode,
            self.padding,
            x.shape[2:],
            self.kernel_size,
            self.stride,
            self.dilation,
        )
        extra = self.output_padding
        if self.pad_mode == "valid":  # in * stride + max(span - stride, 0)
            extra = tuple(
                max(0, s - (d * (k - 1) + 1))
                for k, s, d in zip(self.kernel_size, self.stride, self.dilation)
            )
        out = conv3d_transpose_padded(
            x, self.weight, self.stride, self.dilation, pads, extra, self.group, self.NAME
        )
        return self._with_bias(out)

    def extend_repr(self) -> str:
        return super().extend_repr() + f", output_padding={self.output_padding}"
