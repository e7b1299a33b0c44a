"""The primitive classes of frontend/ops/primitives_nn.py and slicing.py (Conv2D,
MaxPool, AvgPool, BiasAdd, LayerNorm, BatchNorm, SoftmaxCrossEntropyWithLogits,
SparseSoftmaxCrossEntropyWithLogits, StridedSlice, Slice, Identity, L2Normalize,
AssignAdd) against numpy, in PyNative and graph mode; gradients; errors."""

from __future__ import annotations

import numpy as np
import pytest
from modes import run as _run

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops
from mindjit.backend.cpu.errors import RuntimeCheckError

RNG = np.random.default_rng(11)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _windows(x, k, s):
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.empty((n, c, oh, ow, k, k), x.dtype)
    for i in range(k):
        for j in range(k):
            out[..., i, j] = x[:, :, i : i + s * oh : s, j : j + s * ow : s]
    return out


@pytest.mark.parametrize("pad_mode", ["valid", "same", "pad"])
def test_conv2d_primitive_matches_ops_conv2d(pad_mode, mode):
    x, w = f32(2, 4, 7, 7), f32(6, 2, 3, 3)
    pad = 1 if pad_mode == "pad" else 0
    prim = ops.Conv2D(6, 3, pad_mode=pad_mode, pad=pad, stride=2, group=2)

    def fn(a, b):
        return prim(a, b)

    got = _run(fn, mode, Tensor(x), Tensor(w))
    want = ops.conv2d(Tensor(x), Tensor(w), None, 2, pad_mode, pad, 1, 2)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)


def test_pool_primitives(mode):
    x = f32(2, 3, 6, 6)

    def fn(a):
        return (
            ops.MaxPool(2, 2)(a),
            ops.AvgPool(kernel_size=3, strides=3, pad_mode="VALID")(a),
            ops.MaxPool(3, 2, "same")(a),
            ops.AvgPool(3, 2, "same")(a),
        )

    mx, av, mx_same, av_same = _run(fn, mode, Tensor(x))
    np.testing.assert_allclose(mx.asnumpy(), _windows(x, 2, 2).max((-1, -2)))
    np.testing.assert_allclose(av.asnumpy(), _windows(x, 3, 3).mean((-1, -2)), rtol=1e-5, atol=1e-7)
    # same, k=3, s=2 on 6: output 3, padding 1 after (bottom/right) only
    padded = np.pad(x, ((0, 0), (0, 0), (0, 1), (0, 1)), constant_values=-np.inf)
    np.testing.assert_allclose(mx_same.asnumpy(), _windows(padded, 3, 2).max((-1, -2)))
    ones = np.pad(np.ones_like(x), ((0, 0), (0, 0), (0, 1), (0, 1)))
    zeros = np.pad(x, ((0, 0), (0, 0), (0, 1), (0, 1)))
    want = _windows(zeros, 3, 2).sum((-1, -2)) / _windows(ones, 3, 2).sum((-1, -2))
    np.testing.assert_allclose(av_same.asnumpy(), want, rtol=1e-5)


def test_bias_add_on_the_channel_axis(mode):
    x, b = f32(2, 3, 4, 5), f32(3)
    got = _run(ops.BiasAdd(), mode, Tensor(x), Tensor(b))
    np.testing.assert_allclose(got.asnumpy(), x + b[None, :, None, None], rtol=1e-6)
    got2 = ops.BiasAdd()(Tensor(x[:, :, 0, 0]), Tensor(b))
    np.testing.assert_allclose(got2.asnumpy(), x[:, :, 0, 0] + b, rtol=1e-6)
    with pytest.raises(ValueError, match="'bias' must have shape"):
        ops.BiasAdd()(Tensor(x), Tensor(f32(5)))


def test_layer_norm_returns_output_mean_variance(mode):
    x, g, b = f32(2, 3, 4), f32(3, 4), f32(3, 4)
    prim = ops.LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-5)
    y, mean, var = _run(prim, mode, Tensor(x), Tensor(g), Tensor(b))
    m = x.mean((1, 2), keepdims=True)
    v = x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(mean.asnumpy(), m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), v, rtol=1e-5)
    np.testing.assert_allclose(y.asnumpy(), (x - m) / np.sqrt(v + 1e-5) * g + b, atol=1e-5)
    y2, _, _ = ops.LayerNorm(-1, -1)(Tensor(x), Tensor(g[0]), Tensor(b[0]))
    m2, v2 = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    np.testing.assert_allclose(
        y2.asnumpy(), (x - m2) / np.sqrt(v2 + 1e-7) * g[0] + b[0], rtol=1e-4, atol=1e-5
    )
    with pytest.raises(ValueError, match="'gamma' must have shape"):
        prim(Tensor(x), Tensor(g[0]), Tensor(b))


class _BatchNormNet(nn.Cell):
    def __init__(self, training):
        super().__init__()
        self.bn = ops.BatchNorm(is_training=training, epsilon=1e-3, momentum=0.2)
        self.mean = Parameter(Tensor(np.zeros(3, np.float32)), name="mean")
        self.var = Parameter(Tensor(np.ones(3, np.float32)), name="var")

    def construct(self, x, scale, bias):
        return self.bn(x, scale, bias, self.mean, self.var)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_primitive(training, mode):
    x, s, b = f32(4, 3, 2, 2), f32(3), f32(3)
    ms.set_context(mode=mode)
    try:
        net = _BatchNormNet(training)
        y, bm, bv, r1, r2 = net(Tensor(x), Tensor(s), Tensor(b))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    if training:
        m, v = x.mean((0, 2, 3)), x.var((0, 2, 3))
        np.testing.assert_allclose(net.mean.asnumpy(), 0.2 * m, rtol=1e-5, atol=1e-6)
        # the running variance takes the unbiased batch variance (MindSpore's kernel)
        unbiased = x.var((0, 2, 3), ddof=1)
        np.testing.assert_allclose(net.var.asnumpy(), 0.8 + 0.2 * unbiased, rtol=1e-5)
    else:
        m, v = np.zeros(3, np.float32), np.ones(3, np.float32)
    np.testing.assert_allclose(bm.asnumpy(), m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bv.asnumpy(), v, rtol=1e-5)
    np.testing.assert_allclose(r1.asnumpy(), bm.asnumpy())
    np.testing.assert_allclose(r2.asnumpy(), bv.asnumpy())
    per = (1, 3, 1, 1)
    want = (x - m.reshape(per)) / np.sqrt(v.reshape(per) + 1e-3) * s.reshape(per) + b.reshape(per)
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-4, atol=1e-5)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_softmax_cross_entropy_primitives(mode):
    x = f32(4, 5)
    p = _softmax(f32(4, 5))
    t = RNG.integers(0, 5, 4).astype(np.int32)
    loss, dlogits = _run(ops.SoftmaxCrossEntropyWithLogits(), mode, Tensor(x), Tensor(p))
    logp = np.log(_softmax(x))
    np.testing.assert_allclose(loss.asnumpy(), -(p * logp).sum(-1), rtol=1e-5)
    np.testing.assert_allclose(dlogits.asnumpy(), _softmax(x) - p, rtol=1e-5, atol=1e-6)
    sparse = _run(ops.SparseSoftmaxCrossEntropyWithLogits(), mode, Tensor(x), Tensor(t))
    assert sparse.shape == ()
    np.testing.assert_allclose(sparse.asnumpy(), -logp[np.arange(4), t].mean(), rtol=1e-5)
    grad = ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(Tensor(x), Tensor(t))
    np.testing.assert_allclose(
        grad.asnumpy(), (_softmax(x) - np.eye(5)[t]) / 4, rtol=1e-5, atol=1e-7
    )
    # the gradient of the loss is what is_grad=True returns
    auto = ms.grad(ops.SparseSoftmaxCrossEntropyWithLogits())(Tensor(x), Tensor(t))
    np.testing.assert_allclose(auto.asnumpy(), grad.asnumpy(), rtol=1e-5, atol=1e-7)
    with pytest.raises(TypeError, match="'labels' must be int32 or int64"):
        ops.SparseSoftmaxCrossEntropyWithLogits()(Tensor(x), Tensor(p))
    with pytest.raises(RuntimeCheckError, match="class indices in \\[0, 5\\)"):
        ops.SparseSoftmaxCrossEntropyWithLogits()(
            Tensor(x), Tensor(np.array([0, 1, 5, 2], np.int32))
        )
    with pytest.raises(ValueError, match="same 2-D shape"):
        ops.SoftmaxCrossEntropyWithLogits()(Tensor(x), Tensor(p[:, :3]))


def _slices(x):
    a = ops.StridedSlice()(x, (0, 1, 0), (2, 3, 4), (1, 1, 2))
    b = ops.StridedSlice(shrink_axis_mask=1, new_axis_mask=4)(
        x, (1, 0, 0, 0), (2, 3, 1, 4), (1, 1, 1, 1)
    )
    c = ops.strided_slice(x, (1, 2), (0, 0), (-1, -1))
    d = ops.StridedSlice(begin_mask=2, end_mask=2, ellipsis_mask=1)(x, (0, 0), (0, 0), (1, -2))
    e = ops.Slice()(x, (0, 1, 1), (-1, 2, 2))
    return a, b, c, d, e, ops.slice(x, (1, 0, 0), (1, 3, 4))


def test_strided_slice_and_slice(mode):
    x = f32(2, 3, 4)
    got = _run(_slices, mode, Tensor(x))
    want = (
        x[0:2, 1:3, 0:4:2],
        x[1, 0:3, None, 0:4],
        x[1:0:-1, 2:0:-1],
        x[..., ::-2],
        x[:, 1:3, 1:3],
        x[1:2],
    )
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g.asnumpy(), w)


def _sliced_loss(x):
    return (ops.strided_slice(x, (2, 0), (0, 4), (-1, 2)) ** 2).sum()


def test_strided_slice_gradient(mode):
    x = f32(3, 4)
    g = _run(ms.grad(_sliced_loss), mode, Tensor(x))
    mask = np.zeros_like(x)
    mask[2:0:-1, 0:4:2] = 1
    np.testing.assert_allclose(g.asnumpy(), 2 * x * mask, rtol=1e-6)


def test_slice_errors():
    x = Tensor(f32(2, 3))
    with pytest.raises(ValueError, match="cannot give"):
        ops.slice(x, (0, 2), (1, 2))
    with pytest.raises(ValueError, match="rank"):
        ops.slice(x, (0,), (1,))
    with pytest.raises(ValueError, match="must not contain 0"):
        ops.strided_slice(x, (0, 0), (1, 1), (1, 0))
    with pytest.raises(TypeError, match="tuple of ints"):
        ops.StridedSlice()(x, (0, 0.5), (1, 1), (1, 1))


def test_identity_l2_normalize(mode):
    x = f32(3, 4)

    def fn(a):
        return ops.Identity()(a), ops.L2Normalize(axis=1)(a), ops.L2Normalize((0, 1), 1e-12)(a)

    ident, l2, l2all = _run(fn, mode, Tensor(x))
    np.testing.assert_array_equal(ident.asnumpy(), x)
    want = x / np.sqrt(np.maximum((x**2).sum(1, keepdims=True), 1e-4))
    np.testing.assert_allclose(l2.asnumpy(), want, rtol=1e-5)
    np.testing.assert_allclose(l2all.asnumpy(), x / np.sqrt((x**2).sum()), rtol=1e-5)


class _Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = Parameter(Tensor(np.zeros(2, np.float32)), name="count")
        self.add = ops.AssignAdd()

    def construct(self, x):
        before = self.count * 1
        self.add(self.count, x)
        ops.assign_add(self.count, 1.0)
        return before, self.count * 1


def test_assign_add(mode):
    ms.set_context(mode=mode)
    try:
        net = _Counter()
        before, after = net(Tensor(np.array([1.0, 2.0], np.float32)))
        np.testing.assert_array_equal(before.asnumpy(), [0, 0])
        np.testing.assert_array_equal(after.asnumpy(), [2, 3])
        net(Tensor(np.array([1.0, 2.0], np.float32)))
        np.testing.assert_array_equal(net.count.asnumpy(), [4, 6])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(TypeError, match="must be a Parameter"):
        ops.assign_add(Tensor(np.zeros(2, np.float32)), 1.0)


def test_primitive_argument_errors():
    with pytest.raises(ValueError, match="'pad' must be zero"):
        ops.Conv2D(4, 3, pad=1)
    with pytest.raises(ValueError, match="'pad_mode' must be one of"):
        ops.MaxPool(2, 2, "pad")
    with pytest.raises(ValueError, match="NCHW"):
        ops.AvgPool(2, 2, data_format="NHWC")
    with pytest.raises(ValueError, match="does not match"):
        ops.Conv2D(4, 3)(Tensor(f32(1, 2, 5, 5)), Tensor(f32(4, 2, 2, 2)))
    with pytest.raises(ValueError, match="'momentum' must be in"):
        ops.BatchNorm(momentum=1.5)
    with pytest.raises(TypeError, match="'is_grad' must be a bool"):
        ops.SparseSoftmaxCrossEntropyWithLogits(1)
    with pytest.raises(TypeError, match="'axis' must be an int or tuple"):
        ops.L2Normalize(axis=1.0)
    with pytest.raises(ValueError, match="rank > 0"):
        ops.L2Normalize()(Tensor(np.float32(1.0)))
