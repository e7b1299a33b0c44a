"""Issue 38: MindSpore 2.10's NaN-aware and sign functions (frontend/ops/elementwise_nan.py)
and their Tensor methods: fmax, fmin, copysign, heaviside, signbit, erfc, xdivy, nansum,
nanmean. Values are what MindSpore 2.10 printed on CPU (pasted as constants); every case
runs in PyNative and graph mode; gradients against finite differences; bad input raises
MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

from mindjit import Tensor, ops

RNG = np.random.default_rng(3810)
NAN = float("nan")
A = np.array([1.0, NAN, -2.0, 0.0, -0.0], np.float32)
B = np.array([NAN, 3.0, -1.0, -5.0, 2.0], np.float32)
N = np.array([[1.0, NAN, 3.0], [NAN, NAN, 6.0]], np.float32)


def _check(got, want, dtype=None):
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _check(g, w, dtype)
        return
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-6, atol=1e-6)
    if dtype is not None:
        assert str(got.dtype) == dtype


def test_fmax_fmin(mode):
    got = run(
        lambda a, b: (ops.fmax(a, b), a.fmax(b), ops.fmin(a, b), b.fmin(a)),
        mode,
        Tensor(A),
        Tensor(B),
    )
    _check(got[0], [1.0, 3.0, -1.0, 0.0, 2.0], "Float32")  # MindSpore 2.10
    _check(got[1], [1.0, 3.0, -1.0, 0.0, 2.0])
    # MindSpore 2.10 has no CPU kernel for Fmin; numpy's fmin
    _check(got[2], np.fmin(A, B))
    _check(got[3], np.fmin(A, B))
    # int and float promote, and broadcast (MindSpore: [1., 2.] Float32; a column)
    got = run(
        lambda i, f, c: (ops.fmax(i, f), ops.fmax(Tensor([1.0]), c)),
        mode,
        Tensor([1, 2]),
        Tensor([1.0, 2.0]),
        Tensor([[1.0], [2.0], [3.0]]),
    )
    _check(got, ([1.0, 2.0], [[1.0], [2.0], [3.0]]), "Float32")
    got = run(lambda i, j: ops.fmax(i, j), mode, Tensor([1, 5]), Tensor([3, 2]))
    _check(got, [3, 5], "Int64")


def test_copysign_heaviside_signbit(mode):
    got = run(
        lambda x, o, v: (
            ops.copysign(x, o),
            x.copysign(-2.0),
            ops.heaviside(Tensor([-1.5, 0.0, 2.0]), v),
            Tensor([-1, 0, 2]).heaviside(Tensor([7, 8, 9])),
            ops.signbit(Tensor([1.0, -2.0, 0.0, -0.0])),
            Tensor([1, -2, 0]).signbit(),
        ),
        mode,
        Tensor([1.0, -2.0, 3.0]),
        Tensor([-1.0, 0.0, -0.0]),
        Tensor([0.5]),
    )
    # MindSpore 2.10: -0.0 counts as positive for both copysign and signbit
    _check(got[0], [-1.0, 2.0, 3.0], "Float32")
    _check(got[1], [-1.0, -2.0, -3.0], "Float32")
    _check(got[2], [0.0, 0.5, 1.0], "Float32")
    _check(got[3], [0, 8, 1], "Int64")
    _check(got[4], [False, True, False, False], "Bool")
    _check(got[5], [False, True, False], "Bool")
    # an int magnitude is computed in float32 (MindSpore: [1.] Float32)
    _check(run(lambda i: ops.copysign(i, 1.0), mode, Tensor([1])), [1.0], "Float32")


def test_erfc_xdivy(mode):
    got = run(
        lambda x, a, b: (ops.erfc(x), x.erfc(), ops.xdivy(a, b), a.xdivy(b)),
        mode,
        Tensor([-1.0, 0.0, 0.5, 2.0]),
        Tensor([0.0, 2.0, 3.0]),
        Tensor([0.0, 4.0, -2.0]),
    )
    erfc = [1.8427008390426636, 1.0, 0.4795001149177551, 0.004677734803408384]  # MindSpore
    np.testing.assert_allclose(got[0].asnumpy(), erfc, rtol=2e-5)
    np.testing.assert_allclose(got[1].asnumpy(), erfc, rtol=2e-5)
    _check(got[2:], ([0.0, 0.5, -1.5], [0.0, 0.5, -1.5]), "Float32")


def test_nansum_nanmean(mode):
    got = run(
        lambda n, i: (
            ops.nansum(n),
            ops.nansum(n, 0),
            ops.nansum(n, 1, True),
            ops.nansum(i, 1),
            n.nansum(axis=(0, 1)),
            ops.nanmean(n),
            ops.nanmean(n, 0),
            n.nanmean(1, True),
        ),
        mode,
        Tensor(N),
        Tensor([[1, 2], [3, 4]]),
    )
    # MindSpore 2.10's printed values
    _check(got[0], 10.0, "Float32")
    _check(got[1], [1.0, 0.0, 9.0])
    _check(got[2], [[4.0], [6.0]])
    _check(got[3], [3, 7], "Int64")
    _check(got[4], 10.0)
    np.testing.assert_allclose(got[5].asnumpy(), 3.3333332538604736, rtol=1e-6)
    _check(got[6], [1.0, NAN, 4.5])  # an all-NaN column is NaN
    _check(got[7], [[2.0], [6.0]])


def test_nan_sign_gradients():
    a = RNG.standard_normal((2, 3))
    b = RNG.standard_normal((2, 3))
    for fn in (ops.fmax, ops.fmin, ops.xdivy, lambda x, y: ops.copysign(x, y)):
        assert_grads_match_finite_differences(fn, [a.copy(), b.copy()], RNG)
    for fn in (ops.erfc, lambda x: ops.nansum(x, 1), lambda x: ops.nanmean(x, 0)):
        assert_grads_match_finite_differences(fn, [a.copy()], RNG)
    # a NaN element gets no gradient from nansum/nanmean
    g = ops.grad(lambda x: ops.nanmean(x))(Tensor(N)).asnumpy()
    np.testing.assert_allclose(g, np.where(np.isnan(N), 0.0, 1 / 3), rtol=1e-6)


def test_nan_sign_errors():
    with pytest.raises(TypeError):
        ops.signbit(1.0)  # MindSpore: the input must be a Tensor
    with pytest.raises(TypeError):
        ops.erfc(Tensor([1]))  # MindSpore: no int Erfc kernel
    with pytest.raises(TypeError):
        ops.erfc(1.0)
    with pytest.raises(TypeError):
        ops.heaviside(Tensor([1]), Tensor([1.0]))  # MindSpore: the input type must be same
    with pytest.raises(TypeError):
        ops.heaviside(Tensor([1.0]), 1.0)
    with pytest.raises(TypeError):
        ops.xdivy(Tensor([1]), Tensor([2]))  # MindSpore: float only
    with pytest.raises(ValueError):
        ops.nansum(Tensor([1.0]), 5)  # MindSpore: the axis value must be in [-1,1)
    with pytest.raises(TypeError):
        ops.nanmean(Tensor([1, 2]))  # MindSpore: input should be floating point dtype
    with pytest.raises(TypeError):
        ops.nansum([1.0])
