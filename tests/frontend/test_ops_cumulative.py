"""Issue 38: MindSpore 2.10's running extrema and order statistics
(frontend/ops/cumulative.py) and their Tensor methods: cummax, cummin, median,
nanmedian, aminmax, Tensor.argmax_with_value and Tensor.argmin_with_value. Values are
what MindSpore 2.10 printed on CPU (pasted as constants); every case runs in PyNative
and graph mode; gradients against finite differences; bad input raises MindSpore's
exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

from mindjit import Tensor, ops

RNG = np.random.default_rng(3812)
NAN = float("nan")
X = np.array([[3.0, 1.0, 3.0, 0.0, 5.0], [2.0, 2.0, 1.0, 4.0, 4.0]], np.float32)
Y = np.array([[3.0, 1.0, 2.0, 2.0], [0.0, 5.0, 5.0, 4.0], [1.0, 1.0, 7.0, 1.0]], np.float32)


def _check(got, want, dtype=None):
    if isinstance(want, tuple):
        assert len(got) == len(want)
        dtypes = dtype if isinstance(dtype, tuple) else (dtype,) * len(want)
        for g, w, d in zip(got, want, dtypes, strict=True):
            _check(g, w, d)
        return
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-6)
    assert got.shape == np.asarray(want).shape
    if dtype is not None:
        assert str(got.dtype) == dtype


def test_cummax_cummin(mode):
    got = run(
        lambda x: (ops.cummax(x, 1), x.cummax(0), ops.cummin(x, 1), x.cummin(-2)),
        mode,
        Tensor(X),
    )
    # MindSpore 2.10's printed values: ties take the LAST index; cummax's indices are
    # int64, cummin's int32
    f64, f32 = ("Float32", "Int64"), ("Float32", "Int32")
    _check(
        got[0],
        ([[3, 3, 3, 3, 5], [2, 2, 2, 4, 4]], [[0, 0, 2, 2, 4], [0, 1, 1, 3, 4]]),
        f64,
    )
    _check(got[1], ([[3, 1, 3, 0, 5], [3, 2, 3, 4, 5]], [[0, 0, 0, 0, 0], [0, 1, 0, 1, 0]]), f64)
    _check(
        got[2],
        ([[3, 1, 1, 0, 0], [2, 2, 1, 1, 1]], [[0, 1, 1, 3, 3], [0, 1, 2, 2, 2]]),
        f32,
    )
    _check(got[3], ([[3, 1, 3, 0, 5], [2, 1, 1, 0, 4]], [[0, 0, 0, 0, 0], [1, 0, 1, 0, 1]]), f32)
    got = run(
        lambda i, j, n: (ops.cummax(i, 0), ops.cummin(j, 0), ops.cummax(n, 0)),
        mode,
        Tensor([1, 3, 2, 3]),
        Tensor([1, 3, 0, 0]),
        Tensor([1.0, NAN, 2.0]),
    )
    _check(got[0], ([1, 3, 3, 3], [0, 1, 1, 3]), ("Int64", "Int64"))
    _check(got[1], ([1, 1, 0, 0], [0, 0, 2, 3]), ("Int64", "Int32"))
    _check(got[2], ([1.0, NAN, NAN], [0, 1, 1]))  # a NaN carries on


def test_median(mode):
    got = run(
        lambda y, i: (ops.median(y), y.median(0), ops.median(y, 1, True), ops.median(i, 1)),
        mode,
        Tensor(Y),
        Tensor([[4, 1, 3, 1]]),
    )
    # MindSpore 2.10's printed values: the lower median, its place in a stable sort
    _check(got[0], ([2.0, 4.0, 1.0], [2, 3, 1]), ("Float32", "Int64"))
    _check(got[1], ([1.0, 1.0, 5.0, 2.0], [2, 2, 1, 0]), ("Float32", "Int64"))
    _check(got[2], ([[2.0], [4.0], [1.0]], [[2], [3], [1]]))
    _check(got[3], ([1], [3]), ("Int64", "Int64"))


def test_aminmax_and_with_value(mode):
    got = run(
        lambda y: (
            ops.aminmax(y),
            y.aminmax(axis=1, keepdims=True),
            y.argmax_with_value(1),
            y.argmax_with_value(),
            y.argmin_with_value(0, True),
        ),
        mode,
        Tensor(Y),
    )
    # MindSpore 2.10's printed values (aminmax's axis defaults to 0; the Tensor
    # methods return (values, indices))
    _check(got[0], ([0.0, 1.0, 2.0, 1.0], [3.0, 5.0, 7.0, 4.0]))
    _check(got[1], ([[1.0], [0.0], [1.0]], [[3.0], [5.0], [7.0]]))
    _check(got[2], ([3.0, 5.0, 7.0], [0, 1, 2]), ("Float32", "Int64"))
    _check(got[3], ([3.0, 5.0, 7.0, 4.0], [0, 1, 2, 1]), ("Float32", "Int64"))
    _check(got[4], ([[0.0, 1.0, 2.0, 1.0]], [[1, 0, 0, 2]]), ("Float32", "Int64"))


def test_cumulative_gradients():
    x = RNG.standard_normal((3, 5))
    for fn in (
        lambda t: ops.cummax(t, 1)[0],
        lambda t: ops.cummin(t, 0)[0],
        lambda t: ops.median(t, 1)[0],
        lambda t: ops.median(t, 0, True)[0],
        lambda t: ops.aminmax(t, axis=1)[0] + ops.aminmax(t, axis=1)[1],
        lambda t: t.argmax_with_value(1)[0],
    ):
        assert_grads_match_finite_differences(fn, [x.copy()], RNG)
    # the gradient goes to the element picked (the last of a tie)
    g = ops.grad(lambda t: ops.cummax(t, 0)[0].sum())(Tensor([1.0, 3.0, 3.0, 2.0]))
    np.testing.assert_allclose(g.asnumpy(), [1.0, 1.0, 2.0, 0.0])


def test_cumulative_errors():
    x = Tensor(X)
    with pytest.raises(ValueError):
        ops.cummax(x, 2)  # MindSpore: the axis must be in [-2,2)
    with pytest.raises(TypeError):
        ops.cummax([1.0], 0)
    with pytest.raises(TypeError):
        ops.cummin(Tensor([True, False]), 0)  # MindSpore: no Bool kernel
    with pytest.raises(ValueError):
        ops.median(x, 2)
    with pytest.raises(TypeError):
        ops.median(x, 1.0)  # MindSpore: the type of 'axis' should be 'int'


def test_nanmedian(mode):
    got = run(
        lambda x, y: (ops.nanmedian(x), y.nanmedian(0, True)),
        mode,
        Tensor([[1.0, NAN, 3.0, 2.0], [NAN, NAN, NAN, 1.0]]),
        Tensor([[1.0, NAN], [3.0, NAN]]),
    )
    # MindSpore 2.10's printed values (an all-NaN lane: NaN at index 0)
    _check(got[0], ([2.0, 1.0], [3, 3]), ("Float32", "Int64"))
    _check(got[1], ([[1.0, NAN]], [[0, 0]]), ("Float32", "Int64"))
    x = RNG.standard_normal((3, 5))
    x[0, 1] = np.nan
    g = ops.grad(lambda t: ops.nanmedian(t, 1)[0].sum())(Tensor(x)).asnumpy()
    assert g.sum() == 3.0 and np.isnan(g).sum() == 0  # one picked element per row
    with pytest.raises(ValueError):
        ops.nanmedian(Tensor([1.0]), 1)
