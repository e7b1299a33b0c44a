"""nn.BatchNorm1d/2d and ops.batch_norm against a numpy reference; the moving
statistics as Parameter assigns in graph mode as in PyNative; `set_train`
switching the compiled program; MindSpore's Parameter names and errors."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn, ops
from mindjit.frontend.graph.api import cached_programs, clear_cache

RNG = np.random.default_rng(5)


def _bn_ref(x, mean, var, gamma, beta, training, momentum, eps):
    axes = (0, *range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if training:
        bm, bv = x.mean(axes), x.var(axes)
        new_mean = momentum * mean + (1 - momentum) * bm
        new_var = momentum * var + (1 - momentum) * x.var(axes, ddof=1)  # unbiased
    else:
        bm, bv, new_mean, new_var = mean, var, mean, var
    y = (x - bm.reshape(shape)) / np.sqrt(bv.reshape(shape) + eps)
    return y * gamma.reshape(shape) + beta.reshape(shape), new_mean, new_var


@pytest.mark.parametrize(
    "cls, shape",
    [(nn.BatchNorm1d, (6, 3)), (nn.BatchNorm1d, (4, 3, 5)), (nn.BatchNorm2d, (2, 3, 4, 5))],
)
@pytest.mark.parametrize("training", [True, False])
def test_batchnorm_matches_the_reference(cls, shape, training):
    x = RNG.standard_normal(shape).astype(np.float32) * 2 + 1
    bn = cls(3, momentum=0.8, eps=1e-3, gamma_init="normal", beta_init="normal")
    bn.moving_mean.set_data(RNG.standard_normal(3).astype(np.float32))
    bn.moving_variance.set_data(RNG.random(3).astype(np.float32) + 0.5)
    bn.set_train(training)
    p = [t.asnumpy().copy() for t in (bn.moving_mean, bn.moving_variance, bn.gamma, bn.beta)]
    got = bn(Tensor(x)).asnumpy()
    want, mean, var = _bn_ref(x.astype(np.float64), *p, training, 0.8, 1e-3)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), var, rtol=1e-5, atol=1e-6)


def test_use_batch_statistics_overrides_the_mode():
    x = Tensor(RNG.standard_normal((4, 2, 3, 3)).astype(np.float32))
    always = nn.BatchNorm2d(2, use_batch_statistics=True)  # eval mode, still batch stats
    never = nn.BatchNorm2d(2, use_batch_statistics=False).set_train()
    out = always(x).asnumpy()
    assert abs(out.mean()) < 1e-5 and not np.allclose(always.moving_mean.asnumpy(), 0)
    np.testing.assert_allclose(never(x).asnumpy(), x.asnumpy() / np.sqrt(1 + 1e-5), rtol=1e-6)
    np.testing.assert_array_equal(never.moving_mean.asnumpy(), np.zeros(2, np.float32))


def test_parameters_names_and_trainability():
    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3)
            self.bn = nn.BatchNorm2d(4)

        def construct(self, x):
            return self.bn(self.conv(x))

    net = Block()
    names = [n for n, _ in net.parameters_and_names()]
    assert names == ["conv.weight", "bn.gamma", "bn.beta", "bn.moving_mean", "bn.moving_variance"]
    assert [p.name for p in net.untrainable_params()] == ["bn.moving_mean", "bn.moving_variance"]
    assert [p.name for p in net.trainable_params()] == ["conv.weight", "bn.gamma", "bn.beta"]
    assert [n for n, _ in net.cells_and_names()] == ["", "conv", "bn"]
    assert not net.training and net.set_train().bn.training
    assert not nn.BatchNorm2d(2, affine=False).gamma.requires_grad


class BNNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4, momentum=0.7)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(4 * 8 * 8, 3)
        self.bn1 = nn.BatchNorm1d(3)

    def construct(self, x):
        return self.bn1(self.fc(self.flatten(ops.relu(self.bn(self.conv(x))))))


def _train(mode, steps=3):
    ms.set_context(mode=mode)
    try:
        ms.set_seed(7)
        net = BNNet().set_train()
        opt = nn.SGD(net.trainable_params(), 0.1)
        loss_fn = nn.MSELoss()

        def forward(x, y):
            return loss_fn(net(x), y)

        grad_fn = ms.value_and_grad(forward, None, opt.parameters)

        def step(x, y):
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss

        if mode == ms.GRAPH_MODE:
            step = ms.jit(step)
        rng = np.random.default_rng(0)
        x = Tensor(rng.standard_normal((4, 3, 8, 8)).astype(np.float32))
        y = Tensor(rng.standard_normal((4, 3)).astype(np.float32))
        losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
        net.set_train(False)
        evaluated = net(x).asnumpy()
        return losses, {n: p.asnumpy() for n, p in net.parameters_and_names()}, evaluated
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_train_step_in_graph_mode_equals_pynative_with_moving_statistics():
    g_losses, g_params, g_eval = _train(ms.GRAPH_MODE)
    e_losses, e_params, e_eval = _train(ms.PYNATIVE_MODE)
    assert g_losses[-1] < g_losses[0]
    np.testing.assert_allclose(g_losses, e_losses, rtol=1e-5)
    assert g_params.keys() == e_params.keys()
    for name in g_params:
        np.testing.assert_allclose(g_params[name], e_params[name], rtol=1e-5, atol=1e-6)
    assert not np.allclose(g_params["bn.moving_mean"], 0)  # the assigns ran every step
    np.testing.assert_allclose(g_eval, e_eval, rtol=1e-5, atol=1e-6)


def test_set_train_compiles_the_other_program_and_reuses_both():
    clear_cache()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        bn = nn.BatchNorm2d(2)
        x = Tensor(RNG.standard_normal((3, 2, 2, 2)).astype(np.float32) + 5)
        eval_out = bn(x).asnumpy()
        bn.set_train()
        train_out = bn(x).asnumpy()
        bn.set_train(False)
        again = bn(x).asnumpy()
        bn.training = True  # plain attribute assignment counts too
        bn(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert len(cached_programs()) == 2
    np.testing.assert_allclose(eval_out, x.asnumpy() / np.sqrt(1 + 1e-5), rtol=1e-6)
    assert abs(train_out.mean()) < 1e-5
    assert not np.allclose(again, eval_out)  # the moving mean moved in training
    assert np.allclose(bn.moving_mean.asnumpy(), 5 * (1 - 0.9**2), atol=0.5)


def test_bad_inputs_are_clear_errors():
    with pytest.raises(ValueError, match="rank 4"):
        nn.BatchNorm2d(3)(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="rank 2 or 3"):
        nn.BatchNorm1d(3)(Tensor(np.ones((2, 3, 1, 1), np.float32)))
    with pytest.raises(ValueError, match="has 2 channels"):
        nn.BatchNorm2d(3)(Tensor(np.ones((1, 2, 2, 2), np.float32)))
    with pytest.raises(ValueError, match="'momentum' must be in"):
        nn.BatchNorm2d(3, momentum=1.5)
    with pytest.raises(ValueError, match="'num_features' must be a positive int"):
        nn.BatchNorm2d(0)
    with pytest.raises(ValueError, match="'weight' must have shape"):
        ops.batch_norm(
            Tensor(np.ones((2, 3), np.float32)),
            Tensor(np.zeros(3, np.float32)),
            Tensor(np.ones(3, np.float32)),
            Tensor(np.ones(2, np.float32)),
            Tensor(np.zeros(3, np.float32)),
        )
