"""A training step whose loss is `(out - y) ** 2` on IREE: every Parameter after
three steps is the numpy executor's. Pow's gradient `2 * d ** (2 - 1)` has an
exponent IREE only knows at run time; IREE 3.13 computed it as
`exp(1 * log(d))`, NaN for every negative `d`, so the first step made every
Parameter NaN while its loss was right (backend/iree/pow.py)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

import mindjit as ms  # noqa: E402
from mindjit import Tensor, nn  # noqa: E402


class Net(nn.Cell):
    def __init__(self, exponent):
        super().__init__()
        self.exponent = exponent
        self.wx = nn.Dense(4, 8)
        self.out = nn.Dense(8, 1)

    def construct(self, x, y):
        return ((self.out(self.wx(x[0])) - y) ** self.exponent).mean()


def _train(backend, optimizer, exponent):
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(1)
    net = Net(exponent)
    params = net.trainable_params()
    opt = nn.SGD(params, 0.1) if optimizer == "sgd" else nn.Adam(params, 0.01)
    step = nn.TrainOneStepCell(net, opt)
    if backend is not None:
        step.set_jit_config(ms.JitConfig(backend=backend))
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((6, 2, 4)).astype(np.float32))
    y = Tensor(rng.standard_normal((2, 1)).astype(np.float32))
    losses = [float(step(x, y).asnumpy()) for _ in range(3)]
    return losses, [p.asnumpy().copy() for p in params]


@pytest.mark.parametrize(("optimizer", "exponent"), [("sgd", 2), ("adam", 3)])
def test_pow_loss_trains_on_iree_as_on_numpy(optimizer, exponent):
    want_losses, want = _train(None, optimizer, exponent)
    got_losses, got = _train("iree", optimizer, exponent)
    assert all(np.isfinite(w).all() for w in want)
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-5)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
