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


def assert_float32_close(got, x, w, stride, dilation, out_hw, ref=reference):
    """`got` (a float32 convolution of x and w) within float32 rounding of the float64
    `ref`erence: each element within 1e-5 of the sum of its terms' magnitudes (`ref` of
    |x| and |w|), the bound a float32 sum of a few hundred terms keeps in any order. A
    fixed atol failed at random: an element that nearly cancels (-0.0583 of terms up to
    30) is off by 1.1e-5 in float32."""
    want = ref(x, w, stride, dilation, out_hw)
    scale = ref(np.abs(x), np.abs(w), stride, dilation, out_hw)
    worst = np.abs(got - want) - 1e-5 * scale
    assert worst.max() <= 0, f"off by {np.abs(got - want).max()} (scale {scale.max()})"
