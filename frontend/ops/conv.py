"""Convolution, pooling, padding and flipping (`ops.conv2d`, `ops.max_pool2d`,
`ops.avg_pool2d`, `ops.pad`, `ops.flip`), NCHW as in MindSpore.

MindSpore's `pad_mode` ("same", "valid", "pad") and `ceil_mode` become explicit
numbers here (`mindir.conv2d {pad}`, `pad_extra`), so the compiler sees one
form. "same" makes the output ceil(in / stride) long and splits the padding
it needs with the odd element at the bottom / right (Conv2DPadFunction).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mindjit.dialects import mindir as M
from mindjit.frontend.ops.array import reshape
from mindjit.frontend.ops.core import normalize_axes, one, run
from mindjit.frontend.ops.math import _tensor, add, mul
from mindjit.frontend.ops.promotion import is_tensor

PAD_MODES = ("same", "valid", "pad")


def pair(value: Any, name: str, what: str, minimum: int = 1) -> tuple[int, int]:
    """An int or a 2-tuple of ints (MindSpore also accepts (1, 1, h, w) for strides)."""
    values = (
        (value, value)
        if isinstance(value, int)
        else tuple(value)
        if isinstance(value, tuple | list)
        else None
    )
    if values is not None and len(values) == 4 and values[:2] == (1, 1):
        values = values[2:]
    if (
        values is None
        or len(values) != 2
        or any(isinstance(v, bool) or not isinstance(v, int) for v in values)
    ):
        raise TypeError(
            f"For '{name}', '{what}' must be an int or a tuple of two ints, got {value!r}"
        )
    if min(values) < minimum:
        raise ValueError(f"For '{name}', '{what}' must be >= {minimum}, got {value!r}")
    return values[0], values[1]


def same_pads(size: int, k: int, stride: int, dilation: int) -> tuple[int, int]:
    """MindSpore's "same": output ceil(size / stride), the odd pad element after."""
    out = -(-size // stride)
    need = max(0, (out - 1) * stride + dilation * (k - 1) + 1 - size)
    return need // 2, need - need // 2


def four_pads(padding: Any, name: str) -> tuple[int, int, int, int]:
    """`padding`: an int for every side or (top, bottom, left, right)."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        values: tuple[Any, ...] = (padding,) * 4
    elif isinstance(padding, tuple | list) and len(padding) == 4:
        values = tuple(padding)
    else:
        raise TypeError(
            f"For '{name}', 'padding' must be an int or a tuple of 4 ints, got {padding!r}"
        )
    if any(isinstance(v, bool) or not isinstance(v, int) for v in values):
        raise TypeError(f"For '{name}', 'padding' must hold ints, got {padding!r}")
    if min(values) < 0:
        raise ValueError(f"For '{name}', 'padding' must be >= 0, got {padding!r}")
    return values  # type: ignore[return-value]


def resolve_pads(
    name: str, pad_mode: str, padding: Any, hw, kernel, stride, dilation
) -> tuple[int, int, int, int]:
    """Explicit (top, bottom, left, right) pads for `pad_mode` and `padding`."""
    if not isinstance(pad_mode, str):
        raise TypeError(f"For '{name}', 'pad_mode' must be a str, got {pad_mode!r}")
    if pad_mode not in PAD_MODES:
        raise ValueError(
            f"For '{name}', 'pad_mode' must be one of {list(PAD_MODES)}, got '{pad_mode}'"
        )
    pads = four_pads(padding, name)
    if pad_mode != "pad" and pads != (0, 0, 0, 0):
        raise ValueError(
            f"For '{name}', the 'padding' must be zero when 'pad_mode' is not 'pad', "
            f"got pad_mode '{pad_mode}' and padding {padding!r}"
        )
    if pad_mode == "same":
        top, bottom = same_pads(hw[0], kernel[0], stride[0], dilation[0])
        left, right = same_pads(hw[1], kernel[1], stride[1], dilation[1])
        return top, bottom, left, right
    return pads


def _nchw(x: Any, name: str) -> Any:
    t = _tensor(x, name)
    if len(t.shape) != 4:
        raise ValueError(
            f"For '{name}', the input must be 4-D (N, C, H, W), got shape {tuple(t.shape)}"
        )
    if not t.dtype.is_float:
        raise TypeError(f"For '{name}', the input must be a float tensor, got {t.dtype}")
    return t


def conv2d_padded(
    x: Any, weight: Any, stride, dilation, pads, group: int, name: str = "conv2d"
) -> Any:
    """`mindir.conv2d` with explicit pads, after MindSpore's checks."""
    x = _nchw(x, name)
    w = _nchw(weight, name)
    c, f = x.shape[1], w.shape[0]
    if isinstance(group, bool) or not isinstance(group, int) or group < 1:
        raise TypeError(f"For '{name}', 'group' must be a positive int, got {group!r}")
    if c % group or f % group:
        raise ValueError(
            f"For '{name}', 'group' ({group}) should divide the input channels ({c}) and the "
            f"output channels ({f})"
        )
    if w.shape[1] * group != c:
        raise ValueError(
            f"For '{name}', the input of shape {tuple(x.shape)} has {c} channels, but the "
            f"weight of shape {tuple(w.shape)} expects {w.shape[1] * group} input channels "
            f"({w.shape[1]} per group, {group} group(s))"
        )
    h, wd = x.shape[2] + pads[0] + pads[1], x.shape[3] + pads[2] + pads[3]
    kh, kw = w.shape[2:]
    if (kh - 1) * dilation[0] + 1 > h or (kw - 1) * dilation[1] + 1 > wd:
        raise ValueError(
            f"For '{name}', the kernel ({kh}, {kw}) with dilation {tuple(dilation)} is larger "
            f"than the padded input ({h}, {wd})"
        )
    key = (name, tuple(stride), tuple(dilation), tuple(pads), group)
    return run(
        key,
        one(
            M.Conv2DOp, stride=tuple(stride), dilation=tuple(dilation), pad=tuple(pads), group=group
        ),
        x,
        w,
    )


def conv2d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    pad_mode: str = "valid",
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Any:
    """`ops.conv2d`: `padding` is an int or (pH, pW), symmetric (pad_mode "pad")."""
    name = "conv2d"
    w = _nchw(weight, name)
    s = pair(stride, name, "stride")
    d = pair(dilation, name, "dilation")
    if isinstance(padding, tuple | list):
        if len(padding) != 2:
            raise ValueError(f"For '{name}', 'padding' must be an int or (pH, pW), got {padding!r}")
        padding = (padding[0], padding[0], padding[1], padding[1])
    x = _nchw(input, name)
    pads = resolve_pads(name, pad_mode, padding, x.shape[2:], w.shape[2:], s, d)
    out = conv2d_padded(x, w, s, d, pads, groups, name)
    if bias is not None:
        if not is_tensor(bias):
            raise TypeError(f"For '{name}', 'bias' must be a Tensor, got {type(bias).__name__}")
        if tuple(bias.shape) != (w.shape[0],):
            raise ValueError(
                f"For '{name}', 'bias' must have shape ({w.shape[0]},), got {tuple(bias.shape)}"
            )
        out = add(out, reshape(bias, (1, w.shape[0], 1, 1)))
    return out


def pool_output_extra(size: int, k: int, s: int, d: int, lo: int, hi: int, ceil_mode: bool) -> int:
    """Padding past `hi` a ceil_mode window reaches (never counted); 0 for floor mode.
    As in PyTorch/MindSpore, the last window must start inside the input or the
    left padding."""
    if not ceil_mode:
        return 0
    span = d * (k - 1) + 1
    floor_out = (size + lo + hi - span) // s + 1
    ceil_out = -(-(size + lo + hi - span) // s) + 1
    if (ceil_out - 1) * s >= size + lo:
        ceil_out -= 1
    return (ceil_out - floor_out) * s  # 0 or one more stride: one more window


def pool2d(
    kind: str,
    x: Any,
    kernel_size: Any,
    stride: Any,
    pads: tuple[int, int, int, int],
    dilation: tuple[int, int] = (1, 1),
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    name: str = "max_pool2d",
) -> Any:
    """`mindir.max_pool2d` / `avg_pool2d` with explicit pads."""
    x = _nchw(x, name)
    k = pair(kernel_size, name, "kernel_size")
    s = pair(stride, name, "stride")
    h, w = x.shape[2:]
    if (k[0] - 1) * dilation[0] + 1 > h + pads[0] + pads[1] or (k[1] - 1) * dilation[1] + 1 > (
        w + pads[2] + pads[3]
    ):
        raise ValueError(
            f"For '{name}', the kernel {k} is larger than the padded input "
            f"({h + pads[0] + pads[1]}, {w + pads[2] + pads[3]})"
        )
    extra = (
        pool_output_extra(h, k[0], s[0], dilation[0], pads[0], pads[1], ceil_mode),
        pool_output_extra(w, k[1], s[1], dilation[1], pads[2], pads[3], ceil_mode),
    )
    if kind == "max":
        props = dict(kernel=k, stride=s, pad=tuple(pads), dilation=tuple(dilation), pad_extra=extra)
        return run(
            (name, k, s, tuple(pads), tuple(dilation), extra), one(M.MaxPool2DOp, **props), x
        )
    props = dict(
        kernel=k,
        stride=s,
        pad=tuple(pads),
        count_include_pad=bool(count_include_pad),
        pad_extra=extra,
    )
    key = (name, k, s, tuple(pads), bool(count_include_pad), extra)
    return run(key, one(M.AvgPool2DOp, **props), x)


def symmetric_pads(padding: Any, name: str) -> tuple[int, int, int, int]:
    """An int or (pH, pW) as (top, bottom, left, right): pooling's symmetric padding."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        p = (padding, padding)
    elif isinstance(padding, tuple | list) and len(padding) in (1, 2):
        p = (padding[0], padding[-1])
    else:
        raise TypeError(f"For '{name}', 'padding' must be an int or (pH, pW), got {padding!r}")
    if min(p) < 0:
        raise ValueError(f"For '{name}', 'padding' must be >= 0, got {padding!r}")
    return p[0], p[0], p[1], p[1]


def avg_pool2d(
    input_x: Any,
    kernel_size: Any = 1,
    stride: Any = 1,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = 0,
) -> Any:
    """`ops.avg_pool2d`: `padding` is an int or (top, bottom, left, right)."""
    name = "avg_pool2d"
    pads = four_pads(padding, name)
    if not divisor_override:
        return pool2d(
            "avg", input_x, kernel_size, stride, pads, (1, 1), ceil_mode, count_include_pad, name
        )
    divisor = divisor_override
    if isinstance(divisor, bool) or not isinstance(divisor, int) or divisor < 0:
        raise ValueError(
            f"For '{name}', 'divisor_override' must be a positive int, got {divisor!r}"
        )
    if ceil_mode:
        raise NotImplementedError(
            f"For '{name}', divisor_override with ceil_mode=True is not supported yet"
        )
    # every window counts kh * kw elements with the padding: sum = mean * kh * kw
    k = pair(kernel_size, name, "kernel_size")
    mean = pool2d("avg", input_x, k, stride, pads, (1, 1), False, True, name)
    return mul(mean, k[0] * k[1] / divisor)


def pad(input_x: Any, padding: Sequence[int], mode: str = "constant", value: Any = None) -> Any:
    """`ops.pad`: (left, right) pairs from the last axis backwards, as torch's pad;
    negative values crop. Only mode "constant"."""
    name = "pad"
    x = _tensor(input_x, name)
    if mode != "constant":
        raise NotImplementedError(f"For '{name}', only mode 'constant' is supported, got '{mode}'")
    if (
        not isinstance(padding, tuple | list)
        or len(padding) % 2
        or any(isinstance(v, bool) or not isinstance(v, int) for v in padding)
    ):
        raise TypeError(f"For '{name}', 'padding' must be a tuple of an even number of ints")
    rank = len(x.shape)
    if len(padding) // 2 > rank:
        raise ValueError(
            f"For '{name}', 'padding' pads {len(padding) // 2} axes but the input has {rank}"
        )
    low, high = [0] * rank, [0] * rank
    for i in range(len(padding) // 2):
        low[rank - 1 - i], high[rank - 1 - i] = padding[2 * i], padding[2 * i + 1]
    for a in range(rank):
        if x.shape[a] + low[a] + high[a] < 0:
            raise ValueError(f"For '{name}', padding {tuple(padding)} crops more than axis {a} has")
    fill = 0.0 if value is None else float(value)
    key = (name, tuple(low), tuple(high), fill)
    return run(key, lambda e, v: e.value(M.PadOp.get(v[0], low, high, None, fill)), x)


def flip(input: Any, dims: Any) -> Any:
    """`ops.flip(input, dims)`: the elements of each axis in `dims` reversed."""
    x = _tensor(input, "flip")
    axes = normalize_axes(dims, len(x.shape), "flip")
    if not axes:
        raise ValueError("For 'flip', 'dims' must name at least one axis")
    return run(("flip", axes), lambda e, v: e.value(M.ReverseOp.get(v[0], axes)), x)
