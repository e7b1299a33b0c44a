"""BatchNorm's moving statistics after training steps, against values computed by
hand from the inputs BatchNorm saw: one update per step, with the unbiased batch
variance (MindSpore's formula), on every path a train step takes.

A path that runs the forward twice (a TrainOneStepCell differentiating a second
run of its network, a gradient recomputing a forward) updates the statistics
twice and fails here, whichever engine runs it."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn
from mindjit.frontend.graph.api import cached_programs

MOMENTUM = 0.9
STEPS = 3


class DenseBN(nn.Cell):
    """Dense -> BatchNorm1d -> Dense: BatchNorm sees the first layer's output."""

    def __init__(self):
        super().__init__()
        self.d1 = nn.Dense(4, 3)
        self.bn = nn.BatchNorm1d(3, momentum=MOMENTUM)
        self.d2 = nn.Dense(3, 2)

    def construct(self, x):
        return self.d2(self.bn(self.d1(x)))

    def bn_input(self, x: np.ndarray) -> np.ndarray:
        w, b = self.d1.weight.asnumpy(), self.d1.bias.asnumpy()
        return x @ w.T + b


class BNConv(nn.Cell):
    """BatchNorm2d on the input, then Conv2d, ReLU, Dense."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(3, momentum=MOMENTUM)
        self.conv = nn.Conv2d(3, 2, 3, pad_mode="valid")
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(2 * 3 * 3, 2)

    def construct(self, x):
        return self.fc(self.flatten(self.relu(self.conv(self.bn(x)))))

    def bn_input(self, x: np.ndarray) -> np.ndarray:
        return x


class LazyBlock(nn.Cell):
    """A lazy-inline Block holding a BatchNorm (its graph is not pure: it assigns)."""

    @ms.lazy_inline
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(3, momentum=MOMENTUM)
        self.d = nn.Dense(3, 3)

    def construct(self, x):
        return self.d(self.bn(x))


class LazyNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d1 = nn.Dense(4, 3)
        self.block = LazyBlock()
        self.d2 = nn.Dense(3, 2)

    def construct(self, x):
        return self.d2(self.block(self.d1(x)))

    @property
    def bn(self):
        return self.block.bn

    def bn_input(self, x: np.ndarray) -> np.ndarray:
        return DenseBN.bn_input(self, x)


SHAPES = {DenseBN: ((8, 4), (8, 2)), BNConv: ((4, 3, 5, 5), (4, 2)), LazyNet: ((8, 4), (8, 2))}


def _expected(stats: tuple[np.ndarray, np.ndarray], h: np.ndarray) -> tuple:
    axes = (0, *range(2, h.ndim))
    h = h.astype(np.float64)
    mean, var = stats
    return (
        MOMENTUM * mean + (1 - MOMENTUM) * h.mean(axes),
        MOMENTUM * var + (1 - MOMENTUM) * h.var(axes, ddof=1),
    )


def _step_fn(net: nn.Cell, wrapper: str, backend: str | None):
    loss_fn = nn.MSELoss()
    opt = nn.SGD(net.trainable_params(), 0.05)
    jit_config = ms.JitConfig(backend=backend) if backend else None
    if wrapper == "TrainOneStepCell":
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
        if jit_config is not None:
            step.set_jit_config(jit_config)
        return step
    if wrapper == "forward only":
        if jit_config is not None:
            net.set_jit_config(jit_config)
        return lambda x, y: net(x)

    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    if ms.get_context("mode") == ms.GRAPH_MODE:
        return ms.jit(train_step, jit_config=jit_config)
    return train_step


PATHS = [
    pytest.param(ms.PYNATIVE_MODE, "CPU", None, id="pynative"),
    pytest.param(ms.GRAPH_MODE, "CPU", None, id="graph"),
    pytest.param(ms.GRAPH_MODE, "Ascend", None, id="device"),
    pytest.param(ms.GRAPH_MODE, "CPU", "iree", id="iree"),
]


@pytest.mark.parametrize("mode, device, backend", PATHS)
@pytest.mark.parametrize("wrapper", ["TrainOneStepCell", "value_and_grad", "forward only"])
@pytest.mark.parametrize("cls", [DenseBN, BNConv, LazyNet])
def test_moving_statistics_update_once_per_step(cls, wrapper, mode, device, backend):
    if backend == "iree" and cls is not DenseBN:
        pytest.skip("IREE: one network is enough to check the engine (compiles are slow)")
    ms.set_context(mode=mode, device_target=device)
    ms.set_seed(1)
    net = cls()
    net.set_train()
    step = _step_fn(net, wrapper, backend)
    rng = np.random.default_rng(3)
    xs, ys = SHAPES[cls]
    for _ in range(STEPS):
        x = rng.standard_normal(xs).astype(np.float32) * 2 + 1
        y = rng.standard_normal(ys).astype(np.float32)
        before = (net.bn.moving_mean.asnumpy().copy(), net.bn.moving_variance.asnumpy().copy())
        want_mean, want_var = _expected(before, net.bn_input(x))
        step(Tensor(x), Tensor(y))
        np.testing.assert_allclose(net.bn.moving_mean.asnumpy(), want_mean, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(net.bn.moving_variance.asnumpy(), want_var, rtol=1e-4, atol=1e-6)
    if mode == ms.GRAPH_MODE:  # the engine asked for is the one that ran
        exe = cached_programs()[-1].executable
        if device == "Ascend":
            assert type(exe).__name__ == "AscendExecutable"
        else:
            assert exe.backend == (backend or "numpy")


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_train_one_step_loss_and_gradient_come_from_one_forward(mode):
    """With a Dropout the returned loss and the gradient must share one mask: the
    step's weights move as the gradient of the loss it returned says."""
    ms.set_context(mode=mode)
    ms.set_seed(7)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d = nn.Dense(6, 1, has_bias=False)
            self.drop = nn.Dropout(p=0.5)

        def construct(self, x):
            return self.d(self.drop(x))

    net = Net()
    net.set_train()
    x = np.ones((1, 6), np.float32)
    w0 = net.d.weight.asnumpy().copy()
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.L1Loss()), nn.SGD(net.trainable_params(), 1.0)
    )
    loss = float(step(Tensor(x), Tensor(np.zeros((1, 1), np.float32))).asnumpy())
    moved = (net.d.weight.asnumpy() - w0).ravel()
    kept = moved != 0  # the elements the mask kept (scaled by 2): their weights moved
    assert 0 < kept.sum() < 6
    # L1 of the single output: |sum of kept w * 2|; the gradient is sign * 2 on kept
    np.testing.assert_allclose(loss, abs((w0.ravel() * 2)[kept].sum()), rtol=1e-5)
    np.testing.assert_allclose(np.abs(moved[kept]), 2.0, rtol=1e-5)
