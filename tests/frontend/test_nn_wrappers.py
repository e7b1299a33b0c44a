"""nn.WithLossCell, nn.TrainOneStepCell and nn.WithEvalCell: one train step in both
modes, against the functional value_and_grad step MindSpore 2.x's tutorials write."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn


def _net() -> nn.Cell:
    ms.set_seed(3)
    return nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3)])


def _data() -> tuple[Tensor, Tensor]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    return Tensor(x), Tensor(rng.integers(0, 3, 5).astype(np.int32))


LOSS = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def _wrapped_steps(mode, steps=3, sens=None, opt=nn.Momentum, **opt_kw):
    ms.set_context(mode=mode)
    net = _net()
    train = nn.TrainOneStepCell(
        nn.WithLossCell(net, LOSS), opt(net.trainable_params(), 0.1, **opt_kw), sens=sens
    )
    train.set_train()
    x, y = _data()
    losses = [float(train(x, y).asnumpy()) for _ in range(steps)]
    return losses, [p.asnumpy().copy() for p in net.trainable_params()]


def _functional_steps(steps=3):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = _net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    grad_fn = ms.value_and_grad(lambda x, y: LOSS(net(x), y), None, opt.parameters)
    x, y = _data()
    losses = []
    for _ in range(steps):
        loss, grads = grad_fn(x, y)
        opt(grads)
        losses.append(float(loss.asnumpy()))
    return losses, [p.asnumpy().copy() for p in net.trainable_params()]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_train_one_step_equals_value_and_grad_step(mode):
    got_losses, got_params = _wrapped_steps(mode, momentum=0.9)
    want_losses, want_params = _functional_steps()
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-6)
    assert got_losses[-1] < got_losses[0]
    for got, want in zip(got_params, want_params, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_sens_scales_the_gradient(mode):
    """With SGD, sens=2 is the same step as the learning rate doubled."""
    _, scaled = _wrapped_steps(mode, steps=1, sens=2.0, opt=nn.SGD)
    ms.set_context(mode=mode)
    net = _net()
    train = nn.TrainOneStepCell(nn.WithLossCell(net, LOSS), nn.SGD(net.trainable_params(), 0.2))
    train(*_data())
    for got, want in zip(scaled, net.trainable_params(), strict=True):
        np.testing.assert_allclose(got, want.asnumpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_return_grad_and_eval_cell(mode):
    ms.set_context(mode=mode)
    net = _net()
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    train = nn.TrainOneStepCell(
        nn.WithLossCell(net, LOSS), nn.SGD(net.trainable_params(), 0.5), return_grad=True
    )
    x, y = _data()
    loss, grads = train(x, y)
    assert len(grads) == len(before)
    for b, g, p in zip(before, grads, net.trainable_params(), strict=True):
        np.testing.assert_allclose(p.asnumpy(), b - 0.5 * g.asnumpy(), rtol=1e-5, atol=1e-6)
    loss2, out, label = nn.WithEvalCell(net, LOSS)(x, y)
    np.testing.assert_array_equal(label.asnumpy(), y.asnumpy())
    np.testing.assert_allclose(float(LOSS(out, y).asnumpy()), float(loss2.asnumpy()), rtol=1e-6)
    assert float(loss2.asnumpy()) < float(loss.asnumpy())
    target = Tensor(np.ones((5, 3), np.float16))
    _, out32, label32 = nn.WithEvalCell(net, nn.MSELoss(), add_cast_fp32=True)(x, target)
    assert out32.dtype == ms.float32 and label32.dtype == ms.float32


def test_wrappers_check_their_arguments():
    net = _net()
    opt = nn.SGD(net.trainable_params(), 0.1)
    with pytest.raises(TypeError, match="For 'WithLossCell', 'loss_fn' must be a Cell"):
        nn.WithLossCell(net, lambda a, b: a)
    with pytest.raises(TypeError, match="For 'TrainOneStepCell', 'optimizer' must be"):
        nn.TrainOneStepCell(net, object())
    with pytest.raises(TypeError, match="'sens' must be a number"):
        nn.TrainOneStepCell(net, opt, sens="1")
    with pytest.raises(TypeError, match="'add_cast_fp32' must be a bool"):
        nn.WithEvalCell(net, LOSS, add_cast_fp32=1)
    loss_net = nn.WithLossCell(net, LOSS)
    assert loss_net.backbone_network is net
    # auto_prefix=False: the wrapped Parameters keep their names, as in MindSpore
    assert [p.name for p in loss_net.trainable_params()] == [p.name for p in net.trainable_params()]
