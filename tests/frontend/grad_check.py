"""One finite-difference check of `ms.grad` for frontend tests (float64 inputs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import mindjit as ms
from mindjit import Tensor, ops


def assert_grads_match_finite_differences(
    fn: Callable[..., Any],
    arrays: list[np.ndarray],
    rng: np.random.Generator,
    eps: float = 1e-6,
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> None:
    """ms.grad of sum(fn(*inputs) * r), r random, for every input against central
    differences of the same objective."""
    r = rng.standard_normal(fn(*[Tensor(a) for a in arrays]).shape)

    def objective(*ts):
        return ops.reduce_sum(fn(*ts) * Tensor(r))

    got = ms.grad(objective, tuple(range(len(arrays))))(*[Tensor(a) for a in arrays])
    for p, g in enumerate(got):
        want = np.zeros(arrays[p].shape)
        for k in np.ndindex(*arrays[p].shape):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[p][k] += eps
            minus[p][k] -= eps
            hi = float(objective(*[Tensor(a) for a in plus]).asnumpy())
            lo = float(objective(*[Tensor(a) for a in minus]).asnumpy())
            want[k] = (hi - lo) / (2 * eps)
        np.testing.assert_allclose(g.asnumpy(), want, rtol=rtol, atol=atol)


def central_differences(loss: Callable[[], float], array: np.ndarray, eps: float) -> np.ndarray:
    """d loss / d array by central differences, perturbing `array` in place (restored)."""
    grad = np.zeros_like(array)
    for k in np.ndindex(*array.shape):
        array[k] += eps
        hi = loss()
        array[k] -= 2 * eps
        lo = loss()
        array[k] += eps
        grad[k] = (hi - lo) / (2 * eps)
    return grad


def assert_parameter_grads_match(
    loss: Callable[[], float],
    params: Any,
    grads: Any,
    entries: int,
    eps: float,
    rtol: float,
    atol: float,
) -> None:
    """The first `entries` elements of each Parameter's gradient against central
    differences of `loss` (each Parameter set back afterwards)."""
    for p, g in zip(params, grads, strict=True):
        data = p.asnumpy().copy()
        for k in list(np.ndindex(*p.shape))[:entries]:
            d = data.copy()
            d[k] += eps
            p.set_data(d)
            hi = loss()
            d[k] -= 2 * eps
            p.set_data(d)
            lo = loss()
            p.set_data(data)
            np.testing.assert_allclose(g.asnumpy()[k], (hi - lo) / (2 * eps), rtol=rtol, atol=atol)
