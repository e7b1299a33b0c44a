"""`ops.lp_pool1d` / `ops.lp_pool2d` (and nn.LPPool1d / LPPool2d, which call them):
(sign(a) * relu(|a|) * k) ** (1 / p), a the average pool of x ** p over windows of
k elements (stride = kernel_size by default, no padding, ceil_mode as in the
average pools), as MindSpore 2.10 computes it. A negative x with a fractional
power makes a NaN average, which MindSpore's CPU Sign / ReLU turn into 0. lp_pool1d takes (C, L) or (N, C, L),
lp_pool2d (N, C, H, W); MindSpore's pools run as AvgPool3D, whose rank errors
these repeat.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.ops.array import expand_dims, squeeze, zeros_like
from mindjit.frontend.ops.conv import avg_pool2d
from mindjit.frontend.ops.math import abs, mul, pow, relu, select
from mindjit.frontend.ops.math_functions import isnan, sign


def norm_type_of(norm_type: Any, name: str) -> float:
    if isinstance(norm_type, bool) or not isinstance(norm_type, float | int):
        raise TypeError(
            f"For {name}, the type of 'norm_type' must be float or int, but got {type(norm_type)}"
        )
    if norm_type == 0:
        raise ValueError(f"For {name}, the value of 'norm_type' can not be 0.")
    return float(norm_type)


def _lp(x: Any, p: float, kernel: tuple[int, int], stride: Any, ceil_mode: bool) -> Any:
    out = avg_pool2d(pow(x, p), kernel, stride, 0, ceil_mode)
    scaled = mul(mul(sign(out), relu(abs(out))), float(kernel[0] * kernel[1]))
    # MindSpore's CPU Sign and ReLU give 0 for NaN (a negative x ** fractional p): 0 there
    scaled = select(isnan(out), zeros_like(out), scaled)
    return pow(scaled, 1.0 / p)


def lp_pool1d(
    x: Any, norm_type: Any, kernel_size: int, stride: Any = None, ceil_mode: bool = False
) -> Any:
    """`ops.lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False)`."""
    p = norm_type_of(norm_type, "lp_pool1d")
    k = kernel_size
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(
            f"For 'avg_pool1d', the 'kernel_size' must be int and must >= 1, but got '{k}' "
            f"with type '{type(k).__name__}'."
        )
    rank = len(x.shape)
    if rank not in (2, 3):
        raise ValueError(
            f"For primitive[AvgPool3D], the x_rank must be equal to 5, but got {rank + 3}."
        )
    s = k if stride is None else stride
    s = s[0] if isinstance(s, tuple | list) else s
    x4 = expand_dims(x, -2)
    if rank == 2:
        x4 = expand_dims(x4, 0)
    out = squeeze(_lp(x4, p, (1, k), (1, s), ceil_mode), -2)
    return squeeze(out, 0) if rank == 2 else out


def lp_pool2d(
    x: Any, norm_type: Any, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
) -> Any:
    """`ops.lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False)`."""
    p = norm_type_of(norm_type, "lp_pool2d")
    if len(x.shape) != 4:
        raise ValueError(
            f"For primitive[AvgPool3D], the x_rank must be equal to 5, but got {len(x.shape) + 1}."
        )
    kernel = tuple(kernel_size) if isinstance(kernel_size, tuple | list) else (kernel_size,) * 2
    if stride is None:
        s = kernel
    else:
        s = tuple(stride) if isinstance(stride, tuple | list) else (stride, stride)
    return _lp(x, p, kernel, s, ceil_mode)
