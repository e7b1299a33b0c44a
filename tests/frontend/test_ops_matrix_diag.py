"""Issue 38: MindSpore 2.10's matrix_diag, matrix_diag_part, matrix_set_diag
(frontend/ops/matrix_diag.py: one gather with a static index table). Values are what
MindSpore 2.10 printed on CPU (pasted as constants); every case runs in PyNative and
graph mode (k, num_rows, num_cols constants there); gradients against finite
differences; bad input raises MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

from mindjit import Tensor, ops

RNG = np.random.default_rng(3844)
X = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
D3 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 0.0], [7.0, 0.0, 0.0]], np.float32)
M34 = np.arange(12, dtype=np.float32).reshape(3, 4)
DIAGS = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], np.float32)
ALIGNS = ("LEFT_LEFT", "LEFT_RIGHT", "RIGHT_LEFT", "RIGHT_RIGHT")


def _k(v):
    return Tensor(np.array(v, np.int32))


def _check(got, want, dtype="Float32"):
    np.testing.assert_array_equal(got.asnumpy(), np.asarray(want))
    assert str(got.dtype) == dtype


def test_matrix_diag(mode):
    got = run(
        lambda x, d3: (
            ops.matrix_diag(Tensor(np.array([1.0, 2.0], np.float32))),
            ops.matrix_diag(x, k=1),
            ops.matrix_diag(
                x,
                k=Tensor(np.array(-1, np.int32)),
                num_rows=Tensor(np.array(4, np.int32)),
                num_cols=Tensor(np.array(3, np.int32)),
                padding_value=Tensor(9.0),
            ),
            ops.matrix_diag(x, padding_value=9.0),
            ops.matrix_diag(
                Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 0.0]], np.float32)),
                k=Tensor(np.array([-1, 0], np.int32)),
            ),
            ops.matrix_diag(
                Tensor(np.arange(12, dtype=np.float32).reshape(2, 2, 3)),
                k=Tensor(np.array([0, 1], np.int32)),
            ),
            *(ops.matrix_diag(d3, k=Tensor(np.array([-2, 0], np.int32)), align=a) for a in ALIGNS),
            ops.matrix_diag(Tensor([1, 2])),
        ),
        mode,
        Tensor(X),
        Tensor(D3),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [[1.0, 0.0], [0.0, 2.0]])
    _check(
        got[1],
        [
            [
                [0.0, 1.0, 0.0, 0.0],
                [0.0, 0.0, 2.0, 0.0],
                [0.0, 0.0, 0.0, 3.0],
                [0.0, 0.0, 0.0, 0.0],
            ],
            [
                [0.0, 4.0, 0.0, 0.0],
                [0.0, 0.0, 5.0, 0.0],
                [0.0, 0.0, 0.0, 6.0],
                [0.0, 0.0, 0.0, 0.0],
            ],
        ],
    )
    _check(
        got[2],
        [
            [[9.0, 9.0, 9.0], [1.0, 9.0, 9.0], [9.0, 2.0, 9.0], [9.0, 9.0, 3.0]],
            [[9.0, 9.0, 9.0], [4.0, 9.0, 9.0], [9.0, 5.0, 9.0], [9.0, 9.0, 6.0]],
        ],
    )
    _check(
        got[3],
        [
            [[1.0, 9.0, 9.0], [9.0, 2.0, 9.0], [9.0, 9.0, 3.0]],
            [[4.0, 9.0, 9.0], [9.0, 5.0, 9.0], [9.0, 9.0, 6.0]],
        ],
    )
    _check(got[4], [[1.0, 0.0, 0.0], [4.0, 2.0, 0.0], [0.0, 5.0, 3.0]])
    _check(
        got[5],
        [
            [[3.0, 1.0, 0.0], [0.0, 4.0, 2.0], [0.0, 0.0, 5.0]],
            [[9.0, 7.0, 0.0], [0.0, 10.0, 8.0], [0.0, 0.0, 11.0]],
        ],
    )
    left = [[1.0, 0.0, 0.0], [4.0, 2.0, 0.0], [7.0, 5.0, 3.0]]
    right = [[1.0, 0.0, 0.0], [5.0, 2.0, 0.0], [0.0, 0.0, 3.0]]
    for g, w in zip(got[6:10], [left, right, left, right]):
        _check(g, w)
    _check(got[10], [[1, 0], [0, 2]], "Int64")


def test_matrix_diag_part_and_set_diag(mode):
    got = run(
        lambda m, z, d: (
            *(
                ops.matrix_diag_part(m, Tensor(np.array([-1, 1], np.int32)), Tensor(9.0), align=a)
                for a in ALIGNS
            ),
            *(
                ops.matrix_set_diag(z, d, k=Tensor(np.array([-1, 1], np.int32)), align=a)
                for a in ALIGNS
            ),
            ops.matrix_diag_part(m, Tensor(np.array(0, np.int32)), Tensor(0.0)),
            ops.matrix_diag_part(
                Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4)),
                Tensor(np.array(1, np.int32)),
                Tensor(0.0),
            ),
            ops.matrix_set_diag(z, Tensor(np.array([1.0, 2.0, 3.0], np.float32))),
            ops.matrix_set_diag(z, Tensor(np.array([1.0, 2.0, 3.0], np.float32)), k=1),
        ),
        mode,
        Tensor(M34),
        Tensor(np.zeros((3, 4), np.float32)),
        Tensor(DIAGS),
    )
    # MindSpore 2.10's printed values
    part_left = [[1.0, 6.0, 11.0], [0.0, 5.0, 10.0], [4.0, 9.0, 9.0]]
    part_right = [[1.0, 6.0, 11.0], [0.0, 5.0, 10.0], [9.0, 4.0, 9.0]]
    for g, w in zip(got[0:4], [part_left, part_right, part_left, part_right]):
        _check(g, w)
    set_left = [[4.0, 1.0, 0.0, 0.0], [7.0, 5.0, 2.0, 0.0], [0.0, 8.0, 6.0, 3.0]]
    set_right = [[4.0, 1.0, 0.0, 0.0], [8.0, 5.0, 2.0, 0.0], [0.0, 9.0, 6.0, 3.0]]
    for g, w in zip(got[4:8], [set_left, set_right, set_left, set_right]):
        _check(g, w)
    _check(got[8], [0.0, 5.0, 10.0])
    _check(got[9], [[1.0, 6.0, 11.0], [13.0, 18.0, 23.0]])
    _check(got[10], [[1.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0]])
    _check(got[11], [[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 3.0]])


def test_gradients():
    assert_grads_match_finite_differences(
        lambda x: ops.matrix_diag(x, k=_k([-1, 0]), padding_value=2.0),
        [RNG.standard_normal((2, 3))],
        RNG,
    )
    assert_grads_match_finite_differences(
        lambda x: ops.matrix_diag_part(x, _k([-1, 1]), Tensor(np.float64(0.5))),
        [RNG.standard_normal((3, 4))],
        RNG,
    )
    assert_grads_match_finite_differences(
        lambda x, d: ops.matrix_set_diag(x, d, k=1),
        [RNG.standard_normal((3, 4)), RNG.standard_normal(3)],
        RNG,
    )


def test_errors():
    x = Tensor(X)
    with pytest.raises(ValueError):
        ops.matrix_diag(x, num_rows=4, num_cols=5)
    with pytest.raises(ValueError):
        ops.matrix_diag(x, align="X")
    with pytest.raises(ValueError):
        ops.matrix_diag(x, k=_k([1, 0]))
    with pytest.raises(TypeError):
        ops.matrix_diag(x, k=Tensor(np.array(1, np.int64)))
    with pytest.raises(TypeError):
        ops.matrix_diag_part(Tensor(M34), 1, 0.0)
    with pytest.raises(TypeError):
        ops.matrix_diag_part(Tensor(M34), _k(0), Tensor(0))
    with pytest.raises(ValueError):
        ops.matrix_diag_part(Tensor(M34), _k(5), Tensor(0.0))
    with pytest.raises(ValueError):
        ops.matrix_set_diag(
            Tensor(np.zeros((3, 4), np.float32)), Tensor(np.array([1.0, 2.0], np.float32))
        )
