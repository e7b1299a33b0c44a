"""Issue 38: MindSpore 2.10's stacking, splitting and rearranging functions
(frontend/ops/stacking.py) and their Tensor methods: atleast_1d/2d/3d, hstack, vstack,
dstack, column_stack, tensor_split, hsplit, vsplit, dsplit, rot90, diff, kron. Values
are what MindSpore 2.10 printed on CPU (pasted as constants); every case runs in
PyNative and graph mode; gradients against finite differences; bad input raises
MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

from mindjit import Tensor, ops

RNG = np.random.default_rng(3811)
M = np.arange(6, dtype=np.float32).reshape(2, 3)
C = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
A10 = np.arange(10, dtype=np.float32)


def _check(got, want, dtype=None):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _check(g, w, dtype)
        return
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want, np.float64), rtol=1e-6)
    assert got.shape == np.asarray(want).shape
    if dtype is not None:
        assert str(got.dtype) == dtype


def test_atleast(mode):
    got = run(
        lambda s, v, m: (
            ops.atleast_1d([s, v, m]),
            ops.atleast_1d(s),
            ops.atleast_2d((s, v, m)),
            ops.atleast_3d([s, v, m]),
        ),
        mode,
        Tensor(2.0),
        Tensor([1.0, 2.0]),
        Tensor(M),
    )
    # MindSpore 2.10's printed values
    _check(got[0], ([2.0], [1.0, 2.0], M), "Float32")
    _check(got[1], [2.0])
    _check(got[2], ([[2.0]], [[1.0, 2.0]], M))
    _check(got[3], ([[[2.0]]], [[[1.0], [2.0]]], [[[0.0], [1.0], [2.0]], [[3.0], [4.0], [5.0]]]))


def test_stacks(mode):
    got = run(
        lambda v, m: (
            ops.hstack([v, Tensor([3.0])]),
            ops.hstack((m, m)),
            ops.vstack([v, v]),
            ops.vstack([m, m]),
            ops.dstack([v, v]),
            ops.dstack([m, m]),
            ops.column_stack([v, v]),
            ops.column_stack([Tensor([[1.0], [2.0]]), v]),
        ),
        mode,
        Tensor([1.0, 2.0]),
        Tensor(M),
    )
    _check(got[0], [1.0, 2.0, 3.0], "Float32")
    _check(got[1], [[0.0, 1.0, 2.0, 0.0, 1.0, 2.0], [3.0, 4.0, 5.0, 3.0, 4.0, 5.0]])
    _check(got[2], [[1.0, 2.0], [1.0, 2.0]])
    _check(got[3], np.concatenate([M, M]))
    _check(got[4], [[[1.0, 1.0], [2.0, 2.0]]])
    _check(got[5], np.dstack([M, M]))  # MindSpore: shape (2, 3, 2)
    _check(got[6], [[1.0, 1.0], [2.0, 2.0]])
    _check(got[7], [[1.0, 1.0], [2.0, 2.0]])


def test_tensor_split(mode):
    got = run(
        lambda a, m: (
            ops.tensor_split(a, 3),
            ops.tensor_split(a, [2, 5, 20]),
            ops.tensor_split(a, (6, 2)),
            ops.tensor_split(m, 2, axis=1),
            m.tensor_split([1], -1),
            a.tensor_split(2),
        ),
        mode,
        Tensor(A10),
        Tensor(M),
    )
    # MindSpore 2.10's printed values (empty pieces included)
    _check(got[0], (A10[:4], A10[4:7], A10[7:]), "Float32")
    _check(got[1], (A10[:2], A10[2:5], A10[5:], A10[10:]))
    _check(got[2], (A10[:6], A10[6:2], A10[2:]))
    _check(got[3], ([[0.0, 1.0], [3.0, 4.0]], [[2.0], [5.0]]))
    _check(got[4], ([[0.0], [3.0]], [[1.0, 2.0], [4.0, 5.0]]))
    _check(got[5], (A10[:5], A10[5:]))


def test_hsplit_vsplit_dsplit(mode):
    got = run(
        lambda a, m, c: (
            ops.hsplit(m, 3),
            m.hsplit(3),
            ops.vsplit(m, 2),
            a.vsplit(2),
            ops.dsplit(c, [1, 3]),
            c.dsplit(2),
        ),
        mode,
        Tensor(A10),
        Tensor(M),
        Tensor(C),
    )
    cols = ([[0.0], [3.0]], [[1.0], [4.0]], [[2.0], [5.0]])
    _check(got[0], cols)
    _check(got[1], cols)
    _check(got[2], ([[0.0, 1.0, 2.0]], [[3.0, 4.0, 5.0]]))
    _check(got[3], (A10[:5], A10[5:]))  # MindSpore 2.10: vsplit splits a 1-D tensor
    _check(got[4], (C[:, :, :1], C[:, :, 1:3], C[:, :, 3:]))
    _check(got[5], (C[:, :, :2], C[:, :, 2:]))


def test_rot90(mode):
    got = run(
        lambda m, c: (
            ops.rot90(m, 1, [0, 1]),
            ops.rot90(m, 2, [0, 1]),
            ops.rot90(m, -1, [0, 1]),
            ops.rot90(m, 4, (1, 0)),
            m.rot90(3, (1, 0)),
            ops.rot90(c, 1, (2, 0)),
        ),
        mode,
        Tensor(M),
        Tensor(C),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [[2.0, 5.0], [1.0, 4.0], [0.0, 3.0]])
    _check(got[1], [[5.0, 4.0, 3.0], [2.0, 1.0, 0.0]])
    _check(got[2], [[3.0, 0.0], [4.0, 1.0], [5.0, 2.0]])
    _check(got[3], M)
    _check(got[4], [[2.0, 5.0], [1.0, 4.0], [0.0, 3.0]])  # k=3 about (1, 0) is k=1 about (0, 1)
    _check(got[5], np.rot90(C, 1, (2, 0)))
    _check(got[5][0], [[12.0, 0.0], [16.0, 4.0], [20.0, 8.0]])  # MindSpore's first block


def test_diff_kron(mode):
    got = run(
        lambda d, m: (
            ops.diff(d),
            d.diff(),
            ops.diff(m, 1, 0),
            ops.diff(d, 1, -1, Tensor([0.0]), Tensor([20.0, 30.0])),
            ops.diff(Tensor([1, 5, 2])),
            ops.diff(Tensor([True, False, False])),
            ops.kron(Tensor([[1.0, 2.0], [3.0, 4.0]]), Tensor([[0.0, 1.0], [1.0, 0.0]])),
            ops.kron(Tensor([1.0, 2.0]), Tensor([[1.0, 10.0, 100.0]])),
            ops.kron(Tensor([1, 2]), Tensor([3, 4])),
        ),
        mode,
        Tensor([1.0, 4.0, 9.0, 16.0]),
        Tensor(M),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [3.0, 5.0, 7.0], "Float32")
    _check(got[1], [3.0, 5.0, 7.0])
    _check(got[2], [[3.0, 3.0, 3.0]])
    _check(got[3], [1.0, 3.0, 5.0, 7.0, 4.0, 10.0])
    _check(got[4], [4, -3], "Int64")
    _check(got[5], [True, False], "Bool")
    _check(got[6], [[0, 1, 0, 2], [1, 0, 2, 0], [0, 3, 0, 4], [3, 0, 4, 0]], "Float32")
    _check(got[7], [[1.0, 10.0, 100.0, 2.0, 20.0, 200.0]])
    _check(got[8], [3, 4, 6, 8], "Int64")


def test_stacking_gradients():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2))
    c = RNG.standard_normal((2, 3, 4))
    two = (
        lambda x, y: ops.hstack([x, y.T]),
        lambda x, y: ops.vstack([x, y.T]),
        lambda x, y: ops.dstack([x, y.T]),
        lambda x, y: ops.column_stack([x, y.T]),
        ops.kron,
        lambda x, y: ops.diff(x, 1, 0, y.T[:1], None),
    )
    for fn in two:
        assert_grads_match_finite_differences(fn, [a.copy(), b.copy()], RNG)
    one = (
        lambda x: ops.rot90(x, 1, (0, 2)),
        lambda x: ops.rot90(x, 3, (1, 2)),
        lambda x: ops.diff(x),
        lambda x: ops.atleast_3d(x[0]),
        lambda x: ops.tensor_split(x, [1, 3], 2)[1] * 2 + ops.tensor_split(x, [1, 3], 2)[0],
        lambda x: ops.dsplit(x, 2)[1],
    )
    for fn in one:
        assert_grads_match_finite_differences(fn, [c.copy()], RNG)


def test_stacking_errors():
    v, m = Tensor([1.0, 2.0]), Tensor(M)
    a = Tensor(A10)
    with pytest.raises(TypeError):
        ops.hstack(v)  # MindSpore: the input must be list or tuple
    with pytest.raises(TypeError):
        ops.vstack([])  # MindSpore: inputs can not be empty
    with pytest.raises(ValueError):
        ops.tensor_split(a, 0)  # must be more than zero
    with pytest.raises(TypeError):
        ops.tensor_split(a, 2.0)
    with pytest.raises(ValueError):
        ops.tensor_split(a, 2, axis=3)  # axis 3 is out of bounds
    with pytest.raises(TypeError):
        ops.tensor_split([1, 2], 2)
    with pytest.raises(ValueError):
        ops.hsplit(a, [3])  # MindSpore: hsplit wants rank >= 2
    with pytest.raises(ValueError):
        ops.dsplit(m, 2)
    for dims in ([0, 0], [0, 2]):
        with pytest.raises(RuntimeError):
            ops.rot90(m, 1, dims)  # MindSpore: rotation dims must be different
    with pytest.raises(RuntimeError):
        ops.rot90(v, 1, [0, 1])
    with pytest.raises(TypeError):
        ops.rot90(m, 1.0, [0, 1])
    for n in (0, 2):
        with pytest.raises(RuntimeError):
            ops.diff(v, n)  # MindSpore 2.10: 'n' must be 1
    with pytest.raises(TypeError):
        ops.diff(v, 1.5)
    with pytest.raises(TypeError):
        ops.diff([1, 2])
    with pytest.raises(IndexError):
        ops.diff(v, 1, 1)  # MindSpore: tuple index out of range
    with pytest.raises(TypeError):
        ops.kron([1], v)
