"""Issue 38: MindSpore 2.10's vector products and series (frontend/ops/products.py) and
their Tensor methods: cross, inner, vander, trapz, logspace. Values are what MindSpore
2.10 printed on CPU (pasted as constants) or numpy's where MindSpore's are wrong; every
case runs in PyNative and graph mode; gradients against finite differences; bad input
raises MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import Tensor, ops

RNG = np.random.default_rng(3813)
A = np.arange(18, dtype=np.float32).reshape(3, 2, 3)
B = A[::-1].copy() + 1


def _check(got, want, dtype=None):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-6)
    assert got.shape == np.asarray(want).shape
    if dtype is not None:
        assert str(got.dtype) == dtype


def test_cross(mode):
    got = run(
        lambda a, b, p, q: (
            ops.cross(a, b),
            a.cross(b, -1),
            ops.cross(p, q),
            ops.cross(
                Tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
                Tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
                0,
            ),
            ops.cross(Tensor([1, 2, 3]), Tensor([4, 5, 6])),
            ops.cross(Tensor([[1.0, 2.0, 3.0]]), q),
        ),
        mode,
        Tensor(A),
        Tensor(B),
        Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
        Tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 2.0]]),
    )
    # MindSpore 2.10's printed values (dim=None: the first axis of size 3)
    _check(got[0][0], [[-78.0, -90.0, -102.0], [-114.0, -126.0, -138.0]], "Float32")
    _check(got[0], np.cross(A, B, axis=0))
    _check(got[1][:, 0], [[-13.0, 26.0, -13.0], [-1.0, 2.0, -1.0], [11.0, -22.0, 11.0]])
    _check(got[2], [[-3.0, 0.0, 1.0], [10.0, -2.0, -5.0]])
    _check(got[3], [[3.0, -2.0], [4.0, -2.0], [-3.0, 2.0]])
    _check(got[4], [-3, 6, -3], "Int64")
    # broadcast: MindSpore 2.10's CPU kernel prints garbage in the second row; numpy's
    _check(got[5], [[-3.0, 0.0, 1.0], [4.0, 1.0, -2.0]])


def test_inner_vander(mode):
    got = run(
        lambda a, b: (
            ops.inner(a, b),
            a.inner(b[:2]),
            ops.inner(Tensor([1.0, 2.0, 3.0]), Tensor([4.0, 5.0, 6.0])),
            ops.inner(Tensor(2.0), Tensor([1.0, 2.0])),
            ops.inner(Tensor([1, 2]), Tensor([[3, 4], [5, 6]])),
            ops.vander(Tensor([1.0, 2.0, 3.0])),
            ops.vander(Tensor([1, 2, 3]), 2),
            ops.vander(Tensor([2.0, 3.0]), 4),
            ops.vander(Tensor([True, False])),
        ),
        mode,
        Tensor([[1.0, 2.0], [3.0, 4.0]]),
        Tensor([[1.0, 0.0], [2.0, 1.0], [0.0, 1.0]]),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [[1.0, 4.0, 2.0], [3.0, 10.0, 4.0]], "Float32")
    _check(got[1], [[1.0, 4.0], [3.0, 10.0]])
    _check(got[2], 32.0)
    _check(got[3], [2.0, 4.0])
    _check(got[4], [11, 17], "Int64")
    _check(got[5], [[1.0, 1.0, 1.0], [4.0, 2.0, 1.0], [9.0, 3.0, 1.0]], "Float32")
    _check(got[6], [[1, 1], [2, 1], [3, 1]], "Int64")
    _check(got[7], [[8.0, 4.0, 2.0, 1.0], [27.0, 9.0, 3.0, 1.0]])
    _check(got[8], [[1, 1], [0, 1]], "Int64")  # a bool tensor counts in int64


def test_trapz_logspace(mode):
    got = run(
        lambda y, x: (
            ops.trapz(y),
            ops.trapz(y, x=x),
            ops.trapz(y, dim=0),
            ops.trapz(y[0], dx=0.5),
            ops.trapz(Tensor([1, 2, 4])),
            ops.logspace(0.0, 3.0, 4),
            ops.logspace(2.0, 5.0, 1),
            ops.logspace(-1.0, 1.0, 3, base=3),
            ops.logspace(Tensor(0.0), Tensor(2.0), 3),
            ops.logspace(0.0, 1.0, 3, dtype=ms.float64),
        ),
        mode,
        Tensor([[1.0, 2.0, 4.0], [0.0, 1.0, 1.0]]),
        Tensor([0.0, 1.0, 3.0]),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [4.5, 1.5], "Float32")
    _check(got[1], [7.5, 2.5])
    _check(got[2], [0.5, 1.5, 2.5])
    _check(got[3], 2.25)
    _check(got[4], 4.5, "Float32")
    _check(got[5], [1.0, 10.0, 100.0, 1000.0], "Float32")
    _check(got[6], [100.0])
    _check(got[7], [1 / 3, 1.0, 3.0])
    _check(got[8], [1.0, 10.0, 100.0])
    # MindSpore 2.10 prints [1.0, 3.162109375, 10.0] (float16-accurate); the true values
    _check(got[9], np.logspace(0.0, 1.0, 3), "Float64")
    assert ops.logspace(0.0, 1.0, 0).shape == (0,)


def test_products_gradients():
    a, b = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    for fn in (ops.cross, ops.inner, lambda p, q: ops.trapz(p, x=q[0])):
        assert_grads_match_finite_differences(fn, [a.copy(), b.copy()], RNG)
    for fn in (lambda t: ops.vander(t[0]), lambda t: ops.trapz(t, dim=0, dx=0.3)):
        assert_grads_match_finite_differences(fn, [a.copy()], RNG)


def test_products_errors():
    f = Tensor([1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        ops.cross(Tensor([1.0, 2.0]), Tensor([1.0, 2.0]))  # must contain 3
    with pytest.raises(TypeError):
        ops.cross(f, Tensor([1, 2, 3]))  # MindSpore: no mixed-dtype kernel
    with pytest.raises(ValueError):
        ops.cross(Tensor(A), Tensor(B), 1)  # dimension 1 must be 3
    with pytest.raises(ValueError):
        ops.inner(Tensor([1.0, 2.0]), f)
    with pytest.raises(ValueError):
        ops.vander(Tensor([[1.0]]))
    with pytest.raises(TypeError):
        ops.vander([1.0])
    for n in (0, -1):
        with pytest.raises(ValueError):
            ops.vander(f, n)
    with pytest.raises(RuntimeError):
        ops.trapz(Tensor([1.0, 2.0]), x=f)  # one `x` value for each sample point
    with pytest.raises(TypeError):
        ops.trapz([1.0, 2.0])
    with pytest.raises(ValueError):
        ops.trapz(Tensor([1.0, 2.0]), dim=1)
    for start, end in ((0, 3.0), (1, 2)):
        with pytest.raises(TypeError):
            ops.logspace(start, end, 4)  # MindSpore 2.10: int bounds are a TypeError
    with pytest.raises(TypeError):
        ops.logspace(0.0, 1.0, 3, base=2.5)
    with pytest.raises(TypeError):
        ops.logspace(0.0, 1.0, 3, dtype=ms.int32)
    with pytest.raises(ValueError):
        ops.logspace(0.0, 1.0, -1)
