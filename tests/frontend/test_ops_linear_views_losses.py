"""ops.dense / addmm / baddbmm / cosine_similarity, ops.index_select / narrow / roll /
meshgrid, and ops.mse_loss / binary_cross_entropy(_with_logits) / kl_div / huber_loss
with nn.KLDivLoss / nn.HuberLoss, against numpy in PyNative and graph mode;
gradients against finite differences; errors."""

from __future__ import annotations

import numpy as np
import pytest
from modes import run as _run

import mindjit as ms
from mindjit import Tensor, nn, ops
from mindjit.backend.cpu.errors import RuntimeCheckError

RNG = np.random.default_rng(17)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _fd_grad(f, x, eps=1e-3):
    """Central finite differences of the scalar f at x (float64)."""
    x = x.astype(np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


# --- products ------------------------------------------------------------------------------


def _products(x, w, b, m, b1, b2):
    return (
        ops.dense(x, w, b),
        ops.dense(x, w),
        ops.addmm(m, x, w.T, beta=0.5, alpha=2.0),
        ops.baddbmm(b1[:, :, :2], b1, b2, 2, 0.5),
        ops.cosine_similarity(x, w[:2]),
        ops.cosine_similarity(b1, b1 * 2, dim=-1),
    )


def test_products(mode):
    x, w, b, m = f32(2, 4), f32(3, 4), f32(3), f32(2, 3)
    b1, b2 = f32(2, 3, 4), f32(2, 4, 2)
    got = _run(_products, mode, *(Tensor(v) for v in (x, w, b, m, b1, b2)))

    def cos(a, c, axis):
        return (a * c).sum(axis) / np.sqrt((a * a).sum(axis) * (c * c).sum(axis))

    want = (
        x @ w.T + b,
        x @ w.T,
        0.5 * m + 2 * x @ w.T,
        2 * b1[:, :, :2] + 0.5 * b1 @ b2,
        cos(x, w[:2], 1),
        np.ones((2, 3)),
    )
    for g, v in zip(got, want, strict=True):
        np.testing.assert_allclose(g.asnumpy(), v, rtol=1e-5, atol=1e-5)
    assert ops.dense(Tensor(x), Tensor(w[0])).shape == (2,)


def test_cosine_similarity_gradient():
    a, c = f32(3, 4), f32(3, 4)
    g = ms.grad(lambda t: ops.cosine_similarity(t, Tensor(c)).sum())(Tensor(a))

    def f(t):
        return ((t * c).sum(1) / np.sqrt((t * t).sum(1) * (c * c).sum(1))).sum()

    np.testing.assert_allclose(g.asnumpy(), _fd_grad(f, a), rtol=1e-3, atol=1e-4)


# --- views ---------------------------------------------------------------------------------


def _views(x, idx):
    gx, gy = ops.meshgrid(x[0], x[1, :3])
    ix, iy, iz = ops.meshgrid((x[0], x[1, :3], x[2, :2]), indexing="ij")
    return (
        ops.index_select(x, 1, idx),
        x.index_select(0, idx[:2]),
        ops.narrow(x, 1, 1, 2),
        x.narrow(0, -2, 2),
        ops.roll(x, 1),
        ops.roll(x, (2, -1), (1, 0)),
        x.roll(-3, 1),
        gx,
        gy,
        ix,
        iy,
        iz,
    )


def test_views(mode):
    x = f32(3, 4)
    idx = np.array([2, 0, 2], np.int32)
    got = _run(_views, mode, Tensor(x), Tensor(idx))
    gx, gy = np.meshgrid(x[0], x[1, :3])
    ix, iy, iz = np.meshgrid(x[0], x[1, :3], x[2, :2], indexing="ij")
    want = (
        x[:, idx],
        x[idx[:2]],
        x[:, 1:3],
        x[1:3],
        np.roll(x, 1),
        np.roll(x, (2, -1), (1, 0)),
        np.roll(x, -3, 1),
        gx,
        gy,
        ix,
        iy,
        iz,
    )
    for g, v in zip(got, want, strict=True):
        np.testing.assert_array_equal(g.asnumpy(), v)


def _rolled_loss(x):
    return (ops.roll(x, (1, 2), (0, 1)) * ops.arange(12.0).reshape(3, 4)).sum() + (
        ops.narrow(x, 1, 1, 2) ** 2
    ).sum()


def test_view_gradients(mode):
    x = f32(3, 4)
    g = _run(ms.grad(_rolled_loss), mode, Tensor(x))
    c = np.arange(12.0).reshape(3, 4)

    def f(t):
        return (np.roll(t, (1, 2), (0, 1)) * c).sum() + (t[:, 1:3] ** 2).sum()

    np.testing.assert_allclose(g.asnumpy(), _fd_grad(f, x), rtol=1e-3, atol=1e-3)


# --- losses --------------------------------------------------------------------------------


def _bce(p, y):
    return -(y * np.maximum(np.log(p), -100) + (1 - y) * np.maximum(np.log(1 - p), -100))


def _bce_logits(x, y, pw=None):
    if pw is None:
        return np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))
    sp = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)
    return (1 - y) * x + ((pw - 1) * y + 1) * sp


def _kl(lp, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - lp), 0)


def _huber(d, delta):
    return np.where(np.abs(d) < delta, 0.5 * d * d, delta * (np.abs(d) - 0.5 * delta))


def _reduce(v, reduction):
    return {"none": v, "sum": v.sum(), "mean": v.mean()}[reduction]


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_losses(reduction, mode):
    x, t = f32(3, 4), RNG.random((3, 4)).astype(np.float32)
    p = 1 / (1 + np.exp(-x))
    w, pw = RNG.random(4).astype(np.float32), RNG.random(4).astype(np.float32) + 0.5
    lp = x - np.log(np.exp(x).sum(1, keepdims=True))
    t0 = t.copy()
    t0[0, 0] = 0  # y = 0 contributes 0 to the KL divergence

    def fn(x_, t_, p_, w_, pw_, lp_, t0_):
        return (
            ops.mse_loss(x_, t_, reduction),
            ops.binary_cross_entropy(p_, t_, w_, reduction),
            ops.binary_cross_entropy_with_logits(x_, t_, w_, pw_, reduction),
            ops.binary_cross_entropy_with_logits(x_, t_, reduction=reduction),
            ops.kl_div(lp_, t0_, reduction),
            ops.kl_div(lp_, ops.log(t_), reduction, log_target=True),
            ops.huber_loss(x_, t_, reduction, 0.5),
        )

    got = _run(fn, mode, *(Tensor(v) for v in (x, t, p, w, pw, lp, t0)))
    want = (
        (x - t) ** 2,
        _bce(p, t) * w,
        _bce_logits(x, t, pw) * w,
        _bce_logits(x, t),
        _kl(lp, t0),
        t * (np.log(t) - lp),
        _huber(x - t, 0.5),
    )
    for g, v in zip(got, want, strict=True):
        np.testing.assert_allclose(g.asnumpy(), _reduce(v, reduction), rtol=1e-4, atol=1e-6)


def test_kl_batchmean_and_cells(mode):
    lp, y = np.log(RNG.random((4, 3)).astype(np.float32)), RNG.random((4, 3)).astype(np.float32)
    x, t = f32(4, 3), f32(4, 3)
    kl = nn.KLDivLoss("batchmean")
    huber = nn.HuberLoss(delta=2.0)
    hub_sum = nn.HuberLoss("sum")

    def fn(a, b, c, d):
        return kl(a, b), huber(c, d), hub_sum(c, d), ops.kl_div(a, b, "batchmean")

    k, h, hs, k2 = _run(fn, mode, Tensor(lp), Tensor(y), Tensor(x), Tensor(t))
    np.testing.assert_allclose(k.asnumpy(), _kl(lp, y).sum() / 4, rtol=1e-5)
    np.testing.assert_allclose(k2.asnumpy(), _kl(lp, y).sum() / 4, rtol=1e-5)
    np.testing.assert_allclose(h.asnumpy(), _huber(x - t, 2.0).mean(), rtol=1e-5)
    np.testing.assert_allclose(hs.asnumpy(), _huber(x - t, 1.0).sum(), rtol=1e-5)


def test_loss_gradients():
    x, t = f32(2, 3), RNG.random((2, 3)).astype(np.float32)
    g = ms.grad(lambda a: ops.binary_cross_entropy_with_logits(a, Tensor(t)))(Tensor(x))
    np.testing.assert_allclose(
        g.asnumpy(), _fd_grad(lambda a: _bce_logits(a, t).mean(), x), rtol=1e-3, atol=1e-5
    )
    g = ms.grad(lambda a: ops.huber_loss(a, Tensor(t), delta=0.7))(Tensor(x))
    np.testing.assert_allclose(
        g.asnumpy(), _fd_grad(lambda a: _huber(a - t, 0.7).mean(), x), rtol=1e-3, atol=1e-5
    )
    lp = np.log(RNG.random((2, 3)))
    y = t.copy()
    y[0, 0] = 0
    g = ms.grad(lambda a: ops.kl_div(a, Tensor(y), "sum"))(Tensor(lp.astype(np.float32)))
    assert np.isfinite(g.asnumpy()).all()
    np.testing.assert_allclose(g.asnumpy(), -y, rtol=1e-6)


def test_errors():
    x = Tensor(f32(2, 3))
    with pytest.raises(ValueError, match="'reduction' must be in"):
        ops.mse_loss(x, x, "batchmean")
    with pytest.raises(ValueError, match="'reduction' must be in"):
        nn.KLDivLoss("avg")
    with pytest.raises(ValueError, match="'delta' must be greater than 0"):
        nn.HuberLoss(delta=0)
    with pytest.raises(TypeError, match="'input' must be a Tensor"):
        ops.mse_loss(np.ones(2), x)
    with pytest.raises(RuntimeCheckError, match="must be in \\[0, 1\\]"):
        ops.binary_cross_entropy(
            Tensor(np.array([1.5], np.float32)), Tensor(np.ones(1, np.float32))
        )
    with pytest.raises(ValueError, match="'index' must be 1-D"):
        ops.index_select(x, 0, Tensor(np.zeros((1, 1), np.int32)))
    with pytest.raises(TypeError, match="'index' must be int32 or int64"):
        ops.index_select(x, 0, Tensor(np.zeros(1, np.float32)))
    with pytest.raises(ValueError, match="'start' \\+ 'length'"):
        ops.narrow(x, 1, 2, 2)
    with pytest.raises(ValueError, match="same length"):
        ops.roll(x, (1, 2), 0)
    with pytest.raises(ValueError, match="'indexing' must be"):
        ops.meshgrid(x[0], x[1], indexing="ji")
    with pytest.raises(ValueError, match="cannot multiply"):
        ops.addmm(x, x, x)
    with pytest.raises(ValueError, match="last axis"):
        ops.dense(x, Tensor(f32(3, 4)))
    with pytest.raises(TypeError, match="'beta' must be an int or a float"):
        ops.baddbmm(x, Tensor(f32(1, 2, 3)), Tensor(f32(1, 3, 3)), beta=None)
