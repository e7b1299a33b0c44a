"""A convolution written with plain loops over the taps, in float64: the reference
the CPU executor's convolution kernels (kernels_conv.py, dnnl.py) are tested against."""

from __future__ import annotations

import numpy as np


def reference(x, w, stride, dilation, out_hw):
    """N, F, OH, OW in float64, one tap at a time."""
    f, _, kh, kw = w.shape
    oh, ow = out_hw
    out = np.zeros((x.shape[0], f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            tap = x[
                :,
                :,
                i * dilation[0] : i * dilation[0] + (oh - 1) * stride[0] + 1 : stride[0],
                j * dilation[1] : j * dilation[1] + (ow - 1) * stride[1] + 1 : stride[1],
            ].astype(np.float64)
            out += np.einsum("nchw,fc->nfhw", tap, w[:, :, i, j].astype(np.float64))
    return out
