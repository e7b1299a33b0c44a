"""Issue 38: MindSpore 2.10's small tensor helpers (frontend/ops/tensor_helpers.py):
dyn_shape, shape_, reshape_, tensor_slice, tensor_range, deepcopy, is_nonzero, eps,
padding, float_power_ext, clip_by_norm. Expected values are what MindSpore 2.10
printed on CPU, pasted as literals; every case runs in PyNative and graph mode;
gradients against finite differences; bad input raises MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import Tensor, ops

RNG = np.random.default_rng(3838)
M = np.arange(12).reshape(3, 4)
CLIP = np.array([[3.0, 4.0], [6.0, 8.0]], np.float32)


def _check(got, want, dtype):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-6)
    assert got.shape == np.asarray(want).shape
    assert str(got.dtype) == dtype


def test_shapes_and_slices(mode):
    got = run(
        lambda x, m: (
            ops.dyn_shape(x),
            ops.shape_(x),
            ops.reshape_(ops.reshape(m, (12,)), (-1, 2)),
            ops.tensor_slice(m, (1, 0), (2, 3)),
            ops.tensor_slice(m, (1, 0), (-1, 3)),
            ops.deepcopy(x),
        ),
        mode,
        Tensor(np.ones((2, 3), np.float32)),
        Tensor(M),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [2, 3], "Int64")
    assert got[1] == (2, 3)
    _check(got[2], np.arange(12).reshape(6, 2), "Int64")
    _check(got[3], [[4, 5, 6], [8, 9, 10]], "Int64")
    _check(got[4], [[4, 5, 6], [8, 9, 10]], "Int64")
    _check(got[5], np.ones((2, 3)), "Float32")
    _check(ops.dyn_shape(Tensor(1.0)), np.zeros((0,), np.int64), "Int64")


def test_tensor_range(mode):
    got = run(lambda: (ops.tensor_range(0, 5, 2), ops.tensor_range(5, 0, -2)), mode)
    _check(got[0], [0, 2, 4], "Int64")
    _check(got[1], [5, 3, 1], "Int64")
    # constant Tensors: in a graph the result's length must be known (as ops.range)
    got = run(lambda: ops.tensor_range(Tensor(0.0), Tensor(1.0), Tensor(0.3)), mode)
    _check(got, [0.0, 0.3, 0.6, 0.9], "Float32")


def test_is_nonzero_and_eps(mode):
    got = run(
        lambda: (
            ops.is_nonzero(Tensor([1])),
            ops.is_nonzero(Tensor(0.0)),
            ops.is_nonzero(Tensor([[0.5]])),
            ops.is_nonzero(Tensor([True])),
        ),
        mode,
    )
    assert got == (True, False, True, True)
    got = run(
        lambda a, b, c: (ops.eps(a), ops.eps(b), ops.eps(c)),
        mode,
        Tensor([1.0, 2.0], ms.float32),
        Tensor([1.0, 2.0], ms.float16),
        Tensor([1.0, 2.0], ms.float64),
    )
    _check(got[0], [1.19209290e-07] * 2, "Float32")
    _check(got[1], [2.0**-10] * 2, "Float16")  # printed 9.7656e-04
    _check(got[2], [2.22044605e-16] * 2, "Float64")


def test_padding_and_float_power_ext(mode):
    got = run(
        lambda x, i, a, b: (
            ops.padding(x, 4),
            ops.padding(i, 3),
            ops.float_power_ext(a, 2),
            ops.float_power_ext(b, Tensor([2.0, 0.5])),
            ops.float_power_ext(2, b),
        ),
        mode,
        Tensor(np.array([[8.0], [10.0]], np.float32)),
        Tensor(np.array([[8]], np.int32)),
        Tensor([2, 3]),
        Tensor([2.0, 3.0]),
    )
    _check(got[0], [[8, 0, 0, 0], [10, 0, 0, 0]], "Float32")
    _check(got[1], [[8, 0, 0]], "Int32")
    _check(got[2], [4.0, 9.0], "Float64")
    _check(got[3], [4.0, 1.73205081], "Float64")
    _check(got[4], [4.0, 8.0], "Float64")


def test_clip_by_norm(mode):
    got = run(
        lambda x, a, b, i: (
            ops.clip_by_norm(x, 5.0),
            ops.clip_by_norm(x, 5.0, 1.0),
            ops.clip_by_norm(x, 5.0, float("inf")),
            ops.clip_by_norm(x, 50.0),
            ops.clip_by_norm([a, b], 5.0),
            ops.clip_by_norm(i, 1.0),
        ),
        mode,
        Tensor(CLIP),
        Tensor(CLIP[0]),
        Tensor(CLIP[1]),
        Tensor(np.array([3, 4], np.int32)),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [[1.34164071, 1.78885436], [2.68328142, 3.57770872]], "Float32")
    _check(got[1], [[0.714285672, 0.952380896], [1.42857134, 1.90476179]], "Float32")
    _check(got[2], [[1.87499976, 2.49999976], [3.74999952, 4.99999952]], "Float32")
    _check(got[3], CLIP, "Float32")
    assert isinstance(got[4], tuple)
    _check(got[4][0], [1.34164071, 1.78885436], "Float32")
    _check(got[4][1], [2.68328142, 3.57770872], "Float32")
    _check(got[5], [0.599999905, 0.799999833], "Float32")


def test_clip_by_norm_nonfinite():
    x = Tensor(np.array([np.inf, 1.0], np.float32))
    with pytest.raises(RuntimeError):
        ops.clip_by_norm(x, 5.0, 2.0, True)
    got = ops.clip_by_norm(x, 5.0).asnumpy()  # MindSpore 2.10: [nan, 0]
    assert np.isnan(got[0]) and got[1] == 0


def test_gradients():
    a = RNG.standard_normal((3, 4))
    assert_grads_match_finite_differences(lambda x: ops.clip_by_norm(x, 1.0), [a], RNG)
    assert_grads_match_finite_differences(lambda x: ops.clip_by_norm(x, 1.0, 1.0), [a], RNG)
    assert_grads_match_finite_differences(lambda x: ops.tensor_slice(x, (1, 1), (2, 2)), [a], RNG)
    assert_grads_match_finite_differences(lambda x: ops.deepcopy(x) * x, [a], RNG)
    assert_grads_match_finite_differences(
        lambda x: ops.padding(x, 3), [RNG.standard_normal((2, 1))], RNG
    )
    assert_grads_match_finite_differences(
        lambda x: ops.float_power_ext(x, 3), [RNG.uniform(0.5, 2, (3,))], RNG
    )


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: ops.shape_(1), TypeError),
        (lambda: ops.tensor_slice(Tensor(M), 1, 2), TypeError),
        (lambda: ops.tensor_slice(Tensor(M), (1, 0), (5, 3)), ValueError),
        (lambda: ops.tensor_range(Tensor(0), Tensor(5), Tensor(0)), ValueError),
        (lambda: ops.tensor_range(0, 5.0, 2), TypeError),
        (lambda: ops.deepcopy([1, 2]), TypeError),
        (lambda: ops.is_nonzero(Tensor([1, 2])), ValueError),
        (lambda: ops.is_nonzero(Tensor(np.zeros((0,), np.float32))), ValueError),
        (lambda: ops.is_nonzero(1), TypeError),
        (lambda: ops.eps(Tensor([1], ms.int32)), TypeError),
        (lambda: ops.eps(2.0), TypeError),
        (lambda: ops.padding(Tensor(np.array([[8.0, 1.0]], np.float32)), 4), ValueError),
        (lambda: ops.padding(Tensor(np.array([8.0], np.float32)), 4), ValueError),
        (lambda: ops.padding(Tensor(np.array([[8.0]], np.float32)), 0), ValueError),
        (lambda: ops.padding(Tensor(np.array([[8.0]], np.float32)), 2.0), TypeError),
        (lambda: ops.float_power_ext(2, 3), TypeError),
    ],
)
def test_bad_input(mode, call, error):
    with pytest.raises(error):
        run(call, mode)


def test_is_nonzero_computed_input_in_graph():
    with pytest.raises(ValueError, match="constant"):
        ms.jit(lambda x: ops.is_nonzero(x * 2))(Tensor([1.0]))
