"""This branch's ops (creation, slicing, sampling, nn primitives, products, views,
pointwise losses) on the simulated Ascend device agree with the CPU: the graph
corpus programs run on both targets."""

from __future__ import annotations

import numpy as np
import pytest
from graph_corpus import FUNCTIONS

import mindjit as ms
from mindjit.frontend.graph import api

NAMES = ["creation_triangles", "nn_primitives", "samplings", "products_views_losses"]


def _leaves(value):
    if isinstance(value, tuple | list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


@pytest.mark.parametrize("name", NAMES)
def test_device_equals_cpu(name):
    fn, make_inputs = FUNCTIONS[name]
    inputs = make_inputs()
    results = {}
    try:
        for target in ("CPU", "Ascend"):
            ms.set_context(mode=ms.GRAPH_MODE, device_target=target)
            ms.set_seed(0)
            results[target] = _leaves(ms.jit(fn)(*inputs))
            api.clear_cache()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
        api.clear_cache()
    for cpu, dev in zip(results["CPU"], results["Ascend"], strict=True):
        assert cpu.dtype == dev.dtype and cpu.shape == dev.shape
        np.testing.assert_allclose(dev.asnumpy(), cpu.asnumpy(), rtol=2e-5, atol=1e-6)
