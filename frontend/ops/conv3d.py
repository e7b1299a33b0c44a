"""3-d convolution and its transpose (`ops.conv3d`, `ops.conv3d_transpose`), NCDHW.

There is no mindir op for either: both are compositions, so the gradient, vmap
and device stages are those of the ops they are made of.

- conv3d is one conv2d over (N * OD, C * kd, H, W): the kd depth taps of the
  (zero padded) input are strided slices along D, stacked into the channels
  group by group ([group][tap][channel]), and the weight (O, C/g, kd, kh, kw)
  becomes (O, kd * C/g, kh, kw) in the same order; H and W keep conv2d's pads.
- conv3d_transpose is the adjoint of conv3d: the input with stride - 1 zeros
  between elements (pad + reshape), padded by dilation * (k - 1) - pad (negative
  crops; `output_padding` adds at the end), convolved at stride 1 with the
  weight flipped and its two channel axes swapped per group. Output per axis:
  (in - 1) * stride + dilation * (k - 1) + 1 - pad_lo - pad_hi + output_padding,
  with "same" and "valid" as in frontend/ops/conv_transpose.py's deconv_length.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.ops.array import expand_dims, reshape, stack, transpose
from mindjit.frontend.ops.conv import PAD_MODES, conv2d_padded, flip, pad, same_pads
from mindjit.frontend.ops.conv_transpose import deconv_length
from mindjit.frontend.ops.indexing import getitem
from mindjit.frontend.ops.math import _tensor, add
from mindjit.frontend.ops.promotion import is_tensor


def triple(value: Any, name: str, what: str, minimum: int = 1) -> tuple[int, int, int]:
    """An int or a 3-tuple of ints (MindSpore also accepts (1, 1, d, h, w))."""
    values = (
        (value,) * 3
        if isinstance(value, int)
        else tuple(value)
        if isinstance(value, tuple | list)
        else None
    )
    if values is not None and len(values) == 5 and values[:2] == (1, 1):
        values = values[2:]
    if (
        values is None
        or len(values) != 3
        or any(isinstance(v, bool) or not isinstance(v, int) for v in values)
    ):
        raise TypeError(
            f"For '{name}', '{what}' must be an int or a tuple of three ints, got {value!r}"
        )
    if min(values) < minimum:
        raise ValueError(f"For '{name}', '{what}' must be >= {minimum}, got {value!r}")
    return values[0], values[1], values[2]


def six_pads(padding: Any, name: str) -> tuple[int, ...]:
    """`padding`: an int, (pd, ph, pw) or (head, tail, top, bottom, left, right)."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        values: tuple[Any, ...] = (padding,) * 6
    elif isinstance(padding, tuple | list) and len(padding) == 3:
        values = tuple(v for v in padding for _ in range(2))
    elif isinstance(padding, tuple | list) and len(padding) == 6:
        values = tuple(padding)
    else:
        raise TypeError(
            f"For '{name}', 'padding' must be an int or a tuple of 3 or 6 ints, got {padding!r}"
        )
    if any(isinstance(v, bool) or not isinstance(v, int) for v in values):
        raise TypeError(f"For '{name}', 'padding' must hold ints, got {padding!r}")
    if min(values) < 0:
        raise ValueError(f"For '{name}', 'padding' must be >= 0, got {padding!r}")
    return values


def ncdhw(x: Any, name: str, what: str = "input") -> Any:
    t = _tensor(x, name)
    if len(t.shape) != 5:
        raise ValueError(
            f"For '{name}', the {what} must be 5-D (N, C, D, H, W), got shape {tuple(t.shape)}"
        )
    if not t.dtype.is_float:
        raise TypeError(f"For '{name}', the {what} must be a float tensor, got {t.dtype}")
    return t


def resolve_pads3d(name: str, pad_mode: Any, padding: Any, dhw, kernel, stride, dilation):
    """Explicit (head, tail, top, bottom, left, right) pads for `pad_mode` and `padding`."""
    if not isinstance(pad_mode, str):
        raise TypeError(f"For '{name}', 'pad_mode' must be a str, got {pad_mode!r}")
    if pad_mode.lower() not in PAD_MODES:
        raise ValueError(
            f"For '{name}', 'pad_mode' must be one of {list(PAD_MODES)}, got '{pad_mode}'"
        )
    mode = pad_mode.lower()
    pads = six_pads(padding, name)
    if mode != "pad" and any(pads):
        raise ValueError(
            f"For '{name}', the 'padding' must be zero when 'pad_mode' is not 'pad', "
            f"got pad_mode '{pad_mode}' and padding {padding!r}"
        )
    if mode == "same":
        return tuple(
            p for a in range(3) for p in same_pads(dhw[a], kernel[a], stride[a], dilation[a])
        )
    return pads


def conv3d_padded(x: Any, weight: Any, stride, dilation, pads, group: int, name: str) -> Any:
    """conv3d with explicit pads: one conv2d over the stacked depth taps."""
    x, w = ncdhw(x, name), ncdhw(weight, name, "weight")
    n, c, d = x.shape[:3]
    o, cg, kd, kh, kw = w.shape
    if isinstance(group, bool) or not isinstance(group, int) or group < 1:
        raise TypeError(f"For '{name}', 'group' must be a positive int, got {group!r}")
    if c % group or o % group or cg * group != c:
        raise ValueError(
            f"For '{name}', the input of shape {tuple(x.shape)} and the weight of shape "
            f"{tuple(w.shape)} do not match with group {group}"
        )
    span = dilation[0] * (kd - 1) + 1
    depth = d + pads[0] + pads[1]
    if span > depth:
        raise ValueError(f"For '{name}', the kernel depth {kd} is larger than the padded input")
    od = (depth - span) // stride[0] + 1
    if pads[0] or pads[1]:
        x = pad(x, (0, 0, 0, 0, pads[0], pads[1]))
    h, wd = x.shape[3:]
    last = (od - 1) * stride[0] + 1
    taps = [
        getitem(
            x, (slice(None), slice(None), slice(a * dilation[0], a * dilation[0] + last, stride[0]))
        )
        for a in range(kd)
    ]
    t = stack(taps, 1) if kd > 1 else expand_dims(taps[0], 1)  # (N, kd, C, OD, H, W)
    t = reshape(t, (n, kd, group, cg, od, h, wd))
    t = reshape(transpose(t, (0, 4, 2, 1, 3, 5, 6)), (n * od, group * kd * cg, h, wd))
    w2 = reshape(transpose(w, (0, 2, 1, 3, 4)), (o, kd * cg, kh, kw))
    out = conv2d_padded(t, w2, stride[1:], dilation[1:], pads[2:], group, name)
    oh, ow = out.shape[2:]
    return transpose(reshape(out, (n, od, o, oh, ow)), (0, 2, 1, 3, 4))


def _bias(out: Any, bias: Any, channels: int, name: str) -> Any:
    if bias is None:
        return out
    if not is_tensor(bias):
        raise TypeError(f"For '{name}', 'bias' must be a Tensor, got {type(bias).__name__}")
    if tuple(bias.shape) != (channels,):
        raise ValueError(
            f"For '{name}', 'bias' must have shape ({channels},), got {tuple(bias.shape)}"
        )
    return add(out, reshape(bias, (1, channels, 1, 1, 1)))


def conv3d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    pad_mode: str = "valid",
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Any:
    """`ops.conv3d`: `padding` an int, (pd, ph, pw) or six ints (pad_mode "pad")."""
    name = "conv3d"
    x, w = ncdhw(input, name), ncdhw(weight, name, "weight")
    s, dl = triple(stride, name, "stride"), triple(dilation, name, "dilation")
    pads = resolve_pads3d(name, pad_mode, padding, x.shape[2:], w.shape[2:], s, dl)
    return _bias(conv3d_padded(x, w, s, dl, pads, groups, name), bias, w.shape[0], name)


def _dilate(x: Any, axis: int, s: int) -> Any:
    """`s - 1` zeros between the elements along `axis` ((L - 1) * s + 1 long)."""
    if s == 1 or x.shape[axis] == 1:
        return x
    shape = list(x.shape)
    y = expand_dims(x, axis + 1)
    widths = [0] * (2 * (len(shape) + 1))
    widths[2 * (len(shape) - axis - 1) + 1] = s - 1  # after, on the new axis
    y = pad(y, tuple(widths))
    shape[axis] *= s
    y = reshape(y, tuple(shape))
    crop = [0] * (2 * len(shape))
    crop[2 * (len(shape) - 1 - axis) + 1] = -(s - 1)
    return pad(y, tuple(crop))


def conv3d_transpose_padded(
    x: Any, weight: Any, stride, dilation, pads, output_padding, group: int, name: str
) -> Any:
    """The adjoint of conv3d (weight (C_in, C_out / group, kd, kh, kw)), explicit pads."""
    x, w = ncdhw(x, name), ncdhw(weight, name, "weight")
    c, og = x.shape[1], w.shape[1]
    if isinstance(group, bool) or not isinstance(group, int) or group < 1:
        raise TypeError(f"For '{name}', 'group' must be a positive int, got {group!r}")
    if w.shape[0] != c or c % group:
        raise ValueError(
            f"For '{name}', the input has {c} channels but the weight of shape "
            f"{tuple(w.shape)} expects {w.shape[0]} (weight: (in_channels, out_channels / "
            f"group, kd, kh, kw)), group {group}"
        )
    kernel = w.shape[2:]
    for a in range(3):
        x = _dilate(x, 2 + a, stride[a])
    widths: list[int] = []
    for a in (2, 1, 0):  # ops.pad: from the last axis backwards
        full = dilation[a] * (kernel[a] - 1)
        widths += [full - pads[2 * a], full - pads[2 * a + 1] + output_padding[a]]
    x = pad(x, tuple(widths))
    wt = reshape(w, (group, c // group, og, *kernel))
    wt = reshape(transpose(wt, (0, 2, 1, 3, 4, 5)), (group * og, c // group, *kernel))
    wt = flip(wt, (2, 3, 4))
    return conv3d_padded(x, wt, (1, 1, 1), dilation, (0,) * 6, group, name)


def transpose_pads3d(name: str, pad_mode: str, padding: Any, dhw, kernel, stride, dilation):
    """The forward convolution's six pads for a transposed convolution's `pad_mode`."""
    pads = resolve_pads3d(name, pad_mode, padding, dhw, kernel, stride, dilation)
    mode = pad_mode.lower()
    if mode != "same":
        return pads
    out = [deconv_length("same", dhw[a], kernel[a], stride[a], dilation[a], 0) for a in range(3)]
    return tuple(p for a in range(3) for p in same_pads(out[a], kernel[a], stride[a], dilation[a]))


def conv3d_transpose(
    inputs: Any,
    weight: Any,
    pad_mode: str = "valid",
    padding: Any = 0,
    stride: Any = 1,
    dilation: Any = 1,
    group: int = 1,
    output_padding: Any = 0,
) -> Any:
    """`ops.conv3d_transpose`: (N, C_out, D', H', W') from (N, C_in, D, H, W)."""
    name = "conv3d_transpose"
    x, w = ncdhw(inputs, name), ncdhw(weight, name, "weight")
    s, dl = triple(stride, name, "stride"), triple(dilation, name, "dilation")
    op = triple(output_padding, name, "output_padding", 0)
    kernel = w.shape[2:]
    pads = transpose_pads3d(name, pad_mode, padding, x.shape[2:], kernel, s, dl)
    if any(op) and pad_mode.lower() != "pad":
        raise ValueError(
            f"For '{name}', when 'output_padding' is not zero, 'pad_mode' must be 'pad', "
            f"got '{pad_mode}'"
        )
    for a in range(3):
        if op[a] >= max(s[a], dl[a]):
            raise ValueError(
                f"For '{name}', 'output_padding' must be less than max(stride, dilation) on "
                f"every axis, got {output_padding!r}"
            )
    if pad_mode.lower() == "valid":  # "valid" keeps the whole span: in * s + max(span - s, 0)
        op = tuple(max(0, s[a] - (dl[a] * (kernel[a] - 1) + 1)) for a in range(3))
    return conv3d_transpose_padded(x, w, s, dl, pads, op, group, name)
