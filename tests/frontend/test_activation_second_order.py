"""Second and third order of sigmoid and tanh in graph mode.

mindir-grad differentiates sigmoid and tanh into one `sigmoid_grad` / `tanh_grad`
each (MindSpore's SigmoidGrad / TanhGrad), and those into themselves plus a few ops:
`ms.jit(ms.grad(ms.grad(f)))` runs those rules. PyNative computes first-order
gradients only (a grad of a grad asks for @ms.jit), so the second order is checked
against the closed forms and against central differences of PyNative's first-order
gradient, in float64.
"""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, ops

X = np.array([-2.5, -0.7, 0.0, 0.4, 1.3, 3.0])


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _graph(fn, order: int):
    for _ in range(order):
        fn = ms.grad(fn)
    return ms.jit(fn)


def _lstm_cell(x):
    """An LSTM cell's shape on one input: sigmoid gates on a tanh state."""
    c = ops.sigmoid(x * 0.5) * ops.tanh(x) + ops.sigmoid(-x) * 0.3
    return ops.sigmoid(x + 0.1) * ops.tanh(c)


CLOSED_FORMS = {
    "sigmoid": (
        ops.sigmoid,
        lambda s: s * (1 - s) * (1 - 2 * s),
        lambda s: s * (1 - s) * (1 - 6 * s + 6 * s * s),
        _sigmoid,
    ),
    "tanh": (
        ops.tanh,
        lambda t: -2 * t * (1 - t * t),
        lambda t: (1 - t * t) * (6 * t * t - 2),
        np.tanh,
    ),
}


@pytest.mark.parametrize("name", sorted(CLOSED_FORMS))
def test_second_and_third_order_match_the_closed_forms(name: str) -> None:
    fn, second, third, forward = CLOSED_FORMS[name]
    y = forward(X)
    x = Tensor(X)
    np.testing.assert_allclose(_graph(fn, 2)(x).asnumpy(), second(y), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_graph(fn, 3)(x).asnumpy(), third(y), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn", [ops.sigmoid, ops.tanh, _lstm_cell], ids=lambda f: f.__name__)
def test_second_order_matches_differences_of_the_pynative_gradient(fn) -> None:
    got = _graph(fn, 2)(Tensor(X)).asnumpy()
    first = ms.grad(fn)  # PyNative
    eps = 1e-6
    want = (first(Tensor(X + eps)).asnumpy() - first(Tensor(X - eps)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_first_order_is_the_same_in_both_modes() -> None:
    eager = ms.grad(_lstm_cell)(Tensor(X)).asnumpy()
    graph = _graph(_lstm_cell, 1)(Tensor(X)).asnumpy()
    np.testing.assert_allclose(graph, eager, rtol=1e-12)


def test_vmap_of_the_gradient_batches_the_adjoint_ops() -> None:
    """mindir-vmap runs after mindir-grad: it batches sigmoid_grad / tanh_grad like
    any elementwise op."""
    xs = np.stack([X, -X * 0.5])
    got = ms.jit(ms.vmap(ms.grad(_lstm_cell)))(Tensor(xs)).asnumpy()
    want = np.stack([ms.grad(_lstm_cell)(Tensor(row)).asnumpy() for row in xs])
    np.testing.assert_allclose(got, want, rtol=1e-12)
