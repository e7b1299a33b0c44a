"""Functional ops and primitive classes in PyNative mode, against numpy references."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mindjit as ms
from mindjit import Parameter, Tensor, ops
from mindjit.frontend import context as C
from mindjit.frontend import dispatch
from mindjit.frontend.printing import format_tensor, format_tensor_graph, print_items

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 4)).astype(np.float32)
B = RNG.standard_normal((3, 4)).astype(np.float32)
POS = (np.abs(A) + 0.5).astype(np.float32)


@pytest.fixture(autouse=True)
def _pynative():
    C.reset_context()
    yield
    C.reset_context()


def close(t, ref, rtol=1e-6, atol=1e-6):
    assert isinstance(t, Tensor)
    ref = np.asarray(ref)
    assert t.shape == ref.shape
    np.testing.assert_allclose(t.asnumpy(), ref, rtol=rtol, atol=atol)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def hswish(x):
    return x * np.clip(x + 3, 0, 6) / 6


# --- elementwise ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn, ref",
    [
        (ops.add, np.add),
        (ops.sub, np.subtract),
        (ops.mul, np.multiply),
        (ops.div, np.divide),
        (ops.maximum, np.maximum),
        (ops.minimum, np.minimum),
        (ops.equal, np.equal),
        (ops.not_equal, np.not_equal),
        (ops.less, np.less),
        (ops.less_equal, np.less_equal),
        (ops.greater, np.greater),
        (ops.greater_equal, np.greater_equal),
    ],
)
def test_binary(fn, ref):
    close(fn(Tensor(A), Tensor(B)), ref(A, B))
    close(fn(Tensor(A), Tensor(B[0])), ref(A, B[0]))  # broadcasting
    close(fn(Tensor(A), 0.5), ref(A, np.float32(0.5)))


def test_pow():
    close(ops.pow(Tensor(POS), Tensor(B)), np.power(POS, B), rtol=1e-5)
    close(ops.pow(Tensor(POS), 2), POS**2, rtol=1e-6)
    close(ops.pow(Tensor([2, 3]), 3), np.array([8, 27]))


@pytest.mark.parametrize(
    "fn, ref, data",
    [
        (ops.neg, np.negative, A),
        (ops.abs, np.abs, A),
        (ops.exp, np.exp, A),
        (ops.log, np.log, POS),
        (ops.tanh, np.tanh, A),
        (ops.sin, np.sin, A),
        (ops.cos, np.cos, A),
        (ops.erf, np.vectorize(math.erf), A),
        (ops.floor, np.floor, A * 3),
        (ops.ceil, np.ceil, A * 3),
        (ops.round, np.round, np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.7], np.float32)),
        (ops.relu, lambda x: np.maximum(x, 0), A),
        (ops.sigmoid, sigmoid, A),
        (ops.sqrt, np.sqrt, POS),
        (ops.square, np.square, A),
        (ops.hswish, hswish, A * 4),
        (ops.rsqrt, lambda x: 1 / np.sqrt(x), POS),
        (ops.reciprocal, lambda x: 1 / x, POS),
    ],
)
def test_unary(fn, ref, data):
    close(fn(Tensor(data)), ref(data), rtol=1e-5)


def test_float_math_on_ints_is_float32():
    out = ops.exp(Tensor([0, 1]))
    assert out.dtype == ms.float32
    close(out, np.exp(np.array([0, 1], np.float32)))
    assert ops.sqrt(Tensor([4], ms.int32)).asnumpy().tolist() == [2.0]


def test_div_rounding_modes():
    x, y = Tensor([7, -7, 6]), Tensor([2, 2, -4])
    assert ops.div(x, y).asnumpy().tolist() == [3.5, -3.5, -1.5]
    assert ops.div(x, y, rounding_mode="trunc").asnumpy().tolist() == [3, -3, -1]
    assert ops.div(x, y, rounding_mode="floor").asnumpy().tolist() == [3, -4, -2]
    xf = Tensor([7.0, -7.0])
    assert ops.div(xf, 2, rounding_mode="trunc").asnumpy().tolist() == [3.0, -3.0]
    assert ops.div(xf, 2, rounding_mode="floor").asnumpy().tolist() == [3.0, -4.0]
    with pytest.raises(ValueError, match="rounding_mode"):
        ops.div(x, y, rounding_mode="round")


def test_logical():
    a, b = np.array([True, True, False]), np.array([True, False, False])
    close(ops.logical_and(Tensor(a), Tensor(b)), a & b)
    close(ops.logical_or(Tensor(a), Tensor(b)), a | b)
    close(ops.logical_xor(Tensor(a), Tensor(b)), a ^ b)
    close(ops.logical_not(Tensor(a)), ~a)


def test_select():
    cond = A > 0
    close(ops.select(Tensor(cond), Tensor(A), Tensor(B)), np.where(cond, A, B))
    close(ops.select(Tensor(cond), Tensor(A), 0.0), np.where(cond, A, 0))
    out = ops.select(Tensor([True, False]), Tensor([1, 2]), Tensor([1.5, 2.5]))
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [1.0, 2.5]


# --- matmul ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sa, sb",
    [
        ((3, 4), (4, 5)),
        ((4,), (4, 5)),
        ((3, 4), (4,)),
        ((4,), (4,)),
        ((2, 3, 4), (4, 5)),
        ((2, 3, 4), (4,)),
        ((4,), (2, 4, 5)),
        ((2, 1, 3, 4), (5, 4, 2)),
    ],
)
def test_matmul_shapes(sa, sb):
    a = RNG.standard_normal(sa).astype(np.float32)
    b = RNG.standard_normal(sb).astype(np.float32)
    close(ops.matmul(Tensor(a), Tensor(b)), np.matmul(a, b), rtol=1e-5, atol=1e-5)


def test_matmul_primitive_transposes():
    a = RNG.standard_normal((4, 3)).astype(np.float32)
    b = RNG.standard_normal((5, 4)).astype(np.float32)
    close(ops.MatMul(transpose_a=True, transpose_b=True)(Tensor(a), Tensor(b)), a.T @ b.T, 1e-5)
    close(ops.MatMul()(Tensor(a.T), Tensor(b.T)), a.T @ b.T, 1e-5)
    with pytest.raises(ValueError):
        ops.matmul(Tensor(1.0), Tensor([1.0]))
    with pytest.raises(ValueError, match="matmul"):
        ops.matmul(Tensor(a), Tensor(a))


# --- reductions ---------------------------------------------------------------------------------


def test_reductions():
    x = Tensor(A)
    close(ops.mean(x), A.mean())
    close(ops.mean(x, 1), A.mean(1))
    close(ops.mean(x, (0, 1), True), A.mean(keepdims=True))
    close(ops.sum(x), A.sum(), rtol=1e-5)
    close(ops.sum(x, 0), A.sum(0), rtol=1e-5)
    close(ops.sum(x, dim=-1, keepdim=True), A.sum(-1, keepdims=True), rtol=1e-5)
    close(ops.sum(Tensor([1, 2]), dtype=ms.float32), np.float32(3))
    close(ops.amax(x), A.max())
    close(ops.amax(x, 1, keepdims=True), A.max(1, keepdims=True))
    close(ops.amin(x, 0), A.min(0))
    close(ops.reduce_sum(x, 1), A.sum(1), rtol=1e-5)
    close(ops.reduce_sum(x, (), True), A.sum(keepdims=True), rtol=1e-5)
    close(ops.reduce_mean(x, 0, keep_dims=True), A.mean(0, keepdims=True))
    close(ops.reduce_max(x, -1), A.max(-1))
    assert ops.mean(Tensor([1, 2])).dtype == ms.float32
    with pytest.raises(ValueError, match="axis"):
        ops.sum(x, 2)
    with pytest.raises(ValueError, match="twice"):
        ops.sum(x, (1, -1))


def test_reduce_primitives():
    x = Tensor(A)
    close(ops.ReduceSum()(x, 1), A.sum(1), rtol=1e-5)
    close(ops.ReduceSum(keep_dims=True)(x), A.sum(keepdims=True), rtol=1e-5)
    close(ops.ReduceMean(keep_dims=True)(x, 0), A.mean(0, keepdims=True))
    close(ops.ReduceMax()(x, (0, 1)), A.max())
    close(ops.ReduceMin()(x, 1), A.min(1))


# --- shapes and constants -----------------------------------------------------------------------------


def test_shape_ops():
    x = Tensor(A)
    close(ops.reshape(x, (2, -1)), A.reshape(2, -1))
    close(ops.reshape(x, 12), A.reshape(12))
    close(ops.transpose(x, (1, 0)), A.T)
    close(ops.transpose(Tensor(np.zeros((2, 3, 4))), (-1, 0, 1)), np.zeros((4, 2, 3)))
    close(ops.permute(x, (1, 0)), A.T)
    close(ops.expand_dims(x, 1), A[:, None])
    close(ops.unsqueeze(x, 0), A[None])
    close(ops.squeeze(Tensor(A[None, :, None])), A)
    close(ops.squeeze(Tensor(A[None, :, None]), 2), A[None])
    close(ops.flatten(Tensor(np.zeros((2, 3, 4)))), np.zeros((2, 12)))
    close(ops.broadcast_to(Tensor(A[0]), (2, 4)), np.broadcast_to(A[0], (2, 4)))
    close(ops.stack([x, Tensor(B)]), np.stack([A, B]))
    close(ops.stack((x, Tensor(B)), axis=-1), np.stack([A, B], -1))
    close(ops.concat([x, Tensor(B)], 1), np.concatenate([A, B], 1))
    close(ops.cat((x, Tensor(B))), np.concatenate([A, B]))
    assert ops.shape(x) == (3, 4) and ops.rank(x) == 2 and ops.size(x) == 12
    with pytest.raises(ValueError, match="reshape"):
        ops.reshape(x, (5, -1))
    with pytest.raises(ValueError, match="only one"):
        ops.reshape(x, (-1, -1))
    with pytest.raises(ValueError, match="permutation"):
        ops.transpose(x, (0, 0))
    with pytest.raises(ValueError, match="size"):
        ops.squeeze(x, 0)
    with pytest.raises(ValueError, match="stack"):
        ops.stack([x, Tensor(B[0])])
    with pytest.raises(ValueError, match="empty"):
        ops.concat([])
    for axis in (0, 1, -1):
        pieces = ops.unstack(x, axis)
        assert len(pieces) == A.shape[axis]
        for i, p in enumerate(pieces):
            close(p, np.take(A, i, axis=axis))
    close(ops.Unstack(1)(x)[2], A[:, 2])
    with pytest.raises(ValueError, match="rank >= 1"):
        ops.unstack(Tensor(1.0))
    close(ops.addn((x, Tensor(B), x)), A + B + A)
    close(ops.AddN()([x, x]), A + A)
    with pytest.raises(ValueError, match="one shape"):
        ops.addn((x, Tensor(B[0])))
    with pytest.raises(TypeError, match="non-empty"):
        ops.addn(())


def test_cast():
    x = Tensor([1.7, -1.7, 0.0])
    assert ops.cast(x, ms.int32).asnumpy().tolist() == [1, -1, 0]
    assert ops.cast(x, ms.bool_).asnumpy().tolist() == [True, True, False]
    assert ops.cast(x, ms.float32) is x
    assert ops.Cast()(x, ms.float16).dtype == ms.float16
    p = Parameter(Tensor([1.0]), name="p")
    same = ops.cast(p, ms.float32)
    assert type(same) is Tensor
    ops.assign(p, 2.0)
    assert same.asnumpy().tolist() == [1.0]


def test_constants():
    assert ops.ones(5, ms.float32).asnumpy().tolist() == [1.0] * 5
    assert ops.ones((2, 2)).dtype == ms.float32
    assert ops.zeros((2,), ms.int32).asnumpy().tolist() == [0, 0]
    f = ops.fill(ms.float32, (2, 2), 1)
    assert f.dtype == ms.float32 and f.asnumpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert ops.full((2,), 3).dtype == ms.int64
    assert ops.full((2,), 3.0).dtype == ms.float32
    x = Tensor([[1, 2]], ms.int32)
    assert ops.ones_like(x).asnumpy().tolist() == [[1, 1]] and ops.ones_like(x).dtype == ms.int32
    assert ops.zeros_like(x, dtype=ms.float16).dtype == ms.float16
    assert ops.OnesLike()(x).shape == (1, 2)
    assert ops.Fill()(ms.int32, (3,), 7).asnumpy().tolist() == [7, 7, 7]
    with pytest.raises(TypeError):
        ops.ones("a")


# --- primitives ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prim, fn, nargs",
    [
        (ops.Add, np.add, 2),
        (ops.Sub, np.subtract, 2),
        (ops.Mul, np.multiply, 2),
        (ops.Div, np.divide, 2),
        (ops.Maximum, np.maximum, 2),
        (ops.Minimum, np.minimum, 2),
        (ops.Neg, np.negative, 1),
        (ops.Abs, np.abs, 1),
        (ops.Exp, np.exp, 1),
        (ops.Tanh, np.tanh, 1),
        (ops.Sin, np.sin, 1),
        (ops.Cos, np.cos, 1),
        (ops.ReLU, lambda x: np.maximum(x, 0), 1),
        (ops.Sigmoid, sigmoid, 1),
        (ops.Square, np.square, 1),
        (ops.HSwish, hswish, 1),
    ],
)
def test_primitive_classes(prim, fn, nargs):
    p = prim()
    assert isinstance(p, ops.Primitive) and p.name == prim.__name__
    args = (A, B)[:nargs]
    close(p(*[Tensor(a) for a in args]), fn(*args), rtol=1e-5)


def test_more_primitives():
    close(ops.Log()(Tensor(POS)), np.log(POS), 1e-5)
    close(ops.Sqrt()(Tensor(POS)), np.sqrt(POS), 1e-5)
    close(ops.Select()(Tensor(A > 0), Tensor(A), Tensor(B)), np.where(A > 0, A, B))
    close(ops.Reshape()(Tensor(A), (4, 3)), A.reshape(4, 3))
    close(ops.Transpose()(Tensor(A), (1, 0)), A.T)
    close(ops.Concat(1)((Tensor(A), Tensor(B))), np.concatenate([A, B], 1))
    close(ops.Stack(axis=1)([Tensor(A), Tensor(B)]), np.stack([A, B], 1))
    close(ops.ExpandDims()(Tensor(A), 0), A[None])
    close(ops.Squeeze(0)(Tensor(A[None])), A)
    assert ops.Shape()(Tensor(A)) == (3, 4)
    assert repr(ops.Add()) == "Prim[Add]"


# --- side effects ----------------------------------------------------------------------------------


def test_assign_and_depend():
    p = Parameter(Tensor([1.0, 2.0]), name="p")
    view = p.asnumpy()
    out = ops.assign(p, Tensor([3.0, 4.0]))
    assert out is p and p.asnumpy().tolist() == [3.0, 4.0]
    assert view.tolist() == [3.0, 4.0]  # written in place, like the device memory
    ops.assign(p, 5)  # numbers broadcast and are cast
    assert p.asnumpy().tolist() == [5.0, 5.0]
    ops.Assign()(p, Tensor([1, 2]))
    assert p.dtype == ms.float32 and p.asnumpy().tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="Parameter"):
        ops.assign(Tensor([1.0]), Tensor([2.0]))
    with pytest.raises(ValueError, match="shape"):
        ops.assign(p, Tensor([1.0, 2.0, 3.0]))
    x = Tensor([1])
    assert ops.depend(x, Tensor([2])) is x
    assert ops.Depend()(x, p) is x


def test_float_status_ops():
    init = ops.NPUAllocFloatStatus()()
    assert init.shape == (8,) and init.dtype == ms.float32
    cleared = ops.NPUClearFloatStatus()(init)
    status = ops.NPUGetFloatStatus()(cleared)
    assert status.asnumpy().tolist() == [0.0] * 8
    assert ops.npu_get_float_status(ops.npu_alloc_float_status()).shape == (8,)
    with pytest.raises(TypeError):
        ops.NPUGetFloatStatus()(Tensor([1.0]))


def test_float_status_doc_example_pynative():
    """Doc 003's network, run eagerly: the status ops change nothing."""
    x = Tensor(np.full((2, 3), 5, np.float16), dtype=ms.float16)
    init = ops.NPUAllocFloatStatus()()
    clear = ops.NPUClearFloatStatus()(init)
    x = ops.depend(x, clear)
    res = ops.Sub()(x, ops.Neg()(x))
    init = ops.depend(init, res)
    res = ops.depend(res, ops.NPUGetFloatStatus()(init))
    assert res.dtype == ms.float16
    assert str(res) == "[[10. 10. 10.]\n [10. 10. 10.]]"


def test_print_prints_at_once(capsys):
    ops.print("matmul:", Tensor(np.array([1.0, -2.0], np.float32)), 3, (Tensor([1]), "s"))
    ops.Print()("x", Tensor(5))
    ops.print_(np.array([True]))
    assert capsys.readouterr().out.splitlines() == [
        "matmul:",
        "Tensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00 -2.00000000e+00])",
        "3",
        "Tensor(shape=[1], dtype=Int64, value=[1])",
        "s",
        "x",
        "Tensor(shape=[], dtype=Int64, value=5)",
        "Tensor(shape=[1], dtype=Bool, value=[ True])",
    ]


# --- printing formats --------------------------------------------------------------------------------


def test_graph_print_format_from_doc():
    arr = np.array([-4.01971531e00, -5.79053342e-01, 3.41115999e00], np.float32)
    assert format_tensor(arr) == (
        "Tensor(shape=[3], dtype=Float32, value=[-4.01971531e+00 -5.79053342e-01  3.41115999e+00])"
    )
    arr = np.array([-3.94732714e00, -1.46257186e00, 4.50144434e00], np.float32)
    assert format_tensor_graph(arr, ms.float32) == (
        "Tensor(shape=[3], dtype=Float32, value=[-3.94732714e+00 -1.46257186e+00  4.50144434e+00])"
    )


@pytest.mark.parametrize(
    "arr, text",
    [
        (np.array(5), "Tensor(shape=[], dtype=Int64, value=5)"),
        (np.array(2.5, np.float32), "Tensor(shape=[], dtype=Float32, value=2.5)"),
        (np.array(True), "Tensor(shape=[], dtype=Bool, value=True)"),
        (
            np.array([1, 10, -100], np.int32),
            "Tensor(shape=[3], dtype=Int32, value=[   1   10 -100])",
        ),
        (np.array([True, False]), "Tensor(shape=[2], dtype=Bool, value=[ True False])"),
        (
            np.array([1.0, 2.0], np.float16),
            "Tensor(shape=[2], dtype=Float16, value=[ 1.0000e+00  2.0000e+00])",
        ),
        (np.array([[1, 2], [3, 4]]), "Tensor(shape=[2, 2], dtype=Int64, value=\n[[1 2]\n [3 4]])"),
        (np.zeros((0,), np.float32), "Tensor(shape=[0], dtype=Float32, value=)"),
        (
            np.arange(8).reshape(1, 8),
            "Tensor(shape=[1, 8], dtype=Int64, value=\n[[0 1 2 ... 5 6 7]])",
        ),
        (
            np.arange(7).reshape(7, 1),
            "Tensor(shape=[7, 1], dtype=Int64, value=\n[[0]\n [1]\n [2]\n ...\n [4]\n [5]\n [6]])",
        ),
        (
            np.arange(4).reshape(2, 1, 2),
            "Tensor(shape=[2, 1, 2], dtype=Int64, value=\n[[[0 1]]\n [[2 3]]])",
        ),
        (
            np.arange(13, dtype=np.float32) / 4,
            "Tensor(shape=[13], dtype=Float32, value=["
            + " ".join(f"{v:15.8e}" for v in np.arange(12) / 4)
            + " \n  3.00000000e+00])",
        ),
    ],
)
def test_graph_print_formats(arr, text):
    assert format_tensor(arr) == text


def test_print_items(capsys):
    print_items(["a", Tensor([1, 2]), np.array(1.5, np.float32)])
    assert capsys.readouterr().out == (
        "a\nTensor(shape=[2], dtype=Int64, value=[1 2])\nTensor(shape=[], dtype=Float32, value=1.5)\n"
    )


# --- the eager cache ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda x: ops.add(x, x),
        lambda x: x * 2.0,
        lambda x: ops.mean(x, 1),
        lambda x: x[1:, 0],
        lambda x: ops.reshape(x, (-1,)),
        lambda x: ops.matmul(x, x.T),
    ],
)
def test_repeated_calls_hit_the_eager_cache(call):
    x = Tensor(A)
    call(x)
    size = dispatch.eager_cache_size()
    out1 = call(x)
    out2 = call(Tensor(B))  # same types, other values
    assert dispatch.eager_cache_size() == size
    assert not np.array_equal(out1.asnumpy(), out2.asnumpy())
