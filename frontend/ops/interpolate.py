"""`ops.interpolate` for 3-D (N, C, W) and 4-D (N, C, H, W) inputs, modes 'nearest',
'linear' (3-D) and 'bilinear' (4-D).

Resizing one axis from n to m is linear in the input: out = A @ x with a constant
(m, n) matrix, so a 4-D resize is A_h @ x @ A_w^T, two `mindir.matmul`s whose
gradient, batching and lowering every engine already has. A row of A holds the
interpolation weights of one output position, from MindSpore 2.x's coordinate
mapping (the source coordinate is computed from the lengths):

    align_corners=True:  src = i * (n - 1) / (m - 1)          (0 when m == 1)
    align_corners=False: src = (i + 0.5) * n / m - 0.5         (0 when m == 1)

clamped to [0, n - 1]; linear weights 1 - t and t on floor(src) and the next
position. 'nearest' picks floor(i * n / m) (OpenCV's INTER_NEAREST, as MindSpore
documents). Nearest resizing by an integer factor is exact data movement instead
(each element repeated k times, or every k-th taken), so it never multiplies:
a 0/1 matrix would turn one inf into NaNs along its row (other nearest resizes
do use the 0/1 matrix, with that caveat).

A scale_factor s gives the size floor(n * s) and the mapping above from the
lengths, which is what MindSpore does with recompute_scale_factor=True (some 2.x
versions reject a scale_factor for these modes without it; versions that map
with 1 / s agree whenever n * s is whole, e.g. the usual factor 2).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend.ops.math import matmul
from mindjit.frontend.ops.promotion import constant
from mindjit.frontend.ops.repeat import repeat_interleave
from mindjit.frontend.ops.split import require_tensor

_MODES = ("nearest", "linear", "bilinear")
_OTHER_MODES = ("bicubic", "trilinear", "area", "nearest-exact")


def axis_matrix(n: int, m: int, mode: str, align_corners: bool) -> np.ndarray:
    """The (m, n) float64 matrix resizing one axis of length n to length m."""
    out = np.zeros((m, n), dtype=np.float64)
    rows = np.arange(m)
    if mode == "nearest":
        src = np.minimum(np.floor(rows * (n / m)).astype(np.int64), n - 1)
        out[rows, src] = 1.0
        return out
    if m == 1:
        pos = np.zeros(1)
    elif align_corners:
        pos = rows * ((n - 1) / (m - 1))
    else:
        pos = (rows + 0.5) * (n / m) - 0.5
    return linear_matrix(pos, n)


def linear_matrix(pos: np.ndarray, n: int) -> np.ndarray:
    """The (len(pos), n) matrix of linear interpolation at the source coordinates
    `pos` (clamped to [0, n - 1]): weights 1 - t and t on floor(pos) and the next."""
    m = len(pos)
    out = np.zeros((m, n), dtype=np.float64)
    rows = np.arange(m)
    pos = np.clip(pos, 0.0, n - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, n - 1)
    t = pos - lo
    np.add.at(out, (rows, lo), 1.0 - t)
    np.add.at(out, (rows, hi), t)
    return out


def _resize_axis(x: Any, axis: int, m: int, mode: str, align_corners: bool) -> Any:
    """`x` with axis `axis` (-1 or -2) resized to length m."""
    n = x.shape[axis]
    if n == m:
        return x
    if mode == "nearest" and m % n == 0:
        return repeat_interleave(x, m // n, len(x.shape) + axis)
    if mode == "nearest" and n % m == 0:
        k = n // m
        return x[..., ::k] if axis == -1 else x[..., ::k, :]
    weights = constant(axis_matrix(n, m, mode, align_corners), x.dtype)
    if axis == -1:
        return matmul(x, weights, transpose_b=True)
    return matmul(weights, x)


def _per_axis(value: Any, count: int, name: str, what: str, kind: type) -> tuple[Any, ...]:
    ok = (
        (lambda v: isinstance(v, int) and not isinstance(v, bool))
        if kind is int
        else (lambda v: isinstance(v, int | float) and not isinstance(v, bool))
    )
    if ok(value):
        return (value,) * count
    if isinstance(value, tuple | list) and all(ok(v) for v in value):
        if len(value) != count:
            raise ValueError(
                f"For '{name}', '{what}' must have {count} elements for this input, got {value}"
            )
        return tuple(value)
    raise TypeError(f"For '{name}', '{what}' must be a {kind.__name__} or a tuple, got {value!r}")


def interpolate(
    input: Any,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
) -> Any:
    """`ops.interpolate(input, size=None, scale_factor=None, mode='nearest',
    align_corners=None, recompute_scale_factor=None)`."""
    name = "interpolate"
    x = require_tensor(input, name)
    if not x.dtype.is_float:
        raise TypeError(f"For '{name}', 'input' must be a float tensor, got {x.dtype}")
    if not isinstance(mode, str):
        raise TypeError(f"For '{name}', 'mode' must be a str, got {mode!r}")
    if mode in _OTHER_MODES:
        raise NotImplementedError(f"For '{name}', mode {mode!r} is not supported")
    if mode not in _MODES:
        raise ValueError(f"For '{name}', 'mode' must be one of {_MODES}, got {mode!r}")
    rank = len(x.shape)
    if rank not in (3, 4):
        raise ValueError(f"For '{name}', 'input' must be 3-D or 4-D, got shape {x.shape}")
    if mode == "linear" and rank != 3:
        raise ValueError(f"For '{name}', mode 'linear' needs a 3-D input, got shape {x.shape}")
    if mode == "bilinear" and rank != 4:
        raise ValueError(f"For '{name}', mode 'bilinear' needs a 4-D input, got shape {x.shape}")
    if align_corners is not None:
        if not isinstance(align_corners, bool):
            raise TypeError(f"For '{name}', 'align_corners' must be a bool, got {align_corners!r}")
        if mode == "nearest":
            raise ValueError(
                f"For '{name}', 'align_corners' can only be set with 'linear' and "
                f"'bilinear', not with mode 'nearest'"
            )
    if (size is None) == (scale_factor is None):
        raise ValueError(f"For '{name}', exactly one of 'size' and 'scale_factor' must be given")
    spatial = tuple(x.shape[2:])
    if size is not None:
        if recompute_scale_factor is not None:
            raise ValueError(
                f"For '{name}', 'recompute_scale_factor' is only meaningful with 'scale_factor'"
            )
        out = _per_axis(size, rank - 2, name, "size", int)
    else:
        scales = _per_axis(scale_factor, rank - 2, name, "scale_factor", float)
        if any(s <= 0 for s in scales):
            raise ValueError(f"For '{name}', 'scale_factor' must be positive, got {scale_factor}")
        out = tuple(int(math.floor(n * s)) for n, s in zip(spatial, scales))
    if any(m <= 0 for m in out):
        raise ValueError(f"For '{name}', the output size must be positive, got {out}")
    corners = bool(align_corners)
    y = x
    for axis, m in zip(range(-(rank - 2), 0), out):
        y = _resize_axis(y, axis, m, mode, corners)
    return y
