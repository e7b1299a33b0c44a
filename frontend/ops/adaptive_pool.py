"""Adaptive pooling (`ops.adaptive_avg_pool2d`, `ops.adaptive_max_pool2d`), NCHW or CHW.

Output cell (i, j) pools rows floor(i * H / OH) .. ceil((i + 1) * H / OH) and the
columns likewise (MindSpore's formula). There is no mindir op for it: it is
composed of existing ones, so every stage (gradient, vmap, device) already
knows what it becomes:

- 1x1 (global pooling, what ResNet uses): a mean / max over H and W;
- H and W divisible by the output: the windows are uniform and do not overlap,
  so it is `avg_pool2d` / `max_pool2d` with kernel = stride = H / OH;
- otherwise the average is linear: out = P_h @ x @ P_w^T with P a constant
  (OH, H) matrix holding 1 / window length over each window (two matmuls);
  the maximum takes one `reduce_max` per output row and column, concatenated.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend.ops.array import concat, expand_dims, squeeze
from mindjit.frontend.ops.conv import pool2d
from mindjit.frontend.ops.indexing import getitem
from mindjit.frontend.ops.math import _tensor, matmul
from mindjit.frontend.ops.promotion import constant
from mindjit.frontend.ops.reduce import reduce_max, reduce_mean


def output_hw(output_size: Any, hw: tuple[int, int], name: str) -> tuple[int, int]:
    """`output_size` (an int, or a pair of ints or None) as (OH, OW); None keeps the input's."""
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        sizes: tuple[Any, ...] = (output_size, output_size)
    elif isinstance(output_size, tuple | list):
        if len(output_size) != 2:
            raise ValueError(
                f"For '{name}', 'output_size' must be an int or a tuple of 2 ints or None, "
                f"got {output_size!r}"
            )
        sizes = tuple(output_size)
    elif output_size is None:
        sizes = (None, None)
    else:
        raise TypeError(
            f"For '{name}', 'output_size' must be an int or a tuple, got {output_size!r}"
        )
    out = []
    for size, keep in zip(sizes, hw):
        if size is None:
            out.append(keep)
        elif isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(
                f"For '{name}', 'output_size' must hold positive ints or None, got {output_size!r}"
            )
        else:
            out.append(size)
    return out[0], out[1]


def windows(size: int, out: int) -> list[tuple[int, int]]:
    """[start, end) of each of `out` adaptive windows over `size` elements."""
    return [((i * size) // out, -(-((i + 1) * size) // out)) for i in range(out)]


def averaging_matrix(size: int, out: int) -> np.ndarray:
    """(out, size): row i holds 1 / length over window i, 0 elsewhere."""
    p = np.zeros((out, size))
    for i, (lo, hi) in enumerate(windows(size, out)):
        p[i, lo:hi] = 1.0 / (hi - lo)
    return p


def _input(input: Any, output_size: Any, name: str) -> tuple[Any, bool, tuple[int, int]]:
    x = _tensor(input, name)
    rank = len(x.shape)
    if rank not in (3, 4):
        raise ValueError(
            f"For '{name}', the input must be 3-D (C, H, W) or 4-D (N, C, H, W), got shape "
            f"{tuple(x.shape)}"
        )
    if not x.dtype.is_float:
        raise TypeError(
            f"For '{name}', the input must be float16, float32 or float64, got {x.dtype}"
        )
    hw = output_hw(output_size, tuple(x.shape[-2:]), name)
    return (expand_dims(x, 0) if rank == 3 else x), rank == 3, hw


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Any:
    """`ops.adaptive_avg_pool2d(input, output_size)`."""
    name = "adaptive_avg_pool2d"
    x, batchless, (oh, ow) = _input(input, output_size, name)
    h, w = x.shape[2:]
    if (oh, ow) == (1, 1):
        out = reduce_mean(x, (2, 3), True)
    elif h % oh == 0 and w % ow == 0:
        k = (h // oh, w // ow)
        out = pool2d("avg", x, k, k, (0, 0, 0, 0), name=name)
    else:
        out = x
        if ow != w:
            out = matmul(out, constant(averaging_matrix(w, ow).T, x.dtype))
        if oh != h:
            out = matmul(constant(averaging_matrix(h, oh), x.dtype), out)
    return squeeze(out, 0) if batchless else out


def _max_along(x: Any, axis: int, out: int) -> Any:
    size = x.shape[axis]
    if out == size:
        return x
    parts = []
    for lo, hi in windows(size, out):
        index = [slice(None)] * 4
        index[axis] = slice(lo, hi)
        parts.append(reduce_max(getitem(x, tuple(index)), axis, True))
    return parts[0] if len(parts) == 1 else concat(parts, axis)


def adaptive_max_pool2d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    """`ops.adaptive_max_pool2d(input, output_size, return_indices=False)`."""
    name = "adaptive_max_pool2d"
    if return_indices:
        raise NotImplementedError(f"For '{name}', return_indices=True is not supported yet")
    x, batchless, (oh, ow) = _input(input, output_size, name)
    h, w = x.shape[2:]
    if (oh, ow) == (1, 1):
        out = reduce_max(x, (2, 3), True)
    elif h % oh == 0 and w % ow == 0:
        k = (h // oh, w // ow)
        out = pool2d("max", x, k, k, (0, 0, 0, 0), name=name)
    else:
        out = _max_along(_max_along(x, 2, oh), 3, ow)
    return squeeze(out, 0) if batchless else out
