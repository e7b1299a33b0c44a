"""50 generated programs mixing assign, load, depend, print, control flow and calls give
the same outputs, Parameter values and printed text in GRAPH_MODE at Load-elimination
levels 0, 1 and 2 as in PYNATIVE_MODE."""

from __future__ import annotations

import contextlib
import importlib.util
import io

import numpy as np
import pytest
from side_effect_fuzz import generate

import mindjit as ms

SEEDS = range(50)


def load_program(seed: int, directory) -> type:
    path = directory / f"fuzz_program_{seed}.py"
    path.write_text(generate(seed))
    spec = importlib.util.spec_from_file_location(f"fuzz_program_{seed}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Net


def run(net_cls: type, mode: int) -> tuple[list, dict, str]:
    ms.set_context(mode=mode)
    net = net_cls()
    x = ms.Tensor(np.array([0.3, -0.7, 1.1], np.float32))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        results = net(x)
    values = [r.asnumpy().copy() for r in results]
    params = {name: p.asnumpy().copy() for name, p in net.parameters_and_names()}
    return values, params, out.getvalue()


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("fuzz")
    return {seed: load_program(seed, directory) for seed in SEEDS}


@pytest.mark.parametrize("seed", SEEDS)
def test_graph_levels_match_pynative(seed, programs, monkeypatch):
    net_cls = programs[seed]
    try:
        expected = run(net_cls, ms.PYNATIVE_MODE)
        for level in ("0", "1", "2"):
            monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", level)
            got = run(net_cls, ms.GRAPH_MODE)
            assert len(got[0]) == len(expected[0])
            for a, b in zip(got[0], expected[0]):
                np.testing.assert_array_equal(a, b, err_msg=f"level {level}")
            assert got[1].keys() == expected[1].keys()
            for name in expected[1]:
                np.testing.assert_array_equal(got[1][name], expected[1][name], err_msg=name)
            assert got[2] == expected[2], f"printed text differs at level {level}"
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
