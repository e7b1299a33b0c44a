"""ms.grad / ms.value_and_grad / ops.GradOperation: results, packing, both modes, errors."""

from __future__ import annotations

import glob
import os

import grad_programs as P
import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, ops


def f32(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def arrays(x):
    if isinstance(x, tuple | list):
        return [arrays(v) for v in x]
    return x.asnumpy()


def close(a, b, tol=1e-5):
    if isinstance(a, tuple | list):
        assert isinstance(b, tuple | list) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            close(x, y, tol)
        return
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


X, Y = f32(3, 4, seed=1), f32(4, seed=2)


def expected_two_inputs():
    t = np.tanh(X.asnumpy())
    return (1 - t * t) * Y.asnumpy(), t.sum(0)


def test_grad_position_int_and_tuple_both_modes():
    gx, gy = expected_two_inputs()
    close(arrays(ms.grad(P.two_inputs)(X, Y)), gx)
    close(arrays(P.grad_first(X, Y)), gx)
    both = ms.grad(P.two_inputs, (0, 1))(X, Y)
    assert isinstance(both, tuple) and len(both) == 2
    close(arrays(both), [gx, gy])
    close(arrays(P.grad_both(X, Y)), [gx, gy])


def test_tuple_outputs_are_summed_like_mindspore():
    x, y = f32(3, seed=3), f32(3, seed=4)
    want = [y.asnumpy() + np.exp(x.asnumpy()), x.asnumpy()]
    close(arrays(ms.grad(P.two_outputs, (0, 1))(x, y)), want)
    close(arrays(P.grad_outputs_summed(x, y)), want)


def _linear_reference(net, x, t):
    w, b = net.w.asnumpy(), net.b.asnumpy()
    y = x @ w + b
    dy = 2 * (y - t)
    return ((y - t) ** 2).sum(), y, dy @ w.T, x.T @ dy, dy.sum(0)


def test_value_and_grad_with_weights_and_aux_both_modes():
    x, t = f32(5, 3, seed=5).asnumpy(), f32(5, 2, seed=6).asnumpy()
    net = P.Linear()
    loss, y, dx, dw, db = _linear_reference(net, x, t)
    fn = ms.value_and_grad(P.loss_and_out, 1, net.trainable_params(), has_aux=True)
    (l_py, y_py), (dx_py, (dw_py, db_py)) = fn(net, Tensor(x), Tensor(t))
    close([l_py.asnumpy(), y_py.asnumpy()], [loss, y])
    close([dx_py.asnumpy(), dw_py.asnumpy(), db_py.asnumpy()], [dx, dw, db])
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        (l_g, y_g), (dx_g, (dw_g, db_g)) = P.Trainer(net)(Tensor(x), Tensor(t))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    close([l_g.asnumpy(), y_g.asnumpy(), dx_g.asnumpy()], [loss, y, dx])
    close([dw_g.asnumpy(), db_g.asnumpy()], [dw, db])


def test_grad_with_aux_returns_grads_and_aux():
    x, t = f32(2, 3, seed=7), f32(2, 2, seed=8)
    net = P.Linear()
    g, aux = ms.grad(P.loss_and_out, 1, has_aux=True)(net, x, t)
    _, y, dx, _, _ = _linear_reference(net, x.asnumpy(), t.asnumpy())
    close(g.asnumpy(), dx)
    assert isinstance(aux, tuple) and len(aux) == 1
    close(aux[0].asnumpy(), y)


def test_weights_only_both_modes():
    x, t = f32(4, 3, seed=9), f32(4, 2, seed=10)
    net = P.Linear()
    _, _, _, dw, db = _linear_reference(net, x.asnumpy(), t.asnumpy())
    eager = ms.grad(P.loss_of, None, net.trainable_params())(net, x, t)
    graph = P.weights_only(net, x, t)
    for got in (eager, graph):
        assert isinstance(got, tuple) and len(got) == 2
        close(arrays(got), [dw, db])


def test_grad_operation_sens_param_and_by_list():
    x, y, s = f32(3, seed=11), f32(3, seed=12), f32(3, seed=13)
    t = np.tanh(x.asnumpy())
    want = [(1 - t * t) * y.asnumpy() * s.asnumpy(), t * s.asnumpy()]
    close(arrays(P.SensNet()(x, y, s)), want)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        close(arrays(P.SensNet()(x, y, s)), want)
        net = P.Linear()
        xs = f32(2, 3, seed=14)
        graph = P.ByList(net)(xs)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = P.ByList(net)(xs)
    ones = np.ones((2, 2), np.float32)
    want2 = [[ones @ net.w.asnumpy().T], [xs.asnumpy().T @ ones, ones.sum(0)]]
    close(arrays(graph), want2)
    close(arrays(eager), want2)


def test_second_order_in_graph_mode():
    x = Tensor(np.array([1.0, 2.0, -3.0], np.float32))
    close(P.second_order(x).asnumpy(), 6 * x.asnumpy())


# --- the notebook's BackwardNet (doc 002) -----------------------------------------------


def _final_mindir(directory: str) -> str:
    (path,) = glob.glob(os.path.join(directory, "*_mindir_load_elim.mlir"))
    with open(path) as f:
        return f.read()


@pytest.mark.parametrize("level", ["0", "1", "2"])
def test_backward_net_copies_each_load(level, monkeypatch, tmp_path):
    """Two Loads at different states reach one add in the backward: three TensorMoves."""
    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", level)
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "1")
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS_PATH", str(tmp_path))
    grads = P.BackwardNet(P.ForwardNet())(ms.tensor(np.array(1), ms.int32))
    assert isinstance(grads, tuple) and len(grads) == 1
    assert grads[0].dtype == ms.int32 and grads[0].asnumpy().tolist() == 3
    text = _final_mindir(str(tmp_path))
    assert text.count("mindir.tensor_move") == 3
    assert text.count("mindir.load") == 3


def test_backward_net_level_3_reads_the_last_value(monkeypatch):
    """Without copies the backward reads the Parameter's last value: MindSpore 2.10's 6."""
    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", "3")
    with pytest.warns(UserWarning):
        grads = P.BackwardNet(P.ForwardNet())(ms.tensor(np.array(1), ms.int32))
    assert grads[0].asnumpy().tolist() == 6


def test_backward_net_pynative_reads_each_state():
    grad = ops.GradOperation(get_all=True)
    net = P.ForwardNet()
    grads = grad(net)(ms.tensor(np.array(1), ms.int32))
    assert grads[0].asnumpy().tolist() == 3
    assert net.weight.asnumpy().tolist() == 2


# --- errors ---------------------------------------------------------------------------------


def test_bad_arguments_are_clear():
    with pytest.raises(ValueError, match="can not be None at the same time"):
        ms.grad(P.two_inputs, None)
    with pytest.raises(TypeError, match="grad_position must be"):
        ms.grad(P.two_inputs, 1.5)
    with pytest.raises(TypeError, match="weights must be Parameters"):
        ms.grad(P.two_inputs, 0, [X])
    with pytest.raises(ValueError, match="out of range"):
        ms.grad(P.two_inputs, 2)(X, Y)
    with pytest.raises(TypeError, match="not a Tensor"):
        ms.grad(lambda x, n: x * n, 1)(X, 3)
    with pytest.raises(TypeError, match="at least two outputs"):
        ms.grad(P.two_inputs, 0, has_aux=True)(X, Y)
    with pytest.raises(ValueError, match="does not match the output"):
        ops.GradOperation(sens_param=True)(P.two_inputs_vector)(X, Y, f32(2))
    with pytest.raises(ValueError, match="needs the weights"):
        ops.GradOperation(get_by_list=True)(P.two_inputs)


def test_gradient_through_a_runtime_loop():
    """x doubles until its sum reaches n: from a sum of 3 below 10, two doublings."""
    x = Tensor(np.ones(3, np.float32))
    got = P.through_runtime_loop(x, Tensor(np.float32(10)))
    np.testing.assert_allclose(got.asnumpy(), np.full(3, 4, np.float32))
    # past n, the loop never runs: the gradient is the identity's
    got = P.through_runtime_loop(x * 5, Tensor(np.float32(10)))
    np.testing.assert_allclose(got.asnumpy(), np.ones(3, np.float32))


def test_pynative_second_order_and_return_ids_are_clear_errors():
    inner = ms.grad(P.cube)
    with pytest.raises(NotImplementedError, match="compile the outer function with @ms.jit"):
        ms.grad(lambda x: inner(x))(Tensor(np.array([1.0], np.float32)))
    with pytest.raises(NotImplementedError, match="return_ids"):
        ms.value_and_grad(P.cube, return_ids=True)


def test_top_level_call_in_graph_mode_compiles_forward_and_backward():
    from mindjit.frontend.graph import api

    api.clear_cache()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        grads = ops.GradOperation(get_all=True)(P.ForwardNet())(ms.tensor(np.array(1), ms.int32))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert grads[0].asnumpy().tolist() == 3
    (program,) = api.cached_programs()
    assert program.entry_name == "call_gradient"


def test_a_function_returning_no_tensor_is_a_clear_error():
    with pytest.raises(TypeError, match="must return a Tensor"):
        ms.grad(P.returns_a_number)(X)
    with pytest.raises(Exception, match="must return a Tensor") as err:
        P.grad_of_a_number(X)
    assert "grad_programs.py" in str(err.value)
