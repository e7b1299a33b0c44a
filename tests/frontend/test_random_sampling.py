"""ops.rand / randn / randint / uniform / normal / standard_normal and the primitives
StandardNormal / UniformReal: distributions, dtypes and shapes, the same samples in
graph mode as in PyNative under ms.set_seed, a new sample at every call, errors."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, ops
from mindjit.frontend.ops.random import generator_state


def test_distributions():
    ms.set_seed(3)
    z = ops.randn(200, 100).asnumpy()
    assert z.dtype == np.float32 and z.shape == (200, 100)
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02
    assert abs((np.abs(z) < 1).mean() - 0.6827) < 0.01
    u = ops.rand((1000,), dtype=ms.float16).asnumpy()
    assert u.dtype == np.float16 and u.min() >= 0 and u.max() < 1
    r = ops.randint(-2, 3, (5000,)).asnumpy()
    assert r.dtype == np.int64 and set(np.unique(r)) == {-2, -1, 0, 1, 2}
    assert ops.randint(0, 4, (3,), dtype=ms.int32).dtype == ms.int32
    n = ops.normal((4000,), Tensor(np.array([10.0], np.float32)), 3.0).asnumpy()
    assert abs(n.mean() - 10) < 0.3 and abs(n.std() - 3) < 0.2
    s = ops.StandardNormal(seed=2)((3, 2))
    assert s.shape == (3, 2) and s.dtype == ms.float32
    assert ops.standard_normal((2,)).shape == (2,)
    assert ops.UniformReal()((2, 2)).shape == (2, 2)


def test_uniform_shapes_and_discrete():
    lo = Tensor(np.array([[3, 4], [5, 6]]), ms.float32)
    hi = Tensor([8.0, 10.0], ms.float32)
    out = ops.uniform((3, 1, 2), lo, hi, seed=5).asnumpy()
    assert out.shape == (3, 2, 2)
    assert (out >= lo.asnumpy()).all() and (out < hi.asnumpy()).all()
    ints = ops.uniform((500,), Tensor(1, ms.int32), Tensor(4, ms.int32), dtype=ms.int32)
    assert ints.dtype == ms.int32 and set(np.unique(ints.asnumpy())) == {1, 2, 3}


def _draws(x):
    a = ops.randn(2, 3)
    b = ops.rand(2, 3, seed=4)
    c = ops.randint(0, 10, (2, 3))
    d = ops.normal((2, 3), x, 0.5)
    e = ops.uniform((2, 3), Tensor(-1.0), Tensor(1.0))
    return a, b, c, d, e, ops.StandardNormal()((2, 3))


def test_graph_mode_draws_what_pynative_draws():
    x = Tensor(np.ones((2, 3), np.float32))
    ms.set_seed(11)
    eager = _draws(x)
    state = generator_state()
    ms.set_seed(11)
    graph = ms.jit(_draws)(x)
    assert generator_state() == state  # both advanced the generator alike
    for a, b in zip(eager, graph, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    again = ms.jit(_draws)(x)  # the compiled graph draws new samples at every call
    assert not np.array_equal(again[0].asnumpy(), graph[0].asnumpy())


def _normal_loss(w):
    return (ops.randn(3) * w).sum()


def test_gradient_through_a_sample():
    ms.set_seed(1)
    want = ops.randn(3).asnumpy()
    ms.set_seed(1)
    g = ms.grad(_normal_loss)(Tensor(np.ones(3, np.float32)))
    np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-6)


def test_errors():
    with pytest.raises(TypeError, match="'size' must be a tuple"):
        ops.randint(0, 3, 4)
    with pytest.raises(TypeError, match="'low' must be an int"):
        ops.randint(0.5, 3, (2,))
    with pytest.raises(ValueError, match="'dtype' must be an int type"):
        ops.randint(0, 3, (2,), dtype=ms.float32)
    with pytest.raises(TypeError, match="'dtype' must be int32 or float32"):
        ops.uniform((2,), Tensor(0.0), Tensor(1.0), dtype=ms.float16)
    with pytest.raises(TypeError, match="same dtype"):
        ops.uniform((2,), Tensor(0, ms.int32), Tensor(1.0))
    with pytest.raises(TypeError, match="'minval' must be a Tensor"):
        ops.uniform((2,), 0.0, Tensor(1.0))
    with pytest.raises(ValueError, match="'seed' must be non-negative"):
        ops.randn(2, seed=-1)
    with pytest.raises(TypeError, match="'dtype' must be a float type"):
        ops.rand(2, dtype=ms.int32)
    with pytest.raises(ValueError, match="must not be negative"):
        ops.StandardNormal()((-1, 2))
