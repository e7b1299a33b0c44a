"""`super()` in graph mode (issue 38): `super().construct(x)` and
`super(Sub, self).method(x)` in a subclass's construct compile the parent's
method as a method of the same object, as MindSpore 2.10's graph mode does, and
give PyNative's outputs and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import nn
from mindjit.frontend.graph.errors import FrontendError


class Base(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2, weight_init="normal")

    def construct(self, x):
        return self.dense(x)

    def scale(self, x):
        return x * 2


class Sub(Base):
    def construct(self, x):
        y = super().construct(x)
        return super(Sub, self).scale(y) + 1  # noqa: UP008 - the two-argument form is the case


class SubSub(Sub):
    """Two levels: `super()` in Sub's construct resolves from Sub, not from SubSub."""

    def construct(self, x):
        return super().construct(x) * 3


class NoSelf(nn.Cell):
    def construct(self, x):
        return helper(x)


def helper(x):
    return super().scale(x)  # not a method: no __class__ cell


def _run(net, x, mode):
    ms.set_context(mode=mode)
    return net(ms.Tensor(x)).asnumpy()


@pytest.mark.parametrize("cls", [Sub, SubSub])
def test_super_calls_match_pynative(cls) -> None:
    net = cls()
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    eager = _run(net, x, ms.PYNATIVE_MODE)
    graph = _run(net, x, ms.GRAPH_MODE)
    w, b = net.dense.weight.asnumpy(), net.dense.bias.asnumpy()
    want = (x @ w.T + b) * 2 + 1
    if cls is SubSub:
        want = want * 3
    np.testing.assert_allclose(eager, want, rtol=1e-5)
    np.testing.assert_allclose(graph, eager, rtol=1e-6)


def test_gradient_through_super_matches_pynative() -> None:
    net = Sub()
    x = ms.Tensor(np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32))
    grad_fn = ms.value_and_grad(lambda v: net(v).sum(), None, net.trainable_params())
    results = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        loss, grads = grad_fn(x)
        results.append([loss.asnumpy(), *(g.asnumpy() for g in grads)])
    for eager, graph in zip(*results):
        np.testing.assert_allclose(graph, eager, rtol=1e-5)
    # d(sum(2 (x W^T + b) + 1)) / dW = 2 * ones^T x
    np.testing.assert_allclose(results[0][1], 2 * np.ones((2, 4)) @ x.asnumpy(), rtol=1e-5)


def test_super_outside_a_method_is_a_located_error() -> None:
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(FrontendError, match="super\\(\\) without arguments") as info:
        NoSelf()(ms.Tensor(np.ones((1, 3), np.float32)))
    assert "test_graph_super.py" in str(info.value)
