"""Issue 38: ops.rand_like / randn_like / randint_like / randperm / bernoulli / shuffle /
laplace / standard_laplace / multinomial_with_replacement (frontend/ops/random_more.py)
and random_gamma / gamma / random_poisson / poisson (random_gamma_poisson.py):
distributions (statistics, not values: MindSpore's generator is another), dtypes and
shapes as MindSpore 2.10 printed them, the same samples in graph mode as in PyNative
under ms.set_seed, MindSpore's stateless seeds, errors."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, ops
from mindjit.frontend.ops.random import generator_state


def test_like_dtypes_and_ranges():
    ms.set_seed(1)
    half = Tensor(np.zeros((2, 3), np.float16))
    ints = Tensor(np.zeros((2, 3), np.int32))
    # dtypes MindSpore 2.10 printed: rand_like keeps the input's, randn_like is float32
    assert ops.rand_like(half).dtype == ms.float16
    assert ops.rand_like(half, dtype=ms.float64).dtype == ms.float64
    assert ops.randn_like(half).dtype == ms.float32 and ops.randn_like(ints).dtype == ms.float32
    assert ops.randint_like(ints, 1, 5).dtype == ms.int32
    assert ops.randint_like(half, 1, 5, dtype=ms.int64).dtype == ms.int64
    u = ops.rand_like(Tensor(np.zeros(20000, np.float32))).asnumpy()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.01
    z = ops.randn_like(Tensor(np.zeros(20000, np.float32))).asnumpy()
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03
    r = ops.randint_like(Tensor(np.zeros(5000, np.int64)), -2, 3).asnumpy()
    assert set(np.unique(r)) == {-2, -1, 0, 1, 2}


def test_permutations():
    ms.set_seed(2)
    p = ops.randperm(50).asnumpy()
    assert p.dtype == np.int64 and sorted(p.tolist()) == list(range(50))
    assert ops.randperm(6, seed=1, dtype=ms.int32).dtype == ms.int32
    assert ops.randperm(6, dtype=ms.float32).dtype == ms.float32
    # MindSpore's: a nonzero seed is stateless, (seed, offset) picks the permutation
    a, b = ops.randperm(8, seed=3).asnumpy(), ops.randperm(8, seed=3).asnumpy()
    assert a.tolist() == b.tolist()
    assert (
        ops.randperm(30, seed=3, offset=1).asnumpy().tolist()
        != ops.randperm(30, seed=3).asnumpy().tolist()
    )
    x = Tensor(np.arange(12).reshape(6, 2))
    s = ops.shuffle(x, seed=1).asnumpy()
    assert s.shape == (6, 2) and sorted(s[:, 0].tolist()) == [0, 2, 4, 6, 8, 10]
    assert (s[:, 1] == s[:, 0] + 1).all()  # rows move whole
    assert ops.shuffle(Tensor(np.array(5))).asnumpy() == 5


def test_bernoulli_and_laplace():
    ms.set_seed(3)
    b = ops.bernoulli(Tensor(np.zeros(20000, np.float32)), 0.3).asnumpy()
    assert b.dtype == np.float32 and set(np.unique(b)) == {0.0, 1.0} and abs(b.mean() - 0.3) < 0.02
    # MindSpore 2.10's printed values for p of 0 and 1
    assert ops.bernoulli(Tensor([1, 2, 3]), Tensor([0.0, 1.0, 1.0])).asnumpy().tolist() == [0, 1, 1]
    assert ops.bernoulli(Tensor(np.zeros((2, 3), np.int32)), 1.0).dtype == ms.int32
    z = ops.standard_laplace((40000,)).asnumpy()
    assert z.dtype == np.float32 and abs(z.mean()) < 0.03 and abs(z.var() - 2) < 0.1
    assert ops.standard_laplace(Tensor([3, 2], ms.int32)).shape == (3, 2)
    lap = ops.laplace((20000, 1), Tensor([1.0, 5.0]), Tensor(2.0)).asnumpy()
    assert lap.shape == (20000, 2)
    np.testing.assert_allclose(lap.mean(0), [1.0, 5.0], atol=0.1)
    np.testing.assert_allclose(lap.var(0), [8.0, 8.0], rtol=0.1)


def test_multinomial_with_replacement():
    w = Tensor(np.array([[0.0, 9.0, 4.0, 0.0]], np.float32))
    a = ops.multinomial_with_replacement(w, 2, 5, 4000, True)
    assert a.dtype == ms.int64 and a.shape == (1, 4000)
    counts = np.bincount(a.asnumpy().ravel(), minlength=4) / 4000
    np.testing.assert_allclose(counts, [0.0, 9 / 13, 4 / 13, 0.0], atol=0.03)
    again = ops.multinomial_with_replacement(w, 2, 5, 4000, True)
    assert (again.asnumpy() == a.asnumpy()).all()  # stateless in (seed, offset)
    assert ops.multinomial_with_replacement(w[0], Tensor(2, ms.int64), 5, 5, True).shape == (5,)
    picked = ops.multinomial_with_replacement(w, 2, 5, 2, False).asnumpy()
    assert sorted(picked[0].tolist()) == [1, 2]  # MindSpore 2.10 printed [[1, 2]]


def test_gamma_and_poisson():
    ms.set_seed(4)
    g = ops.random_gamma(Tensor([20000], ms.int32), Tensor([0.5, 1.5, 7.0])).asnumpy()
    assert g.shape == (20000, 3) and g.dtype == np.float32 and (g > 0).all()
    np.testing.assert_allclose(g.mean(0), [0.5, 1.5, 7.0], rtol=0.05)
    np.testing.assert_allclose(g.var(0), [0.5, 1.5, 7.0], rtol=0.1)
    shape = ops.random_gamma(Tensor([3, 2], ms.int32), Tensor(np.ones((2, 2), np.float32)), seed=5)
    assert shape.shape == (3, 2, 2, 2)  # MindSpore 2.10's
    assert (
        ops.random_gamma(Tensor([3], ms.int64), Tensor([0.5, 1.5], ms.float64)).dtype == ms.float64
    )
    g2 = ops.gamma((20000, 1), Tensor([[2.0, 3.0]]), Tensor([2.0])).asnumpy()
    np.testing.assert_allclose(g2.mean(0), [1.0, 1.5], rtol=0.05)
    assert ops.gamma((3, 1, 2), Tensor(np.ones((2, 2), np.float32)), Tensor([1.0])).shape == (
        3,
        2,
        2,
    )
    rates = [0.5, 3.0, 9.9, 10.0, 50.0, 1000.0]
    p = ops.random_poisson(Tensor([20000], ms.int32), Tensor(rates), dtype=ms.int64).asnumpy()
    assert p.dtype == np.int64 and p.shape == (20000, 6) and (p >= 0).all()
    np.testing.assert_allclose(p.mean(0), rates, rtol=0.03)
    np.testing.assert_allclose(p.var(0), rates, rtol=0.1)
    q = ops.random_poisson(Tensor([2, 3], ms.int32), Tensor([1.0, 5.0]))
    assert q.shape == (2, 3, 2) and q.dtype == ms.float32  # MindSpore 2.10's
    r = ops.poisson((4000, 1), Tensor([4.0, 25.0])).asnumpy()
    assert r.dtype == np.float32 and r.shape == (4000, 2)
    np.testing.assert_allclose(r.mean(0), [4.0, 25.0], rtol=0.05)


def _draws(x):
    return (
        ops.rand_like(x),
        ops.randn_like(x),
        ops.randint_like(x, 0, 9, dtype=ms.int32),
        ops.bernoulli(x, 0.5),
        ops.standard_laplace((2, 3)),
        ops.laplace((2, 3), Tensor(1.0), Tensor(2.0)),
        ops.randperm(5),
        ops.shuffle(x),
        ops.random_gamma(Tensor([2], ms.int32), Tensor([0.5, 3.0])),
        ops.random_poisson(Tensor([2], ms.int32), Tensor([2.0, 40.0])),
    )


def test_graph_mode_draws_what_pynative_draws():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    ms.set_seed(11)
    eager = _draws(x)
    state = generator_state()
    ms.set_seed(11)
    graph = ms.jit(_draws)(x)
    assert generator_state() == state
    for a, b in zip(eager, graph):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-6)
    again = ms.jit(_draws)(x)
    assert not np.array_equal(again[0].asnumpy(), graph[0].asnumpy())  # a new sample


def test_bad_input():
    with pytest.raises(ValueError):
        ops.rand_like(Tensor(np.zeros(2, np.int32)))
    with pytest.raises(ValueError):
        ops.randint_like(Tensor(np.zeros(2, np.float16)), 1, 5)
    with pytest.raises(ValueError):
        ops.randperm(-1)
    with pytest.raises(ValueError):
        ops.randperm(300, dtype=ms.uint8)
    with pytest.raises(ValueError):
        ops.bernoulli(Tensor(np.zeros((2, 3), np.float32)), 1.5)
    with pytest.raises(ValueError):
        ops.bernoulli(Tensor(np.zeros((2, 3), np.float32)), Tensor([0.0, 1.0, 1.0]))
    with pytest.raises(TypeError):
        ops.random_gamma((3,), Tensor([1.0]))
    with pytest.raises(ValueError):
        ops.gamma((3, 1, 3), Tensor(np.ones((2, 2), np.float32)), Tensor([[1.0], [2.0]]))
    with pytest.raises(TypeError):
        ops.poisson(Tensor([3, 2], ms.int32), Tensor([1.0]))
