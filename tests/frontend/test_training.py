"""Whole-graph training (issue 7): the docs' train step under @ms.jit trains, and
graph and PyNative mode train to the same Parameters."""

from __future__ import annotations

import numpy as np
import pytest
import train_programs as P

import mindjit as ms
from mindjit import Tensor, nn


def regression_data(n=64, d=8, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)).astype(np.float32)
    w = rng.standard_normal((d, 1)).astype(np.float32)
    y = np.tanh(x @ w) + 0.1 * x[:, :1] ** 2
    return Tensor(x), Tensor(y.astype(np.float32))


def classification_data(n=128, d=4, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d)).astype(np.float32)
    w = np.array([[2.0], [-1.5], [1.0], [0.5]], np.float32)
    y = (x @ w + 0.3 > 0).astype(np.float32)
    return Tensor(x), Tensor(y)


def build(kind: str, optimizer: str, seed: int = 3):
    ms.set_seed(seed)
    if kind == "mlp":
        network, loss_fn = P.MLP(8, 32, 1), nn.MSELoss()
    else:
        network, loss_fn = P.Logistic(4), nn.BCELoss()
    params = network.trainable_params()
    if optimizer == "sgd":
        opt = nn.SGD(params, learning_rate=0.1 if kind == "mlp" else 0.5)
    else:
        opt = nn.Adam(params, learning_rate=0.01 if kind == "mlp" else 0.05)
    return network, P.make_train_step(network, loss_fn, opt)


# (task, optimizer): loss after 200 steps must fall below the threshold
THRESHOLDS = {
    ("mlp", "sgd"): 0.1,
    ("mlp", "adam"): 0.01,
    ("logistic", "sgd"): 0.2,
    ("logistic", "adam"): 0.2,
}


@pytest.mark.parametrize(("kind", "optimizer"), list(THRESHOLDS))
def test_train_200_steps_in_graph_mode(kind, optimizer):
    data = regression_data() if kind == "mlp" else classification_data()
    network, (train_step, _) = build(kind, optimizer)
    first = float(train_step(*data).asnumpy())
    for _ in range(199):
        loss = float(train_step(*data).asnumpy())
    assert loss < THRESHOLDS[kind, optimizer] < first, (first, loss)
    if kind == "logistic":
        predicted = network(data[0]).asnumpy() > 0.5
        assert (predicted == (data[1].asnumpy() > 0.5)).mean() > 0.9


@pytest.mark.parametrize(("kind", "optimizer"), list(THRESHOLDS))
def test_graph_and_pynative_train_alike(kind, optimizer):
    data = regression_data() if kind == "mlp" else classification_data()
    params = []
    for mode in ("graph", "pynative"):
        network, (graph_step, eager_step) = build(kind, optimizer)
        step = graph_step if mode == "graph" else eager_step
        losses = [float(step(*data).asnumpy()) for _ in range(10)]
        params.append(([p.asnumpy().copy() for p in network.trainable_params()], losses))
    (graph_params, graph_losses), (eager_params, eager_losses) = params
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5, atol=1e-5)
    for g, e in zip(graph_params, eager_params):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


def test_docs_train_step_compiles_as_one_graph():
    from mindjit.frontend.graph.api import cached_programs

    network, (train_step, _) = build("mlp", "adam")
    train_step(*regression_data())
    program = cached_programs()[-1]
    assert program.entry_name == "train_step"
    counts = program.op_counts()
    assert counts["func.func"] == 1  # forward, backward and update in one graph
    # every Parameter and optimizer state is written back in the graph
    assert counts["ml_program.global_store"] >= 2 * len(network.trainable_params())


def test_bce_on_raw_dense_outputs_is_a_clear_error():
    train_step, _ = P.bce_on_raw_logits()
    x = Tensor(np.random.default_rng(0).standard_normal((16, 10)).astype(np.float32) * 5)
    y = Tensor(np.ones((16, 1), np.float32))
    with pytest.raises(Exception, match=r"BinaryCrossEntropy.*\[0, 1\]"):
        train_step(x, y)
