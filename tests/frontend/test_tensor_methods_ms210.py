"""MindSpore 2.10's functional ops and Tensor methods added for issue 38: ops.partial
(with HyperMap over a ParameterTuple, as the gradient-accumulation tutorial writes
it), ops.floor_div, axes (swapaxes, moveaxis, t, mT, trace, diagonal, diag), counting
and closeness, more elementwise math, and the Tensor methods over them. Values are
what MindSpore 2.10 printed on CPU (pasted as constants) or numpy's; every case runs
in PyNative and graph mode; gradients against finite differences; bad input raises
MindSpore's exception type."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import Parameter, ParameterTuple, Tensor, nn, ops

RNG = np.random.default_rng(38)
X = np.array([[0, 1, 2], [3, 0, 5]], np.float32)
XI = np.array([[3, 1, 2], [0, 5, 4]], np.int32)
A8 = np.arange(8, dtype=np.float32).reshape(2, 2, 2)


def _check(got, want, dtype=None):
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _check(g, w, dtype)
        return
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-6, atol=1e-6)
    if dtype is not None:
        assert str(got.dtype) == dtype


# --- ops.partial ------------------------------------------------------------------------

_accumulate = ops.MultitypeFuncGraph("accumulate")


@_accumulate.register("Number", "Tensor", "Tensor")
def _accumulate_grad(scale, accu, grad):
    return ops.assign(accu, accu + grad * scale)


class _Accumulator(nn.Cell):
    """The tutorial's shape: hyper_map(partial(f, ...), self.accu_grads, grads)."""

    def __init__(self):
        super().__init__()
        self.accu_grads = ParameterTuple(
            [
                Parameter(Tensor(np.zeros(3, np.float32)), name="accu.a"),
                Parameter(Tensor(np.zeros((2, 2), np.float32)), name="accu.b"),
            ]
        )
        self.hyper_map = ops.HyperMap()

    def construct(self, ga, gb):
        return self.hyper_map(ops.partial(_accumulate, 0.5), self.accu_grads, (ga, gb))


def test_partial_hyper_map_accumulates_into_a_parameter_tuple(mode):
    ms.set_context(mode=mode)
    try:
        net = _Accumulator()
        ga, gb = Tensor(np.ones(3, np.float32)), Tensor(np.full((2, 2), 2.0, np.float32))
        net(ga, gb)
        net(ga, gb)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(net.accu_grads[0].asnumpy(), np.ones(3))
    np.testing.assert_allclose(net.accu_grads[1].asnumpy(), np.full((2, 2), 2.0))


def test_partial_binds_leading_arguments(mode):
    def f(a, b, c):
        return a * b - c

    def prog(a, b, c):
        return ops.partial(f, a)(b, c), ops.Partial()(f, a, b)(c)

    got = run(prog, mode, Tensor(2.0), Tensor(3.0), Tensor(1.0))
    _check(got, (5.0, 5.0))
    p = ops.partial(f, Tensor(1.0))
    assert isinstance(p, functools.partial)  # as MindSpore's


def test_partial_errors():
    with pytest.raises(AttributeError, match="__call__"):
        ops.partial(3, Tensor(1.0))
    with pytest.raises(TypeError):
        ops.partial(lambda a, b: a, b=Tensor(1.0))  # positional only, as MindSpore


def test_floor_div(mode):
    got = run(
        lambda a, b: (ops.floor_div(a, 2), ops.floor_div(b, Tensor([2, 2]))),
        mode,
        Tensor([7.0, -7.0]),
        Tensor([7, -7]),
    )
    _check(got, ([3.0, -4.0], [3, -4]))  # MindSpore: [3., -4.] Float32, [3, -4] Int64
    assert str(got[1].dtype) == "Int64"


# --- axes ----------------------------------------------------------------------------------


def _axes(x, a8):
    return (
        x.swapaxes(0, 1),
        ops.swapaxes(x, 1, 0),
        x.swapdims(0, 1),
        x.t(),
        ops.t(a8),  # MindSpore: any rank but 2 is returned unchanged
        a8.mT,
        x.mT,
        a8.moveaxis(0, -1),
        a8.movedim((0, 1), (2, 0)),
        x.trace(),
        ops.trace(x),
        x.trace(1),
        a8.trace(),
        a8.diagonal(0, 1, 2),
        ops.diag(x[0]),
        ops.diagonal(x, -1),
    )


def test_axes(mode):
    got = run(_axes, mode, Tensor(X), Tensor(A8))
    want = (
        X.T,
        X.T,
        X.T,
        X.T,
        A8,
        [[[0.0, 2.0], [1.0, 3.0]], [[4.0, 6.0], [5.0, 7.0]]],
        X.T,
        np.moveaxis(A8, 0, -1),
        np.moveaxis(A8, (0, 1), (2, 0)),
        0.0,  # 0 + 0
        0.0,
        6.0,  # 1 + 5
        [6.0, 8.0],  # MindSpore printed [6., 8.]
        [[0.0, 3.0], [4.0, 7.0]],
        np.diag(X[0]),
        [3.0],
    )
    _check(got, want)
    assert got[8].shape == (3, 4, 2)[:0] + (2, 2, 2)  # (shape (2,2,2) moved)


def test_trace_dtypes(mode):
    got = run(lambda a: (a.trace(), ops.trace(a), a.trace(dtype=ms.float32)), mode, Tensor(XI))
    _check(got[0], 8, "Int64")  # MindSpore: Tensor.trace of int32 is Int64 (numpy's)
    _check(got[1], 8, "Int32")  # ... ops.trace keeps Int32
    _check(got[2], 8.0, "Float32")


def test_axes_gradients():
    x = RNG.standard_normal((3, 4))
    a = RNG.standard_normal((2, 3, 3))
    for fn in (
        lambda t: t.swapaxes(0, 1),
        lambda t: t.t(),
        lambda t: t.mT,
        lambda t: t.trace() * t,
        lambda t: ops.diagonal(t, 1),
        lambda t: ops.diag(t[0]),
    ):
        assert_grads_match_finite_differences(fn, [x.copy()], RNG)
    for fn in (lambda t: t.trace(0, 1, 2), lambda t: t.moveaxis((0, 2), (1, 0))):
        assert_grads_match_finite_differences(fn, [a.copy()], RNG)


def test_axes_errors():
    x = Tensor(X)
    with pytest.raises(ValueError, match=r"range of \[-2, 2\), but got 2"):
        x.swapaxes(0, 2)
    with pytest.raises(TypeError, match="must be integer"):
        x.swapaxes(0.0, 1)
    with pytest.raises(RuntimeError, match="rank of the input must be 2, but got 3"):
        ops.trace(Tensor(A8))
    with pytest.raises(ValueError):
        _ = Tensor([1.0, 2.0]).mT


# --- sorting, softmax, reductions --------------------------------------------------------


def _reductions(x, xi):
    return (
        xi.argsort(),
        xi.argsort(0, True),
        xi.argsort(dim=0, descending=True, stable=True),
        xi.msort(),
        x.softmax(1),
        x.softmax(1, dtype=ms.float16),
        x.amax(),
        x.amax(1),
        x.amax((0, 1), True),
        xi.amin(0),
        x.logsumexp(1),
        x.logsumexp(0, True),
        x.count_nonzero(),
        x.count_nonzero(0, True),
        ops.count_nonzero(xi, 0),
        ops.count_nonzero(x, (0, 1), False, ms.float32),
        x.ptp(),
    )


def test_sorting_and_reductions(mode):
    got = run(_reductions, mode, Tensor(X), Tensor(XI))
    e = np.exp(X - X.max(1, keepdims=True))
    want = (
        [[1, 2, 0], [0, 2, 1]],  # MindSpore printed these
        [[0, 1, 1], [1, 0, 0]],
        [[0, 1, 1], [1, 0, 0]],
        [[0, 1, 2], [3, 5, 4]],
        e / e.sum(1, keepdims=True),
        e / e.sum(1, keepdims=True),
        5.0,
        [2.0, 5.0],
        [[5.0]],
        [0, 1, 2],
        np.log(np.exp(X).sum(1)),
        np.log(np.exp(X).sum(0, keepdims=True)),
        4,
        [[1, 1, 2]],
        [1, 2, 2],
        4.0,
        5.0,
    )
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        tol = 1e-3 if i == 5 else 1e-6
        np.testing.assert_allclose(g.asnumpy(), np.asarray(w), rtol=tol, atol=tol, err_msg=str(i))
    assert [str(got[i].dtype) for i in (0, 5, 12, 14, 15)] == [
        "Int32",
        "Float16",
        "Int32",
        "Int32",
        "Float32",
    ]


def test_reduction_gradients():
    x = RNG.standard_normal((3, 4))
    for fn in (
        lambda t: t.softmax(1),
        lambda t: t.logsumexp(0, True),
        lambda t: t.amax(1),
        lambda t: t.ptp(0),
    ):
        assert_grads_match_finite_differences(fn, [x.copy()], RNG)


def test_reduction_errors():
    with pytest.raises(TypeError):
        Tensor(X).softmax()  # MindSpore's Tensor.softmax needs the axis
    with pytest.raises(TypeError, match="Int32"):
        Tensor(XI).softmax(1)
    with pytest.raises(TypeError):
        Tensor(XI).logsumexp(1)
    with pytest.raises(TypeError, match="Bool"):
        ops.count_nonzero(Tensor([True, False]))


# --- creation, dtype and shape facts -------------------------------------------------------


def _creation(x, xi):
    return (
        x.new_ones((2, 2)),
        x.new_ones(3),
        x.new_ones((2,), dtype=ms.int32),
        xi.new_zeros((2,)),
        x.new_full((2, 2), 3),
        xi.new_full((2,), 2.7),
        x.type(ms.int32),
        x.type("int32"),
        x.type_as(xi),
        x.view_as(xi.T),
        x.reshape_as(xi.T),
        x.fill(2),
        x.short(),
        x.byte(),
    )


def test_creation_and_casts(mode):
    got = run(_creation, mode, Tensor(X), Tensor(XI))
    want = (
        np.ones((2, 2)),
        np.ones(3),
        [1, 1],
        [0, 0],
        np.full((2, 2), 3.0),
        [2, 2],
        X.astype(np.int32),
        X.astype(np.int32),
        X.astype(np.int32),
        X.reshape(3, 2),
        X.reshape(3, 2),
        np.full((2, 3), 2.0),
        X.astype(np.int16),
        X.astype(np.uint8),
    )
    _check(got, want)
    dtypes = [str(g.dtype) for g in got]
    assert dtypes == [
        "Float32",
        "Float32",
        "Int32",
        "Int32",
        "Float32",
        "Int32",
        "Int32",
        "Int32",
        "Int32",
        "Float32",
        "Float32",
        "Float32",
        "Int16",
        "UInt8",
    ]


def test_shape_facts(mode):
    def facts(x, xi, b):
        return (
            x.type(),
            xi.type(),
            b.type(),
            x.numel(),
            x.nelement(),
            x.ndimension(),
            x.is_floating_point(),
            xi.is_floating_point(),
            xi.is_signed(),
            b.is_signed(),
        )

    got = facts(Tensor(X), Tensor(XI), Tensor([True]))
    want = ("Float32", "Int32", "Bool", 6, 6, 2, True, False, True, False)
    assert got == want  # MindSpore: x.type() is the string 'Float32'
    ms.set_context(mode=mode)
    try:

        @ms.jit
        def numel_in_graph(x):
            return x * x.numel() + x.ndimension()

        _check(numel_in_graph(Tensor(X)), X * 6 + 2)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_creation_errors():
    x = Tensor(X)
    with pytest.raises(TypeError, match="tuple of int"):
        x.new_ones("a")
    with pytest.raises(TypeError):
        x.new_ones(2, 2)  # MindSpore: the second positional argument is the dtype
    with pytest.raises(TypeError, match="astype"):
        x.type(3)


# --- selection and closeness --------------------------------------------------------------


def _selection(x):
    return (
        x.where(x > 1, Tensor(-1.0)),
        x.where(x > 1, -1),
        x.flip((0,)),
        x.fliplr(),
        x.flipud(),
        x.isclose(x + 1e-6),
        x.isclose(x + 1e-3, rtol=1e-2, atol=0.0),
        ops.isclose(x, x * np.float32(np.nan), equal_nan=True),
        x.take(Tensor([0, 5])),
        x.unbind(1),
        x.eq(0),
        x.ne(0),
        x.gt(1),
        x.le(1),
        x.logical_and(x),
    )


def test_selection_and_closeness(mode):
    got = run(_selection, mode, Tensor(X))
    want = (
        [[-1.0, -1.0, 2.0], [3.0, -1.0, 5.0]],  # MindSpore printed
        [[-1.0, -1.0, 2.0], [3.0, -1.0, 5.0]],
        X[::-1],
        X[:, ::-1],
        X[::-1],
        [[False, True, True], [True, False, True]],  # MindSpore: 0 vs 1e-6 is not close
        [[False, True, True], [True, False, True]],
        np.zeros((2, 3), bool),  # nan only where x * nan; x is finite so no pair is nan-nan
        [0.0, 5.0],
        tuple(X.T),
        X == 0,
        X != 0,
        X > 1,
        X <= 1,
        X != 0,
    )
    _check(got, want)
    # (a value-dependent shape: PyNative only, as ops.nonzero in mindjit's graphs)
    nz = [[0, 1], [0, 2], [1, 0], [1, 2]]  # MindSpore printed, Int64
    _check(Tensor(X).nonzero(), nz, "Int64")
    _check(Tensor(X).argwhere(), nz, "Int64")
    assert Tensor(X).allclose(Tensor(X) + 1e-9) is True
    assert Tensor(X).allclose(Tensor(X) + 1e-6) is False  # MindSpore printed False
    ms.set_context(mode=mode)
    try:
        out = ms.jit(lambda a, b: a.allclose(b))(Tensor(X), Tensor(X))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert bool(out)


def test_selection_gradients():
    x = RNG.standard_normal((2, 3))
    for fn in (
        lambda t: t.where(t > 0, 0.5),
        lambda t: t.take(Tensor([0, 4, 4])),
        lambda t: t.flip((0, 1)),
    ):
        assert_grads_match_finite_differences(fn, [x.copy()], RNG)


def test_selection_errors():
    with pytest.raises(TypeError):
        Tensor(X).flip(1)  # MindSpore: Tensor.flip takes a tuple
    with pytest.raises(ValueError):
        ops.isclose(Tensor(X), Tensor(X), rtol=-1.0)


# --- elementwise math ----------------------------------------------------------------------


def _math(x, a, b, xi):
    return (
        a.log10(),
        Tensor([-1.5, 2.7]).trunc(),
        Tensor([-1.5, 2.7]).frac(),
        x.lerp(x * 2, 0.5),
        x.addcmul(x, x, 2),
        x.addcdiv(x, x + 1, 2),
        Tensor([-7.0, 7.0]).fmod(3),
        Tensor([3.0]).hypot(Tensor([4.0])),
        Tensor([1.0, 2.0]).logaddexp(Tensor([3.0, 0.0])),
        ops.logaddexp2(Tensor([1.0, 2.0]), Tensor([3.0, 0.0])),
        Tensor([0.0, 2.0]).xlogy(Tensor([1.0, 3.0])),
        Tensor([0.0, 0.5]).sinc(),
        Tensor([180.0]).deg2rad(),
        Tensor([np.pi]).rad2deg(),
        xi.true_divide(2),
        xi.divide(2),
        x.subtract(1),
        x.subtract(1, alpha=2),
        x.multiply(2),
        x.positive(),
        x.negative(),
        xi.float_power(2),
        Tensor([1.0]).asinh(),
        Tensor([2.0]).acosh(),
        Tensor([0.5]).atanh(),
        Tensor([0.25]).logit(),
        Tensor([0.0, 1.0]).logit(eps=0.25),
        Tensor([-1.0, 0.0, 2.0]).sgn(),
        x.mm(x.T),
        Tensor([1.0, 2.0]).ger(Tensor([3.0, 4.0])),
    )


def test_elementwise_math(mode):
    got = run(_math, mode, Tensor(X), Tensor([1.0, 100.0]), None, Tensor(XI))
    ln = np.log
    want = (
        [0.0, 2.0],
        [-1.0, 2.0],
        [-0.5, 0.7000000476837158],  # MindSpore printed
        X * 1.5,
        X + 2 * X * X,  # MindSpore: [[0, 3, 10], [21, 0, 55]]
        X + 2 * X / (X + 1),
        [-1.0, 1.0],  # fmod keeps the dividend's sign
        [5.0],
        [3.1269278526306152, 2.1269278526306152],
        np.log2(2.0 ** np.array([1.0, 2.0]) + 2.0 ** np.array([3.0, 0.0])),
        [0.0, 2 * ln(3.0)],
        [1.0, 0.6366197466850281],
        [np.pi],
        [180.0],
        XI / 2,
        XI / 2,
        X - 1,
        X - 2,
        X * 2,
        X,
        -X,
        XI.astype(np.float64) ** 2,
        [0.8813735842704773],
        [1.316957950592041],
        [0.5493061542510986],
        [-1.0986123085021973],
        [ln(0.25 / 0.75), ln(0.75 / 0.25)],
        [-1.0, 0.0, 1.0],
        X @ X.T,
        [[3.0, 4.0], [6.0, 8.0]],
    )
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_allclose(g.asnumpy(), np.asarray(w), rtol=2e-6, atol=2e-6, err_msg=str(i))
    assert str(got[21].dtype) == "Float64"  # MindSpore: float_power computes in Float64
    assert str(got[14].dtype) == "Float32"


def test_elementwise_gradients():
    x = RNG.uniform(0.2, 0.8, (2, 3))
    y = RNG.uniform(0.2, 0.8, (2, 3))
    w = RNG.uniform(0.2, 0.8, (2, 3))
    for fn in (
        ops.log10,
        ops.asinh,
        ops.atanh,
        ops.logit,
        ops.sinc,
        lambda t: ops.acosh(t + 1.5),
    ):
        assert_grads_match_finite_differences(fn, [x.copy()], RNG, rtol=1e-4, atol=1e-6)
    for fn in (ops.logaddexp, ops.logaddexp2, ops.hypot, ops.xlogy, ops.fmod):
        assert_grads_match_finite_differences(fn, [x.copy(), y.copy()], RNG, rtol=1e-4)
    for fn in (ops.lerp, ops.addcmul, ops.addcdiv):
        assert_grads_match_finite_differences(fn, [x.copy(), y.copy(), w.copy()], RNG, rtol=1e-4)


def test_elementwise_errors():
    with pytest.raises(TypeError):
        Tensor([1, 2]).deg2rad()  # MindSpore: float only
    with pytest.raises(TypeError, match="float"):
        ops.log10(Tensor([1, 10]))  # MindSpore's CPU Log: "Unsupported data type"
    with pytest.raises(TypeError, match="float"):
        ops.hypot(Tensor([3]), Tensor([4]))
    _check(ops.positive(Tensor([True])), [True], "Bool")
    with pytest.raises(TypeError):
        ops.logit(Tensor([0.5]), eps="a")


# --- in place (PyNative) ------------------------------------------------------------------


def test_in_place_methods():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    assert x.fill_(3) is x
    np.testing.assert_allclose(x.asnumpy(), [3.0, 3.0])
    x.zero_()
    np.testing.assert_allclose(x.asnumpy(), [0.0, 0.0])
    x.copy_(Tensor([5, 6]))
    np.testing.assert_allclose(x.asnumpy(), [5.0, 6.0])
    assert str(x.dtype) == "Float32"


def test_in_place_methods_in_a_graph_are_refused():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(TypeError, match="in place"):
            ms.jit(lambda a: a.zero_())(Tensor([1.0]))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
