"""Issue 38: MindSpore 2.10's other names for arithmetic and its constant windows
(frontend/ops/math_aliases.py): inv, floormod, pows, tensor_*, tensor_muls,
approximate_equal, bartlett/blackman/kaiser_window, and Tensor.inv /
approximate_equal / ldexp. Values are what MindSpore 2.10 printed on CPU (pasted
as constants); every case runs in PyNative and graph mode; inv's gradient against
finite differences; bad input raises MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import Tensor, ops

RNG = np.random.default_rng(3838)


def _check(got, want, dtype=None, rtol=1e-6):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=rtol, atol=1e-7)
    assert got.shape == np.asarray(want).shape
    if dtype is not None:
        assert str(got.dtype) == dtype


def test_inv_and_aliases(mode):
    got = run(
        lambda x, i, a, b: (
            ops.inv(x),
            ops.inv(i),
            x.inv(),
            ops.floormod(a, b),
            ops.pows(x, 2),
            ops.tensor_mul(x, 3),
            ops.tensor_sub(x, 1),
            ops.tensor_div(x, 2.0),
            ops.tensor_pow(x, 2),
            ops.tensor_mod(Tensor([-3.0, 4.0]), Tensor([2.0, -3.0])),
            ops.tensor_exp(Tensor([0.0, 1.0])),
            ops.tensor_expm1(Tensor([0.0, 1.0])),
            ops.tensor_floordiv(Tensor([-3, 4]), Tensor([2, -3])),
            ops.tensor_ge(a, 0),
            ops.tensor_gt(a, 0),
            ops.tensor_le(a, 0),
            ops.tensor_lt(a, 0),
            ops.tensor_muls(i, 2.5),
        ),
        mode,
        Tensor(np.array([1.0, -2.0, 0.5, 4.0], np.float32)),
        Tensor(np.array([1, -2, 3, 4, -1], np.int32)),
        Tensor([5, -5, 7]),
        Tensor([3, 3, -2]),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [1.0, -0.5, 2.0, 0.25], "Float32")
    _check(got[1], [1, 0, 0, 0, -1], "Int32")
    _check(got[2], [1.0, -0.5, 2.0, 0.25])
    _check(got[3], [2, 1, -1], "Int64")
    _check(got[4], [1.0, 4.0, 0.25, 16.0])
    _check(got[5], [3.0, -6.0, 1.5, 12.0])
    _check(got[6], [0.0, -3.0, -0.5, 3.0])
    _check(got[7], [0.5, -1.0, 0.25, 2.0])
    _check(got[8], [1.0, 4.0, 0.25, 16.0])
    _check(got[9], [1.0, -2.0])
    _check(got[10], [1.0, 2.7182798385620117])
    _check(got[11], [0.0, 1.7182818])
    _check(got[12], [-2, -2], "Int64")
    _check(got[13], [True, False, True], "Bool")
    _check(got[14], [True, False, True])
    _check(got[15], [False, True, False])
    _check(got[16], [False, True, False])
    _check(got[17], [2.5, -5.0, 7.5, 10.0, -2.5], "Float32")


def test_inv_float16_and_zero():
    _check(ops.inv(Tensor(np.array([2.0, 0.0], np.float16))), [0.5, np.inf], "Float16")


def test_approximate_equal(mode):
    got = run(
        lambda x, y, h: (
            ops.approximate_equal(x, y),
            x.approximate_equal(y, 0.05),
            ops.approximate_equal(Tensor([1.0, 2.0]), Tensor([1.5, 2.6]), 0.5),
            ops.approximate_equal(h, Tensor(np.array([1, 3], np.float32))),
        ),
        mode,
        Tensor([1.0, 2.0, 3.0]),
        Tensor([1.0, 2.1, 3.000001]),
        Tensor(np.array([1, 2], np.float16)),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [True, False, True], "Bool")
    _check(got[1], [True, False, True])
    _check(got[2], [False, False])
    _check(got[3], [True, False])


def test_ldexp_method(mode):
    got = run(lambda x, e: x.ldexp(e), mode, Tensor([1.0, 3.0]), Tensor([2, -1]))
    _check(got, [4.0, 1.5])


def test_windows(mode):
    got = run(
        lambda: (
            ops.bartlett_window(Tensor(5)),
            ops.bartlett_window(Tensor(5), False),
            ops.blackman_window(Tensor(5)),
            ops.blackman_window(Tensor(5), False),
            ops.bartlett_window(Tensor(1)),
            ops.blackman_window(Tensor(0)),
            ops.bartlett_window(Tensor(4), dtype=ms.float64),
            ops.blackman_window(Tensor(4), dtype=ms.float64),
            ops.kaiser_window(5),
            ops.kaiser_window(5, False),
            ops.kaiser_window(6, False, 3.5),
            ops.kaiser_window(1),
            ops.kaiser_window(4, dtype=ms.float32),
            ops.kaiser_window(4, True, 3),
        ),
        mode,
    )
    # MindSpore 2.10's printed values
    _check(got[0], [0.0, 0.4, 0.8, 0.8, 0.4], "Float32")
    _check(got[1], [0.0, 0.5, 1.0, 0.5, 0.0])
    _check(
        got[2],
        [0.0, 0.20077013969421387, 0.8492298722267151, 0.8492298722267151, 0.20077013969421387],
    )
    _check(got[3], [0.0, 0.34, 1.0, 0.34, 0.0])
    _check(got[4], [1.0])
    _check(got[5], np.zeros(0))
    _check(got[6], [0.0, 0.5, 1.0, 0.5], "Float64")
    _check(got[7], [0.0, 0.33999999999999997, 1.0, 0.3400000000000001], "Float64")
    _check(
        got[8],
        [
            5.2773441320097665e-05,
            0.10171968770956323,
            0.7929398341014605,
            0.7929398341014605,
            0.10171968770956323,
        ],
        "Float64",
    )
    _check(
        got[9],
        [
            5.2773441320097665e-05,
            0.21567274475896714,
            1.0,
            0.21567274475896714,
            5.2773441320097665e-05,
        ],
    )
    _check(
        got[10],
        [
            0.13553434913875384,
            0.5634566384200199,
            0.942381132547646,
            0.942381132547646,
            0.5634566384200199,
            0.13553434913875384,
        ],
    )
    _check(got[11], [1.0])
    _check(
        got[12], [5.277344098431058e-05, 0.21567274630069733, 1.0, 0.21567274630069733], "Float32"
    )
    _check(got[13], [0.2048847564012536, 0.7269255302876366, 1.0, 0.7269255302876366])


def test_inv_gradient():
    assert_grads_match_finite_differences(ops.inv, [RNG.uniform(0.5, 2.0, (2, 3))], RNG)


def test_errors():
    with pytest.raises(TypeError):
        ops.inv(Tensor([True]))
    with pytest.raises(TypeError):
        ops.inv([1.0])
    with pytest.raises(TypeError):
        ops.tensor_muls(Tensor([2, 3]), Tensor([2.5, 1.0]))
    with pytest.raises(TypeError):
        ops.approximate_equal(Tensor([1, 2]), Tensor([1, 3]))
    with pytest.raises(RuntimeError):
        ops.approximate_equal(Tensor([1.0, 2.0]), Tensor([[1.0, 2.0]]))
    with pytest.raises(TypeError):
        ops.bartlett_window(5)
    with pytest.raises(TypeError):
        ops.blackman_window(Tensor(4.0))
    with pytest.raises(ValueError):
        ops.bartlett_window(Tensor([4]))
    with pytest.raises(ValueError):
        ops.blackman_window(Tensor(-1))
    with pytest.raises(TypeError):
        ops.bartlett_window(Tensor(4), 1)
    with pytest.raises(TypeError):
        ops.blackman_window(Tensor(4), dtype=ms.int32)
    with pytest.raises(ValueError):
        ops.kaiser_window(-1)
    with pytest.raises(TypeError):
        ops.kaiser_window(4.0)
    with pytest.raises(TypeError):
        ops.kaiser_window(4, 1)
    with pytest.raises(TypeError):
        ops.kaiser_window(4, dtype=ms.int32)


def test_tensor_dot(mode):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    got = run(
        lambda x, y: (
            ops.tensor_dot(x, y, 1),
            ops.tensor_dot(x, y, ((1, 2), (1, 0))),
            ops.tensor_dot(x, Tensor(np.arange(12, dtype=np.float32).reshape(3, 4)), 2),
            ops.tensor_dot(x, y, ((2,), (0,))),
            ops.tensor_dot(x, y, 0),
            ops.tensor_dot(Tensor(np.ones((2, 3), np.int32)), Tensor(np.ones((3, 2), np.int32)), 1),
        ),
        mode,
        Tensor(a),
        Tensor(b),
    )
    # MindSpore 2.10's printed values (and numpy's tensordot)
    _check(got[0][0, 0], [42.0, 48.0, 54.0])
    _check(got[0], np.tensordot(a, b, 1), "Float32")
    _check(got[1], [440.0, 1232.0])
    _check(got[2], [506.0, 1298.0])
    _check(got[3], np.tensordot(a, b, ((2,), (0,))))
    _check(got[4], np.tensordot(a, b, 0))
    _check(got[5], [[3, 3], [3, 3]], "Int32")
    assert_grads_match_finite_differences(
        lambda x, y: ops.tensor_dot(x, y, ((1, 2), (1, 0))),
        [a.astype(np.float64), b.astype(np.float64)],
        RNG,
    )
    with pytest.raises(ValueError):
        ops.tensor_dot(Tensor(a), Tensor(b), ((1,), (0,)))
