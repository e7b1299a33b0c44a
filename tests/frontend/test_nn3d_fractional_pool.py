"""Issue 38: fractional max pooling (ops.fractional_max_pool2d / 3d,
nn.FractionalMaxPool2d / 3d). With `_random_samples` given the windows are fixed: MS
holds what MindSpore 2.10 printed on CPU for the same cases (`cases` ran unchanged
there): shape, dtype, sum, sum of |.| and the first values, in PyNative and graph mode.
Without it the samples are uniform draws, as MindSpore's ops.rand: checked in
distribution (the windows' starts). Gradients against finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run
from ms_inputs import g

import mindjit as ms
from mindjit import Tensor, nn, ops

RNG = np.random.default_rng(3842)


def cases(ops, nn, Tensor, g):
    """name: (function or Cell, its Tensor arguments); the same code printed MindSpore's values."""
    import numpy as np

    x, x3 = Tensor(g(1, 2, 3, 7, 9)), Tensor(g(3, 1, 2, 5, 6, 7))
    rs = Tensor(np.random.default_rng(2).uniform(size=(2, 3, 2)).astype(np.float32))
    rs3 = Tensor(np.random.default_rng(4).uniform(size=(1, 2, 3)).astype(np.float32))
    return {
        "fractional_max_pool2d": (
            lambda x, u: ops.fractional_max_pool2d(x, 2, (4, 5), None, True, u),
            (x, rs),
        ),
        "fractional_max_pool2d_ratio": (
            lambda x, u: ops.fractional_max_pool2d(x, (3, 2), None, (0.5, 0.6), False, u),
            (x, rs),
        ),
        "fractional_max_pool2d_3d": (
            lambda x, u: ops.fractional_max_pool2d(x[0], 2, (4, 5), _random_samples=u[:1]),
            (x, rs),
        ),
        "FractionalMaxPool2d": (
            nn.FractionalMaxPool2d(2, (1, 4), return_indices=True, _random_samples=rs),
            (x,),
        ),
        "fractional_max_pool3d": (
            lambda x, u: ops.fractional_max_pool3d(x, 2, (3, 4, 4), None, True, u),
            (x3, rs3),
        ),
        "FractionalMaxPool3d": (
            nn.FractionalMaxPool3d((2, 3, 2), output_ratio=0.5, _random_samples=rs3),
            (x3,),
        ),
    }


# printed by MindSpore 2.10 (CPU, PyNative) for cases(mindspore.ops, mindspore.nn, ...)
MS = {
    "fractional_max_pool2d": [
        (
            (2, 3, 4, 5),
            "Float32",
            109.71948,
            112.5708,
            [0.821618, 0.546713, 0.905356, 0.598846, 0.581118, 0.213643],
        ),
        ((2, 3, 4, 5), "Int64", 3491.0, 3491.0, [1.0, 11.0, 4.0, 15.0, 7.0, 28.0]),
    ],
    "fractional_max_pool2d_ratio": (
        (2, 3, 3, 5),
        "Float32",
        99.71002,
        99.97694,
        [0.821618, 0.546713, 1.294064, 1.006724, 0.581118, 0.213643],
    ),
    "fractional_max_pool2d_3d": (
        (3, 4, 5),
        "Float32",
        55.34255,
        57.05757,
        [0.821618, 0.546713, 0.905356, 0.598846, 0.581118, 0.213643],
    ),
    "FractionalMaxPool2d": [
        (
            (2, 3, 1, 4),
            "Float32",
            25.47671,
            26.72865,
            [0.879161, 0.914467, 0.320848, 0.731652, 1.753384, 1.523937],
        ),
        ((2, 3, 1, 4), "Int64", 1292.0, 1292.0, [54.0, 56.0, 50.0, 52.0, 45.0, 57.0]),
    ],
    "fractional_max_pool3d": [
        (
            (1, 2, 3, 4, 4),
            "Float32",
            139.1653,
            139.1653,
            [2.040919, 3.322999, 1.405598, 0.747408, 1.545821, 0.70958],
        ),
        ((1, 2, 3, 4, 4), "Int64", 9662.0, 9662.0, [0.0, 9.0, 46.0, 47.0, 21.0, 66.0]),
    ],
    "FractionalMaxPool3d": (
        (1, 2, 2, 3, 3),
        "Float32",
        60.89782,
        60.89782,
        [2.040919, 3.322999, 0.747408, 1.545821, 1.59064, 1.935088],
    ),
}


def _summary(r):
    if isinstance(r, tuple):
        return [_summary(q) for q in r]
    a = r.asnumpy().astype(np.float64)
    return tuple(a.shape), str(r.dtype), a.sum(), np.abs(a).sum(), a.ravel()[:6]


def _check(got, want):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for q, w in zip(got, want):
            _check(q, w)
        return
    assert got[:2] == want[:2]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(got[4], want[4], rtol=1e-4, atol=1e-5)


CASES = cases(ops, nn, Tensor, g)


@pytest.mark.parametrize("name", list(MS))
def test_against_mindspore(name, mode):
    fn, args = CASES[name]
    _check(_summary(run(fn, mode, *args)), MS[name])


def test_random_windows_in_distribution(mode):
    # a ramp: each output's index is its window's last column, so the columns give the starts
    x = Tensor(np.tile(np.arange(11, dtype=np.float32), (1, 2000, 1, 1)))
    _, index = run(lambda x: ops.fractional_max_pool2d(x, (1, 2), (1, 5), None, True), mode, x)
    starts = index.asnumpy()[0, :, 0, :] - 1  # (2000, 5)
    alpha = (11 - 2) / 4
    u = RNG.uniform(size=20000)  # the windows the kernel draws from uniform samples
    ref = np.floor((np.arange(4)[None] + u[:, None]) * alpha) - np.floor(u * alpha)[:, None]
    assert (starts[:, 0] == 0).all() and (starts[:, 4] == 9).all()
    for i in (1, 2, 3):
        got = np.bincount(starts[:, i].astype(int), minlength=10) / len(starts)
        want = np.bincount(ref[:, i].astype(int), minlength=10) / len(ref)
        np.testing.assert_allclose(got, want, atol=0.04)


def test_gradients():
    u = Tensor(RNG.uniform(size=(1, 2, 2)))
    u3 = Tensor(RNG.uniform(size=(1, 1, 3)))
    assert_grads_match_finite_differences(
        lambda x: ops.fractional_max_pool2d(x, 2, (3, 2), _random_samples=u),
        [RNG.standard_normal((1, 2, 5, 4))],
        RNG,
    )
    assert_grads_match_finite_differences(
        lambda x: ops.fractional_max_pool3d(x, 2, 2, _random_samples=u3),
        [RNG.standard_normal((1, 1, 3, 4, 3))],
        RNG,
    )


X = Tensor(g(1, 2, 3, 7, 9))


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: nn.FractionalMaxPool2d(2), ValueError),
        (lambda: ops.fractional_max_pool2d(X, 2), ValueError),
        (lambda: ops.fractional_max_pool2d(X, 2, (7, 5)), ValueError),
        (lambda: ops.fractional_max_pool2d(X, 2, None, 1.5), ValueError),
        (
            lambda: ops.fractional_max_pool2d(X, 2, (2, 2), _random_samples=Tensor(g(1, 2, 2))),
            ValueError,
        ),  # fmt: skip
        (lambda: ops.fractional_max_pool3d(X[0], 2, (2, 2, 2)), ValueError),
        (lambda: ops.fractional_max_pool2d(ops.cast(X, ms.int32), 2, (2, 2)), TypeError),
    ],
)
def test_errors(call, error):
    with pytest.raises(error):
        call()
