"""MindSpore's image resizes on (N, C, H, W): `ResizeNearestNeighbor(size,
align_corners=False, half_pixel_centers=False)` and `ResizeBilinear(size,
align_corners=False, half_pixel_centers=False)` (also what `nn.ResizeBilinear`
calls).

They map an output position i to a source coordinate as TensorFlow's kernels
do (MindSpore's), with scale = in / out:

    align_corners:      src = i * (in - 1) / (out - 1)     (0 when out == 1)
    half_pixel_centers: src = (i + 0.5) * scale - 0.5      (nearest: floor((i + 0.5) * scale))
    otherwise:          src = i * scale

Nearest takes floor(src) (round(src) with align_corners), clamped to the last
row; bilinear weights floor(src) and the next row by 1 - t and t. This is not
`ops.interpolate`'s mapping (PyTorch's: half-pixel for bilinear), which is why
the results differ from it; MindSpore documents nn.ResizeBilinear's own example
(a 2x4 image to 5x5) and the tests check it.

ResizeBilinear takes float inputs (MindSpore: float16 and float32; float64 too
here, which MindSpore's ResizeBilinearV2 also takes); nearest takes any dtype.

Nearest is a `gather` per axis at constant indices (data movement: exact, and
its gradient adds the output's gradient into the rows it read); bilinear is
A_h @ x @ A_w^T with constant matrices, like interpolate.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend.ops.gather_ops import gather
from mindjit.frontend.ops.interpolate import linear_matrix
from mindjit.frontend.ops.math import matmul
from mindjit.frontend.ops.promotion import constant
from mindjit.frontend.ops.split import require_tensor
from mindjit.frontend.tensor import Tensor


def check_size(size: Any, name: str) -> tuple[int, int]:
    if not isinstance(size, tuple | list):
        raise TypeError(f"For '{name}', 'size' must be a tuple or a list, but got {size!r}")
    if len(size) != 2:
        raise ValueError(f"For '{name}', the length of 'size' must be 2, but got {len(size)}")
    for v in size:
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValueError(f"For '{name}', 'size' must hold two positive ints, but got {size}")
    return int(size[0]), int(size[1])


def check_flags(align_corners: Any, half_pixel_centers: Any, name: str) -> tuple[bool, bool]:
    for what, v in (("align_corners", align_corners), ("half_pixel_centers", half_pixel_centers)):
        if not isinstance(v, bool):
            raise TypeError(f"For '{name}', '{what}' must be a bool, but got {v!r}")
    if align_corners and half_pixel_centers:
        raise ValueError(
            f"For '{name}', 'align_corners' and 'half_pixel_centers' cannot both be True"
        )
    return align_corners, half_pixel_centers


def _image(x: Any, name: str, floats_only: bool) -> Any:
    x = require_tensor(x, name, "x")
    if len(x.shape) != 4:
        raise ValueError(f"For '{name}', the input must be 4-D (N, C, H, W), but got {x.shape}")
    if floats_only and not x.dtype.is_float:
        raise TypeError(f"For '{name}', the dtype of 'x' must be float16 or float32, got {x.dtype}")
    return x


def _positions(n: int, m: int, align_corners: bool, half_pixel: bool, nearest: bool) -> np.ndarray:
    i = np.arange(m, dtype=np.float64)
    if align_corners:
        return i * ((n - 1) / (m - 1)) if m > 1 else np.zeros(m)
    if half_pixel:
        return (i + 0.5) * (n / m) - (0.0 if nearest else 0.5)
    return i * (n / m)


def nearest_indices(n: int, m: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    """The source row of each of the m output rows."""
    pos = _positions(n, m, align_corners, half_pixel, nearest=True)
    src = np.floor(pos + 0.5) if align_corners else np.floor(pos)  # round half away from 0
    return np.clip(src, 0, n - 1).astype(np.int32)


def resize_nearest_neighbor(x: Any, size: Any, align_corners: bool, half_pixel: bool) -> Any:
    name = "ResizeNearestNeighbor"
    x = _image(x, name, floats_only=False)
    out = check_size(size, name)
    for axis, m in ((2, out[0]), (3, out[1])):
        n = x.shape[axis]
        idx = nearest_indices(n, m, align_corners, half_pixel)
        if m != n or not np.array_equal(idx, np.arange(n)):
            x = gather(x, Tensor(idx), axis)
    return x


def resize_bilinear(x: Any, size: Any, align_corners: bool, half_pixel: bool) -> Any:
    name = "ResizeBilinear"
    x = _image(x, name, floats_only=True)
    out_h, out_w = check_size(size, name)
    n_h, n_w = x.shape[2], x.shape[3]
    if (out_h, out_w) != (n_h, n_w):  # the same size maps every row to itself
        a_h = linear_matrix(_positions(n_h, out_h, align_corners, half_pixel, False), n_h)
        a_w = linear_matrix(_positions(n_w, out_w, align_corners, half_pixel, False), n_w)
        x = matmul(constant(a_h, x.dtype), x)
        x = matmul(x, constant(a_w, x.dtype), transpose_b=True)
    return x


__all__ = ["check_flags", "check_size", "resize_bilinear", "resize_nearest_neighbor"]
