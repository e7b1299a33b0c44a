"""max_pool2d's and avg_pool2d's gradients where the windows tile the input
(stride == kernel: the taps' pieces stacked side by side) and where they do not
(spread and added), with ties (after a ReLU most windows of zeros tie): the
gradient goes to the first maximum in row-major order, as MaxPoolGrad; graph
mode equals PyNative bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, ops

RNG = np.random.default_rng(5)


def _max_pool_grad(x, g, kernel, stride):
    """MaxPoolGrad by loops: each window's gradient to its first maximum."""
    dx = np.zeros(x.shape, np.float64)
    n, c, oh, ow = g.shape
    for a in range(n):
        for b in range(c):
            for i in range(oh):
                for j in range(ow):
                    r, s = i * stride[0], j * stride[1]
                    window = x[a, b, r : r + kernel[0], s : s + kernel[1]]
                    k = int(np.argmax(window))  # the first maximum, row-major
                    dx[a, b, r + k // kernel[1], s + k % kernel[1]] += g[a, b, i, j]
    return dx


def _grads(fn, x):
    grad = ms.grad(fn)
    eager = grad(Tensor(x)).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = ms.jit(lambda v: grad(v))(Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(graph, eager)
    return eager


@pytest.mark.parametrize(
    "shape, kernel, stride",
    [
        ((2, 3, 8, 6), (2, 2), (2, 2)),  # tiles
        ((1, 2, 6, 4), (3, 2), (3, 2)),  # tiles, not square
        ((2, 3, 7, 6), (2, 2), (2, 2)),  # a row left over: spread
        ((1, 2, 7, 7), (3, 3), (2, 2)),  # overlapping windows: spread
    ],
)
def test_max_pool_grad_goes_to_the_first_maximum(shape, kernel, stride):
    x = np.maximum(RNG.standard_normal(shape), 0).astype(np.float32)  # ties of zeros
    x[0, 0, :2, :2] = 1.5  # a window of equal maxima
    oh = (shape[2] - kernel[0]) // stride[0] + 1
    ow = (shape[3] - kernel[1]) // stride[1] + 1
    weight = RNG.standard_normal((shape[0], shape[1], oh, ow)).astype(np.float32)

    def loss(v):
        return ops.reduce_sum(ops.max_pool2d(v, kernel, stride) * Tensor(weight))

    got = _grads(loss, x)
    np.testing.assert_allclose(got, _max_pool_grad(x, weight, kernel, stride), rtol=1e-6)


@pytest.mark.parametrize("kernel", [(2, 2), (2, 3)])
def test_avg_pool_grad_where_windows_tile(kernel):
    x = RNG.standard_normal((2, 3, 4, 6)).astype(np.float32)
    weight = RNG.standard_normal((2, 3, 4 // kernel[0], 6 // kernel[1])).astype(np.float32)

    def loss(v):
        return ops.reduce_sum(ops.avg_pool2d(v, kernel, kernel) * Tensor(weight))

    got = _grads(loss, x)
    share = weight / (kernel[0] * kernel[1])
    want = np.repeat(np.repeat(share, kernel[0], axis=2), kernel[1], axis=3)
    np.testing.assert_allclose(got, want, rtol=1e-6)
