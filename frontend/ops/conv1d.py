"""`ops.conv1d` (NCW): a conv2d over an (N, C, 1, W) view, as MindSpore itself does.

The weight (C_out, C_in / groups, k) becomes (C_out, C_in / groups, 1, k), the
stride, dilation and padding act on the last axis only, and the size-1 axis is
squeezed away again, so the mindir program is expand_dims + conv2d + squeeze.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.ops.array import expand_dims, reshape, squeeze
from mindjit.frontend.ops.conv import conv2d_padded, resolve_pads
from mindjit.frontend.ops.math import _tensor, add
from mindjit.frontend.ops.promotion import is_tensor


def _one(value: Any, what: str, name: str, minimum: int) -> int:
    """An int or a tuple / list of one int."""
    v = value[0] if isinstance(value, tuple | list) and len(value) == 1 else value
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(
            f"For '{name}', '{what}' must be an int or a tuple of one int, got {value!r}"
        )
    if v < minimum:
        raise ValueError(f"For '{name}', '{what}' must be >= {minimum}, got {value!r}")
    return v


def _ncw(x: Any, what: str, name: str) -> Any:
    t = _tensor(x, name)
    if len(t.shape) != 3:
        raise ValueError(f"For '{name}', the {what} must be 3-D, got shape {tuple(t.shape)}")
    return t


def conv1d(
    input: Any,
    weight: Any,
    bias: Any = None,
    stride: Any = 1,
    pad_mode: str = "valid",
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Any:
    """`ops.conv1d`: `padding` is an int (both sides) or (left, right), pad_mode "pad"."""
    name = "conv1d"
    x = _ncw(input, "input (N, C_in, L)", name)
    w = _ncw(weight, "weight (C_out, C_in / groups, k)", name)
    s = _one(stride, "stride", name, 1)
    d = _one(dilation, "dilation", name, 1)
    if isinstance(padding, tuple | list) and len(padding) == 2:
        lr = (_one(padding[0], "padding", name, 0), _one(padding[1], "padding", name, 0))
    else:
        p = _one(padding, "padding", name, 0)
        lr = (p, p)
    x4, w4 = expand_dims(x, 2), expand_dims(w, 2)
    pads = resolve_pads(name, pad_mode, (0, 0, *lr), x4.shape[2:], w4.shape[2:], (1, s), (1, d))
    out = conv2d_padded(x4, w4, (1, s), (1, d), pads, groups, name)
    out = squeeze(out, 2)
    if bias is not None:
        if not is_tensor(bias):
            raise TypeError(f"For '{name}', 'bias' must be a Tensor, got {type(bias).__name__}")
        if tuple(bias.shape) != (w.shape[0],):
            raise ValueError(
                f"For '{name}', 'bias' must have shape ({w.shape[0]},), got {tuple(bias.shape)}"
            )
        out = add(out, reshape(bias, (1, w.shape[0], 1)))
    return out
