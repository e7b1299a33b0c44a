"""mindir-cf-to-select from Python: the docs' if_net compiles to selects at O1/O2 and
gives the same results as at O0 (ifs kept) and in PyNative mode."""

from __future__ import annotations

import sys
from pathlib import Path

import cf_select_programs as P
import numpy as np
import pytest

import mindjit as ms
from mindjit.frontend.graph import api

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from docs_programs import if_net, select_net  # noqa: E402


def _ops(program) -> list[str]:  # type: ignore[no-untyped-def]
    return [op.name for op in program.module.walk()]


def _jit_run(fn, args, level):  # type: ignore[no-untyped-def]
    api.clear_cache()
    ms.set_context(mode=ms.GRAPH_MODE)
    out = ms.jit(fn, jit_config=ms.JitConfig(jit_level=level))(*args)
    (program,) = api.cached_programs()
    return out.asnumpy(), program


@pytest.mark.parametrize("x", [[0], [3], [-2]])
def test_if_net_becomes_selects_with_equal_results(x):
    args = (ms.Tensor(x), ms.Tensor([1]))
    kept, o0 = _jit_run(if_net, args, "O0")
    selected, o1 = _jit_run(if_net, args, "O1")
    reference, _ = _jit_run(select_net, args, "O1")
    assert "scf.if" in _ops(o0) and "scf.if" not in _ops(o1)
    np.testing.assert_array_equal(selected, kept)
    # select_net starts its sum at x, if_net at 0
    np.testing.assert_array_equal(selected, reference - np.asarray(x))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(if_net(*args).asnumpy(), selected)


@pytest.mark.parametrize("x", [[1.0, 2.0, 3.0], [0.1, 0.2, 0.3], [-1.0, -2.0, 0.5]])
@pytest.mark.parametrize("level", ["O0", "O1", "O2"])
def test_nested_ifs_with_a_parameter_read(x, level):
    net = P.Clipper()
    net.set_jit_config(ms.JitConfig(jit_level=level))
    api.clear_cache()
    ms.set_context(mode=ms.GRAPH_MODE)
    got = net(ms.Tensor(x, ms.float32)).asnumpy()
    (program,) = api.cached_programs()
    assert ("scf.if" in _ops(program)) is (level == "O0")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, net(ms.Tensor(x, ms.float32)).asnumpy(), rtol=1e-6)


def test_an_if_that_assigns_stays_and_assigns_once():
    net = P.Counter()
    api.clear_cache()
    ms.set_context(mode=ms.GRAPH_MODE)
    assert net(ms.Tensor([1.0])).asnumpy().tolist() == [2.0]
    assert net(ms.Tensor([-1.0])).asnumpy().tolist() == [0.0]
    assert net.count.asnumpy().tolist() == [1.0]
    (program,) = api.cached_programs()
    assert "scf.if" in _ops(program)
