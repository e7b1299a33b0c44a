"""Transposed convolution (MindSpore's Conv2DTranspose, behind `nn.Conv2dTranspose`), NCHW.

A transposed convolution is the input gradient of a convolution: with the
weight (in_channels, out_channels / group, kh, kw) read as the weight of a
convolution from out_channels to in_channels, it maps that convolution's
output back to its input. There is no mindir op for it; it is that adjoint,
built from mindir pad / transpose / reverse / conv2d by the helper mindir-grad
uses (dialects/mindir/conv_transpose.py), so its own gradient and device
kernels come from those ops.

Output size per spatial axis (MindSpore's `_deconv_output_length`), with
span = dilation * (k - 1) + 1:
  "same": in * stride;  "valid": in * stride + max(span - stride, 0);
  "pad":  (in - 1) * stride + span - pad_lo - pad_hi.
The pads are those of the forward convolution on the output size, so "same"
splits them as Conv2d's "same" does (odd element at the bottom / right).
"""

from __future__ import annotations

from typing import Any

from mindjit.dialects.mindir.conv_transpose import conv2d_input_adjoint
from mindjit.frontend.ops.conv import _nchw, same_pads
from mindjit.frontend.ops.core import run


def deconv_length(mode: str, size: int, k: int, stride: int, dilation: int, pad: int) -> int:
    """The output length of one spatial axis (`pad`: both sides' padding together)."""
    span = dilation * (k - 1) + 1
    if mode == "same":
        return size * stride
    if mode == "valid":
        return size * stride + max(span - stride, 0)
    return (size - 1) * stride + span - pad


def transpose_pads(mode: str, out_hw, kernel, stride, dilation, padding) -> tuple[int, ...]:
    """The forward convolution's (top, bottom, left, right) pads on the output size."""
    if mode == "same":
        return (
            *same_pads(out_hw[0], kernel[0], stride[0], dilation[0]),
            *same_pads(out_hw[1], kernel[1], stride[1], dilation[1]),
        )
    if mode == "valid":
        return (0, 0, 0, 0)
    return tuple(padding)


def conv_transpose2d_padded(
    x: Any,
    weight: Any,
    out_hw: tuple[int, int],
    stride: tuple[int, int],
    dilation: tuple[int, int],
    pads: tuple[int, int, int, int],
    group: int,
    name: str = "Conv2dTranspose",
) -> Any:
    """(N, out_channels, *out_hw): the input gradient of the convolution of an
    (N, out_channels, *out_hw) tensor by `weight` with these parameters, at `x`."""
    x = _nchw(x, name)
    w = _nchw(weight, name)
    c, f = x.shape[1], w.shape[0]
    if c != f:
        raise ValueError(
            f"For '{name}', the input has {c} channels but the weight of shape "
            f"{tuple(w.shape)} expects {f} (weight: (in_channels, out_channels / group, kh, kw))"
        )
    if f % group:
        raise ValueError(f"For '{name}', 'group' ({group}) should divide the input channels ({f})")
    kh, kw = w.shape[2:]
    for axis, (size, k, s, d, lo, hi) in enumerate(
        zip(out_hw, (kh, kw), stride, dilation, pads[0::2], pads[1::2])
    ):
        if size < 1 or (size + lo + hi - (d * (k - 1) + 1)) // s + 1 != x.shape[2 + axis]:
            raise ValueError(
                f"For '{name}', an output of size {tuple(out_hw)} does not convolve back to the "
                f"input's {tuple(x.shape[2:])} on spatial axis {axis}"
            )
    key = (name, "transpose", tuple(out_hw), tuple(stride), tuple(dilation), tuple(pads), group)
    return run(
        key,
        lambda e, v: conv2d_input_adjoint(
            e.value, v[0], v[1], out_hw, stride, dilation, pads, group
        ),
        x,
        w,
    )


def conv_transpose2d(
    x: Any,
    weight: Any,
    pad_mode: str,
    padding: tuple[int, int, int, int],
    stride: tuple[int, int],
    dilation: tuple[int, int],
    group: int,
    name: str = "Conv2dTranspose",
) -> Any:
    """MindSpore's Conv2DTranspose with the output size `nn.Conv2dTranspose` gives it."""
    x = _nchw(x, name)
    kernel = tuple(_nchw(weight, name).shape[2:])
    out_hw = (
        deconv_length(pad_mode, x.shape[2], kernel[0], stride[0], dilation[0], sum(padding[:2])),
        deconv_length(pad_mode, x.shape[3], kernel[1], stride[1], dilation[1], sum(padding[2:])),
    )
    pads = transpose_pads(pad_mode, out_hw, kernel, stride, dilation, padding)
    return conv_transpose2d_padded(x, weight, out_hw, stride, dilation, pads, group, name)
