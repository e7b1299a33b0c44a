"""ops.cross_entropy / nll_loss / l1_loss / smooth_l1_loss and nn.CrossEntropyLoss /
NLLLoss / L1Loss / SmoothL1Loss against numpy references for every option, in
PyNative and graph mode; gradients against finite differences; error cases."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from modes import run as _run

import mindjit as ms
from mindjit import Tensor, nn, ops
from mindjit.backend.cpu.errors import RuntimeCheckError

RNG = np.random.default_rng(23)

# (input shape, target shape)
SHAPES = [((6, 4), (6,)), ((3, 4, 2, 2), (3, 2, 2)), ((5,), ())]


def _log_softmax(x, axis):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def ref_indexed(x, t, w, ignore, reduction, eps, from_logits):
    axis = 0 if x.ndim == 1 else 1
    c = x.shape[axis]
    lp = np.moveaxis(_log_softmax(x, axis) if from_logits else x, axis, -1)
    w = np.ones(c) if w is None else w
    keep = t != ignore
    tt = np.where(keep, t, 0)
    picked = np.take_along_axis(lp, np.asarray(tt)[..., None], -1)[..., 0]
    wn = w[tt] * keep
    nll = -picked * wn
    smooth = -(lp * w).sum(-1) * keep
    if reduction == "none":
        return (1 - eps) * nll + eps / c * smooth
    nll, smooth = nll.sum(), smooth.sum()
    if reduction == "mean":
        with np.errstate(invalid="ignore"):  # every target ignored: 0 / 0, NaN in MindSpore too
            nll, smooth = nll / wn.sum(), smooth / wn.sum()
    return (1 - eps) * nll + eps / c * smooth


def ref_probs(x, p, w, reduction, eps):
    axis = 0 if x.ndim == 1 else 1
    c = x.shape[axis]
    p = p * (1 - eps) + eps / c
    shape = [1] * x.ndim
    shape[axis] = c
    wb = np.ones(shape) if w is None else w.reshape(shape)
    terms = _log_softmax(x, axis) * p * wb
    if reduction == "none":
        return -terms.sum(axis)
    if reduction == "sum":
        return -terms.sum()
    return -terms.sum() / (x.size / c)


def _inputs(shape, tshape, ignore):
    x = RNG.standard_normal(shape).astype(np.float32)
    c = shape[0] if len(shape) == 1 else shape[1]
    t = RNG.integers(0, c, size=tshape).astype(np.int32)
    if ignore == -100 and t.ndim and t.size > 2:
        t.flat[1] = -100
    if ignore == 1 and t.ndim:
        t.flat[0] = 1
    w = RNG.random(c).astype(np.float32) + 0.5
    return x, t, w


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


COMBOS = list(
    itertools.product(
        range(len(SHAPES)), [False, True], [-100, 1], ["mean", "sum", "none"], [0.0, 0.2]
    )
)


@pytest.mark.parametrize("shape_i, weighted, ignore, reduction, eps", COMBOS)
@pytest.mark.parametrize("fn_name", ["cross_entropy", "nll_loss"])
def test_class_indices_match_the_reference(fn_name, shape_i, weighted, ignore, reduction, eps):
    shape, tshape = SHAPES[shape_i]
    x, t, w = _inputs(shape, tshape, ignore)
    if fn_name == "nll_loss":
        x = _log_softmax(x, 0 if x.ndim == 1 else 1).astype(np.float32)
    kw = dict(
        weight=Tensor(w) if weighted else None,
        ignore_index=ignore,
        reduction=reduction,
        label_smoothing=eps,
    )
    got = getattr(ops, fn_name)(Tensor(x), Tensor(t), **kw).asnumpy()
    want = ref_indexed(
        x.astype(np.float64),
        t,
        w if weighted else None,
        ignore,
        reduction,
        eps,
        fn_name == "cross_entropy",
    )
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize(
    "shape_i, weighted, reduction, eps",
    list(itertools.product(range(len(SHAPES)), [False, True], ["mean", "sum", "none"], [0.0, 0.3])),
)
def test_class_probabilities_match_the_reference(shape_i, weighted, reduction, eps):
    shape, _ = SHAPES[shape_i]
    x = RNG.standard_normal(shape).astype(np.float32)
    axis = 0 if x.ndim == 1 else 1
    p = np.exp(_log_softmax(RNG.standard_normal(shape), axis)).astype(np.float32)
    w = RNG.random(shape[axis]).astype(np.float32) + 0.5
    got = ops.cross_entropy(
        Tensor(x),
        Tensor(p),
        Tensor(w) if weighted else None,
        reduction=reduction,
        label_smoothing=eps,
    ).asnumpy()
    want = ref_probs(x.astype(np.float64), p, w if weighted else None, reduction, eps)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)


GRAPH_COMBOS = [
    (0, True, -100, "mean", 0.1),
    (1, False, 1, "sum", 0.0),
    (1, True, -100, "none", 0.2),
    (2, True, -100, "mean", 0.0),
]


@pytest.mark.parametrize("shape_i, weighted, ignore, reduction, eps", GRAPH_COMBOS)
def test_cells_in_both_modes_and_their_gradients(mode, shape_i, weighted, ignore, reduction, eps):
    shape, tshape = SHAPES[shape_i]
    x, t, w = _inputs(shape, tshape, ignore)
    loss = nn.CrossEntropyLoss(
        Tensor(w) if weighted else None, ignore, reduction, label_smoothing=eps
    )
    got = loss(Tensor(x), Tensor(t)).asnumpy()  # a Cell compiles in graph mode
    ref = lambda v: ref_indexed(v, t, w if weighted else None, ignore, reduction, eps, True)  # noqa: E731
    np.testing.assert_allclose(got, ref(x.astype(np.float64)), rtol=2e-5, atol=2e-6)

    def scalar_loss(v):
        return ops.reduce_sum(loss(v, Tensor(t)))

    dx = _run(ms.grad(scalar_loss), mode, Tensor(x)).asnumpy()
    h = 1e-6
    x64 = x.astype(np.float64)
    fd = np.zeros_like(x64)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x64)
        e[i] = h
        fd[i] = (np.sum(ref(x64 + e)) - np.sum(ref(x64 - e))) / (2 * h)
    np.testing.assert_allclose(dx, fd, rtol=1e-3, atol=1e-5)


def test_probability_targets_gradient(mode):
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    p = np.exp(_log_softmax(RNG.standard_normal((3, 4)), 1)).astype(np.float32)

    def f(v):
        return ops.cross_entropy(v, Tensor(p), label_smoothing=0.1)

    dx = _run(ms.grad(f), mode, Tensor(x)).asnumpy()
    q = p * 0.9 + 0.1 / 4
    sm = np.exp(_log_softmax(x.astype(np.float64), 1))
    want = (sm * q.sum(1, keepdims=True) - q) / 3
    np.testing.assert_allclose(dx, want, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("beta", [1.0, 0.3])
def test_l1_and_smooth_l1(mode, reduction, beta):
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    y = RNG.standard_normal((4, 5)).astype(np.float32)
    d = x.astype(np.float64) - y
    red = {"mean": np.mean, "sum": np.sum, "none": lambda a: a}[reduction]
    sl1 = np.where(np.abs(d) < beta, 0.5 * d * d / beta, np.abs(d) - 0.5 * beta)
    l1_cell, sl1_cell = nn.L1Loss(reduction), nn.SmoothL1Loss(beta, reduction)

    def l1(a, b):
        return ops.l1_loss(a, b, reduction)

    def smooth(a, b):
        return ops.smooth_l1_loss(a, b, beta, reduction)

    for got, want in [
        (_run(l1, mode, Tensor(x), Tensor(y)), np.abs(d)),
        (l1_cell(Tensor(x), Tensor(y)), np.abs(d)),
        (_run(smooth, mode, Tensor(x), Tensor(y)), sl1),
        (sl1_cell(Tensor(x), Tensor(y)), sl1),
    ]:
        np.testing.assert_allclose(got.asnumpy(), red(want), rtol=1e-5, atol=1e-6)

    def f(a):
        return ops.reduce_sum(ops.smooth_l1_loss(a, Tensor(y), beta, reduction))

    dx = _run(ms.grad(f), mode, Tensor(x)).asnumpy()
    g = np.where(np.abs(d) < beta, d / beta, np.sign(d))
    np.testing.assert_allclose(dx, g / (d.size if reduction == "mean" else 1), rtol=1e-5, atol=1e-6)


def test_defaults_match_mindspore():
    assert nn.SmoothL1Loss().reduction == "none" and nn.SmoothL1Loss().beta == 1.0
    assert nn.L1Loss().reduction == "mean"
    ce = nn.CrossEntropyLoss()
    assert (ce.weight, ce.ignore_index, ce.reduction, ce.label_smoothing) == (
        None,
        -100,
        "mean",
        0.0,
    )
    nll = nn.NLLLoss()
    assert (nll.weight, nll.ignore_index, nll.reduction) == (None, -100, "mean")
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    np.testing.assert_allclose(
        ops.smooth_l1_loss(x, Tensor(np.array([1.0, 2.0, 2.0], np.float32))).asnumpy(),
        [0.0, 0.0, 0.5],
    )


def test_errors():
    x = Tensor(np.zeros((2, 3), np.float32))
    t = Tensor(np.array([0, 2], np.int32))
    with pytest.raises(TypeError, match="int32 or int64"):
        ops.nll_loss(x, Tensor(np.array([0.0, 1.0], np.float32)))
    with pytest.raises(TypeError, match="int32 or int64"):
        ops.cross_entropy(x, Tensor(np.array([True, False])))
    with pytest.raises(ValueError, match="must have shape"):
        ops.cross_entropy(x, Tensor(np.array([0, 1, 2], np.int32)))
    with pytest.raises(ValueError, match="shape of 'input'"):
        ops.cross_entropy(x, Tensor(np.zeros((2, 4), np.float32)))
    with pytest.raises(ValueError, match="'reduction' must be in"):
        ops.cross_entropy(x, t, reduction="avg")
    with pytest.raises(ValueError, match="'reduction' must be in"):
        nn.CrossEntropyLoss(reduction="avg")
    with pytest.raises(ValueError, match="'reduction' must be in"):
        nn.L1Loss("max")
    with pytest.raises(ValueError, match="label_smoothing"):
        nn.CrossEntropyLoss(label_smoothing=1.5)
    with pytest.raises(TypeError, match="ignore_index"):
        nn.NLLLoss(ignore_index=1.0)
    with pytest.raises(ValueError, match=r"'weight' must have shape \(3,\)"):
        ops.cross_entropy(x, t, weight=Tensor(np.ones(4, np.float32)))
    with pytest.raises(TypeError, match="float16, float32 or float64"):
        ops.cross_entropy(Tensor(np.zeros((2, 3), np.int32)), t)
    with pytest.raises(ValueError, match="beta"):
        nn.SmoothL1Loss(beta=0.0)
    with pytest.raises(TypeError, match="beta"):
        ops.smooth_l1_loss(x, x, beta="1")
    with pytest.raises(ValueError, match="same shape"):
        ops.smooth_l1_loss(x, Tensor(np.zeros((3,), np.float32)))
    with pytest.raises(ValueError, match="broadcastable"):
        ops.l1_loss(x, Tensor(np.zeros((4,), np.float32)))


@pytest.mark.parametrize("bad", [3, -1, -7])
def test_class_index_out_of_range_is_a_clear_error(mode, bad):
    x = Tensor(np.zeros((2, 3), np.float32))
    t = Tensor(np.array([0, bad], np.int32))

    def ce(a, b):
        return ops.cross_entropy(a, b)

    with pytest.raises(RuntimeCheckError, match=r"class indices in \[0, 3\)"):
        _run(ce, mode, x, t).asnumpy()
    with pytest.raises(RuntimeCheckError, match=r"class indices in \[0, 3\)"):
        nn.NLLLoss()(x, t).asnumpy()


def test_losses_keep_the_input_dtype():
    x = Tensor(RNG.standard_normal((4, 3)).astype(np.float16))
    t = Tensor(np.array([0, 1, 2, 1], np.int32))
    w = Tensor(np.ones(3, np.float32))
    p = ops.softmax(x, 1)
    for out in (
        ops.cross_entropy(x, t),
        ops.cross_entropy(x, t, w, label_smoothing=0.1),
        ops.nll_loss(x, t, w, reduction="none"),
        ops.cross_entropy(x, p, w),
        nn.L1Loss()(x, x),
        ops.smooth_l1_loss(x, x),
    ):
        assert out.dtype == ms.float16
