"""HyperMap in graph mode: calls of one kind become one vmap (frontend/graph/hyper_map.py).

Each program runs in both modes with equal results; the frontend's IR (saved
with `save_graphs`) shows what was batched and what was traced per element.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import hyper_map_batch_programs as P
import numpy as np
import pytest

import mindjit as ms
from mindjit import nn
from mindjit.dialects.parsing import parse_file
from mindjit.frontend.graph import api
from mindjit.frontend.graph.errors import FrontendError


def _np(x):  # type: ignore[no-untyped-def]
    if isinstance(x, tuple | list):
        return type(x)(_np(e) for e in x)
    return x.asnumpy().tolist() if hasattr(x, "asnumpy") else x


def _graph_run(tmp_path: Path, fn, *args):  # type: ignore[no-untyped-def]
    """(outputs, op counts of the frontend's IR, of the final IR) in graph mode."""
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        out = fn(*args) if isinstance(fn, nn.Cell) else ms.jit(fn)(*args)
    finally:
        ms.set_context(save_graphs=False)
    module = parse_file(str(next(tmp_path.glob("*_00_frontend.mlir"))))
    frontend = Counter(op.name for op in module.walk())
    program = api.cached_programs()[-1]
    return out, frontend, program.op_counts()


def _eager(fn, *args):  # type: ignore[no-untyped-def]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        return fn(*args)
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


def test_docs_program_is_one_vmap_and_returns_one_tensor(tmp_path):
    out, frontend, final = _graph_run(tmp_path, P.docs_net)
    assert _np(out) == _np(_eager(P.docs_net)) == [3 * i for i in range(200)]
    assert isinstance(out, list) and len(out) == 200
    # two stacked constants, one vmap around one call, no per-element ops
    assert frontend["mindir.vmap"] == 1
    assert frontend["func.call"] == 1
    assert frontend["mindir.constant"] == 2
    assert frontend["mindir.unstack"] == 0  # returned pieces leave as the one tensor
    assert sum(final.values()) < 10
    assert final["tensor.extract_slice"] == 0


def test_outputs_are_views_of_one_result():
    ms.set_context(mode=ms.GRAPH_MODE)
    out = ms.jit(P.docs_net)()
    base = out[0].asnumpy().base
    assert base is not None and all(o.asnumpy().base is base for o in out)


def test_mixed_shapes_form_one_group_per_type(tmp_path):
    a = ms.Tensor(np.arange(2, dtype=np.float32))
    b = ms.Tensor(np.arange(3, dtype=np.float32))
    c = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    out, frontend, _ = _graph_run(tmp_path, P.mixed_shapes_net, a, b, c)
    assert _np(out) == _np(_eager(P.mixed_shapes_net, a, b, c))
    assert _np(out)[4] == 3  # numbers fold
    # one vmap for elements 0 and 2 (one call inside), one call each for 1 and 3,
    # and one for the numbers' function (a graph too, returning a constant)
    assert frontend["mindir.vmap"] == 1 and frontend["func.call"] == 4


def test_tuple_results(tmp_path):
    rng = np.random.default_rng(0)
    xs = tuple(ms.Tensor(rng.standard_normal(3).astype(np.float32)) for _ in range(4))
    ys = tuple(ms.Tensor(rng.standard_normal(3).astype(np.float32)) for _ in range(4))
    out, frontend, _ = _graph_run(tmp_path, P.tuple_results_net, xs, ys)
    expected = _eager(P.tuple_results_net, xs, ys)
    for got, want in zip(out, expected):
        np.testing.assert_allclose(got[0].asnumpy(), want[0].asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(got[1].asnumpy(), want[1].asnumpy(), rtol=1e-5, atol=1e-6)
    assert frontend["mindir.vmap"] == 1 and frontend["mindir.stack"] == 2


def test_chained_maps_reuse_the_stacked_tensor(tmp_path):
    x = ms.Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    out, frontend, final = _graph_run(tmp_path, P.chained_net, x)
    np.testing.assert_allclose(
        np.stack([o.asnumpy() for o in out]), -np.exp(x.asnumpy()), rtol=1e-6
    )
    assert frontend["mindir.vmap"] == 2 and frontend["mindir.stack"] == 0
    assert final["tensor.extract_slice"] == 0


def test_results_used_inside_the_graph(tmp_path):
    x = ms.Tensor(np.linspace(-2, 2, 6, dtype=np.float32).reshape(3, 2))
    out, frontend, _ = _graph_run(tmp_path, P.used_in_graph_net, x)
    expected = _eager(P.used_in_graph_net, x)
    for got, want in zip(out, expected):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)
    assert frontend["mindir.vmap"] == 1


def test_a_column_shared_by_every_element_is_not_stacked(tmp_path):
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(3, 2))
    w = ms.Tensor(np.array([2.0, -1.0], np.float32))
    out, frontend, _ = _graph_run(tmp_path, P.shared_column_net, x, w)
    assert _np(out) == _np(_eager(P.shared_column_net, x, w))
    assert frontend["mindir.vmap"] == 1 and frontend["mindir.stack"] == 0
    assert "in_axes [0, none]" in (next(tmp_path.glob("*_00_frontend.mlir"))).read_text()


def test_io_effects_are_traced_per_element_in_order(tmp_path, capfd):
    x = ms.Tensor(np.arange(3, dtype=np.float32))
    out, frontend, _ = _graph_run(tmp_path, P.print_net, x)
    assert _np(out) == (1.0, 2.0, 3.0)
    assert frontend["mindir.vmap"] == 0 and frontend["func.call"] == 3
    printed = re.findall(r"value=(\d)", capfd.readouterr().out)
    assert printed == ["0", "1", "2"]


def test_ops_without_batching_rule_are_traced_per_element(tmp_path):
    x = ms.Tensor(np.array([[1.0, 2.0], [20.0, 1.0], [0.5, 0.5]], np.float32))
    out, frontend, _ = _graph_run(tmp_path, P.loop_net, x)
    assert _np(out) == _np(_eager(P.loop_net, x))
    assert frontend["mindir.vmap"] == 0 and frontend["func.call"] == 3


@pytest.mark.parametrize("reverse", [False, True])
def test_memory_effects_keep_their_order(tmp_path, reverse):
    x = ms.Tensor(np.array([[1.0, 2.0], [10.0, 20.0], [100.0, 200.0]], np.float32))
    eager_net = P.Accumulate(reverse)
    want = _np(_eager(eager_net, x))
    graph_net = P.Accumulate(reverse)
    out, frontend, _ = _graph_run(tmp_path, graph_net, x)
    assert _np(out) == want
    assert graph_net.total.asnumpy().tolist() == eager_net.total.asnumpy().tolist()
    assert frontend["mindir.vmap"] == 0


def test_parameters_are_read_per_element(tmp_path):
    x = ms.Tensor(np.array([1.0, -1.0], np.float32))
    net = P.ParameterMap()
    out, frontend, _ = _graph_run(tmp_path, net, x)
    assert _np(out) == ([1.0, -1.0], [3.0, -3.0])
    assert frontend["mindir.vmap"] == 0


@pytest.mark.parametrize("seed", range(8))
def test_random_maps_equal_pynative(tmp_path, seed):
    """Random lengths, shapes (some repeated, so some groups) and values."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    shapes = [(int(rng.choice([2, 3])),) for _ in range(n)]
    xs = tuple(ms.Tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes)
    ys = tuple(ms.Tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes)
    zs = tuple(float(v) for v in rng.standard_normal(n).round(2))
    out, frontend, _ = _graph_run(tmp_path, P.random_map, xs, ys, zs)
    want = _eager(P.random_map, xs, ys, zs)
    got_leaves, want_leaves = _leaves(out), _leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    # one vmap per shape seen twice in the tensor-tensor map; numbers are not stacked
    assert frontend["mindir.vmap"] == sum(1 for s in set(shapes) if shapes.count(s) > 1)


def _leaves(x):  # type: ignore[no-untyped-def]
    if isinstance(x, tuple | list):
        return [leaf for e in x for leaf in _leaves(e)]
    return [np.asarray(x.asnumpy())]


def test_functions_giving_constants_are_traced_per_element(tmp_path):
    x = ms.Tensor(np.zeros((3, 4), np.float32))
    out, frontend, _ = _graph_run(tmp_path, P.constant_results_net, x)
    assert out == (4, 4, 4) == _eager(P.constant_results_net, x)
    assert frontend["mindir.vmap"] == 0


def test_an_error_in_a_batched_function_names_its_line():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(FrontendError, match=r"hyper_map_batch_programs.py:\d+: .*matmul"):
        ms.jit(P.error_net)(ms.Tensor(np.zeros((3, 2), np.float32)))
