"""`ms.jit` of a callable that is not a Python function (issue 38): a function made
by `ms.grad` (to any order) or `ms.vmap`, compiled as a graph that calls it, as
MindSpore 2.10's `ms.jit(ms.grad(ms.grad(f)))` does."""

from __future__ import annotations

import numpy as np

import mindjit as ms
from mindjit import ops


def f(x):
    return ops.sin(x) * x


X = np.array([0.5, 1.0, 2.0], np.float32)


def test_jit_of_a_second_order_gradient() -> None:
    got = ms.jit(ms.grad(ms.grad(f)))(ms.Tensor(X)).asnumpy()
    np.testing.assert_allclose(got, 2 * np.cos(X) - X * np.sin(X), rtol=1e-5)


def test_jit_of_a_gradient_matches_pynative() -> None:
    got = ms.jit(ms.grad(f))(ms.Tensor(X)).asnumpy()
    eager = ms.grad(f)(ms.Tensor(X)).asnumpy()
    np.testing.assert_allclose(got, eager, rtol=1e-6)
    np.testing.assert_allclose(got, np.sin(X) + X * np.cos(X), rtol=1e-5)


def test_jit_of_vmap_and_of_value_and_grad() -> None:
    xs = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(
        ms.jit(ms.vmap(f))(ms.Tensor(xs)).asnumpy(), np.sin(xs) * xs, rtol=1e-5
    )
    value, grad = ms.jit(ms.value_and_grad(lambda x: f(x).sum()))(ms.Tensor(X))
    np.testing.assert_allclose(value.asnumpy(), (np.sin(X) * X).sum(), rtol=1e-5)
    np.testing.assert_allclose(grad.asnumpy(), np.sin(X) + X * np.cos(X), rtol=1e-5)
