"""3-d pooling (`ops.max_pool3d`, `ops.avg_pool3d`) and `ops.avg_pool1d`, NCDHW / NCL.

A box window is separable: its maximum is the maximum over the depth taps of
the (H, W) window's maximum, and its average (MindSpore's divisor is a product
of per-axis counts, with or without the padding) is the average along D of
the (H, W) averages. So a 3-d pool is two mindir 2-d pools: one over
(N, C * D, H, W), one over (N, C, D, OH * OW) with a (kd, 1) window; every
stage (gradient, vmap, device) is the 2-d one's. `divisor_override` divides a
window's sum: the input is zero padded (with the ceil_mode overhang) and
averaged over whole windows, times kd * kh * kw / divisor. The indices of
`return_indices` (flat into D * H * W, int64) come from
frontend/ops/pool_indices.py. avg_pool1d is the 2-d pool over (N, C, 1, L).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.ops.array import expand_dims, reshape, squeeze
from mindjit.frontend.ops.conv import pad, pool2d, pool_output_extra
from mindjit.frontend.ops.conv3d import six_pads, triple
from mindjit.frontend.ops.math import _tensor, mul
from mindjit.frontend.ops.pool_indices import argmax_indices, window_taps


def _x5(x: Any, name: str, prim: str) -> Any:
    t = _tensor(x, name)
    if len(t.shape) != 5:
        raise ValueError(
            f"For primitive[{prim}], the x_rank must be equal to 5, but got {len(t.shape)}."
        )
    if not t.dtype.is_float:
        raise TypeError(f"For '{name}', the input must be a float tensor, got {t.dtype}")
    return t


def pool3d(
    kind: str,
    x: Any,
    kernel: tuple[int, int, int],
    stride: tuple[int, int, int],
    pads: tuple[int, ...],
    dilation: tuple[int, int, int] = (1, 1, 1),
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    name: str = "max_pool3d",
) -> Any:
    """A max or average 3-d pool with explicit (head, tail, top, bottom, left, right) pads."""
    n, c, d, h, w = x.shape
    y = x
    if kernel[1:] != (1, 1) or stride[1:] != (1, 1) or any(pads[2:]):
        y = reshape(x, (n, c * d, h, w))
        y = pool2d(kind, y, kernel[1:], stride[1:], pads[2:], dilation[1:], ceil_mode,
                   count_include_pad, name)  # fmt: skip
    oh, ow = y.shape[-2:]
    od = d
    if kernel[0] != 1 or stride[0] != 1 or any(pads[:2]):
        y = pool2d(kind, reshape(y, (n, c, d, oh * ow)), (kernel[0], 1), (stride[0], 1),
                   (pads[0], pads[1], 0, 0), (dilation[0], 1), ceil_mode, count_include_pad,
                   name)  # fmt: skip
        od = y.shape[2]
    return reshape(y, (n, c, od, oh, ow))


def _extras(x: Any, k, s, d, pads, ceil_mode: bool) -> tuple[int, int, int]:
    return tuple(
        pool_output_extra(x.shape[2 + a], k[a], s[a], d[a], pads[2 * a], pads[2 * a + 1], ceil_mode)
        for a in range(3)
    )


def avg_pool3d(
    input_x: Any,
    kernel_size: Any = 1,
    stride: Any = 1,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int = 0,
) -> Any:
    """`ops.avg_pool3d`: `padding` an int or (head, tail, top, bottom, left, right)."""
    name = "avg_pool3d"
    x = _x5(input_x, name, "AvgPool3D")
    k, s = triple(kernel_size, name, "kernel_size"), triple(stride, name, "stride")
    pads = six_pads(padding, name)
    for what, v in (("ceil_mode", ceil_mode), ("count_include_pad", count_include_pad)):
        if not isinstance(v, bool):
            raise TypeError(f"For '{name}', '{what}' must be a bool, got {type(v).__name__}")
    if isinstance(divisor_override, bool) or not isinstance(divisor_override, int | None):
        raise TypeError(
            f"For '{name}', 'divisor_override' must be an int, got {divisor_override!r}"
        )
    if divisor_override and divisor_override < 0:
        raise ValueError(f"For '{name}', 'divisor_override' must be > 0, got {divisor_override}")
    return avg_pool3d_padded(x, k, s, pads, ceil_mode, count_include_pad, divisor_override, name)


def avg_pool3d_padded(
    x: Any, k, s, pads, ceil_mode: bool, count_include_pad: bool, divisor: int | None, name: str
) -> Any:
    """avg_pool3d with explicit pads; a `divisor` divides each window's sum."""
    if not divisor:
        return pool3d("avg", x, k, s, pads, (1, 1, 1), ceil_mode, count_include_pad, name)
    extra = _extras(x, k, s, (1, 1, 1), pads, ceil_mode)
    widths: list[int] = []
    for a in (2, 1, 0):
        widths += [pads[2 * a], pads[2 * a + 1] + extra[a]]
    mean = pool3d("avg", pad(x, tuple(widths)), k, s, (0,) * 6, name=name)
    return mul(mean, k[0] * k[1] * k[2] / divisor)


def max_pool3d_padded(
    x: Any, kernel, stride, pads, dilation, ceil_mode: bool, return_indices: bool, name: str
) -> Any:
    """max_pool3d with explicit pads; with return_indices (output, int64 flat index)."""
    out = pool3d("max", x, kernel, stride, pads, dilation, ceil_mode, name=name)
    if not return_indices:
        return out
    taps = [
        window_taps(
            x.shape[2 + a], out.shape[2 + a], kernel[a], stride[a], dilation[a], pads[2 * a]
        )
        for a in range(3)
    ]
    return out, argmax_indices(x, out, taps)


def max_pool3d(
    x: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """`ops.max_pool3d`: stride defaults to the kernel; `padding` an int or 3 ints."""
    name = "max_pool3d"
    x = _x5(x, name, "MaxPool3DWithArgmax")
    k = triple(kernel_size, name, "kernel_size")
    s = k if stride is None else triple(stride, name, "stride")
    p = triple(padding, name, "padding", 0)
    dl = triple(dilation, name, "dilation")
    for a in range(3):
        if p[a] * 2 > k[a]:
            raise ValueError(f"For '{name}', 'padding' must be at most half the kernel size")
    pads = tuple(v for v in p for _ in range(2))
    return max_pool3d_padded(x, k, s, pads, dl, ceil_mode, return_indices, name)


def _one(value: Any, name: str, what: str, minimum: int) -> int:
    v = value[0] if isinstance(value, tuple | list) and len(value) == 1 else value
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"For '{name}', '{what}' must be an int, got {value!r}")
    if v < minimum:
        raise ValueError(f"For '{name}', '{what}' must be >= {minimum}, got {value!r}")
    return v


def avg_pool1d(
    input_x: Any,
    kernel_size: int = 1,
    stride: Any = 1,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Any:
    """`ops.avg_pool1d` over (N, C, L)."""
    name = "avg_pool1d"
    x = _tensor(input_x, name)
    if len(x.shape) != 3:
        raise ValueError(
            f"For primitive[AvgPool3D], the x_rank must be equal to 5, but got {len(x.shape) + 2}."
        )
    k = _one(kernel_size, name, "kernel_size", 1)
    s = _one(stride, name, "stride", 1)
    p = _one(padding, name, "padding", 0)
    for what, v in (("ceil_mode", ceil_mode), ("count_include_pad", count_include_pad)):
        if not isinstance(v, bool):
            raise TypeError(f"For '{name}', '{what}' must be a bool, got {type(v).__name__}")
    y = pool2d("avg", expand_dims(x, 2), (1, k), (1, s), (0, 0, p, p), (1, 1), ceil_mode,
               count_include_pad, name)  # fmt: skip
    return squeeze(y, 2)
