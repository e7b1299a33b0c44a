"""nn's losses: values against numpy's formulas for every reduction, in PyNative
mode, in a `@jit` graph and as a GRAPH_MODE Cell; BCELoss's range check."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import nn_train_programs as P
import numpy as np
import pytest

import mindjit as ms
from mindjit import nn
from mindjit.backend.cpu import RuntimeCheckError
from mindjit.dialects.parsing import parse_file
from mindjit.frontend.graph import api

REDUCTIONS = ["mean", "sum", "none"]
MODES = ["pynative", "jit", "graph_mode"]
BCE_MESSAGE = "For 'BinaryCrossEntropy', the elements of 'logits' must be in [0, 1]"

rng = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def f32(a) -> ms.Tensor:  # type: ignore[no-untyped-def]
    return ms.Tensor(np.asarray(a, dtype=np.float32))


def run(loss_fn, mode, *args):  # type: ignore[no-untyped-def]
    """The loss in `mode`: eagerly, in a @jit Cell, or as a Cell in GRAPH_MODE."""
    if mode == "pynative":
        ms.set_context(mode=ms.PYNATIVE_MODE)
        out = loss_fn(*args)
    elif mode == "jit":
        ms.set_context(mode=ms.PYNATIVE_MODE)
        out = P.LossOf(loss_fn)(*args)
    else:
        ms.set_context(mode=ms.GRAPH_MODE)
        out = loss_fn(*args)
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return out.asnumpy()


def reduce(x: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "mean":
        return np.mean(x)
    if reduction == "sum":
        return np.sum(x)
    return x


def check(got: np.ndarray, want: np.ndarray, reduction: str) -> None:
    assert got.shape == np.shape(want)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-5)


# --- MSELoss -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_loss(mode, reduction):
    x, y = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    got = run(nn.MSELoss(reduction), mode, f32(x), f32(y))
    check(got, reduce((x - y) ** 2, reduction), reduction)


def test_mse_loss_broadcasts_labels():
    x, y = rng.normal(size=(4, 3)), rng.normal(size=(3,))
    got = run(nn.MSELoss(), "jit", f32(x), f32(y))
    check(got, np.mean((x - y) ** 2), "mean")


# --- BCELoss ---------------------------------------------------------------------------------


def bce(x: np.ndarray, y: np.ndarray, w: np.ndarray | float = 1.0) -> np.ndarray:
    with np.errstate(divide="ignore"):
        log_p = np.maximum(np.log(x), -100.0)
        log_q = np.maximum(np.log(1.0 - x), -100.0)
    return -w * (y * log_p + (1.0 - y) * log_q)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_loss(mode, reduction):
    x = rng.uniform(0.02, 0.98, size=(3, 4))
    y = rng.integers(0, 2, size=(3, 4)).astype(np.float64)
    w = rng.uniform(0.5, 2.0, size=(4,))
    got = run(nn.BCELoss(f32(w), reduction), mode, f32(x), f32(y))
    check(got, reduce(bce(x, y, w), reduction), reduction)


@pytest.mark.parametrize("mode", MODES)
def test_bce_loss_clamps_log_at_minus_100(mode):
    # MindSpore's docs example values, plus the edges 0 and 1 (log clamped: finite loss)
    x = np.array([[0.1, 0.2, 0.3], [0.5, 0.7, 0.9], [0.0, 1.0, 0.0]])
    y = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.5]])
    got = run(nn.BCELoss(reduction="none"), mode, f32(x), f32(y))
    check(got, bce(x, y), "none")
    assert got[2].tolist() == [100.0, 100.0, 50.0]
    assert np.isfinite(run(nn.BCELoss(), mode, f32(x), f32(y)))


@pytest.mark.parametrize("bad", [1.5, -0.25, float("nan")])
def test_bce_loss_rejects_logits_outside_0_1_in_pynative(bad):
    x = f32([[0.5, bad], [0.1, 0.9]])
    with pytest.raises(
        RuntimeCheckError, match=r"BinaryCrossEntropy.*'logits' must be in \[0, 1\]"
    ):
        nn.BCELoss()(x, f32(np.ones((2, 2))))
    with pytest.raises(RuntimeError, match="BinaryCrossEntropy"):  # MindSpore's error type
        nn.BCELoss(reduction="none")(x, f32(np.ones((2, 2))))


@pytest.mark.parametrize("mode", ["jit", "graph_mode"])
@pytest.mark.parametrize("bad", [1.0001, -1e-6, float("nan")])
def test_bce_loss_rejects_logits_outside_0_1_in_graph_mode(mode, bad):
    x = f32([[0.5, bad], [0.1, 0.9]])
    with pytest.raises(RuntimeCheckError) as info:
        run(nn.BCELoss(), mode, x, f32(np.ones((2, 2))))
    assert BCE_MESSAGE in str(info.value)


def test_bce_loss_on_a_raw_dense_output_fails_at_run_time_not_with_nan():
    """The docs' `loss_fn(network(data), label)` with a Dense (no sigmoid) under @jit:
    the logits exist only when the graph runs; the check raises there."""
    data = f32(rng.normal(size=(8, 5)) * 100.0)
    label = f32(rng.integers(0, 2, size=(8, 1)))
    P.bce_network.weight.set_data(f32(np.full((1, 5), 0.5)))
    with pytest.raises(RuntimeCheckError) as info:
        P.bce_forward(data, label)
    assert BCE_MESSAGE in str(info.value)
    assert "nn_train_programs.py" in str(info.value)  # located at the user's call
    # the same program runs when the values are in range (here: all outputs 0)
    P.bce_network.weight.set_data(f32(np.zeros((1, 5))))
    P.bce_network.bias.set_data(f32([0.0]))
    got = P.bce_forward(data, label).asnumpy()
    np.testing.assert_allclose(got, np.mean(bce(np.zeros((8, 1)), label.asnumpy())), rtol=1e-6)


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_bce_loss_after_a_sigmoid_works(mode):
    network = nn.SequentialCell([nn.Dense(5, 1, weight_init="normal"), nn.Sigmoid()])
    data = f32(rng.normal(size=(6, 5)) * 10.0)
    label = f32(rng.integers(0, 2, size=(6, 1)))
    if mode == "pynative":
        got = nn.BCELoss()(network(data), label).asnumpy()
    else:
        got = P.NetWithLoss(network, nn.BCELoss())(data, label).asnumpy()
    x = network(data).asnumpy().astype(np.float64)
    np.testing.assert_allclose(got, np.mean(bce(x, label.asnumpy())), rtol=1e-5)


def test_the_range_check_is_in_the_graph_and_feeds_the_loss(tmp_path: Path):
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        nn.BCELoss()(f32([0.25, 0.5]), f32([1.0, 0.0]))
    finally:
        ms.set_context(save_graphs=False)
    frontend = parse_file(str(next(tmp_path.glob("*_00_frontend.mlir"))))
    (check_op,) = [op for op in frontend.walk() if op.name == "mindir.check_range"]
    assert check_op.results[0].uses  # what the loss computes from: never dead code
    lowered = Counter(op.name for op in api.cached_programs()[-1].module.walk())
    assert lowered["cf.assert"] == 1


# --- BCEWithLogitsLoss --------------------------------------------------------------------------


def bce_with_logits(x, y, w=1.0, pos_weight=1.0):  # type: ignore[no-untyped-def]
    sig = 1.0 / (1.0 + np.exp(-x))
    return -w * (pos_weight * y * np.log(sig) + (1.0 - y) * np.log(1.0 - sig))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_logits_loss(mode, reduction):
    x = rng.normal(size=(3, 4)) * 3.0
    y = rng.uniform(0.0, 1.0, size=(3, 4))
    got = run(nn.BCEWithLogitsLoss(reduction), mode, f32(x), f32(y))
    check(got, reduce(bce_with_logits(x, y), reduction), reduction)


@pytest.mark.parametrize("mode", MODES)
def test_bce_with_logits_loss_weight_and_pos_weight(mode):
    x = rng.normal(size=(2, 3)) * 3.0
    y = rng.integers(0, 2, size=(2, 3)).astype(np.float64)
    w, pw = np.array([1.0, 2.0, 0.5]), np.array([0.5, 3.0, 1.0])
    loss = nn.BCEWithLogitsLoss("none", f32(w), f32(pw))
    got = run(loss, mode, f32(x), f32(y))
    check(got, bce_with_logits(x, y, w, pw), "none")


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_bce_with_logits_loss_is_stable_for_large_logits(mode):
    x = np.array([-200.0, -50.0, 0.0, 50.0, 200.0])
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    got = run(nn.BCEWithLogitsLoss("none"), mode, f32(x), f32(y))
    want = np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    assert got.tolist()[0] == 200.0 and got.tolist()[-1] == 200.0


# --- SoftmaxCrossEntropyWithLogits ----------------------------------------------------------------


def log_softmax(x: np.ndarray) -> np.ndarray:
    z = x - x.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_softmax_cross_entropy_dense_labels(mode, reduction):
    x = rng.normal(size=(4, 5)) * 4.0
    y = rng.uniform(size=(4, 5))
    y /= y.sum(axis=-1, keepdims=True)
    got = run(nn.SoftmaxCrossEntropyWithLogits(reduction=reduction), mode, f32(x), f32(y))
    check(got, reduce(-(y * log_softmax(x)).sum(-1), reduction), reduction)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_softmax_cross_entropy_sparse_labels(mode, reduction, dtype):
    x = rng.normal(size=(4, 3)) * 4.0
    labels = np.array([0, 2, 1, 2], dtype=dtype)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction)
    got = run(loss, mode, f32(x), ms.Tensor(labels))
    want = -log_softmax(x)[np.arange(4), labels]
    check(got, reduce(want, reduction), reduction)


def test_softmax_cross_entropy_docs_example():
    # mindspore.cn's example: logits [[3, 5, 6, 9, 12, 33, 42, 12, 32, 72]], label 1 of 10
    logits = f32([[3, 5, 6, 9, 12, 33, 42, 12, 32, 72]])
    labels = f32([[0, 0, 0, 0, 0, 0, 1, 0, 0, 0]])
    got = nn.SoftmaxCrossEntropyWithLogits()(logits, labels).asnumpy()
    np.testing.assert_allclose(got, [30.0], rtol=1e-6)


def test_softmax_cross_entropy_is_stable_for_large_logits():
    x = f32([[1000.0, 0.0, -1000.0]])
    got = nn.SoftmaxCrossEntropyWithLogits(sparse=True)(x, ms.Tensor([1])).asnumpy()
    np.testing.assert_allclose(got, [1000.0])


def test_sparse_labels_must_be_integers():
    with pytest.raises(TypeError, match="class indices"):
        nn.SoftmaxCrossEntropyWithLogits(sparse=True)(f32([[1.0, 2.0]]), f32([1.0]))


# --- arguments -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda r: nn.MSELoss(r),
        lambda r: nn.BCELoss(reduction=r),
        lambda r: nn.BCEWithLogitsLoss(r),
        lambda r: nn.SoftmaxCrossEntropyWithLogits(reduction=r),
    ],
)
@pytest.mark.parametrize("bad", ["avg", "MEAN", None])
def test_bad_reduction_is_a_value_error_naming_it(make, bad):
    with pytest.raises(
        ValueError, match=rf"'reduction' must be in \['mean', 'sum', 'none'\].*{bad}"
    ):
        make(bad)


def test_loss_defaults_and_repr():
    assert nn.MSELoss().reduction == "mean"
    assert nn.BCELoss().reduction == "mean" and nn.BCELoss().weight is None
    assert nn.BCEWithLogitsLoss().reduction == "mean"
    ce = nn.SoftmaxCrossEntropyWithLogits()
    assert ce.reduction == "none" and ce.sparse is False
    assert repr(nn.MSELoss("sum")) == "MSELoss<reduction=sum>"
    assert isinstance(nn.MSELoss(), nn.LossBase)
    with pytest.raises(TypeError, match="'weight' must be a Tensor"):
        nn.BCELoss(weight="heavy")


# --- gradients (mindir-grad differentiates the losses' ops) ------------------------------------


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


GRAD_CASES = [
    (
        "mse",
        lambda: nn.MSELoss(),
        lambda: (rng.normal(size=(3, 4)), rng.normal(size=(3, 4))),
        lambda x, y: 2.0 * (x - y) / x.size,
    ),
    (
        "bce",
        lambda: nn.BCELoss(f32([1.0, 2.0, 0.5, 1.0]), "sum"),
        lambda: (rng.uniform(0.05, 0.95, size=(3, 4)), rng.integers(0, 2, size=(3, 4)) * 1.0),
        lambda x, y: -np.array([1.0, 2.0, 0.5, 1.0]) * (y / x - (1 - y) / (1 - x)),
    ),
    (
        "bce-with-logits",
        lambda: nn.BCEWithLogitsLoss(pos_weight=f32([2.0, 1.0, 0.5, 3.0])),
        lambda: (rng.normal(size=(3, 4)) * 3, rng.integers(0, 2, size=(3, 4)) * 1.0),
        lambda x, y: (
            ((1 - y) + ((np.array([2.0, 1.0, 0.5, 3.0]) - 1) * y + 1) * (_sigmoid(x) - 1)) / x.size
        ),
    ),
    (
        "softmax-ce",
        lambda: nn.SoftmaxCrossEntropyWithLogits(reduction="mean"),
        lambda: (rng.normal(size=(3, 4)) * 3, np.eye(4)[[1, 3, 0]]),
        lambda x, y: (_softmax(x) - y) / x.shape[0],
    ),
]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("name, make, data, want", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_of_the_losses(name, make, data, want, mode):
    x, y = data()
    ms.set_context(mode=mode)
    got = ms.grad(make())(f32(x), f32(y)).asnumpy()
    np.testing.assert_allclose(got, want(x, y), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_gradient_of_sparse_softmax_cross_entropy(mode):
    x = rng.normal(size=(4, 3)) * 3
    labels = np.array([2, 0, 1, 2], np.int32)
    ms.set_context(mode=mode)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="sum")
    got = ms.grad(loss)(f32(x), ms.Tensor(labels)).asnumpy()
    np.testing.assert_allclose(got, _softmax(x) - np.eye(3)[labels], rtol=1e-4, atol=1e-6)
