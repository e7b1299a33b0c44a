"""backend/cpu/kernels_conv.py's ways of computing a convolution, each shape
class it special-cases (1x1, per-tap matmuls, batched rows, strided
and many-channel im2col, weight gradients by im2col or by output positions,
grouped and depthwise), against a
float64 reference written with plain loops over the taps; and a graph-mode
convolution's gradient hitting those ways equals PyNative's."""

from __future__ import annotations

import numpy as np
import pytest
from conv_reference import assert_float32_close, reference

import mindjit as ms
from mindjit import Parameter, Tensor, ops
from mindjit.backend.cpu import kernels_conv as K

RNG = np.random.default_rng(41)


def _largest(x_shape, w_shape, stride, dilation):
    return tuple(
        (x_shape[2 + a] - (w_shape[2 + a] - 1) * dilation[a] - 1) // stride[a] + 1 for a in (0, 1)
    )


CASES = [
    # x shape, w shape, stride, dilation, output cropped by, way
    ((3, 1, 12, 12), (4, 1, 5, 5), (1, 1), (1, 1), (0, 0), "rows"),  # Cin = 1
    ((2, 6, 9, 11), (5, 6, 3, 2), (1, 1), (2, 1), (0, 0), "rows"),  # dilation
    ((2, 6, 9, 11), (5, 6, 3, 3), (1, 1), (1, 1), (1, 2), "rows"),  # a cropped output
    ((2, 16, 10, 10), (4, 16, 3, 3), (1, 1), (1, 1), (0, 0), "taps"),
    ((2, 17, 13, 12), (3, 17, 2, 3), (1, 1), (1, 2), (1, 0), "taps"),
    ((2, 8, 5, 6), (3, 8, 1, 1), (1, 1), (1, 1), (0, 0), "1x1"),
    ((2, 8, 5, 6), (3, 8, 1, 1), (1, 1), (1, 1), (1, 0), "rows"),  # 1x1, cropped
    ((2, 5, 9, 8), (3, 5, 3, 3), (2, 1), (1, 1), (0, 0), "im2col"),  # strided
    ((2, 5, 9, 8), (3, 5, 2, 2), (2, 3), (2, 1), (0, 0), "im2col"),
    ((2, 32, 5, 5), (3, 32, 3, 3), (1, 1), (1, 1), (0, 0), "im2col"),  # many channels, short runs
    ((9, 4, 9, 9), (2, 4, 7, 7), (1, 1), (1, 1), (0, 0), "weight-gradient"),
    ((9, 3, 11, 11), (2, 3, 5, 5), (1, 1), (2, 2), (0, 0), "weight-gradient"),
    ((3, 4, 9, 9), (2, 4, 7, 7), (1, 1), (1, 1), (0, 0), "positions"),  # few samples
    ((1, 3, 11, 11), (2, 3, 5, 5), (1, 1), (2, 2), (0, 0), "positions"),  # dilation
    ((2, 3, 12, 11), (4, 3, 5, 4), (2, 3), (2, 2), (0, 0), "positions"),  # stride, dilation
    ((2, 3, 12, 11), (4, 3, 6, 6), (2, 1), (1, 1), (1, 0), "positions"),  # cropped
]


@pytest.mark.parametrize("x_shape, w_shape, stride, dilation, crop, way", CASES)
def test_each_way_matches_thereference(x_shape, w_shape, stride, dilation, crop, way):
    oh, ow = _largest(x_shape, w_shape, stride, dilation)
    out_hw = (oh - crop[0], ow - crop[1])
    assert K.conv_way(x_shape, w_shape, stride, out_hw) == way
    x = RNG.standard_normal(x_shape).astype(np.float32)
    w = RNG.standard_normal(w_shape).astype(np.float32)
    got = K.conv_nchw(x, w, stride, dilation, out_hw, np.float32)
    assert got.dtype == np.float32 and got.flags.c_contiguous
    assert_float32_close(got, x, w, stride, dilation, out_hw)


def test_float64_stays_float64():
    x = RNG.standard_normal((5, 6, 6, 8))
    w = RNG.standard_normal((4, 6, 3, 3))
    for way in ("rows", "im2col"):
        got = K.conv_nchw(x, w, (1, 1), (1, 1), (4, 6), np.float64, way)
        assert got.dtype == np.float64
        want = reference(x, w, (1, 1), (1, 1), (4, 6))
        # relative to the largest value: an element near 0 is a difference of large
        # terms, off by the last bits of those (which summation order, which BLAS)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13 * np.abs(want).max())


def _groupedreference(x, w, stride, dilation, out_hw):
    return np.stack(
        [reference(x[:, g], w[g], stride, dilation, out_hw) for g in range(x.shape[1])], axis=1
    )


@pytest.mark.parametrize(
    "x_shape, w_shape, stride, dilation",
    [
        ((2, 5, 1, 9, 8), (5, 1, 1, 3, 3), (1, 1), (1, 1)),  # depthwise, taps on rows
        ((2, 5, 1, 9, 8), (5, 1, 1, 3, 2), (1, 1), (2, 3)),
        ((2, 5, 1, 9, 8), (5, 1, 1, 3, 3), (2, 2), (1, 1)),  # depthwise strided: the matmul
        ((2, 3, 4, 9, 8), (3, 2, 4, 3, 3), (1, 2), (1, 1)),
    ],
)
def test_grouped_conv_matches_thereference(x_shape, w_shape, stride, dilation):
    x = RNG.standard_normal(x_shape).astype(np.float32)
    w = RNG.standard_normal(w_shape).astype(np.float32)
    out_hw = _largest(x_shape[:1] + x_shape[2:], w_shape[1:], stride, dilation)
    got = K.grouped_conv(x, w, stride, dilation, out_hw, np.float32)
    assert got.dtype == np.float32 and got.flags.c_contiguous
    assert_float32_close(got, x, w, stride, dilation, out_hw, ref=_groupedreference)


def test_graph_mode_gradients_through_every_way_equal_pynative():
    """Forward "taps" (16 channels), its input gradient "taps", its weight gradient
    "weight-gradient"; a 1-channel convolution ("rows", weight gradient
    "positions"), a strided one ("im2col")."""
    x = Tensor(RNG.standard_normal((2, 1, 14, 14)).astype(np.float32))
    w1 = Parameter(Tensor(RNG.standard_normal((16, 1, 3, 3)).astype(np.float32)), name="w1")
    w2 = Parameter(Tensor(RNG.standard_normal((16, 16, 3, 3)).astype(np.float32)), name="w2")
    w3 = Parameter(Tensor(RNG.standard_normal((4, 16, 3, 3)).astype(np.float32)), name="w3")
    params = [w1, w2, w3]

    def loss(v):
        y = ops.relu(ops.conv2d(v, w1, pad_mode="pad", padding=1))
        y = ops.relu(ops.conv2d(y, w2, pad_mode="pad", padding=1))
        y = ops.conv2d(y, w3, stride=2)
        return ops.reduce_sum(y * y)

    grad = ms.grad(loss, None, params)
    eager = [g.asnumpy() for g in grad(x)]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = [g.asnumpy() for g in ms.jit(lambda v: grad(v))(x)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for g, e in zip(graph, eager, strict=True):
        np.testing.assert_array_equal(g, e)
