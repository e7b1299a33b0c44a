"""`nn.Unfold(ksizes, strides, rates, padding='valid')`: the image patches of an
(N, C, H, W) input, MindSpore's ExtractImagePatches (TensorFlow's
extract_image_patches on NCHW):

    out[n, (i * k_col + j) * C + c, y, x]
        = in[n, c, y * stride_row + i * rate_row, x * stride_col + j * rate_col]

so the output depth k_row * k_col * C runs over the kernel rows, then its
columns, then the channels (the channel fastest, TensorFlow's order).
ksizes, strides and rates are written [1, row, col, 1], as MindSpore takes them.
'valid' keeps the patches inside the image: out_row = (H - (k_row - 1) * rate_row
- 1) // stride_row + 1; 'same' pads with zeros (TensorFlow's split: the extra
row at the bottom/right) to out_row = ceil(H / stride_row).

Each patch position is one strided slice of the input, and the slices are
stacked: data movement whose gradient adds into the positions it read.
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell


def _window(arg: str, value: Any) -> tuple[int, int]:
    if not isinstance(value, tuple | list):
        raise TypeError(
            f"For 'Unfold', the '{arg}s' must be a tuple or a list, but got {type(value).__name__}"
        )
    if len(value) != 4 or value[0] != 1 or value[3] != 1:
        raise ValueError(
            f"For 'Unfold' the format of '{arg}s' must be [1, {arg}_row, {arg}_col, 1], but got "
            f"{value}."
        )
    row, col = value[1], value[2]
    for v in (row, col):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(
                f"For 'Unfold' the {arg}_row and {arg}_col in '{arg}s' must be an positive integer "
                f"number, but got {arg}_row is {row}, {arg}_col is {col}"
            )
    return row, col


def _axis_plan(size: int, k: int, stride: int, rate: int, same: bool) -> tuple[int, int, int]:
    """(output length, zeros before, zeros after) along one axis."""
    span = (k - 1) * rate + 1
    if same:
        out = math.ceil(size / stride)
        total = max((out - 1) * stride + span - size, 0)
        return out, total // 2, total - total // 2
    return (size - span) // stride + 1, 0, 0


def extract_patches(
    x: Any, ksizes: tuple[int, int], strides: tuple[int, int], rates: tuple[int, int], same: bool
) -> Any:
    """The patches of the (N, C, H, W) tensor x, (N, k_row * k_col * C, out_row, out_col)."""
    if not ops.is_tensor(x) or len(x.shape) != 4:
        raise ValueError(f"For 'Unfold', the input must be a 4-D tensor (N, C, H, W), got {x!r}")
    n, c, h, w = x.shape
    out_h, top, bottom = _axis_plan(h, ksizes[0], strides[0], rates[0], same)
    out_w, left, right = _axis_plan(w, ksizes[1], strides[1], rates[1], same)
    if out_h < 1 or out_w < 1:
        raise ValueError(
            f"For 'Unfold', the kernel with its rates does not fit the input: the output "
            f"would be {out_h} x {out_w}"
        )
    if top or bottom or left or right:
        x = ops.pad(x, (left, right, top, bottom))
    pieces = []
    for i in range(ksizes[0]):
        for j in range(ksizes[1]):
            r0, c0 = i * rates[0], j * rates[1]
            rows = slice(r0, r0 + (out_h - 1) * strides[0] + 1, strides[0])
            cols = slice(c0, c0 + (out_w - 1) * strides[1] + 1, strides[1])
            pieces.append(x[:, :, rows, cols])
    stacked = ops.stack(pieces, 1)  # (N, k_row * k_col, C, out_h, out_w)
    return ops.reshape(stacked, (n, ksizes[0] * ksizes[1] * c, out_h, out_w))


class Unfold(Cell):
    """`nn.Unfold(ksizes, strides, rates, padding='valid')` (see the module doc)."""

    def __init__(self, ksizes: Any, strides: Any, rates: Any, padding: str = "valid"):
        super().__init__()
        self.ksizes = _window("ksize", ksizes)
        self.strides = _window("stride", strides)
        self.rates = _window("rate", rates)
        if not isinstance(padding, str):
            raise TypeError(f"For 'Unfold', 'padding' must be a str, but got {padding!r}")
        if padding.lower() not in ("same", "valid"):
            raise ValueError(
                f"For 'Unfold', 'padding' must be 'same' or 'valid', but got '{padding}'"
            )
        self.padding = padding.lower()

    def construct(self, x):
        return extract_patches(x, self.ksizes, self.strides, self.rates, self.padding == "same")
