"""ops.arange / linspace / eye / tril / triu and the primitives Range, Eye, Tril, Triu
against numpy, in PyNative and graph mode; gradients through tril/triu; errors."""

from __future__ import annotations

import numpy as np
import pytest
from modes import run as _run

import mindjit as ms
from mindjit import Tensor, ops
from mindjit.frontend.graph.errors import FrontendError

RNG = np.random.default_rng(5)


@pytest.mark.parametrize(
    ("args", "kwargs", "want"),
    [
        ((5,), {}, np.arange(5)),
        ((1, 6), {}, np.arange(1, 6)),
        ((7, 1, -2), {}, np.arange(7, 1, -2)),
        ((0, 3, 1.2), {}, np.arange(0, 3, 1.2).astype(np.float32)),
        ((0.5, 3), {}, np.arange(0.5, 3).astype(np.float32)),
        ((0, 4), {"dtype": ms.float16}, np.arange(0, 4).astype(np.float16)),
        ((Tensor(12.0, ms.float64), 2, Tensor(-1.0, ms.float32)), {}, np.arange(12.0, 2, -1)),
        ((Tensor(3, ms.int32),), {}, np.arange(3)),
    ],
)
def test_arange_values_and_dtypes(args, kwargs, want):
    out = ops.arange(*args, **kwargs)
    want_dtype = kwargs.get("dtype") or (ms.int64 if want.dtype.kind == "i" else ms.float32)
    assert out.dtype == want_dtype
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)


def test_range_primitive_keeps_the_input_dtype():
    out = ops.Range()(Tensor(0, ms.int32), Tensor(10, ms.int32), Tensor(4, ms.int32))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [0, 4, 8])
    out = ops.Range()(Tensor(1.0), Tensor(2.0), Tensor(0.25))
    assert out.dtype == ms.float32 and out.shape == (4,)
    with pytest.raises(TypeError, match="same dtype"):
        ops.Range()(Tensor(0, ms.int32), Tensor(10.0), Tensor(1, ms.int32))


def test_linspace_and_eye():
    out = ops.linspace(Tensor(1, ms.float32), Tensor(10, ms.float32), 5)
    np.testing.assert_allclose(out.asnumpy(), [1, 3.25, 5.5, 7.75, 10])
    assert out.dtype == ms.float32
    assert ops.linspace(0, 1, 1).asnumpy().tolist() == [0.0]
    e = ops.eye(2, 3, ms.int32)
    assert e.dtype == ms.int32
    np.testing.assert_array_equal(e.asnumpy(), np.eye(2, 3))
    assert ops.eye(3).dtype == ms.float32 and ops.eye(3).shape == (3, 3)
    np.testing.assert_array_equal(ops.Eye()(2, 2, ms.bool_).asnumpy(), np.eye(2, dtype=bool))


@pytest.mark.parametrize("diagonal", [-2, -1, 0, 1, 3, -5])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (2, 5, 3)])
def test_tril_triu_match_numpy(shape, diagonal, mode):
    x = RNG.standard_normal(shape).astype(np.float32)

    def both(t):
        return ops.tril(t, diagonal), ops.triu(t, diagonal), t.tril(diagonal), t.triu(diagonal)

    lo, hi, lo_m, hi_m = _run(both, mode, Tensor(x))
    np.testing.assert_array_equal(lo.asnumpy(), np.tril(x, diagonal))
    np.testing.assert_array_equal(hi.asnumpy(), np.triu(x, diagonal))
    np.testing.assert_array_equal(lo_m.asnumpy(), np.tril(x, diagonal))
    np.testing.assert_array_equal(hi_m.asnumpy(), np.triu(x, diagonal))


def test_tril_primitives_and_int_bool_inputs():
    x = np.arange(16).reshape(4, 4).astype(np.int32)
    np.testing.assert_array_equal(ops.Tril(1)(Tensor(x)).asnumpy(), np.tril(x, 1))
    np.testing.assert_array_equal(ops.Triu(-1)(Tensor(x)).asnumpy(), np.triu(x, -1))
    b = x % 3 == 0
    out = ops.tril(Tensor(b))
    assert out.dtype == ms.bool_
    np.testing.assert_array_equal(out.asnumpy(), np.tril(b))


def _tril_loss(x):
    return (ops.tril(x, 1) * ops.triu(x)).sum()


def test_tril_triu_gradient(mode):
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    g = _run(ms.grad(_tril_loss), mode, Tensor(x))
    lo, hi = np.tril(np.ones_like(x), 1), np.triu(np.ones_like(x))
    np.testing.assert_allclose(g.asnumpy(), 2 * x * lo * hi, rtol=1e-6)


def _constants_in_graph(x):
    n = x.shape[0]
    return x + ops.arange(x.shape[1]) + ops.eye(n, x.shape[1]) * ops.linspace(0.0, 1.0, x.shape[1])


def test_constants_fold_in_graph_mode():
    x = Tensor(RNG.standard_normal((3, 4)).astype(np.float32))
    eager = _constants_in_graph(x)
    graph = ms.jit(_constants_in_graph)(x)
    np.testing.assert_array_equal(eager.asnumpy(), graph.asnumpy())


def _arange_of_a_graph_value(x):
    return ops.arange(x.sum())


def test_errors():
    with pytest.raises(ValueError, match="'step' must not be 0"):
        ops.arange(0, 5, 0)
    with pytest.raises(ValueError, match="less than 'end'"):
        ops.arange(5, 1)
    with pytest.raises(ValueError, match="greater than 'end'"):
        ops.arange(1, 5, -1)
    with pytest.raises(TypeError, match="'end' must be an int, a float"):
        ops.arange("a")
    with pytest.raises(ValueError, match="shape"):
        ops.arange(Tensor(np.ones(2)))
    with pytest.raises((TypeError, FrontendError), match="known when the graph is compiled"):
        ms.jit(_arange_of_a_graph_value)(Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="'steps' must be an int"):
        ops.linspace(0, 1, 2.0)
    with pytest.raises(ValueError, match="'steps' must be positive"):
        ops.linspace(0, 1, 0)
    with pytest.raises(TypeError, match="'n' must be an int"):
        ops.eye(2.0)
    with pytest.raises(ValueError, match="non-negative"):
        ops.eye(-1)
    with pytest.raises(ValueError, match="rank of 'input' must be at least 2"):
        ops.tril(Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="'diagonal' must be an int"):
        ops.triu(Tensor(np.ones((2, 2), np.float32)), 1.0)
    with pytest.raises(TypeError, match="'input' must be a Tensor"):
        ops.tril(np.ones((2, 2)))
