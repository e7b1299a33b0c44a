"""Activations (ops.relu6 ... fast_gelu, their Cells and primitives), elementwise math
(log1p ... nan_to_num) and products (prod, outer, einsum): PyNative against numpy,
accuracy where a naive formula loses it, gradients (PyNative and graph mode)
against central finite differences in float64, and MindSpore's exception types.
Graph mode against PyNative on the values is in graph_corpus.py."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

import mindjit as ms
from mindjit import nn, ops
from mindjit.frontend import context as C

RNG = np.random.default_rng(23)
X = np.array([[-7.0, -3.2, -1.0, -1e-3, 0.0], [0.4, 1.7, 5.9, 6.5, 30.0]], np.float32)
UNIT = np.array([-0.999, -0.6, -1e-4, 0.0, 0.3, 0.9999], np.float32)


@pytest.fixture(autouse=True)
def _context():
    C.reset_context()
    yield
    C.reset_context()


def t(a):
    return ms.Tensor(np.asarray(a))


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_softplus(x, beta=1.0, threshold=20.0):
    bx = beta * x
    return np.where(bx > threshold, x, np.log1p(np.exp(np.minimum(bx, threshold))) / beta)


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# --- values against numpy ----------------------------------------------------------------

ACTIVATIONS = [
    ("relu6", ops.relu6, lambda x: np.clip(x, 0, 6)),
    ("hardsigmoid", ops.hardsigmoid, lambda x: np.clip((x + 3) / 6, 0, 1)),
    ("elu", ops.elu, lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    ("elu_alpha", lambda x: ops.elu(x, 0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    ("softplus", ops.softplus, np_softplus),
    ("softplus_beta", lambda x: ops.softplus(x, 2, 5), lambda x: np_softplus(x, 2.0, 5.0)),
    ("mish", ops.mish, lambda x: x * np.tanh(np_softplus(x))),
    ("hardtanh", ops.hardtanh, lambda x: np.clip(x, -1, 1)),
    ("hardtanh_range", lambda x: ops.hardtanh(x, -2, 3.5), lambda x: np.clip(x, -2, 3.5)),
    ("softmin", ops.softmin, lambda x: np_softmax(-x, -1)),
    ("softmin_axis0", lambda x: ops.softmin(x, 0), lambda x: np_softmax(-x, 0)),
    ("fast_gelu", ops.fast_gelu, lambda x: x * sigmoid(1.702 * x)),
    (
        "GeLU",
        ops.GeLU(),
        lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    ),
    ("FastGeLU", ops.FastGeLU(), lambda x: x * sigmoid(1.702 * x)),
    ("ReLU6", ops.ReLU6(), lambda x: np.clip(x, 0, 6)),
    ("HSigmoid", ops.HSigmoid(), lambda x: np.clip((x + 3) / 6, 0, 1)),
    ("Elu", ops.Elu(), lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    ("Softplus", ops.Softplus(), np_softplus),
    ("Mish", ops.Mish(), lambda x: x * np.tanh(np_softplus(x))),
    ("Softmax", ops.Softmax(), lambda x: np_softmax(x, -1)),
    ("Softmax_tuple", ops.Softmax(axis=(0, 1)), lambda x: np_softmax(x, (0, 1))),
    ("LogSoftmax", ops.LogSoftmax(0), lambda x: np.log(np_softmax(x, 0))),
    ("logsigmoid", ops.logsigmoid, lambda x: -np.logaddexp(0, -x)),
    ("selu", ops.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))),
    ("celu", lambda x: ops.celu(x, 2.0), lambda x: np.where(x > 0, x, 2 * np.expm1(x / 2))),
    ("softshrink", ops.softshrink, lambda x: np.sign(x) * np.maximum(np.abs(x) - 0.5, 0)),
    ("hardshrink", lambda x: ops.hardshrink(x, 1.0), lambda x: np.where(np.abs(x) > 1, x, 0)),
    ("tanhshrink", ops.tanhshrink, lambda x: x - np.tanh(x)),
    ("threshold", lambda x: ops.threshold(x, 0.3, -4), lambda x: np.where(x > 0.3, x, -4)),
]


@pytest.mark.parametrize("name,fn,want", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation_values(name, fn, want):
    got = fn(t(X))
    assert got.dtype == ms.float32 and got.shape == X.shape
    np.testing.assert_allclose(got.asnumpy(), want(X.astype(np.float64)), rtol=2e-6, atol=1e-6)


def test_hardtanh_keeps_int_dtype_and_nn_softmax_takes_a_tuple():
    got = ops.hardtanh(t(np.array([-3, 0, 9], np.int32)))
    assert got.dtype == ms.int32
    np.testing.assert_array_equal(got.asnumpy(), [-1, 0, 1])
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    got = nn.Softmax(axis=(1, 2))(t(x)).asnumpy()
    np.testing.assert_allclose(got, np_softmax(x, (1, 2)), rtol=1e-5)


def test_relu6_keeps_int_dtype():
    got = ops.relu6(t(np.array([-3, 2, 9], np.int32)))
    assert got.dtype == ms.int32
    np.testing.assert_array_equal(got.asnumpy(), [0, 2, 6])


def test_prelu_per_channel_and_shared():
    x = np.arange(-6, 6, dtype=np.float32).reshape(2, 3, 2)
    w = np.array([0.1, 0.6, -0.3], np.float32)
    want = np.where(x > 0, x, x * w[None, :, None])
    np.testing.assert_allclose(ops.prelu(t(x), t(w)).asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(ops.PReLU()(t(x), t(w)).asnumpy(), want, rtol=1e-6)
    one = np.array([0.25], np.float32)
    np.testing.assert_allclose(
        ops.prelu(t(x), t(one)).asnumpy(), np.where(x > 0, x, 0.25 * x), rtol=1e-6
    )
    v = np.array([-2.0, 3.0], np.float32)  # rank 1: one channel
    np.testing.assert_allclose(ops.prelu(t(v), t(one)).asnumpy(), [-0.5, 3.0])


CELLS = [
    (nn.ReLU6, (), lambda x: np.clip(x, 0, 6)),
    (nn.HSigmoid, (), lambda x: np.clip((x + 3) / 6, 0, 1)),
    (nn.ELU, (0.3,), lambda x: np.where(x > 0, x, 0.3 * np.expm1(np.minimum(x, 0)))),
    (nn.Softplus, (3, 4), lambda x: np_softplus(x, 3.0, 4.0)),
    (nn.Mish, (), lambda x: x * np.tanh(np_softplus(x))),
    (nn.Hardtanh, (-0.5, 2), lambda x: np.clip(x, -0.5, 2)),
    (nn.Softmin, (0,), lambda x: np_softmax(-x, 0)),
    (nn.FastGelu, (), lambda x: x * sigmoid(1.702 * x)),
    (nn.PReLU, (), lambda x: np.where(x > 0, x, 0.25 * x)),
    (nn.LogSigmoid, (), lambda x: -np.logaddexp(0, -x)),
    (nn.SeLU, (), lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))),
    (nn.CELU, (0.5,), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x / 0.5))),
    (nn.SoftShrink, (0.2,), lambda x: np.sign(x) * np.maximum(np.abs(x) - 0.2, 0)),
    (nn.HShrink, (), lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    (nn.Tanhshrink, (), lambda x: x - np.tanh(x)),
    (nn.Threshold, (1.0, 2.0), lambda x: np.where(x > 1, x, 2.0)),
]


@pytest.mark.parametrize("cls,args,want", CELLS, ids=[c[0].__name__ for c in CELLS])
def test_activation_cells(cls, args, want):
    got = cls(*args)(t(X))
    np.testing.assert_allclose(got.asnumpy(), want(X.astype(np.float64)), rtol=2e-6, atol=1e-6)


def test_prelu_cell_parameter_trains():
    net = nn.PReLU(channel=3, w=[0.1, 0.2, 0.3])
    (p,) = [p for _, p in net.parameters_and_names()]
    assert p.shape == (3,)
    np.testing.assert_allclose(p.asnumpy(), [0.1, 0.2, 0.3], rtol=1e-6)
    x = t(-np.ones((2, 3, 4), np.float32))
    grads = ms.grad(lambda x: ops.reduce_sum(net(x)), None, net.trainable_params())(x)
    g = grads[0] if isinstance(grads, tuple) else grads
    np.testing.assert_allclose(g.asnumpy(), [-8.0, -8.0, -8.0])


@pytest.mark.parametrize(
    "name",
    [
        "relu6",
        "hsigmoid",
        "elu",
        "softplus",
        "prelu",
        "mish",
        "hardtanh",
        "softmin",
        "fast_gelu",
        "logsigmoid",
        "softshrink",
        "hshrink",
        "tanhshrink",
    ],
)
def test_get_activation_names(name):
    cell = nn.get_activation(name)
    assert isinstance(cell, nn.Cell)
    dense = nn.Dense(3, 4, activation=name)
    assert dense(t(np.ones((2, 3), np.float32))).shape == (2, 4)


def test_get_activation_none_and_unknown():
    assert nn.get_activation(None) is None
    with pytest.raises(KeyError):
        nn.get_activation("no_such_activation")


def test_dense_takes_a_primitive_activation():
    dense = nn.Dense(3, 2, weight_init="ones", bias_init="zeros", activation=ops.ReLU6())
    got = dense(t(np.array([[1.0, 2.0, 4.0], [-1.0, 0.0, -3.0]], np.float32)))
    np.testing.assert_allclose(got.asnumpy(), [[6.0, 6.0], [0.0, 0.0]])


MATH = [
    ("log1p", ops.log1p, np.log1p, np.abs(X)),
    ("expm1", ops.expm1, np.expm1, X / 4),
    ("log2", ops.log2, np.log2, np.abs(X) + 0.5),
    ("exp2", ops.exp2, np.exp2, X / 2),
    ("tan", ops.tan, np.tan, X / 5),
    ("atan", ops.atan, np.arctan, X),
    ("arctan", ops.arctan, np.arctan, X),
    ("asin", ops.asin, np.arcsin, UNIT),
    ("acos", ops.acos, np.arccos, UNIT),
    ("sinh", ops.sinh, np.sinh, X / 3),
    ("cosh", ops.cosh, np.cosh, X / 3),
    ("sign", ops.sign, np.sign, X),
    ("Log1p", ops.Log1p(), np.log1p, np.abs(X)),
    ("Expm1", ops.Expm1(), np.expm1, X / 4),
    ("Tan", ops.Tan(), np.tan, X / 5),
    ("Atan", ops.Atan(), np.arctan, X),
    ("Asin", ops.Asin(), np.arcsin, UNIT),
    ("ACos", ops.ACos(), np.arccos, UNIT),
    ("Sinh", ops.Sinh(), np.sinh, X / 3),
    ("Cosh", ops.Cosh(), np.cosh, X / 3),
    ("Sign", ops.Sign(), np.sign, X),
    ("method_log1p", lambda x: x.log1p(), np.log1p, np.abs(X)),
    ("method_asin", lambda x: x.arcsin(), np.arcsin, UNIT),
    ("method_sign", lambda x: x.sign(), np.sign, X),
]


@pytest.mark.parametrize("name,fn,want,x", MATH, ids=[m[0] for m in MATH])
def test_math_values(name, fn, want, x):
    got = fn(t(x))
    assert got.dtype == ms.float32 and got.shape == x.shape
    np.testing.assert_allclose(got.asnumpy(), want(x.astype(np.float64)), rtol=3e-6, atol=1e-7)


def test_atan2_all_quadrants_and_broadcast():
    y = np.array([[1.0, -1.0, 1.0, -1.0, 0.0, 0.0]], np.float32)
    x = np.array([[1.0], [-1.0], [0.0]], np.float32)
    want = np.arctan2(y, x)
    for got in (ops.atan2(t(y), t(x)), ops.Atan2()(t(y), t(x)), t(y).atan2(t(x))):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    got = ops.arctan2(t(np.array([1, -2], np.int32)), 3)
    assert got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), np.arctan2([1, -2], 3), rtol=1e-6)


def test_integer_inputs_compute_in_float32():
    for fn, want in ((ops.log1p, np.log1p), (ops.tan, np.tan), (ops.cosh, np.cosh)):
        got = fn(t(np.array([0, 1, 2], np.int32)))
        assert got.dtype == ms.float32
        np.testing.assert_allclose(got.asnumpy(), want([0.0, 1.0, 2.0]), rtol=1e-6)
    assert ops.sign(t(np.array([-4, 0, 7], np.int64))).dtype == ms.int64


@pytest.mark.parametrize("fn,want", [(ops.log1p, np.log1p), (ops.expm1, np.expm1)])
def test_tiny_arguments_keep_their_digits(fn, want):
    """log(1 + x) and exp(x) - 1 return 0 (or 1.19e-7) here; the math ops do not."""
    x = np.array([1e-10, -3e-9, 1e-20, 5e-8], np.float32)
    np.testing.assert_allclose(fn(t(x)).asnumpy(), want(x.astype(np.float64)), rtol=1e-6)


def test_sinh_and_asin_accuracy_at_the_edges():
    tiny = np.array([1e-9, -2e-6], np.float32)
    np.testing.assert_allclose(ops.sinh(t(tiny)).asnumpy(), np.sinh(tiny.astype(np.float64)), 1e-6)
    edge = np.array([0.99999, -0.999999], np.float32)
    for fn, want in ((ops.asin, np.arcsin), (ops.acos, np.arccos)):
        np.testing.assert_allclose(fn(t(edge)).asnumpy(), want(edge.astype(np.float64)), 1e-6)
    assert np.isnan(ops.asin(t(np.array([1.5], np.float32))).asnumpy()).all()


def test_sinh_cosh_finite_as_far_as_float32_is():
    """exp(89) overflows float32 but sinh(89) and cosh(89) (2.2e38) do not."""
    x = np.array([-89.3, -89.0, 88.9, 89.3, -20.0, 15.0], np.float32)
    for fn, want in ((ops.sinh, np.sinh), (ops.cosh, np.cosh)):
        got = fn(t(x)).asnumpy()
        assert np.isfinite(got).all()
        np.testing.assert_allclose(got, want(x.astype(np.float64)), rtol=2e-6)
    assert np.isinf(ops.cosh(t(np.array([90.0], np.float32))).asnumpy()).all()


def test_exp2_and_log2_exact_at_integers():
    n = np.arange(-3, 10, dtype=np.float32)
    np.testing.assert_array_equal(ops.exp2(t(n)).asnumpy(), np.exp2(n))
    np.testing.assert_allclose(ops.log2(t(np.exp2(n))).asnumpy(), n, rtol=0, atol=1e-6)


SPECIAL = np.array([np.nan, np.inf, -np.inf, 5.0, -0.0, -2.5], np.float32)


def test_predicates():
    x = t(SPECIAL)
    np.testing.assert_array_equal(ops.isnan(x).asnumpy(), np.isnan(SPECIAL))
    np.testing.assert_array_equal(ops.isinf(x).asnumpy(), np.isinf(SPECIAL))
    np.testing.assert_array_equal(ops.isfinite(x).asnumpy(), np.isfinite(SPECIAL))
    np.testing.assert_array_equal(ops.IsNan()(x).asnumpy(), np.isnan(SPECIAL))
    np.testing.assert_array_equal(x.isinf().asnumpy(), np.isinf(SPECIAL))
    for fn in (ops.isnan, ops.isinf, ops.isfinite):
        assert fn(x).dtype == ms.bool_
    i = t(np.array([1, -2], np.int32))
    np.testing.assert_array_equal(ops.isnan(i).asnumpy(), [False, False])
    np.testing.assert_array_equal(ops.isfinite(i).asnumpy(), [True, True])
    np.testing.assert_array_equal(ops.sign(x).asnumpy(), np.sign(SPECIAL))


def test_nan_to_num():
    x = t(SPECIAL)
    big = np.finfo(np.float32).max
    np.testing.assert_array_equal(
        ops.nan_to_num(x).asnumpy(), np.nan_to_num(SPECIAL, nan=0.0, posinf=big, neginf=-big)
    )
    np.testing.assert_array_equal(
        x.nan_to_num(1.0, 2.0, 3.0).asnumpy(), np.nan_to_num(SPECIAL, nan=1.0, posinf=2, neginf=3)
    )
    h = ops.nan_to_num(t(SPECIAL.astype(np.float16)))
    assert h.dtype == ms.float16 and h.asnumpy()[1] == np.finfo(np.float16).max


# --- products ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "axis,keep", [(None, False), (0, False), (1, True), ((0, 2), False), (-1, True), ((), False)]
)
def test_prod(axis, keep):
    x = RNG.uniform(0.5, 1.5, (3, 5, 7)).astype(np.float32)
    got = ops.prod(t(x), axis, keep)
    want = np.prod(x, axis=None if axis == () else axis, keepdims=keep)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)


def test_prod_ints_method_primitive_and_dtype():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    assert ops.prod(t(x)).asnumpy() == 720 and ops.prod(t(x)).dtype == ms.int32
    np.testing.assert_array_equal(t(x).prod(1).asnumpy(), [6, 120])
    np.testing.assert_array_equal(ops.ReduceProd(True)(t(x), 0).asnumpy(), [[4, 10, 18]])
    assert ops.prod(t(x), dtype=ms.float32).dtype == ms.float32
    assert ops.prod(t(np.zeros((2, 0), np.float32)), 1).asnumpy().tolist() == [1.0, 1.0]


def test_all_any():
    x = np.array([[1.0, 0.0, 2.0], [3.0, 4.0, 5.0]], np.float32)
    np.testing.assert_array_equal(ops.all(t(x)).asnumpy(), False)
    np.testing.assert_array_equal(ops.all(t(x), 1).asnumpy(), [False, True])
    np.testing.assert_array_equal(ops.any(t(x), 0, True).asnumpy(), [[True, True, True]])
    np.testing.assert_array_equal(ops.ReduceAll()(t(x > 0.5), 1).asnumpy(), [False, True])
    np.testing.assert_array_equal(ops.ReduceAny(True)(t(x > 4.5)).asnumpy(), [[True]])


def test_outer():
    a, b = np.array([1.0, -2.0], np.float32), np.array([3.0, 4.0, 0.5], np.float32)
    np.testing.assert_allclose(ops.outer(t(a), t(b)).asnumpy(), np.outer(a, b))
    np.testing.assert_allclose(t(a).outer(t(b)).asnumpy(), np.outer(a, b))


EINSUMS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("bhqk,bhkd->bqhd", [(2, 3, 4, 6), (2, 3, 6, 5)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(5,), (5,)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ij,jk", [(3, 4), (4, 2)]),
    ("ijk,k->ij", [(2, 3, 4), (4,)]),
    ("ij,kl->", [(2, 3), (4, 5)]),
    ("ij->ji", [(3, 4)]),
    ("ijk->k", [(2, 3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
]


@pytest.mark.parametrize("equation,shapes", EINSUMS, ids=[e[0] for e in EINSUMS])
def test_einsum(equation, shapes):
    arrays = [RNG.standard_normal(s).astype(np.float32) for s in shapes]
    want = np.einsum(equation, *[a.astype(np.float64) for a in arrays])
    got = ops.einsum(equation, *[t(a) for a in arrays])
    assert got.shape == want.shape
    np.testing.assert_allclose(got.asnumpy(), want, rtol=2e-5, atol=2e-5)
    if len(arrays) == 2:
        prim = ops.Einsum(equation)(tuple(t(a) for a in arrays))
        np.testing.assert_allclose(prim.asnumpy(), got.asnumpy())


# --- gradients against finite differences (float64), PyNative and graph mode -------------------


def act_a(x, r):
    return (ops.relu6(x * 4) + ops.hardsigmoid(x * 2) + ops.elu(x) + ops.softplus(x * 9, 2, 5)) * r


def act_b(x, r):
    y = ops.mish(x) + ops.hardtanh(x, -0.5, 0.5) + ops.fast_gelu(x) + ops.softmin(x, -1)
    return (y + ops.elu(x, 0.3)) * r


def act_c(x, r):
    y = ops.logsigmoid(x) + ops.selu(x) + ops.celu(x, 0.7) + ops.softshrink(x, 0.3)
    return (y + ops.hardshrink(x, 0.2) + ops.tanhshrink(x) + ops.threshold(x, 0.1, 3)) * r


def prelu_fn(x, w, r):
    return ops.prelu(x, w) * r


def math_a(x, r):
    y = ops.log1p(x * x) + ops.expm1(x) + ops.log2(x * x + 1) + ops.exp2(x) + ops.tan(x * 0.5)
    return (y + ops.atan(x) + ops.sign(x) + ops.nan_to_num(x)) * r


def math_b(x, y, r):
    s = x * 0.3
    return (ops.atan2(x, y) + ops.asin(s) + ops.acos(s) + ops.sinh(x) + ops.cosh(x)) * r


def products_fn(x, y, r):
    p = ops.prod(x, 1) + ops.prod(x, (0, 1))
    return (ops.einsum("ij,kj->ik", x, y) * p.reshape((3, 1))) * r + ops.outer(x[:, 0], y[:, 1]) * r


@ms.jit
def grad_act_a(x, r):
    return ms.grad(act_a)(x, r)


@ms.jit
def grad_act_b(x, r):
    return ms.grad(act_b)(x, r)


@ms.jit
def grad_act_c(x, r):
    return ms.grad(act_c)(x, r)


@ms.jit
def grad_prelu_fn(x, w, r):
    return ms.grad(prelu_fn, (0, 1))(x, w, r)


@ms.jit
def grad_math_a(x, r):
    return ms.grad(math_a)(x, r)


@ms.jit
def grad_math_b(x, y, r):
    return ms.grad(math_b, (0, 1))(x, y, r)


@ms.jit
def grad_products_fn(x, y, r):
    return ms.grad(products_fn, (0, 1))(x, y, r)


def _normal(*shape):
    return lambda g: g.standard_normal(shape) * 2


GRADS = {
    "act_a": (act_a, grad_act_a, (0,), [_normal(3, 4)], (3, 4)),
    "act_b": (act_b, grad_act_b, (0,), [_normal(3, 4)], (3, 4)),
    "act_c": (act_c, grad_act_c, (0,), [_normal(3, 4)], (3, 4)),
    "prelu": (
        prelu_fn,
        grad_prelu_fn,
        (0, 1),
        [_normal(2, 3, 4), lambda g: g.uniform(0.1, 0.5, 3)],
        (2, 3, 4),
    ),
    "math_a": (math_a, grad_math_a, (0,), [_normal(3, 4)], (3, 4)),
    "math_b": (
        math_b,
        grad_math_b,
        (0, 1),
        [
            lambda g: g.uniform(-2, 2, (3, 4)),  # asin/acos see 0.3 x in (-0.6, 0.6)
            lambda g: g.uniform(0.5, 2, 4) * g.choice([-1.0, 1.0], 4),
        ],
        (3, 4),
    ),
    "products": (
        products_fn,
        grad_products_fn,
        (0, 1),
        [lambda g: g.uniform(0.5, 1.5, (3, 4)), _normal(5, 4)],
        (3, 5),
    ),
}


def _inputs(name):
    g = np.random.default_rng(zlib.crc32(name.encode()))
    _, _, _, makes, r_shape = GRADS[name]
    return [np.asarray(m(g), np.float64) for m in makes] + [g.standard_normal(r_shape)]


def _fd(fn, arrays, p, eps=1e-6):
    x = arrays[p]
    out = np.zeros(x.shape)
    for k in np.ndindex(*x.shape):
        plus = [a.copy() for a in arrays]
        minus = [a.copy() for a in arrays]
        plus[p][k] += eps
        minus[p][k] -= eps
        hi = fn(*[t(a) for a in plus]).asnumpy().sum()
        lo = fn(*[t(a) for a in minus]).asnumpy().sum()
        out[k] = (hi - lo) / (2 * eps)
    return out


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_against_finite_differences(name):
    fn, graph_grad, positions, _, _ = GRADS[name]
    arrays = _inputs(name)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    fd = [_fd(fn, arrays, p) for p in positions]
    eager = ms.grad(fn, positions if len(positions) > 1 else 0)(*[t(a) for a in arrays])
    graph = graph_grad(*[t(a) for a in arrays])
    for got in (eager, graph):
        got = got if isinstance(got, tuple) else (got,)
        for g, want in zip(got, fd, strict=True):
            assert g.dtype == ms.float64
            np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_prod_gradient_with_zeros():
    """The halving product's gradient is exact where an input is 0 (no division)."""
    x = np.array([[2.0, 0.0, 3.0, 5.0, 0.5], [0.0, 0.0, 1.0, 2.0, 3.0]])
    g = ms.grad(lambda x: ops.reduce_sum(ops.prod(x, 1)))(t(x)).asnumpy()
    want = np.array([[0.0, 15.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]])
    np.testing.assert_allclose(g, want)


def test_elu_and_softplus_gradients_stay_finite_for_large_inputs():
    x = t(np.array([100.0, 1000.0, -1000.0], np.float32))
    for fn in (ops.elu, ops.softplus, ops.mish, ops.fast_gelu):
        g = ms.grad(lambda x, fn=fn: ops.reduce_sum(fn(x)))(x).asnumpy()
        assert np.isfinite(g).all(), (fn.__name__, g)


def test_relu6_gradient_is_zero_at_both_ends():
    g = ms.grad(lambda x: ops.reduce_sum(ops.relu6(x)))(t(np.array([0.0, 3.0, 6.0, 7.0])))
    np.testing.assert_array_equal(g.asnumpy(), [0.0, 1.0, 0.0, 0.0])


# --- errors ----------------------------------------------------------------------------------

F32 = np.ones((2, 3), np.float32)


@pytest.mark.parametrize(
    "call,exc",
    [
        (lambda: ops.relu6(F32), TypeError),
        (lambda: ops.elu(t(np.array([1, 2], np.int32))), TypeError),
        (lambda: ops.elu(t(F32), alpha="1"), TypeError),
        (lambda: ops.softplus(t(F32), beta=None), TypeError),
        (lambda: ops.softplus(t(F32), threshold="x"), TypeError),
        (lambda: ops.hardtanh(t(F32), min_val="a"), TypeError),
        (lambda: ops.prelu(t(F32), t(np.ones((3, 1), np.float32))), ValueError),
        (lambda: ops.prelu(t(F32), t(np.ones(2, np.float32))), ValueError),
        (lambda: ops.prelu(t(F32), t(np.ones(3, np.int32))), TypeError),
        (lambda: ops.prelu(t(F32), [0.25]), TypeError),
        (lambda: ops.softmin(t(F32), axis=1.5), TypeError),
        (lambda: ops.Softmax(axis=1.0), TypeError),
        (lambda: ops.LogSoftmax(axis=(0,)), TypeError),
        (lambda: nn.PReLU(channel=0), ValueError),
        (lambda: nn.PReLU(channel=2.0), TypeError),
        (lambda: nn.PReLU(channel=3, w=[0.1, 0.2]), ValueError),
        (lambda: nn.PReLU(channel=3, w="w"), TypeError),
        (lambda: nn.PReLU(channel=3, w=t(np.ones(2, np.float32))), ValueError),
        (lambda: nn.Hardtanh(2.0, 1.0), ValueError),
        (lambda: nn.ELU(alpha="a"), TypeError),
        (lambda: ops.celu(t(F32), 0.0), ValueError),
        (lambda: nn.CELU(0), ValueError),
        (lambda: ops.softshrink(t(F32), -1.0), ValueError),
        (lambda: nn.HShrink(-0.5), ValueError),
        (lambda: nn.SoftShrink("a"), TypeError),
        (lambda: ops.threshold(t(F32), "a", 1.0), TypeError),
        (lambda: ops.logsigmoid(t(np.array([1, 2], np.int32))), TypeError),
        (lambda: nn.get_activation(3), TypeError),
        (lambda: nn.Dense(2, 2, activation=3), TypeError),
        (lambda: ops.isnan(1.0), TypeError),
        (lambda: ops.sign(t(np.array([True]))), TypeError),
        (lambda: ops.log1p(t(np.array([True]))), TypeError),
        (lambda: ops.atan2(t(np.array([True])), t(np.array([False]))), TypeError),
        (lambda: ops.atan2(t(F32), t(np.ones(4, np.float32))), ValueError),
        (lambda: ops.nan_to_num(t(F32), nan="0"), TypeError),
        (lambda: ops.prod(t(F32), 2), ValueError),
        (lambda: ops.prod(t(F32), 0, keep_dims=1), TypeError),
        (lambda: ops.prod(F32), TypeError),
        (lambda: ops.outer(t(F32), t(np.ones(2, np.float32))), ValueError),
        (lambda: ops.einsum("ij,jk->ik", t(F32)), ValueError),
        (lambda: ops.einsum("ij,jk->ik", t(F32), t(F32)), ValueError),
        (lambda: ops.einsum("ijk,jk->ik", t(F32), t(F32)), ValueError),
        (lambda: ops.einsum("ij,jk->iz", t(F32), t(F32.T)), ValueError),
        (lambda: ops.einsum("ii->i", t(np.ones((2, 2), np.float32))), NotImplementedError),
        (lambda: ops.einsum("...j,jk->...k", t(F32), t(F32.T)), NotImplementedError),
        (lambda: ops.einsum(3, t(F32)), TypeError),
    ],
)
def test_errors(call, exc):
    with pytest.raises(exc):
        call()


# --- on the simulated Ascend device ----------------------------------------------------------


class _DeviceNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 3, weight_init="ones", activation="prelu")
        self.acts = nn.SequentialCell([nn.ELU(), nn.Softplus(), nn.Mish(), nn.HSigmoid()])
        self.softmax = ops.Softmax()

    def construct(self, x):
        h = self.acts(self.dense(x) - 2)
        m = ops.log1p(ops.abs(x)) + ops.expm1(x) + ops.atan2(x, 2.0) + ops.asin(x * 0.1)
        return self.softmax(h), ops.prod(m, 1), ops.einsum("ij,kj->ik", h, h)


def test_graph_on_the_device_matches_pynative():
    from mindjit.frontend.graph import api

    x = t(RNG.standard_normal((5, 4)).astype(np.float32))
    net = _DeviceNet()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = net(x)
    try:
        ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
        device = net(x)
    finally:
        ms.set_context(device_target="CPU")
        api.clear_cache()
    for a, b in zip(eager, device, strict=True):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-6)


def _vmapped_math(a, b):
    return ops.log1p(ops.abs(a)) + ops.atan2(a, b) + ops.expm1(a) + ops.prod(a, 0)


@ms.jit
def _graph_vmapped_math(a, b):
    return ms.vmap(_vmapped_math, in_axes=(0, None))(a, b)


def test_vmap_of_the_new_mindir_ops():
    """PyNative (one example at a time) and graph mode (mindir-vmap batches the ops)."""
    a = RNG.standard_normal((4, 3)).astype(np.float32)
    b = RNG.uniform(0.5, 2.0, 3).astype(np.float32)
    want = np.log1p(np.abs(a)) + np.arctan2(a, b) + np.expm1(a) + np.prod(a, 1, keepdims=True)
    eager = ms.vmap(_vmapped_math, in_axes=(0, None))(t(a), t(b)).asnumpy()
    graph = _graph_vmapped_math(t(a), t(b)).asnumpy()
    for got in (eager, graph):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
