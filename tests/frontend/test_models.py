"""The model zoo (examples/models/zoo.py) trains in graph mode as in PyNative and
runs on the simulated device: the issue-23 yardstick, one test per model."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import mindjit as ms

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "models"))

import zoo  # noqa: E402


def _train(model: zoo.ZooModel, graph: bool, steps: int = 3):
    ms.set_context(mode=ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE)
    try:
        ms.set_seed(3)
        net = model.build()
        step = model.train_step(net, graph)
        inputs = model.batch(model.default_batch)
        losses = [float(step(*inputs).asnumpy()) for _ in range(steps)]
        net.set_train(False)
        eval_out = net(*inputs[:-1]).asnumpy()
        return losses, {p.name: p.asnumpy().copy() for p in net.get_parameters()}, eval_out
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("name", sorted(zoo.MODELS))
def test_model_trains_in_graph_mode_as_in_pynative(name):
    model = zoo.get(name)
    graph_losses, graph_params, graph_eval = _train(model, graph=True)
    eager_losses, eager_params, eager_eval = _train(model, graph=False)
    assert graph_losses[-1] < graph_losses[0], graph_losses
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    assert graph_params.keys() == eager_params.keys()
    for key, value in graph_params.items():  # moving statistics included
        np.testing.assert_allclose(value, eager_params[key], rtol=1e-5, atol=1e-6, err_msg=key)
    np.testing.assert_allclose(graph_eval, eager_eval, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(zoo.MODELS))
def test_model_runs_on_the_device_as_on_the_cpu(name):
    model = zoo.get(name)
    inputs = model.batch(2)
    outs = []
    for target in ("Ascend", "CPU"):
        ms.set_context(mode=ms.GRAPH_MODE, device_target=target)
        try:
            ms.set_seed(3)
            net = model.build()
            net.set_train(False)
            outs.append(net(*inputs[:-1]).asnumpy())
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)
