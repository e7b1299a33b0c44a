"""Issue 38: MindSpore 2.10's distances, covariance and binning (frontend/ops/distances.py,
binning.py) and their Tensor methods: cdist, pdist, cov, searchsorted, histc. Values are
what MindSpore 2.10 printed on CPU (pasted as constants); every case runs in PyNative
and graph mode; gradients against finite differences; bad input raises MindSpore's
exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

from mindjit import Tensor, ops

RNG = np.random.default_rng(3815)
C = np.array([[0.0, 1.0, 2.0, 4.0], [2.0, 1.0, 0.0, 3.0]], np.float32)
P = np.array([[[0.0, 0.0], [1.0, 1.0]]], np.float32)
Q = np.array([[[1.0, 0.0], [2.0, 2.0], [0.0, 3.0]]], np.float32)
S = np.array([1.0, 3.0, 5.0, 7.0, 9.0], np.float32)


def _check(got, want, dtype=None, rtol=1e-6):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=rtol)
    assert got.shape == np.asarray(want).shape
    if dtype is not None:
        assert str(got.dtype) == dtype


def test_cdist_pdist(mode):
    got = run(
        lambda a, b: (
            ops.cdist(a, b),
            ops.cdist(a, b, 1.0),
            ops.cdist(a, b, float("inf")),
            ops.cdist(a[0], b[0], 3.0),
            ops.cdist(a, b, 0.0),
            ops.pdist(b[0]),
            ops.pdist(b[0], 1.0),
        ),
        mode,
        Tensor(P),
        Tensor(Q),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [[[1.0, 2.8284270763397217, 3.0], [1.0, 1.4142135381698608, 2.2360680103302]]])
    _check(got[1], [[[1.0, 4.0, 3.0], [1.0, 2.0, 3.0]]], "Float32")
    _check(got[2], [[[1.0, 2.0, 3.0], [1.0, 1.0, 2.0]]])
    _check(got[3], [[1.0, 2.5198421478271484, 3.0], [1.0, 1.2599210739135742, 2.0800838470458984]])
    _check(got[4], [[[1.0, 2.0, 1.0], [1.0, 2.0, 2.0]]])
    _check(got[5], [2.2360680103302, 3.1622776985168457, 2.2360680103302])
    _check(got[6], [3.0, 4.0, 3.0])


def test_cov(mode):
    got = run(
        lambda c: (
            ops.cov(c),
            c.cov(correction=0),
            ops.cov(Tensor([1.0, 2.0, 4.0])),
            ops.cov(c, fweights=Tensor([1, 2, 1, 1]), aweights=Tensor([1.0, 0.5, 1.0, 2.0])),
            ops.cov(Tensor([[1, 2, 4]])),
        ),
        mode,
        Tensor(C),
    )
    # MindSpore 2.10's printed values (one variable: a 0-d result; ints in float32)
    _check(
        got[0], [[2.9166667461395264, 0.8333333134651184], [0.8333333134651184, 1.6666666269302368]]
    )
    _check(got[1], [[2.1875, 0.625], [0.625, 1.25]])
    _check(got[2], 2.3333332538604736, "Float32")
    _check(
        got[3], [[3.4594595432281494, 1.4054052829742432], [1.4054052829742432, 1.837837815284729]]
    )
    _check(got[4], 2.3333332538604736, "Float32")


def test_searchsorted_histc(mode):
    got = run(
        lambda s: (
            ops.searchsorted(s, Tensor([3.0, 6.0, 9.0, 0.0, 10.0])),
            ops.searchsorted(s, Tensor([3.0, 6.0, 9.0]), right=True),
            ops.searchsorted(s, Tensor([3.0]), side="right"),
            ops.searchsorted(s, Tensor(4.0)),
            ops.searchsorted(
                Tensor([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]), Tensor([[3.0, 6.0], [1.0, 4.0]])
            ),
            ops.searchsorted(Tensor([1, 3, 5]), Tensor([3, 4])),
            Tensor([1.0, 3.0, 5.0]).searchsorted(Tensor([3.0, 4.0]), side="right"),
            ops.histc(Tensor([1.0, 2.0, 1.0, 4.0, 2.5]), bins=4, min=0.0, max=4.0),
            ops.histc(Tensor([1.0, 2.0, 1.0, 4.0, -1.0]), bins=3),
            Tensor(np.array([1, 2, 1, 3], np.int32)).histc(4, 0, 3),
            ops.histc(Tensor(np.array([1, 2, 1, 3], np.float16)), 2, 0.0, 3.0),
            ops.histc(Tensor([0.0, 0.5, 1.0, 1.5, 2.0, 2.5]), bins=2, min=0.5, max=2.0),
        ),
        mode,
        Tensor(S),
    )
    # MindSpore 2.10's printed values
    _check(got[0], [1, 3, 4, 0, 5], "Int64")
    _check(got[1], [2, 3, 5])
    _check(got[2], [2])
    _check(got[3], 2, "Int64")
    _check(got[4], [[1, 3], [0, 1]])
    _check(got[5], [1, 2], "Int64")
    _check(got[6], [2, 2], "Int32")  # the Tensor method's positions are int32
    _check(got[7], [0.0, 2.0, 2.0, 1.0], "Float32")
    _check(got[8], [1.0, 3.0, 1.0])  # min == max: the data's range
    _check(got[9], [0, 2, 1, 1], "Int32")
    _check(got[10], [2.0, 2.0], "Float32")  # float16 counts in float32
    _check(got[11], [2.0, 2.0])  # outside [min, max] is dropped


def test_distances_gradients():
    a, b = RNG.standard_normal((3, 2)), RNG.standard_normal((4, 2))
    for fn in (ops.cdist, lambda x, y: ops.cdist(x, y, 1.0), lambda x, y: ops.cdist(x, y, 3.0)):
        assert_grads_match_finite_differences(fn, [a.copy(), b.copy()], RNG)
    for fn in (
        ops.pdist,
        lambda x: ops.pdist(x, 1.5),
        ops.cov,
        lambda x: ops.cov(x.T, correction=0),
    ):
        assert_grads_match_finite_differences(fn, [b.copy()], RNG)


def test_distances_binning_errors():
    with pytest.raises(ValueError):
        ops.cdist(Tensor(P), Tensor(Q), -1.0)  # p must be a non-negative value
    with pytest.raises(ValueError):
        ops.cdist(Tensor(P), Tensor(np.ones((1, 3, 3), np.float32)))  # number of columns
    with pytest.raises(TypeError):
        ops.cdist(Tensor([[1, 2], [3, 4]]), Tensor([[1, 2]]))  # float only
    with pytest.raises(TypeError):
        ops.pdist(Tensor([[1, 2], [3, 4]]))
    with pytest.raises(ValueError):
        ops.pdist(Tensor(Q))  # the x dim must be equal to 2
    with pytest.raises(ValueError):
        ops.cov(Tensor(np.zeros((2, 2, 2), np.float32)))  # two or fewer dimensions
    with pytest.raises(TypeError):
        ops.cov(Tensor(C), fweights=Tensor([1.0, 1.0, 1.0, 1.0]))  # fweights: an integer type
    with pytest.raises(TypeError):
        ops.searchsorted([1.0], Tensor([1.0]))
    with pytest.raises(RuntimeError):
        ops.searchsorted(Tensor([1, 3, 5]), Tensor([3.0, 4.0]))  # MindSpore: Unknown Error!
    with pytest.raises(TypeError):
        ops.histc(Tensor([1, 2]), 4, 0, 3)  # int64: no Histogram kernel
    with pytest.raises(ValueError):
        ops.histc(Tensor([1.0]), bins=0)
    with pytest.raises(ValueError):
        ops.histc(Tensor([1.0]), 4, 3.0, 1.0)  # 'min' should be <= max
