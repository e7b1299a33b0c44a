"""ops.softmax / ops.gelu / ops.layer_norm and nn.GELU / nn.Softmax / nn.LayerNorm:
numpy references (f32 and f16), the error cases, and graph mode == PyNative bit for bit."""

from __future__ import annotations

import math

import nn_functional_programs as P
import numpy as np
import pytest

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops
from mindjit.frontend import context as C
from mindjit.frontend.graph import api

GELU_C = np.sqrt(2.0 / np.pi)


@pytest.fixture(autouse=True)
def _pynative():
    C.reset_context()
    yield
    C.reset_context()


def rand(shape, dtype=np.float32, seed=0, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


def softmax_ref(x, axis):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def gelu_ref(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1.0 + np.tanh(GELU_C * (x + 0.044715 * x**3)))


def layer_norm_ref(x, axes, gamma, beta, eps):
    x = x.astype(np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma.astype(np.float64) + beta.astype(np.float64)


# (rtol, atol) against a float64 reference
TOL = {np.float32: (1e-5, 1e-6), np.float16: (0, 3e-3)}


# --- softmax ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2])
def test_softmax_matches_numpy(axis, dtype):
    x = rand((3, 4, 5), dtype, seed=axis + 10, scale=3.0)
    out = ops.softmax(Tensor(x), axis)
    assert out.shape == x.shape and out.asnumpy().dtype == dtype
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(out.asnumpy(), softmax_ref(x, axis), rtol=rtol, atol=atol)
    sums = out.asnumpy().astype(np.float64).sum(axis=axis)
    np.testing.assert_allclose(sums, np.ones_like(sums), atol=1e-5 if dtype is np.float32 else 3e-3)


def test_softmax_default_axis_is_last_and_rows_sum_to_one():
    x = rand((6, 7), seed=1, scale=5.0)
    out = ops.softmax(Tensor(x)).asnumpy()
    np.testing.assert_allclose(out.sum(axis=-1), np.ones(6), rtol=1e-6)
    assert not np.allclose(out.sum(axis=0), np.ones(7))  # normalized along the rows only
    np.testing.assert_allclose(out, softmax_ref(x, -1), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(nn.Softmax()(Tensor(x)).asnumpy(), out)
    np.testing.assert_allclose(nn.Softmax(axis=0)(Tensor(x)).asnumpy(), softmax_ref(x, 0), 1e-5)


def test_softmax_is_stable_for_large_inputs():
    x = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, -1000.0]], np.float32)
    out = ops.softmax(Tensor(x)).asnumpy()
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, softmax_ref(x, -1), rtol=1e-6)
    np.testing.assert_allclose(out[1], [1 / 3] * 3, rtol=1e-6)


def test_softmax_int_input_and_dtype_argument():
    x = np.array([1, 2, 3], np.int32)
    out = ops.softmax(Tensor(x))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), softmax_ref(x, -1), rtol=1e-6)
    half = rand((2, 3), np.float16)
    assert ops.softmax(Tensor(half), dtype=ms.float32).dtype == ms.float32


@pytest.mark.parametrize("axis", [1.0, True, (0,), "1"])
def test_softmax_rejects_non_int_axis(axis):
    with pytest.raises(TypeError, match="For 'softmax', 'axis' must be an int"):
        ops.softmax(Tensor(rand((2, 3))), axis)


def test_softmax_axis_out_of_range():
    with pytest.raises(ValueError, match="out of range"):
        ops.softmax(Tensor(rand((2, 3))), 2)


# --- gelu ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_gelu_matches_numpy(dtype):
    x = rand((4, 33), dtype, seed=3, scale=3.0)
    out = ops.gelu(Tensor(x), approximate="tanh")
    assert out.asnumpy().dtype == dtype
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(out.asnumpy(), gelu_ref(x), rtol=rtol, atol=atol)
    np.testing.assert_array_equal(nn.GELU()(Tensor(x)).asnumpy(), out.asnumpy())


def test_gelu_known_values():
    x = np.array([-10.0, -1.0, 0.0, 1.0, 10.0], np.float32)
    out = ops.gelu(Tensor(x), approximate="tanh").asnumpy()
    # gelu_tanh(1) = 0.841192; large |x|: x or 0
    np.testing.assert_allclose(out, [0.0, -0.158808, 0.0, 0.841192, 10.0], atol=1e-5)


def gelu_exact_ref(x: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf)
    return (0.5 * x * (1.0 + erf(x.astype(np.float64) / math.sqrt(2.0)))).astype(x.dtype)


@pytest.mark.parametrize("approximate", ["erf", None, "TANH"])
def test_gelu_bad_approximate_is_rejected(approximate):
    with pytest.raises(ValueError, match="For 'gelu', 'approximate' must be 'none' or 'tanh'"):
        ops.gelu(Tensor(rand((2,))), approximate=approximate)


def test_gelu_default_is_exact_form():
    x = rand((4, 33), seed=5, scale=3.0)
    np.testing.assert_allclose(ops.gelu(Tensor(x)).asnumpy(), gelu_exact_ref(x), atol=2e-6)
    # gelu(1) = 0.841345 exactly (0.841192 with the tanh form)
    out = ops.gelu(Tensor(np.array([1.0], np.float32))).asnumpy()
    np.testing.assert_allclose(out, [0.8413447], atol=1e-6)


def test_nn_gelu_approximate_flag():
    x = rand((3, 7), seed=6, scale=3.0)
    assert nn.GELU().approximate is True
    np.testing.assert_allclose(nn.GELU()(Tensor(x)).asnumpy(), gelu_ref(x), atol=1e-6)
    exact = nn.GELU(approximate=False)
    assert exact.approximate is False
    np.testing.assert_allclose(exact(Tensor(x)).asnumpy(), gelu_exact_ref(x), atol=2e-6)


def test_get_activation_gelu_and_softmax():
    assert isinstance(nn.get_activation("gelu"), nn.GELU)
    assert isinstance(nn.get_activation("GELU"), nn.GELU)
    soft = nn.get_activation("softmax")
    assert isinstance(soft, nn.Softmax) and soft.axis == -1
    x = rand((2, 8), seed=4)
    d = nn.Dense(8, 3, activation="gelu")
    h = x @ d.weight.asnumpy().T + d.bias.asnumpy()
    np.testing.assert_allclose(d(Tensor(x)).asnumpy(), gelu_ref(h), rtol=1e-5, atol=1e-6)
    d = nn.Dense(8, 3, activation="softmax")
    h = x @ d.weight.asnumpy().T + d.bias.asnumpy()
    np.testing.assert_allclose(d(Tensor(x)).asnumpy(), softmax_ref(h, -1), rtol=1e-5)


# --- layer_norm ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_layer_norm_function_matches_numpy(dtype):
    x = rand((3, 4, 5), dtype, seed=5, scale=2.0) + dtype(1.5)
    gamma, beta = rand((4, 5), dtype, seed=6), rand((4, 5), dtype, seed=7)
    out = ops.layer_norm(Tensor(x), (1, 2), Tensor(gamma), Tensor(beta), 1e-5)
    assert out.asnumpy().dtype == dtype
    ref = layer_norm_ref(x, (1, 2), gamma, beta, 1e-5)
    atol = 1e-5 if dtype is np.float32 else 1e-2
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=TOL[dtype][0], atol=atol)
    # negative axes name the same dims
    neg = ops.layer_norm(Tensor(x), (-2, -1), Tensor(gamma), Tensor(beta), 1e-5)
    np.testing.assert_array_equal(neg.asnumpy(), out.asnumpy())


def test_layer_norm_normalizes_to_mean_zero_variance_one():
    x = rand((5, 16), seed=8, scale=4.0) + 3.0
    out = ops.layer_norm(Tensor(x), (-1,), Tensor(np.ones(16, np.float32)), 0.0, 1e-7).asnumpy()
    np.testing.assert_allclose(out.mean(axis=-1), np.zeros(5), atol=1e-5)
    np.testing.assert_allclose(out.var(axis=-1), np.ones(5), rtol=1e-4)


def test_layer_norm_epsilon_is_used():
    x = np.array([[0.0, 2.0]], np.float32)  # variance 1
    one, zero = Tensor(np.ones(2, np.float32)), Tensor(np.zeros(2, np.float32))
    out = ops.layer_norm(Tensor(x), (-1,), one, zero, 3.0).asnumpy()
    np.testing.assert_allclose(out, [[-0.5, 0.5]], rtol=1e-6)  # 1 / sqrt(1 + 3)


def test_nn_layer_norm_last_axis():
    ln = nn.LayerNorm((8,), gamma_init="normal", beta_init="normal")
    assert [n for n, _ in ln.parameters_and_names()] == ["gamma", "beta"]
    assert ln.gamma.name == "gamma" and ln.beta.name == "beta"
    assert isinstance(ln.gamma, Parameter) and ln.gamma.shape == (8,)
    assert ln.epsilon == pytest.approx(1e-7)
    x = rand((2, 3, 8), seed=9, scale=2.0)
    g, b = ln.gamma.asnumpy(), ln.beta.asnumpy()
    assert not np.allclose(g, 1.0) and not np.allclose(b, 0.0)
    out = ln(Tensor(x)).asnumpy()
    np.testing.assert_allclose(out, layer_norm_ref(x, (-1,), g, b, 1e-7), rtol=1e-5, atol=1e-5)
    assert repr(ln) == (
        "LayerNorm<normalized_shape=(8,), begin_norm_axis=-1, begin_params_axis=-1>"
    )


def test_nn_layer_norm_default_params_are_ones_and_zeros():
    ln = nn.LayerNorm([4], epsilon=1e-5)
    np.testing.assert_array_equal(ln.gamma.asnumpy(), np.ones(4, np.float32))
    np.testing.assert_array_equal(ln.beta.asnumpy(), np.zeros(4, np.float32))
    assert ln.normalized_shape == (4,)
    x = rand((3, 4), seed=10)
    ones, zeros = np.ones(4), np.zeros(4)
    ref = layer_norm_ref(x, (-1,), ones, zeros, 1e-5)
    np.testing.assert_allclose(ln(Tensor(x)).asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_nn_layer_norm_last_two_axes():
    ln = nn.LayerNorm(
        (3, 4), begin_norm_axis=-2, begin_params_axis=-2, gamma_init="normal", beta_init="normal"
    )
    assert ln.gamma.shape == (3, 4) and ln.beta.shape == (3, 4)
    x = rand((2, 3, 4), seed=11, scale=3.0)
    g, b = ln.gamma.asnumpy(), ln.beta.asnumpy()
    out = ln(Tensor(x)).asnumpy()
    ref = layer_norm_ref(x, (-2, -1), g, b, 1e-7)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    # differs from normalizing the last axis only
    assert not np.allclose(out, layer_norm_ref(x, (-1,), g, b, 1e-7), atol=1e-3)


def test_nn_layer_norm_f16():
    ln = nn.LayerNorm((6,), gamma_init="normal", beta_init="normal", dtype=ms.float16)
    assert ln.gamma.dtype == ms.float16
    x = rand((4, 6), np.float16, seed=12)
    out = ln(Tensor(x))
    assert out.dtype == ms.float16
    ref = layer_norm_ref(x, (-1,), ln.gamma.asnumpy(), ln.beta.asnumpy(), 1e-7)
    np.testing.assert_allclose(out.asnumpy(), ref, atol=1e-2)


@pytest.mark.parametrize("shape", [8, (0,), (2, -1), ("a",), (2.0,), None])
def test_nn_layer_norm_bad_normalized_shape(shape):
    with pytest.raises(TypeError, match="'normalized_shape' must be a tuple or list"):
        nn.LayerNorm(shape)


def test_nn_layer_norm_params_axis_must_match_norm_axis():
    with pytest.raises(ValueError, match="begin_params_axis == begin_norm_axis, got -1 and -2"):
        nn.LayerNorm((3, 4), begin_norm_axis=-2)
    with pytest.raises(ValueError, match="begin_params_axis == begin_norm_axis"):
        nn.LayerNorm((4,), begin_norm_axis=-1, begin_params_axis=0)


def test_nn_layer_norm_rank_mismatch():
    ln = nn.LayerNorm((3, 4), begin_norm_axis=-1, begin_params_axis=-1)
    with pytest.raises(ValueError, match="does not match normalized_shape"):
        ln(Tensor(rand((2, 3, 4))))


# --- graph mode == PyNative ---------------------------------------------------------------


def same_in_both_modes(net, *inputs):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = net(*inputs)
    api.clear_cache()
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = net(*inputs)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert len(api.cached_programs()) == 1  # the graph call really compiled the Cell
    eager_list = list(eager) if isinstance(eager, tuple) else [eager]
    graph_list = list(graph) if isinstance(graph, tuple) else [graph]
    assert len(eager_list) == len(graph_list)
    for a, b in zip(eager_list, graph_list):
        assert isinstance(b, Tensor)
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    return eager


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_graph_softmax(axis, dtype):
    x = rand((3, 4, 5), dtype, seed=13, scale=3.0)
    out = same_in_both_modes(P.SoftmaxNet(axis), Tensor(x))
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(out.asnumpy(), softmax_ref(x, axis), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_graph_gelu(dtype):
    x = rand((5, 7), dtype, seed=14, scale=3.0)
    out = same_in_both_modes(P.GeluNet(), Tensor(x))
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(out.asnumpy(), gelu_ref(x), rtol=rtol, atol=atol)


def test_graph_layer_norm_function():
    gamma = Parameter(Tensor(rand((3, 4), seed=15)), name="g")
    beta = Parameter(Tensor(rand((3, 4), seed=16)), name="b")
    x = rand((2, 3, 4), seed=17, scale=2.0)
    out = same_in_both_modes(P.LayerNormFn(gamma, beta), Tensor(x))
    ref = layer_norm_ref(x, (-2, -1), gamma.asnumpy(), beta.asnumpy(), 1e-5)
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-5, atol=1e-5)


def test_graph_nn_layer_norm_f16():
    ln = nn.LayerNorm((6,), gamma_init="normal", beta_init="normal", dtype=ms.float16)
    same_in_both_modes(ln, Tensor(rand((4, 6), np.float16, seed=18)))


def test_graph_block_of_all_layers():
    ms.set_seed(1)
    net = P.Block()
    x = rand((2, 3, 8), seed=19, scale=2.0)
    first, last = same_in_both_modes(net, Tensor(x))
    # the reference in numpy, from the cell's parameters
    h = x @ net.fc.weight.asnumpy().T + net.fc.bias.asnumpy()
    h = gelu_ref(gelu_ref(h))
    h = layer_norm_ref(h, (-1,), net.norm.gamma.asnumpy(), net.norm.beta.asnumpy(), 1e-7)
    h = layer_norm_ref(h, (-2, -1), net.norm2.gamma.asnumpy(), net.norm2.beta.asnumpy(), 1e-7)
    np.testing.assert_allclose(first.asnumpy(), softmax_ref(h, 1), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(last.asnumpy(), softmax_ref(h, -1), rtol=1e-4, atol=1e-5)
