"""A training-mode batch norm is one `mindir.batch_norm` (and its gradient one
`mindir.batch_norm_grad`, MindSpore's BatchNormGrad): against float64 numpy on
random inputs, graph mode against PyNative, under vmap (each example its own
statistics) and with mixed dtypes (the written-out form)."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Parameter, Tensor, ops

RNG = np.random.default_rng(11)
EPS = 1e-5


def _reference(x, w, b, dy):
    """y and (dx, dw, db) of training-mode batch norm, float64, channels on axis 1."""
    x, w, b, dy = (np.asarray(a, np.float64) for a in (x, w, b, dy))
    axes = (0, *range(2, x.ndim))
    shape = [1] * x.ndim
    shape[1] = x.shape[1]
    mean, var = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
    xhat = (x - mean) / np.sqrt(var + EPS)
    y = xhat * w.reshape(shape) + b.reshape(shape)
    n = x.size // x.shape[1]
    db, dw = dy.sum(axis=axes), (dy * xhat).sum(axis=axes)
    g = w.reshape(shape) / np.sqrt(var + EPS)
    dx = g * (dy - db.reshape(shape) / n - xhat * dw.reshape(shape) / n)
    return y, dx, dw, db


def _loss(x, w, b, dy):
    y = ops.batch_norm(x, Tensor(np.zeros(w.shape[0], np.float32)),
                       Tensor(np.ones(w.shape[0], np.float32)), w, b, True, 0.1, EPS)  # fmt: skip
    return (y * dy).sum()


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 4, 4)])
@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_values_and_gradients_match_float64(shape, mode):
    x = RNG.standard_normal(shape).astype(np.float32)
    w = RNG.uniform(0.5, 1.5, shape[1]).astype(np.float32)
    b = RNG.standard_normal(shape[1]).astype(np.float32)
    dy = RNG.standard_normal(shape).astype(np.float32)
    ms.set_context(mode=mode)
    try:
        grad = ms.value_and_grad(_loss, grad_position=(0, 1, 2))
        if mode == ms.GRAPH_MODE:
            grad = ms.jit(grad)
        value, (dx, dw, db) = grad(*map(Tensor, (x, w, b, dy)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    y, rx, rw, rb = _reference(x, w, b, dy)
    np.testing.assert_allclose(float(value.asnumpy()), (y * dy).sum(), rtol=1e-4, atol=1e-4)
    for got, want in ((dx, rx), (dw, rw), (db, rb)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-4)


class _Net(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = ms.nn.BatchNorm2d(3)

    def construct(self, x):
        return self.bn(x)


def test_the_train_step_is_one_op_each_way_and_graph_equals_pynative(tmp_path):
    x = Tensor(RNG.standard_normal((2, 3, 4, 4)).astype(np.float32))
    results = {}
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        graph = mode == ms.GRAPH_MODE
        ms.set_context(mode=mode, save_graphs=graph, save_graphs_path=str(tmp_path))
        try:
            ms.set_seed(3)
            net = _Net()
            net.set_train(True)
            grad = ms.value_and_grad(
                lambda t, n=net: (n(t) ** 2).sum(), None, net.trainable_params()
            )
            value, grads = (ms.jit(grad) if graph else grad)(x)
            results[mode] = [value.asnumpy(), *(g.asnumpy() for g in grads),
                             net.bn.moving_mean.asnumpy(), net.bn.moving_variance.asnumpy()]  # fmt: skip
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False)
    for g, p in zip(results[ms.GRAPH_MODE], results[ms.PYNATIVE_MODE]):
        np.testing.assert_array_equal(g, p)
    (last,) = tmp_path.rglob("*_mindir_load_elim.mlir")  # the last mindir stage
    text = last.read_text()
    assert text.count("mindir.batch_norm ") == 1 and text.count("mindir.batch_norm_grad ") == 1
    # the running statistics: one update op, no Assigns (MindSpore's BatchNorm writes them)
    assert text.count("mindir.update_moving_stats ") == 1 and "mindir.assign " not in text
    assert "mindir.sqrt" not in text  # no written-out normalization or its gradient


def test_vmap_gives_each_example_its_own_statistics():
    x = RNG.standard_normal((3, 2, 4, 5)).astype(np.float32)  # 3 examples of (2, 4, 5)
    w = RNG.uniform(0.5, 1.5, 4).astype(np.float32)
    b = RNG.standard_normal(4).astype(np.float32)
    zeros, ones = Tensor(np.zeros(4, np.float32)), Tensor(np.ones(4, np.float32))

    def normalize(t):
        return ops.batch_norm(t, zeros, ones, Tensor(w), Tensor(b), True, 0.1, EPS)

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = ms.jit(ms.vmap(normalize))(Tensor(x)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for i in range(3):
        y, *_ = _reference(x[i], w, b, np.zeros_like(x[i]))
        np.testing.assert_allclose(got[i], y, rtol=1e-5, atol=1e-5)


def test_other_dtypes_take_the_written_out_form():
    """A float16 input with float32 affine Parameters (mixed precision) is not one
    op (its operands must share a dtype): it normalizes as before."""
    x = RNG.standard_normal((4, 3)).astype(np.float16)
    w = Parameter(Tensor(np.ones(3, np.float32)), name="w")
    b = Parameter(Tensor(np.zeros(3, np.float32)), name="b")
    stats = Tensor(np.zeros(3, np.float32)), Tensor(np.ones(3, np.float32))
    y = ops.batch_norm(Tensor(x), *stats, w, b, True, 0.1, EPS).asnumpy()
    want, *_ = _reference(x.astype(np.float32), np.ones(3), np.zeros(3), np.zeros((4, 3)))
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=1e-2, atol=1e-2)


def test_vmap_of_the_gradient_gives_each_example_its_own():
    """A per-example gradient: batch_norm_grad batched (each example's statistics)."""
    x = RNG.standard_normal((3, 2, 4, 5)).astype(np.float32)
    dy = RNG.standard_normal((3, 2, 4, 5)).astype(np.float32)
    w = RNG.uniform(0.5, 1.5, 4).astype(np.float32)
    b = RNG.standard_normal(4).astype(np.float32)

    def dx_of(t, d):
        return ms.grad(_loss)(t, Tensor(w), Tensor(b), d)

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = ms.jit(ms.vmap(dx_of))(Tensor(x), Tensor(dy)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for i in range(3):
        _, want, _, _ = _reference(x[i], w, b, dy[i])
        np.testing.assert_allclose(got[i], want, rtol=1e-4, atol=1e-4)
