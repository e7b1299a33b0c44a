"""ms.vmap in graph mode (mindir.vmap + mindir-vmap) against PyNative mode and numpy."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import vmap_programs as P

import mindjit as ms
from mindjit import Tensor, ops
from mindjit.frontend.graph import api
from mindjit.frontend.graph.errors import FrontendError
from mindjit.support.errors import MindjitError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from docs_programs import hswish_func, manually_batched, vmap_batched  # noqa: E402

RNG = np.random.default_rng(0)


def _t(*shape):  # type: ignore[no-untyped-def]
    return ms.Tensor(RNG.standard_normal(shape).astype(np.float32))


def _np(x):  # type: ignore[no-untyped-def]
    if isinstance(x, tuple | list):
        return [_np(e) for e in x]
    return x.asnumpy()


def _both(fn, *args):  # type: ignore[no-untyped-def]
    ms.set_context(mode=ms.GRAPH_MODE)
    api.clear_cache()
    graph = _np(ms.jit(fn)(*args))
    (program,) = api.cached_programs()
    assert not any(op.name == "mindir.vmap" for op in program.module.walk())
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = _np(fn(*args))
    return graph, eager


def test_axes_and_a_shared_argument():
    x, w, b = _t(3, 6), _t(3, 4), _t(6, 4)
    graph, eager = _both(P.vm_affine, x, w, b)
    want = np.stack([x.asnumpy()[:, i] @ w.asnumpy() + b.asnumpy()[i] for i in range(6)], axis=1)
    np.testing.assert_allclose(graph, want, rtol=1e-5)
    np.testing.assert_allclose(eager, want, rtol=1e-5)


def test_several_outputs_with_their_own_axes_and_a_number():
    x = _t(5, 3)
    graph, eager = _both(P.vm_two_outputs, x)
    xs = x.asnumpy()
    s = xs.sum(axis=1)
    np.testing.assert_allclose(graph[0], xs * 2.0 - s[:, None], rtol=1e-5)
    np.testing.assert_allclose(graph[1][0], np.exp(xs).T, rtol=1e-5)
    np.testing.assert_allclose(graph[1][1], s, rtol=1e-5)
    for g, e in zip([graph[0], *graph[1]], [eager[0], *eager[1]]):
        np.testing.assert_allclose(g, e, rtol=1e-5)


@pytest.mark.parametrize("fn", [P.vm_nested, P.vm_negative_out_axis])
def test_nested_and_negative_axes(fn):
    x = _t(4, 3)
    graph, eager = _both(fn, x)
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    assert graph.shape == ((3, 4) if fn is P.vm_nested else (3, 4))


def test_a_cell_parameter_is_shared():
    net = P.Scaled()
    x = _t(4, 3)
    ms.set_context(mode=ms.GRAPH_MODE)
    got = net(x).asnumpy()
    xs = x.asnumpy()
    np.testing.assert_allclose(got, xs * net.w.asnumpy() + xs.max(axis=1, keepdims=True), rtol=1e-6)


def test_the_docs_hswish():
    x = ops.sub(ms.Tensor((RNG.standard_normal((100, 2)) * 100).astype(np.float32)), 0)
    ms.set_context(mode=ms.GRAPH_MODE)
    vmapped, looped = ms.jit(vmap_batched)(x).asnumpy(), ms.jit(manually_batched)(x).asnumpy()
    np.testing.assert_array_equal(vmapped, looped)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(ms.vmap(hswish_func, in_axes=(0,))(x).asnumpy(), looped)


def test_an_if_on_a_per_example_condition():
    x = _t(6, 3)
    graph, eager = _both(P.with_if, x)
    xs = x.asnumpy()
    want = np.where(xs.sum(axis=1, keepdims=True) > 0, xs, -xs)
    np.testing.assert_allclose(graph, want, rtol=1e-6)
    np.testing.assert_allclose(eager, want, rtol=1e-6)


def test_a_while_with_a_per_example_trip_count():
    """Each example loops until its own condition is false (vmap_loops.py); the rows
    are positive, so doubling reaches the bound (a row summing to <= 0 never would)."""
    x = Tensor(np.abs(_t(4, 3).asnumpy()) + np.float32(0.1))
    graph, eager = _both(P.with_while, x)
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    for row, got in zip(x.asnumpy(), graph):  # the loop run example by example
        np.testing.assert_allclose(got, _np(P.looping(Tensor(row))), rtol=1e-6)


def test_grad_of_a_loop_under_vmap():
    """vmap(grad(f)) batches the gradient's forward and backward loops; a loop
    whose trip count is the same for every example records at shared slots."""
    x, n = _t(4, 3), Tensor(3, ms.int32)
    graph, eager = _both(P.vmap_grad_counted, x, n)
    np.testing.assert_allclose(graph, eager, rtol=1e-5)


@pytest.mark.parametrize("engine", ["cpu", "iree", "device"])
def test_grad_of_a_loop_with_per_example_trip_counts(engine):
    """Each example's record slots are its own (a tensor<Bxi64> index); an example
    whose loop never runs gets the identity's gradient."""
    x = Tensor(np.array([[0.1, 0.2], [0.3, 0.4], [2.0, 3.0], [5.0, 6.0]], np.float32))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = _np(P.vmap_grad_per_example(x))
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend" if engine == "device" else "CPU")
    try:
        jitted = ms.jit(P.vmap_grad_per_example, backend="iree" if engine == "iree" else None)
        graph = _np(jitted(x))
    finally:
        ms.set_context(device_target="CPU")
    np.testing.assert_allclose(graph, eager, rtol=1e-5)
    np.testing.assert_allclose(graph[3], [1.0, 1.0])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"in_axes": (0, 0)}, "in_axes has 2 entries for 1 arguments"),
        ({"in_axes": 2}, "in_axes 2 is out of range for a rank-2 argument"),
        ({"in_axes": None}, "must batch at least one tensor"),
        ({"out_axes": 3}, "out_axes 3 is out of range"),
    ],
)
def test_bad_axes_are_clear_errors_in_both_modes(kwargs, message):
    x = _t(4, 3)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match=message):
        ms.vmap(ops.neg, **kwargs)(x)


def test_out_axes_none_returns_a_shared_output_once():
    x, w = _t(4, 3), _t(3)
    graph, eager = _both(P.vm_out_axes_none, x, w)
    np.testing.assert_allclose(graph[0], x.asnumpy() * w.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(graph[1], np.exp(w.asnumpy()), rtol=1e-6)
    for g, e in zip(graph, eager):
        np.testing.assert_allclose(g, e, rtol=1e-6)


def test_out_axes_none_on_a_batched_output_is_an_error_in_both_modes():
    x, w = _t(4, 3), _t(3)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="out_axes None must be the same for every example"):
        P.vm_out_axes_none_batched(x, w)
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(MindjitError, match=r"vmap_programs.py:\d+:\d+: .*out_axes none must be"):
        ms.jit(P.vm_out_axes_none_batched)(x, w)


def test_bad_specs():
    with pytest.raises(TypeError, match="in_axes must be an int, None or a tuple"):
        ms.vmap(ops.neg, in_axes="0")
    with pytest.raises(TypeError, match="fn must be callable"):
        ms.vmap(3)


def test_graph_mode_error_has_the_source_line():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(FrontendError, match=r"vmap_programs.py:\d+: .*different sizes"):
        ms.jit(P.vm_affine)(_t(3, 6), _t(3, 4), _t(5, 4))


def test_keyword_arguments_are_refused_with_the_source_line():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(
        FrontendError, match=r"vmap_programs.py:\d+: a vmap function takes no keyword"
    ):
        ms.jit(P.vm_keyword)(_t(4, 3))
