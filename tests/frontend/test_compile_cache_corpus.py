"""Differential test of the compile cache's warm path: every graph-corpus program
(and a small GPT, with and without lazy inline) gives the same results from a
cache hit as from its compile, on fresh random inputs."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from graph_corpus import CELLS, FUNCTIONS
from test_graph_vs_pynative import assert_same, leaves

import mindjit as ms
from mindjit.frontend import context as C
from mindjit.frontend.graph import api
from mindjit.frontend.graph.program_cache import HIT

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    for var in ("MS_COMPILER_CACHE_ENABLE", "MS_COMPILER_CACHE_PATH", "MS_DEV_SAVE_GRAPHS"):
        monkeypatch.delenv(var, raising=False)
    C.reset_context()
    api.clear_cache()
    ms.set_context(mode=ms.GRAPH_MODE, enable_compile_cache=True, compile_cache_path=str(tmp_path))
    yield
    C.reset_context()
    api.clear_cache()


def fresh_like(value, rng):
    """Random inputs of the same structure, shapes and dtypes."""
    if isinstance(value, tuple | list):
        return type(value)(fresh_like(v, rng) for v in value)
    if isinstance(value, ms.Tensor):
        a = value.asnumpy()
        if a.dtype.kind == "f":
            new = rng.standard_normal(a.shape).astype(a.dtype)
        elif a.dtype.kind in "iu":
            new = rng.integers(0, 6, a.shape).astype(a.dtype)
        else:
            new = rng.random(a.shape) < 0.5
        return ms.Tensor(new)
    return value


def cold_and_warm(call, capsys):
    """The program compiled by `call()` and the one a later process would restore."""
    api.clear_cache()
    call()
    (cold,) = api.cached_programs()
    api.clear_cache()
    call()
    assert HIT in capsys.readouterr().err
    (warm,) = api.cached_programs()
    assert warm.from_cache
    return cold, warm


def check(cold, warm, inputs, rng) -> bool:
    """Same results on the compile's inputs and on fresh ones; whether the hit
    used captured plans (the module was not decoded)."""
    captured = warm._module is None  # noqa: SLF001
    for args in (inputs, fresh_like(inputs, rng), fresh_like(inputs, rng)):
        ms.set_seed(0)  # random ops (dropout) draw the same masks in both runs
        cold_out = leaves(cold(tuple(args), {}))
        ms.set_seed(0)
        assert_same(cold_out, leaves(warm(tuple(args), {})))
    return captured


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_function_hit_runs_as_its_compile(name, cache, capsys):
    fn, make_inputs = FUNCTIONS[name]
    inputs = make_inputs()
    compiled = ms.jit(fn)
    cold, warm = cold_and_warm(lambda: compiled(*inputs), capsys)
    check(cold, warm, inputs, np.random.default_rng(1))


@pytest.mark.parametrize("name", sorted(CELLS))
def test_cell_hit_runs_as_its_compile(name, cache, capsys):
    cls, make_inputs = CELLS[name]
    inputs = make_inputs()
    net = cls()
    cold, warm = cold_and_warm(lambda: net(*inputs), capsys)
    check(cold, warm, inputs, np.random.default_rng(2))


def test_most_corpus_hits_use_captured_plans(cache, capsys):
    captured = 0
    for fn, make_inputs in FUNCTIONS.values():
        inputs = make_inputs()
        compiled = ms.jit(fn)
        _, warm = cold_and_warm(lambda: compiled(*inputs), capsys)  # noqa: B023
        captured += warm._module is None  # noqa: SLF001
    assert captured >= len(FUNCTIONS) // 2, (captured, len(FUNCTIONS))


@pytest.mark.parametrize("lazy", [False, True], ids=["inlined", "lazy-inline"])
def test_gpt_hit_runs_as_its_compile_and_trains_the_same(lazy, cache, capsys):
    from gpt import GPT, GPTConfig

    from mindjit.frontend.nn.init import set_seed

    set_seed(0)
    net = GPT(GPTConfig(2), lazy)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((1, 32, 256)).astype(np.float32))
    cold, warm = cold_and_warm(lambda: net(x), capsys)
    assert check(cold, warm, [x], np.random.default_rng(3))  # captured, calls included
