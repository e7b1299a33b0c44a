"""Issue 38: MindSpore 2.10's older functional names (frontend/ops/legacy_names.py,
sequence_blocks.py, boxes.py, quantiles.py). Values are what MindSpore 2.10 printed
on CPU for the same inputs (pasted as constants), or numpy's where MindSpore has no
CPU kernel (take, fills, accumulate_n, quantile, nanquantile); every case runs in
PyNative and graph mode; gradients against finite differences; bad input raises
MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import Tensor, ops

X34 = np.arange(12, dtype=np.float32).reshape(3, 4)


def _eq(got, want, dtype=None, rtol=1e-6):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=rtol)
    assert tuple(got.shape) == np.asarray(want).shape
    if dtype is not None:
        assert str(got.dtype) == dtype


def test_sequences(mode):
    got = run(
        lambda lengths, x, seq: (
            ops.sequence_mask(Tensor(np.array([1, 3, 2, 0], np.int32))),
            ops.sequence_mask(lengths, 5),
            ops.reverse_sequence(x, seq, 1),
        ),
        mode,
        Tensor(np.array([[1, 3], [2, 0]], np.int64)),
        Tensor(X34),
        Tensor([1, 2, 3], ms.int32),
    )
    # MindSpore 2.10's printed values
    assert got[0].asnumpy().tolist() == [
        [True, False, False],
        [True, True, True],
        [True, True, False],
        [False, False, False],
    ]
    assert got[1].asnumpy().astype(int).tolist() == [
        [[1, 0, 0, 0, 0], [1, 1, 1, 0, 0]],
        [[1, 1, 0, 0, 0], [0, 0, 0, 0, 0]],
    ]
    _eq(got[2], [[0.0, 1.0, 2.0, 3.0], [5.0, 4.0, 6.0, 7.0], [10.0, 9.0, 8.0, 11.0]])


def test_space_batch(mode):
    got = run(
        lambda a, b, c: (
            ops.batch_to_space_nd(a, (2, 2), ((0, 0), (0, 0))),
            ops.batch_to_space_nd(b, [2, 2], [[0, 1], [1, 0]]),
            ops.space_to_batch_nd(c, [2, 2], [[0, 2], [1, 0]]),
            ops.space_to_batch_nd(c, 2, [[0, 0], [1, 0]]),
        ),
        mode,
        Tensor(np.arange(16, dtype=np.float32).reshape(4, 1, 2, 2)),
        Tensor(np.arange(24, dtype=np.float32).reshape(4, 1, 2, 3)),
        Tensor(np.arange(6, dtype=np.float32).reshape(1, 1, 2, 3)),
    )
    # MindSpore 2.10's printed values
    _eq(got[0], [[[[0, 4, 1, 5], [8, 12, 9, 13], [2, 6, 3, 7], [10, 14, 11, 15]]]])
    _eq(got[1], [[[[6, 1, 7, 2, 8], [18, 13, 19, 14, 20], [9, 4, 10, 5, 11]]]])
    _eq(got[2], [[[[0, 1], [0, 0]]], [[[0, 2], [0, 0]]], [[[0, 4], [0, 0]]], [[[3, 5], [0, 0]]]])
    _eq(got[3], [[[[0, 1]]], [[[0, 2]]], [[[0, 4]]], [[[3, 5]]]])


def test_renamed_ops(mode):
    got = run(
        lambda x, t, i, i64: (
            ops.top_k(t, 2),
            ops.unbind(x, 1),
            ops.gather_d(x, 1, i),
            ops.take(x, i64),
            ops.fills(x, 2.5),
            ops.fills(Tensor([1, 2], ms.int32), 2.5),
            ops.accumulate_n([x, x, ops.ones((3, 4), ms.float32)]),
            ops.identity(x),
            ops.range(0, 5, 2),
            ops.range(Tensor(0.0), Tensor(1.0), Tensor(0.3)),
            ops.range(Tensor(5, ms.int32), Tensor(0, ms.int32), Tensor(-2, ms.int32)),
        ),
        mode,
        Tensor(X34),
        Tensor([[1.0, 5, 3, 5], [2, 0, 9, 1]]),
        Tensor([[0, 0], [1, 0], [3, 2]], ms.int32),
        Tensor([[0, 5], [11, 3]], ms.int64),
    )
    # MindSpore 2.10's printed values (take, fills, accumulate_n: numpy's)
    _eq(got[0][0], [[5.0, 5.0], [9.0, 2.0]])
    _eq(got[0][1], [[1, 3], [2, 0]], "Int32")
    assert len(got[1]) == 4
    _eq(got[1][3], [3.0, 7.0, 11.0])
    _eq(got[2], [[0.0, 0.0], [5.0, 4.0], [11.0, 10.0]])
    _eq(got[3], [[0.0, 5.0], [11.0, 3.0]])
    _eq(got[4], np.full((3, 4), 2.5), "Float32")
    _eq(got[5], [2, 2], "Int32")
    _eq(got[6], 2 * X34 + 1)
    _eq(got[7], X34)
    _eq(got[8], [0, 2, 4], "Int64")
    _eq(got[9], [0.0, 0.3, 0.6, 0.9], "Float32")
    _eq(got[10], [5, 3, 1], "Int64")


def test_products(mode):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    got = run(
        lambda a, b, c, d, e: (
            ops.batch_dot(a, b, (2, 1)),
            ops.batch_dot(a, c),
            ops.batch_dot(d, d, 1),
            ops.batch_dot(a, e, (-1, -1)),
            ops.tensor_dot(a, b, ((1, 2), (2, 1))),
            ops.tensor_dot(d, d, 2),
        ),
        mode,
        Tensor(a),
        Tensor(b),
        Tensor(np.arange(8, dtype=np.float32).reshape(2, 4)),
        Tensor(np.ones((2, 3), np.float32)),
        Tensor(np.arange(40, dtype=np.float32).reshape(2, 5, 4)),
    )
    _eq(got[0], np.einsum("bij,bjk->bik", a, b))
    _eq(got[1], [[14.0, 38.0, 62.0], [302.0, 390.0, 478.0]])  # MindSpore's
    _eq(got[2], [[3.0], [3.0]])  # MindSpore's: (batch, 1)
    _eq(got[3][0, 0], [14.0, 38.0, 62.0, 86.0, 110.0])  # MindSpore's
    _eq(got[4], [[440.0, 1232.0], [1232.0, 3752.0]])  # MindSpore's
    _eq(got[5], 6.0)


def test_intopk_unique_with_pad(mode):
    got = run(
        lambda x, t, tie, u, u64: (
            ops.intopk(x, t, 3),
            ops.intopk(tie, Tensor([3], ms.int32), 2),
            ops.intopk(tie, Tensor([7], ms.int32), 2),
            ops.unique_with_pad(u, 0),
            ops.unique_with_pad(u64, 9),
        ),
        mode,
        Tensor([[1.0, 8, 5, 2, 7], [4, 9, 1, 3, 5]]),
        Tensor([1, 3], ms.int32),
        Tensor([[1.0, 5, 5, 5, 7]]),
        Tensor([1, 2, 5, 2, 3, 5], ms.int32),
        Tensor([3, 1, 3, 3], ms.int64),
    )
    # MindSpore 2.10's printed values
    assert got[0].asnumpy().tolist() == [True, False]
    assert got[1].asnumpy().tolist() == [True]
    assert got[2].asnumpy().tolist() == [False]
    _eq(got[3][0], [1, 2, 5, 3, 0, 0], "Int32")
    _eq(got[3][1], [0, 1, 2, 1, 3, 2], "Int32")
    _eq(got[4][0], [3, 1, 9, 9], "Int64")
    _eq(got[4][1], [0, 1, 0, 0], "Int64")


def test_boxes(mode):
    a = [[0, 0, 10, 10], [5, 5, 15, 20], [1, 2, 3, 4]]
    got = run(
        lambda a, g, g3, d: (
            ops.iou(a, g),
            ops.iou(a, g, "iof"),
            ops.bounding_box_encode(a, g3, (0.1, 0.0, 0.2, 0.0), (1.0, 2.0, 1.0, 0.5)),
            ops.bounding_box_decode(a, d, (12, 9), (0.1, 0.0, 0.2, 0.0), (1.0, 2.0, 1.0, 0.5)),
            ops.check_valid(
                Tensor([[20, 20, 150, 150], [-1, 2, 50, 60], [2, 3, 255, 400], [0, 0, 100, 96.5]]),
                Tensor([96, 128, 1.5]),
            ),
        ),
        mode,
        Tensor(np.array(a, np.float32)),
        Tensor([[0.0, 0, 10, 10], [2, 3, 12, 8]]),
        Tensor([[0.0, 0, 10, 10], [2, 3, 12, 8], [0, 1, 5, 9]]),
        Tensor([[0.1, -0.2, 0.3, 0.5], [2, 3, -1, -8], [0, 1, 5, 9]]),
    )
    # MindSpore 2.10's printed values
    _eq(got[0], [[1.0, 0.13793103, 0.07438017], [0.40601504, 0.15238096, 0.05633803]])
    _eq(got[1], [[1.0, 0.29752067, 0.07438017], [0.8181818, 0.4848485, 0.060606062]])
    _eq(
        got[2],
        [
            [-0.1, 0.0, -0.2, 0.0],
            [-0.37272727, -0.21875, -0.2, -1.9616585],
            [0.06666667, 0.33333334, 0.4931472, 2.1972246],
        ],
        rtol=1e-5,
    )
    _eq(
        got[3], [[0.0, 0.0, 9.0, 7.16214], [9.0, 12.0, 9.0, 12.0], [0.0, 0.0, 9.0, 12.0]], rtol=1e-5
    )
    assert got[4].asnumpy().tolist() == [False, False, False, True]


def test_quantiles(mode):
    a = np.array([[1.0, 5, 3, 2], [2, 0, 9, 1]], np.float32)
    b = np.array([[1.0, np.nan, 3, 2], [2, 0, 9, 1], [np.nan] * 4], np.float32)
    got = run(
        lambda a, b, q, a64: (
            ops.quantile(a, 0.3, 1),
            ops.quantile(a, q, 1, True),
            ops.quantile(a64, 0.25),
            ops.quantile(a, 0.7, 0),
            ops.quantile(b, 0.5, 1),
            ops.nanquantile(b, q, 1),
        ),
        mode,
        Tensor(a),
        Tensor(b),
        Tensor([0.3, 0.5]),
        Tensor(a.astype(np.float64)),
    )
    _eq(got[0], np.quantile(a, 0.3, axis=1), rtol=1e-5)
    _eq(got[1], np.quantile(a, [0.3, 0.5], axis=1, keepdims=True), rtol=1e-5)
    _eq(got[2], np.quantile(a, 0.25), "Float64")
    _eq(got[3], np.quantile(a, 0.7, axis=0), rtol=1e-5)
    _eq(got[4], [np.nan, 1.5, np.nan])
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        _eq(got[5], np.nanquantile(b, [0.3, 0.5], axis=1), rtol=1e-5)


def test_gradients():
    rng = np.random.default_rng(5)
    assert_grads_match_finite_differences(
        lambda x: ops.reverse_sequence(x, Tensor([1, 3, 2], ms.int32), 1), [rng.random((3, 3))], rng
    )
    assert_grads_match_finite_differences(
        lambda x: ops.space_to_batch_nd(x, [2, 2], [[0, 2], [1, 0]]),
        [rng.random((1, 1, 2, 3))],
        rng,
    )
    assert_grads_match_finite_differences(
        lambda x: ops.batch_to_space_nd(x, [2, 2], [[0, 1], [1, 0]]),
        [rng.random((4, 1, 2, 3))],
        rng,
    )
    assert_grads_match_finite_differences(
        lambda x, y: ops.tensor_dot(x, y, ((1,), (0,))),
        [rng.random((2, 3)), rng.random((3, 2))],
        rng,
    )
    assert_grads_match_finite_differences(
        lambda x: ops.quantile(x, 0.3, 1), [rng.random((2, 5))], rng
    )
    # the box ops take float16/float32 only: float32 differences, looser tolerances
    box = np.array([[0.0, 0.0, 10.0, 10.0], [5.0, 5.0, 15.0, 20.0]], np.float32)
    gt = np.array([[1.0, 2.0, 9.0, 12.0], [2.0, 3.0, 12.0, 8.0]], np.float32)
    for f in (ops.iou, ops.bounding_box_encode):
        assert_grads_match_finite_differences(
            lambda x, y, f=f: f(x, y), [box, gt], rng, eps=1e-2, rtol=2e-2, atol=2e-3
        )


def test_batch_dot_float32_gradient():
    a = Tensor(np.ones((2, 3, 4), np.float32))
    b = Tensor(np.full((2, 4, 5), 2.0, np.float32))
    ga, gb = ms.grad(lambda x, y: ops.batch_dot(x, y, (2, 1)).sum(), (0, 1))(a, b)
    _eq(ga, np.full((2, 3, 4), 10.0))
    _eq(gb, np.full((2, 4, 5), 3.0))


def test_bad_input():
    with pytest.raises(TypeError):
        ops.sequence_mask(Tensor([1.0, 3.0]), 5)
    with pytest.raises(ValueError):
        ops.sequence_mask(Tensor([1, 3], ms.int32), 0)
    with pytest.raises(RuntimeError):
        ops.reverse_sequence(Tensor(X34), Tensor([1, 2, 5], ms.int32), 1)
    with pytest.raises(ValueError):
        ops.range(0, 5, 0)
    with pytest.raises(ValueError):
        ops.range(Tensor(5, ms.int32), Tensor(0, ms.int32), Tensor(1, ms.int32))
    with pytest.raises(TypeError):
        ops.range(0, 2.5, 1)
    with pytest.raises(ValueError):
        ops.batch_dot(
            Tensor(np.ones((2, 3, 4), np.float32)), Tensor(np.ones((2, 4, 3), np.float32)), 1
        )
    with pytest.raises(ValueError):
        ops.batch_dot(
            Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 3), np.float32)), (0, 0)
        )
    with pytest.raises(TypeError):
        ops.batch_dot(Tensor(np.ones((2, 3), np.int32)), Tensor(np.ones((2, 3), np.int32)))
    with pytest.raises(ValueError):
        ops.unique_with_pad(Tensor(np.ones((2, 2), np.int64)), -1)
    with pytest.raises(KeyError):
        ops.iou(Tensor(np.ones((2, 4), np.float32)), Tensor(np.ones((2, 4), np.float32)), "x")
    with pytest.raises(ValueError):
        ops.iou(Tensor(np.ones((2, 5), np.float32)), Tensor(np.ones((2, 4), np.float32)))
    with pytest.raises(ValueError):
        ops.quantile(Tensor([1.0, 2.0]), 1.5)
    with pytest.raises(TypeError):
        ops.quantile(Tensor([1, 2], ms.int32), 0.5)
    with pytest.raises(TypeError):
        ops.quantile(Tensor([1.0, 2.0]), Tensor([0.5], ms.float64))
    with pytest.raises(TypeError):
        ops.take(Tensor(X34), Tensor([0, 5], ms.int32))


def test_data_dependent_widths_need_constants_in_a_graph():
    def mask(lengths):
        return ops.sequence_mask(lengths)

    with pytest.raises(ValueError, match="constant"):
        ms.jit(mask)(Tensor([1, 3], ms.int32))

    def arange(n):
        return ops.range(Tensor(0, ms.int32), n, Tensor(1, ms.int32))

    with pytest.raises(ValueError, match="constants"):
        ms.jit(arange)(Tensor(4, ms.int32))
