"""Sliding blocks (`ops.unfold`, `ops.fold`, `ops.col2im`; Tensor.unfold / fold / col2im).

- unfold (im2col) of (N, C, H, W): per kernel tap (a, b), in row-major order,
  the strided slice of the zero padded input starting at (a * dh, b * dw);
  stacked as (N, C, kh * kw, L) and read as (N, C * kh * kw, L), L = oh * ow.
- col2im of (N, C, kh * kw, L) to (N, C, H, W) is its adjoint: each tap's
  (oh, ow) block gets stride - 1 zeros between its elements, is padded into
  place in the (H + 2 ph, W + 2 pw) canvas, the taps are summed (overlaps
  add up) and the padding cropped. fold is col2im of the (N, C, kh * kw, L)
  view of its (N, C * kh * kw, L) input.
All are pad / slice / stack / reshape compositions, so gradients and graph
mode come with them. `output_size` is MindSpore's int Tensor of 2 elements:
its values set the output's shape, so a graph needs it constant.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import reshape, stack
from mindjit.frontend.ops.conv import pad
from mindjit.frontend.ops.conv3d import _dilate
from mindjit.frontend.ops.gather_ops import known
from mindjit.frontend.ops.indexing import getitem
from mindjit.frontend.ops.math import _tensor, addn
from mindjit.frontend.ops.promotion import is_tensor


def _pair(value: Any, name: str, what: str, minimum: int) -> tuple[int, int]:
    values = (value, value) if isinstance(value, int) else value
    if isinstance(values, tuple | list) and len(values) == 1:
        values = (values[0], values[0])
    if (
        not isinstance(values, tuple | list)
        or len(values) != 2
        or any(isinstance(v, bool) or not isinstance(v, int) for v in values)
    ):
        raise TypeError(
            f"For '{name}', '{what}' must be an int or a tuple / list of two ints, got {value!r}"
        )
    if min(values) < minimum:
        raise ValueError(f"For '{name}', '{what}' must be >= {minimum}, got {value!r}")
    return values[0], values[1]


def _blocks(size: int, k: int, d: int, p: int, s: int) -> int:
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def unfold(
    input: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Any:
    """`ops.unfold`: (N, C, H, W) -> (N, C * kh * kw, L)."""
    name = "Im2Col"
    x = _tensor(input, name)
    if len(x.shape) != 4:
        raise ValueError(f"For '{name}', the input must be 4-D, but got shape {tuple(x.shape)}")
    k = _pair(kernel_size, name, "kernel_size", 1)
    d = _pair(dilation, name, "dilation", 1)
    p = _pair(padding, name, "padding", 0)
    s = _pair(stride, name, "stride", 1)
    n, c, h, w = x.shape
    oh, ow = (_blocks(h, k[0], d[0], p[0], s[0]), _blocks(w, k[1], d[1], p[1], s[1]))
    if oh < 1 or ow < 1:
        raise ValueError(f"For '{name}', the kernel {k} does not fit the padded input")
    xp = pad(x, (p[1], p[1], p[0], p[0])) if any(p) else x
    taps = []
    for a in range(k[0]):
        for b in range(k[1]):
            top, left = a * d[0], b * d[1]
            rows = slice(top, top + (oh - 1) * s[0] + 1, s[0])
            cols = slice(left, left + (ow - 1) * s[1] + 1, s[1])
            taps.append(getitem(xp, (slice(None), slice(None), rows, cols)))
    return reshape(stack(taps, 2), (n, c * k[0] * k[1], oh * ow))


def _output_size(output_size: Any, name: str) -> tuple[int, int]:
    if not is_tensor(output_size):
        raise TypeError(
            f"For Primitive[{name}], the type of input argument[output_size] must be Tensor but "
            f"got {type(output_size).__name__}."
        )
    if output_size.dtype not in (D.int32, D.int64):
        raise TypeError(
            f"For '{name}', 'output_size' must be int32 or int64, got {output_size.dtype}"
        )
    value = known(output_size)
    if value is None:
        raise ValueError(
            f"For '{name}', 'output_size' must be a constant Tensor in a graph: the output's "
            "shape depends on its values"
        )
    if value.shape != (2,) or (value < 1).any():
        raise ValueError(
            f"For '{name}', 'output_size' must be 2 positive ints, got {value.tolist()}"
        )
    return int(value[0]), int(value[1])


def col2im(
    input_x: Any, output_size: Any, kernel_size: Any, dilation: Any, padding_value: Any, stride: Any
) -> Any:
    """`ops.col2im`: (N, C, kh * kw, L) -> (N, C, H, W), overlapping blocks summed."""
    name = "Col2Im"
    x = _tensor(input_x, name)
    hw = _output_size(output_size, name)
    k = _pair(kernel_size, name, "kernel_size", 1)
    d = _pair(dilation, name, "dilation", 1)
    p = _pair(padding_value, name, "padding_value", 0)
    s = _pair(stride, name, "stride", 1)
    if len(x.shape) != 4:
        raise ValueError(f"For '{name}', the input must be 4-D, but got shape {tuple(x.shape)}")
    n, c, kk, length = x.shape
    if kk != k[0] * k[1]:
        raise ValueError(
            f"For '{name}', input_x.shape[2] must be kernel_size[0] * kernel_size[1] = "
            f"{k[0] * k[1]}, but got {kk}"
        )
    oh, ow = (_blocks(hw[0], k[0], d[0], p[0], s[0]), _blocks(hw[1], k[1], d[1], p[1], s[1]))
    if oh * ow != length:
        raise ValueError(
            f"For '{name}', size of input's 4th dimension must be equal to calculated number of "
            f"sliding blocks, but got input.size[3]: {length}, calculated number of sliding "
            f"blocks: {max(oh, 0) * max(ow, 0)}."
        )
    big = (hw[0] + 2 * p[0], hw[1] + 2 * p[1])
    blocks = reshape(x, (n, c, kk, oh, ow))
    placed = []
    for a in range(k[0]):
        for b in range(k[1]):
            block = getitem(blocks, (slice(None), slice(None), a * k[1] + b))
            block = _dilate(_dilate(block, 2, s[0]), 3, s[1])
            top, left = a * d[0], b * d[1]
            placed.append(
                pad(
                    block,
                    (left, big[1] - left - block.shape[3], top, big[0] - top - block.shape[2]),
                )
            )
    out = addn(placed) if len(placed) > 1 else placed[0]
    return pad(out, (-p[1], -p[1], -p[0], -p[0])) if any(p) else out


def fold(
    input: Any, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
    stride: Any = 1,
) -> Any:  # fmt: skip
    """`ops.fold`: (N, C * kh * kw, L) -> (N, C, H, W)."""
    x = _tensor(input, "fold")
    k = _pair(kernel_size, "Col2Im", "kernel_size", 1)
    if len(x.shape) != 3 or x.shape[1] % (k[0] * k[1]):
        raise ValueError(
            f"For 'fold', the input must be 3-D (N, C * kh * kw, L), got shape {tuple(x.shape)}"
        )
    n, ckk, length = x.shape
    blocks = reshape(x, (n, ckk // (k[0] * k[1]), k[0] * k[1], length))
    return col2im(blocks, output_size, k, dilation, padding, stride)
