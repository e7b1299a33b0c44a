"""Grad of vmap (and deeper nestings of the two) in graph mode, against PyNative mode
and central differences (mindir-grad{vmap=true}, passes/mindir_grad/mindir_grad.py)."""

from __future__ import annotations

import grad_of_vmap_programs as P
import numpy as np
import pytest
from grad_check import assert_parameter_grads_match, central_differences

import mindjit as ms
from mindjit.frontend.graph import api

RNG = np.random.default_rng(7)


def _a(*shape):  # type: ignore[no-untyped-def]
    return RNG.standard_normal(shape)


def _np(x):  # type: ignore[no-untyped-def]
    if isinstance(x, tuple | list):
        return [_np(e) for e in x]
    return x.asnumpy()


def _graph(fn, *args):  # type: ignore[no-untyped-def]
    """`fn` compiled in graph mode: its result, and no grad or vmap left in the program."""
    ms.set_context(mode=ms.GRAPH_MODE)
    api.clear_cache()
    try:
        got = _np(ms.jit(fn)(*args))
        (program,) = api.cached_programs()
        left = [
            op.name for op in program.module.walk() if op.name in ("mindir.vmap", "mindir.grad")
        ]
        assert not left, left
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return got


def _check_grad(loss, arrays, positions, pynative):  # type: ignore[no-untyped-def]
    """ms.grad of `loss` in graph mode == PyNative (when it can: PyNative takes no
    gradient of a gradient) == central differences of the PyNative loss."""
    tensors = [ms.Tensor(a) for a in arrays]
    grad = ms.grad(loss, positions)
    graph = _graph(grad, *tensors)
    eager = _np(grad(*tensors)) if pynative else graph
    if not isinstance(positions, tuple):
        graph, eager = [graph], [eager]
        positions = (positions,)
    for g, e, p in zip(graph, eager, positions, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-12)
        work = [a.copy() for a in arrays]

        def value(work=work):  # type: ignore[no-untyped-def]
            return float(loss(*[ms.Tensor(w) for w in work]).asnumpy())

        fd = central_differences(value, work[p], 1e-6)
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(
    "loss,shapes,positions,pynative",
    [
        (P.loss_axis0, [(3, 4)], 0, True),
        (P.loss_axis1, [(3, 4)], 0, True),
        (P.loss_out_axis, [(2, 5)], 0, True),
        (P.loss_shared, [(3, 4), (4, 2)], (0, 1), True),
        (P.loss_captured, [(3, 4)], 0, True),
        (P.loss_two_outputs, [(3, 2)], 0, True),
        (P.loss_vmap_grad, [(3, 2)], 0, False),
        (P.loss_grad_vmap_grad_vmap, [(2, 3)], 0, False),
    ],
    ids=[
        "in_axes0",
        "in_axes1_out_axes1",
        "out_axes_last",
        "in_axes_none",
        "captured_weight",
        "two_outputs",
        "grad_vmap_grad",
        "grad_vmap_grad_vmap",
    ],
)
def test_grad_of_vmap_matches_pynative_and_finite_differences(loss, shapes, positions, pynative):
    _check_grad(loss, [_a(*s) for s in shapes], positions, pynative)


def test_the_issue_example_is_the_analytic_gradient():
    x = _a(3, 4)
    got = _graph(ms.grad(P.loss_axis0), ms.Tensor(x))
    np.testing.assert_allclose(got, np.cos(x) * x + np.sin(x), rtol=1e-12)


def test_value_and_grad_of_a_vmap():
    arrays = [_a(3, 4), _a(4, 2)]
    tensors = [ms.Tensor(a) for a in arrays]
    vg = ms.value_and_grad(P.loss_shared, (0, 1))
    (v, (gx, gw)) = _graph(vg, *tensors)
    ev, (ex, ew) = _np(vg(*tensors))
    np.testing.assert_allclose(v, ev, rtol=1e-12)
    np.testing.assert_allclose(gx, ex, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gw, ew, rtol=1e-9, atol=1e-12)
    want = (np.tanh(arrays[0] @ arrays[1]) ** 2).sum()
    np.testing.assert_allclose(v, want, rtol=1e-12)


def test_vmap_of_grad_of_vmap():
    x = _a(2, 3)
    got = _graph(P.vmap_grad_vmap, ms.Tensor(x))
    np.testing.assert_allclose(got, _np(P.vmap_grad_vmap(ms.Tensor(x))), rtol=1e-12)
    np.testing.assert_allclose(got, np.cos(x) * x + np.sin(x), rtol=1e-12)


def test_grad_by_list_through_a_vmap_over_a_cell_with_parameters():
    net = P.RowNet()
    loss = P.VmapLoss(net)
    grad = P.GradByList(loss)
    x = ms.Tensor(_a(5, 4))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        (gx,), (gw, gb) = _np(grad(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    (ex,), (ew, eb) = _np(grad(x))
    for g, e in ((gx, ex), (gw, ew), (gb, eb)):
        np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-12)

    def value():  # type: ignore[no-untyped-def]
        return float(loss(x).asnumpy())

    assert_parameter_grads_match(
        value,
        [net.w, net.b],
        [ms.Tensor(gw), ms.Tensor(gb)],
        entries=12,
        eps=1e-6,
        rtol=1e-5,
        atol=1e-7,
    )
