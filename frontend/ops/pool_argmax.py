"""`ops.max_pool2d`, and with `return_indices=True` the maximum and where it was.

The index (int64, as MaxPoolWithArgmaxV2 on CPU) is flat into the input's
H * W of each channel: row * W + column, the first maximum of the window in
row-major order (as MindSpore's and PyTorch's CPU kernels). No mindir op: per
tap of the window, the strided slice of the (-inf padded) input equals the
pooled maximum and no earlier tap did, then the tap's index (a constant) is
selected, as mindir-grad's max_pool2d rule routes its gradient. Integer
outputs: no gradient flows through the indices.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import broadcast_to
from mindjit.frontend.ops.conv import _nchw, pair, pool2d, pool_output_extra, symmetric_pads
from mindjit.frontend.ops.conv import pad as pad_op
from mindjit.frontend.ops.indexing import getitem
from mindjit.frontend.ops.math import equal, logical_and, logical_not, logical_or, select
from mindjit.frontend.ops.promotion import constant


def max_pool2d_with_indices(
    x: Any,
    kernel: tuple[int, int],
    stride: Any,
    pads: tuple[int, int, int, int],
    dilation: tuple[int, int],
    ceil_mode: bool,
    name: str = "max_pool2d",
) -> tuple[Any, Any]:
    """(the pooled maximum, its int64 index into H * W) with explicit pads."""
    x = _nchw(x, name)
    s = pair(stride, name, "stride")
    out = pool2d("max", x, kernel, s, pads, dilation, ceil_mode, name=name)
    n, c, h, w = x.shape
    oh, ow = out.shape[2:]
    extra = (
        pool_output_extra(h, kernel[0], s[0], dilation[0], pads[0], pads[1], ceil_mode),
        pool_output_extra(w, kernel[1], s[1], dilation[1], pads[2], pads[3], ceil_mode),
    )
    xp = pad_op(x, (pads[2], pads[3] + extra[1], pads[0], pads[1] + extra[0]), value=-np.inf)
    rows, cols = np.arange(oh)[:, None] * s[0], np.arange(ow)[None, :] * s[1]
    index = None
    taken = None
    for a in range(kernel[0]):
        for b in range(kernel[1]):
            top, left = a * dilation[0], b * dilation[1]
            tap = getitem(
                xp,
                (
                    slice(None),
                    slice(None),
                    slice(top, top + (oh - 1) * s[0] + 1, s[0]),
                    slice(left, left + (ow - 1) * s[1] + 1, s[1]),
                ),
            )
            hit = equal(tap, out)
            if taken is not None:
                hit = logical_and(hit, logical_not(taken))
            taken = hit if taken is None else logical_or(taken, hit)
            at = (rows + top - pads[0]) * w + (cols + left - pads[2])
            at = broadcast_to(constant(at, D.int64), (n, c, oh, ow))
            index = at if index is None else select(hit, at, index)
    return out, index


def max_pool2d(
    x: Any,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    return_indices: bool = False,
    ceil_mode: bool = False,
) -> Any:
    """`ops.max_pool2d`: stride defaults to the kernel; symmetric padding."""
    name = "max_pool2d"
    pads = symmetric_pads(padding, name)
    k = pair(kernel_size, name, "kernel_size")
    if max(pads[0], pads[2]) * 2 > max(k):
        raise ValueError(f"For '{name}', 'padding' must be at most half the kernel size")
    d = pair(dilation, name, "dilation")
    if return_indices:
        return max_pool2d_with_indices(x, k, k if stride is None else stride, pads, d, ceil_mode)
    return pool2d("max", x, k, k if stride is None else stride, pads, d, ceil_mode, name=name)
