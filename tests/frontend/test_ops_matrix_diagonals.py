"""Issue 38: MindSpore 2.10's matrix products (frontend/ops/matrix_products.py), diagonal
builders (diagonals.py) and the smaller additions to stacking.py, elementwise_nan.py,
cumulative.py and binning.py: mm, mv, dot, ger, addr, addmv, addbmm, vecdot, dist,
diag_embed, diagflat, block_diag, diagonal_scatter, matrix_band_part, renorm,
tril_indices, triu_indices, fliplr, flipud, row_stack, ravel, cartesian_prod, isneginf,
isposinf, isreal, logcumsumexp, bucketize, and the Tensor methods addr, addmm, addbmm,
baddbmm, diagflat, diagonal_scatter, renorm, isneginf, isposinf, isreal, logcumsumexp.
Values are what MindSpore 2.10 printed on CPU (pasted as constants); every case runs in
PyNative and graph mode; gradients against finite differences; bad input raises
MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import Tensor, ops

RNG = np.random.default_rng(3816)
A = np.arange(6, dtype=np.float32).reshape(2, 3)
B = np.arange(12, dtype=np.float32).reshape(3, 4)
B1 = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
B2 = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
INF = float("inf")


def _check(got, want, dtype=None):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-6)
    assert got.shape == np.asarray(want).shape
    if dtype is not None:
        assert str(got.dtype) == dtype


def test_matrix_products(mode):
    got = run(
        lambda a, b, v, w, b1, b2: (
            ops.mm(a, b),
            ops.mv(a, v),
            ops.dot(a, b),
            ops.ger(w, v),
            ops.addr(ops.ones((2, 3), ms.float32), w, v, beta=2, alpha=0.5),
            ops.addmv(w, a, v, beta=0.5, alpha=2),
            ops.addbmm(ops.ones((2, 2), ms.float32), b1, b2, beta=1, alpha=0.5),
            ops.ones((2, 4), ms.float32).addmm(a, b, beta=2, alpha=1),
            ops.ones((2, 2, 2), ms.float32).baddbmm(b1, b2, beta=1, alpha=2),
            ops.vecdot(a, v),
            ops.vecdot(a, a, axis=0),
            ops.dist(a, ops.ones((2, 3), ms.float32)),
            ops.dist(a, v, 1),
            ops.dist(a, v, 0),
            ops.ones((2, 3), ms.float32).addr(w, v),
            ops.ones((2, 2), ms.float32).addbmm(b1, b2),
        ),
        mode,
        Tensor(A),
        Tensor(B),
        Tensor([1.0, 2.0, 3.0]),
        Tensor([1.0, -1.0]),
        Tensor(B1),
        Tensor(B2),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [[20, 23, 26, 29], [56, 68, 80, 92]], "Float32")
    _check(got[1], [8.0, 26.0])
    _check(got[2], [[20, 23, 26, 29], [56, 68, 80, 92]])
    _check(got[3], [[1, 2, 3], [-1, -2, -3]])
    _check(got[4], [[2.5, 3.0, 3.5], [1.5, 1.0, 0.5]])
    _check(got[5], [16.5, 51.5])
    _check(got[6], [[92.0, 104.0], [137.0, 158.0]])
    _check(got[7], [[22, 25, 28, 31], [58, 70, 82, 94]])
    _check(got[8], [[[21, 27], [57, 81]], [[345, 387], [489, 549]]])
    _check(got[9], [8.0, 26.0])
    _check(got[10], [9.0, 17.0, 29.0])
    _check(got[11], 5.5677642822265625)
    _check(got[12], 9.0)
    _check(got[13], 6.0)
    _check(got[14], 1 + np.outer([1.0, -1.0], [1.0, 2.0, 3.0]))
    _check(got[15], 1 + np.einsum("bij,bjk->ik", B1, B2))
    # numpy's dot for higher ranks; int vecdot (MindSpore: 11 Int64)
    x, y = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((5, 4, 6))
    got = run(lambda p, q: ops.dot(p, q), mode, Tensor(x, ms.float32), Tensor(y, ms.float32))
    np.testing.assert_allclose(got.asnumpy(), np.dot(x, y), rtol=1e-4, atol=1e-5)
    _check(run(lambda p: ops.vecdot(p, Tensor([3, 4])), mode, Tensor([1, 2])), 11, "Int64")


def test_diagonals(mode):
    got = run(
        lambda a, v, w: (
            ops.diag_embed(a),
            ops.diag_embed(v, 1),
            ops.diag_embed(w, -1, 0, 1),
            ops.diagflat(a),
            w.diagflat(-1),
            ops.block_diag(Tensor([[1.0, 2.0]]), Tensor([[3.0], [4.0]]), Tensor(5.0)),
            ops.tril_indices(3, 3),
            ops.tril_indices(4, 3, -1),
            ops.triu_indices(3, 4, 1),
            ops.triu_indices(2, 2, dtype=ms.int32),
        ),
        mode,
        Tensor(A),
        Tensor([1.0, 2.0, 3.0]),
        Tensor([1.0, -1.0]),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [[[0, 0, 0], [0, 1, 0], [0, 0, 2]], [[3, 0, 0], [0, 4, 0], [0, 0, 5]]])
    _check(got[1], [[0, 1, 0, 0], [0, 0, 2, 0], [0, 0, 0, 3], [0, 0, 0, 0]])
    _check(got[2], [[0, 0, 0], [1, 0, 0], [0, -1, 0]])
    _check(got[3], np.diag(np.arange(6.0)))
    _check(got[4], [[0, 0, 0], [1, 0, 0], [0, -1, 0]])
    _check(got[5], [[1, 2, 0, 0], [0, 0, 3, 0], [0, 0, 4, 0], [0, 0, 0, 5]], "Float32")
    _check(got[6], [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]], "Int64")
    _check(got[7], [[1, 2, 2, 3, 3, 3], [0, 0, 1, 0, 1, 2]])
    _check(got[8], [[0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]])
    _check(got[9], [[0, 0, 1], [0, 1, 1]], "Int32")


def test_arrangements_and_checks(mode):
    got = run(
        lambda a, x, m: (
            ops.fliplr(a),
            ops.flipud(a),
            ops.row_stack([a[0], a[1]]),
            ops.ravel(a),
            ops.cartesian_prod(Tensor([1, 2]), Tensor([3, 4, 5])),
            ops.cartesian_prod(Tensor([1.0, 2.0])),
            ops.isneginf(x),
            x.isposinf(),
            ops.isreal(x),
            ops.logcumsumexp(m, 1),
            m.logcumsumexp(0),
            ops.logcumsumexp(Tensor([-200.0, 100.0]), 0),
            ops.bucketize(Tensor([[3.0, 6.0, 9.0], [1.0, 7.0, 10.0]]), [1.0, 3.0, 5.0, 7.0, 9.0]),
            ops.bucketize(Tensor([3.0, 6.0, 9.0]), [1.0, 3.0, 5.0, 7.0, 9.0], right=True),
            ops.bucketize(Tensor([3, 6]), [1, 3, 5]),
        ),
        mode,
        Tensor(A),
        Tensor([-INF, 1.0, INF, float("nan")]),
        Tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 5.0]]),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [[2, 1, 0], [5, 4, 3]])
    _check(got[1], [[3, 4, 5], [0, 1, 2]])
    _check(got[2], A)
    _check(got[3], [0, 1, 2, 3, 4, 5])
    _check(got[4], [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]], "Int64")
    _check(got[5], [[1.0], [2.0]])  # one input: still 2-D
    _check(got[6], [True, False, False, False], "Bool")
    _check(got[7], [False, False, True, False], "Bool")
    _check(got[8], [True, True, True, True], "Bool")
    _check(
        got[9],
        [
            [1.0, 2.3132617473602295, 3.4076058864593506],
            [0.0, 0.3132616877555847, 5.009174346923828],
        ],
    )
    _check(got[10], [[1.0, 2.0, 3.0], [1.31326162815094, 2.0485873222351074, 5.126927852630615]])
    _check(got[11], [-200.0, 100.0])  # each running sum shifted by its own maximum
    _check(got[12], [[1, 3, 4], [0, 3, 5]], "Int32")
    _check(got[13], [2, 3, 5])
    _check(got[14], [1, 3], "Int32")


def test_matrix_diagonals_gradients():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 4))
    v, w = RNG.standard_normal(3), RNG.standard_normal(2)
    checks = (
        (ops.mm, [a, b]),
        (ops.mv, [a, v]),
        (ops.ger, [w, v]),
        (lambda x, p, q: ops.addr(x, p, q, beta=2, alpha=0.5), [a, w, v]),
        (lambda p, m, q: ops.addmv(p, m, q, beta=0.5, alpha=2), [w, a, v]),
        (
            lambda p, q: ops.addbmm(p, q, q.transpose(0, 2, 1), alpha=0.5),
            [RNG.standard_normal((2, 2)), RNG.standard_normal((3, 2, 4))],
        ),
        (lambda p, q: ops.vecdot(p, q), [a, a.copy()]),
        (lambda p: ops.diag_embed(p, 1, 0, 2), [a]),
        (lambda p: ops.diagflat(p, -1), [a]),
        (lambda p, q: ops.block_diag(p, q), [a, b]),
        (lambda p: ops.logcumsumexp(p, 1), [b]),
        (lambda p: ops.fliplr(p) * ops.flipud(p), [a]),
        (lambda p, q: ops.cartesian_prod(p, q), [v, w]),
    )
    for fn, arrays in checks:
        assert_grads_match_finite_differences(fn, [x.copy() for x in arrays], RNG)
    # dot and dist take float16/float32 only (MindSpore 2.10): float32 differences
    a32, b32, v32 = a.astype(np.float32), b.astype(np.float32), v.astype(np.float32)
    for fn, arrays in (
        (ops.dot, [a32, b32]),
        (lambda p, q: ops.dist(p, q), [a32, v32]),
        (lambda p, q: ops.dist(p, q, 3), [a32, v32]),
    ):
        assert_grads_match_finite_differences(fn, arrays, RNG, eps=1e-3, rtol=2e-2, atol=2e-3)


def test_matrix_diagonals_errors():
    a, v, w = Tensor(A), Tensor([1.0, 2.0, 3.0]), Tensor([1.0, -1.0])
    with pytest.raises(ValueError):
        ops.mm(a, a)  # MindSpore: 'x1_col': 3 and 'x2_row': 2
    with pytest.raises(ValueError):
        ops.mm(v, a.T)  # MatMul inputs should ... equal to 2
    with pytest.raises(ValueError):
        ops.mv(a, w)
    with pytest.raises(ValueError):
        ops.dot(v, v)  # 'dimension >= 2'
    with pytest.raises(TypeError):
        ops.dot(Tensor([[1, 2]]), Tensor([[3], [4]]))  # float16/float32 only
    with pytest.raises(ValueError):
        ops.ger(a, v)  # the x1 rank must be equal to 1
    with pytest.raises(TypeError):
        ops.dist(a, v, float("inf"))  # MindSpore 2.10: 'p' should be 'int'
    with pytest.raises(TypeError):
        ops.dist(Tensor([1, 2]), Tensor([3, 4]))
    with pytest.raises(ValueError):
        ops.diag_embed(v, 0, 0, 0)  # 'dim1' must not be identical to 'dim2'
    with pytest.raises(TypeError):
        ops.diagflat([1.0])
    with pytest.raises(ValueError):
        ops.fliplr(v)  # MindSpore: ReverseV2's axis out of range
    with pytest.raises(TypeError):
        ops.isneginf(Tensor([1, 2]))  # MindSpore: no int IsInf kernel
    with pytest.raises(TypeError):
        ops.logcumsumexp(Tensor([1, 2]), 0)  # float only


def test_diagonal_scatter_band_renorm(mode):
    got = run(
        lambda x: (
            ops.diagonal_scatter(x, Tensor([-1.0, -2.0, -3.0])),
            x.diagonal_scatter(Tensor([-1.0, -2.0, -3.0]), 1),
            ops.diagonal_scatter(x, Tensor([-1.0, -2.0]), -1),
            ops.diagonal_scatter(
                ops.zeros((2, 2, 3), ms.float32),
                Tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
                0,
                0,
                1,
            ),
            ops.matrix_band_part(x, 1, 0),
            ops.matrix_band_part(x, -1, 1),
            ops.matrix_band_part(Tensor([[1, 2], [3, 4]]), 0, 0),
            ops.renorm(Tensor([[3.0, 4.0], [1.0, 0.0]]), 2, 0, 2.5),
            Tensor([[3.0, 4.0], [1.0, 0.0]]).renorm(1, 1, 3.0),
        ),
        mode,
        Tensor(np.arange(12, dtype=np.float32).reshape(3, 4)),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [[-1, 1, 2, 3], [4, -2, 6, 7], [8, 9, -3, 11]], "Float32")
    _check(got[1], [[0, -1, 2, 3], [4, 5, -2, 7], [8, 9, 10, -3]])
    _check(got[2], [[0, 1, 2, 3], [-1, 5, 6, 7], [8, -2, 10, 11]])
    _check(got[3], [[[1, 3, 5], [0, 0, 0]], [[0, 0, 0], [2, 4, 6]]])
    _check(got[4], [[0, 0, 0, 0], [4, 5, 0, 0], [0, 9, 10, 0]])
    _check(got[5], [[0, 1, 0, 0], [4, 5, 6, 0], [8, 9, 10, 11]])
    _check(got[6], [[1, 0], [0, 4]], "Int64")
    _check(got[7], [[1.5, 2.0], [1.0, 0.0]])
    _check(got[8], [[2.25, 3.0], [0.75, 0.0]])
    x, s = RNG.standard_normal((3, 4)), RNG.standard_normal(3)
    assert_grads_match_finite_differences(lambda a, b: ops.diagonal_scatter(a, b, 1), [x, s], RNG)
    assert_grads_match_finite_differences(lambda a: ops.matrix_band_part(a, 1, 0), [x], RNG)
    assert_grads_match_finite_differences(lambda a: ops.renorm(a, 2, 0, 0.5), [x * 3], RNG)
    with pytest.raises(ValueError):
        ops.diagonal_scatter(Tensor(np.ones((3, 4), np.float32)), Tensor([1.0]))  # src shape
    with pytest.raises(ValueError):
        ops.matrix_band_part(Tensor([1.0]), 0, 0)  # x shape size >= 2
    with pytest.raises(RuntimeError):
        ops.renorm(Tensor([[1.0]]), 2, 0, -1.0)  # 'maxnorm' must be non-negative
