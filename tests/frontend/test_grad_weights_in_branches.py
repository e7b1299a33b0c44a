"""Gradients of Parameters read only inside a tensor `if` (a silent wrong result
found with switch_layer: graph mode gave zeros, PyNative the right values).
mindir-grad's activity analysis saw nothing varying among the values the if
uses from outside, so it skipped the if; what a branch yields counts now. Graph
mode must give PyNative's loss and gradients, and both the formula's."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import nn


class DirectRead(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([2.0, 3.0], np.float32)), name="w")

    def construct(self, x, i):
        if i == 1:
            y = x * self.w
        else:
            y = x
        return y.sum()


class SubCells(nn.Cell):
    def __init__(self):
        super().__init__()
        self.l0 = nn.Dense(2, 2)
        self.l1 = nn.Dense(2, 2)

    def construct(self, x, i):
        if i == 1:
            y = self.l1(x)
        else:
            y = self.l0(x)
        return y.sum()


class Nested(DirectRead):
    def construct(self, x, i):
        y = x
        if i > 0:
            if i > 1:
                y = x * self.w * self.w
            else:
                y = x + self.w
        return y.sum()


X = np.array([[1.0, 5.0]], np.float32)


def _loss_and_grads(net, i, mode):
    ms.set_context(mode=mode)
    grad_fn = ms.value_and_grad(net, None, net.trainable_params())
    loss, grads = grad_fn(ms.Tensor(X), ms.Tensor(i, ms.int32))
    return [loss.asnumpy(), *(g.asnumpy() for g in grads)]


@pytest.mark.parametrize("cls", [DirectRead, SubCells, Nested])
@pytest.mark.parametrize("i", [0, 1, 2])
def test_graph_gradients_of_weights_in_branches_match_pynative(cls, i) -> None:
    net = cls()
    eager = _loss_and_grads(net, i, ms.PYNATIVE_MODE)
    graph = _loss_and_grads(net, i, ms.GRAPH_MODE)
    for e, g in zip(eager, graph):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_the_formula() -> None:
    w = np.array([2.0, 3.0], np.float32)
    for i, want in ((0, 0 * w), (1, np.ones(2)), (2, 2 * X[0] * w)):
        graph = _loss_and_grads(Nested(), i, ms.GRAPH_MODE)
        np.testing.assert_allclose(graph[1], want, rtol=1e-6)
