"""Issue 38: MindSpore 2.10's writes into slices and index sets
(frontend/ops/scatter_slices.py) and their Tensor methods: index_fill, index_add,
select_scatter, slice_scatter, masked_select. Values are what MindSpore 2.10 printed on
CPU (pasted as constants); every case runs in PyNative and graph mode (masked_select's
length depends on the mask's values: in a graph only on constants, as ops.nonzero);
gradients against finite differences; bad input raises MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import Tensor, ops

RNG = np.random.default_rng(3814)
X = np.arange(12, dtype=np.float32).reshape(3, 4)


def _i32(values):
    return Tensor(np.array(values, np.int32))


def _check(got, want, dtype=None):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-6)
    assert got.shape == np.asarray(want).shape
    if dtype is not None:
        assert str(got.dtype) == dtype


def test_index_fill_index_add(mode):
    got = run(
        lambda x, i, z: (
            ops.index_fill(x, 1, i, -1.0),
            x.index_fill(0, _i32([-1]), Tensor(5.0)),
            ops.index_fill(Tensor([[1, 2], [3, 4]]), 1, _i32([1]), 9),
            ops.index_add(x, _i32([0, 2, 0]), Tensor(np.ones((3, 3), np.float32)), 1),
            z.index_add(_i32([2, 0]), Tensor([[1.0, 2.0], [3.0, 4.0]]), 0),
        ),
        mode,
        Tensor(X),
        _i32([0, 2]),
        Tensor(np.zeros((3, 2), np.float32)),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [[-1, 1, -1, 3], [-1, 5, -1, 7], [-1, 9, -1, 11]], "Float32")
    _check(got[1], [[0, 1, 2, 3], [4, 5, 6, 7], [5, 5, 5, 5]])
    _check(got[2], [[1, 9], [3, 9]], "Int64")
    _check(got[3], [[2, 1, 3, 3], [6, 5, 7, 7], [10, 9, 11, 11]], "Float32")  # 0 twice
    _check(got[4], [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0]])


def test_select_slice_scatter(mode):
    got = run(
        lambda x, z: (
            ops.select_scatter(x, Tensor([7.0, 8.0, 9.0]), 1, 2),
            x.select_scatter(Tensor([7.0, 8.0, 9.0, 10.0]), 0, -1),
            ops.slice_scatter(x, z, 1, 1, 3),
            x.slice_scatter(z, 1, 0, 4, 2),
            ops.slice_scatter(x, Tensor(np.zeros((1, 4), np.float32)), 0, 2),
        ),
        mode,
        Tensor(X),
        Tensor(np.zeros((3, 2), np.float32)),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [[0, 1, 7, 3], [4, 5, 8, 7], [8, 9, 9, 11]], "Float32")
    _check(got[1], [[0, 1, 2, 3], [4, 5, 6, 7], [7, 8, 9, 10]])
    _check(got[2], [[0, 0, 0, 3], [4, 0, 0, 7], [8, 0, 0, 11]])
    _check(got[3], [[0, 1, 0, 3], [0, 5, 0, 7], [0, 9, 0, 11]])
    _check(got[4], [[0, 1, 2, 3], [4, 5, 6, 7], [0, 0, 0, 0]])


def test_masked_select(mode):
    x = Tensor(X)
    # MindSpore 2.10's printed values; PyNative on any tensors
    _check(ops.masked_select(x, x > 5), [6, 7, 8, 9, 10, 11], "Float32")
    _check(x.masked_select(Tensor([True, False, True, False])), [0, 2, 4, 6, 8, 10])

    def of_constants():
        c = Tensor(X)
        return ops.masked_select(c, Tensor([True, False, True, False]))

    _check(run(of_constants, mode), [0, 2, 4, 6, 8, 10])
    g = ms.grad(lambda t: ops.masked_select(t, Tensor(X > 8)).sum() * 2)(x)
    np.testing.assert_allclose(g.asnumpy(), np.where(X > 8, 2.0, 0.0))


def test_masked_select_of_a_computed_tensor_is_refused_in_a_graph():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(ValueError, match="'masked_select'.*static shapes"):
            run(lambda t: ops.masked_select(t, t > 1), ms.GRAPH_MODE, Tensor(X))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_scatter_slices_gradients():
    x, y = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 3))
    idx = _i32([0, 2, 0])
    assert_grads_match_finite_differences(lambda a, b: ops.index_add(a, idx, b, 1), [x, y], RNG)
    s = RNG.standard_normal((3, 2))
    for fn in (
        lambda a, b: ops.slice_scatter(a, b, 1, 0, 4, 2),
        lambda a, b: ops.select_scatter(a, b[:, 0], 1, 3),
    ):
        assert_grads_match_finite_differences(fn, [x.copy(), s.copy()], RNG)
    assert_grads_match_finite_differences(lambda a: ops.index_fill(a, 1, _i32([1]), 0.5), [x], RNG)


def test_scatter_slices_errors():
    x = Tensor(X)
    with pytest.raises(TypeError):
        ops.index_fill(x, 0, Tensor([1]), 5.0)  # MindSpore: index must be Tensor[Int32]
    with pytest.raises(TypeError):
        ops.index_fill(x, 1, Tensor([0.0]), 1.0)
    with pytest.raises(RuntimeError):
        ops.index_fill(x, 2, _i32([0]), 1.0)  # 'dim' out of range
    with pytest.raises(RuntimeError):
        ops.index_fill(x, 1, _i32([5]), 1.0)  # 'index' out of range
    with pytest.raises(ValueError):
        ops.index_add(x, _i32([0]), Tensor(np.ones((3, 2), np.float32)), 1)  # size of indices
    with pytest.raises(ValueError):
        ops.select_scatter(x, Tensor([7.0, 8.0]), 1, 2)  # src shape vs the slice size
    with pytest.raises(ValueError):
        ops.select_scatter(x, Tensor([7.0, 8.0, 9.0]), 1, 4)
    with pytest.raises(ValueError):
        ops.slice_scatter(x, Tensor(np.zeros((3, 3), np.float32)), 1, 1, 3)
    with pytest.raises(RuntimeError):
        ops.masked_select(x, Tensor([1, 0, 1, 0]))  # MindSpore: no int-mask kernel
