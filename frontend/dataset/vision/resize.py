"""Image resizing in numpy, as OpenCV's `cv::resize` (which MindSpore's Resize
calls) computes it, for the two modes mindjit implements.

- NEAREST: output pixel x reads source pixel floor(x * in / out).
- BILINEAR: output pixel x samples the source at (x + 0.5) * in / out - 0.5
  (pixel centres aligned), clamped to the image, between the two neighbours.
  On uint8 images OpenCV weighs with 11-bit fixed-point coefficients and
  rounds after both passes; this does the same integer arithmetic (written
  from OpenCV's resize.cpp; OpenCV is not installed here to compare with, and
  its vectorised vertical pass rounds in steps, so a pixel may differ by 1).
  Float images are weighed in float64 and cast back; other integer types are
  rounded and clipped.
"""

from __future__ import annotations

import numpy as np

from mindjit.frontend.dataset.vision.image import hw_axes

_COEF_BITS = 11  # OpenCV's INTER_RESIZE_COEF_BITS
_COEF_SCALE = 1 << _COEF_BITS


def nearest_index(n_in: int, n_out: int) -> np.ndarray:
    return np.minimum(np.floor(np.arange(n_out) * (n_in / n_out)).astype(np.int64), n_in - 1)


def linear_taps(n_in: int, n_out: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each output pixel: the left source index, the right one, and the
    right one's weight."""
    f = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
    left = np.floor(f).astype(np.int64)
    frac = f - left
    frac[left < 0] = 0.0
    left[left < 0] = 0
    past = left >= n_in - 1
    frac[past], left[past] = 0.0, n_in - 1
    return left, np.minimum(left + 1, n_in - 1), frac


def resize(img: np.ndarray, height: int, width: int, nearest: bool) -> np.ndarray:
    ha, wa = hw_axes(img)
    h, w = img.shape[ha], img.shape[wa]
    if nearest:
        return np.take(np.take(img, nearest_index(h, height), axis=ha), nearest_index(w, width), wa)
    y0, y1, fy = linear_taps(h, height)
    x0, x1, fx = linear_taps(w, width)
    shape_y = [1] * img.ndim
    shape_y[ha] = height
    shape_x = [1] * img.ndim
    shape_x[wa] = width
    if img.dtype == np.uint8:  # OpenCV's fixed point: 11-bit weights, one rounding at the end
        ax1 = np.rint(fx * _COEF_SCALE).astype(np.int64)
        ax0 = np.rint((1.0 - fx) * _COEF_SCALE).astype(np.int64)
        by1 = np.rint(fy * _COEF_SCALE).astype(np.int64)
        by0 = np.rint((1.0 - fy) * _COEF_SCALE).astype(np.int64)
        src = img.astype(np.int64)
        rows = np.take(src, x0, wa) * ax0.reshape(shape_x) + np.take(src, x1, wa) * ax1.reshape(
            shape_x
        )
        out = np.take(rows, y0, ha) * by0.reshape(shape_y) + np.take(rows, y1, ha) * by1.reshape(
            shape_y
        )
        out = (out + (1 << (2 * _COEF_BITS - 1))) >> (2 * _COEF_BITS)
        return np.clip(out, 0, 255).astype(np.uint8)
    src = img.astype(np.float64)
    fxr, fyr = fx.reshape(shape_x), fy.reshape(shape_y)
    rows = np.take(src, x0, wa) * (1 - fxr) + np.take(src, x1, wa) * fxr
    out = np.take(rows, y0, ha) * (1 - fyr) + np.take(rows, y1, ha) * fyr
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    return out.astype(img.dtype)
