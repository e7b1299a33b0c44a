"""nn.Momentum's and nn.Adam's updates are one `mindir.apply_momentum` /
`mindir.apply_adam` per Parameter in graph mode (MindSpore's ApplyMomentum and Adam)
and give PyNative's bits: losses, Parameters and moments, with a fixed, a dynamic
and a per-group learning rate. Nesterov, AMSGrad, and any operand not float32, keep
the ops written out."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn

RNG = np.random.default_rng(7)
X = Tensor(RNG.standard_normal((4, 3)).astype(np.float32))
Y = Tensor(RNG.standard_normal((4, 2)).astype(np.float32))


class _Net(nn.Cell):
    def __init__(self, dtype=ms.float32):
        super().__init__()
        self.dense = nn.Dense(3, 5)
        self.out = nn.Dense(5, 2)
        if dtype != ms.float32:
            self.out.to_float(dtype)

    def construct(self, x):
        return self.out(ms.ops.relu(self.dense(x)))


def _optimizer(net, how):
    if how.startswith("adam"):
        lr = nn.ExponentialDecayLR(0.01, 0.5, 1) if how == "adam schedule" else 0.01
        return nn.Adam(net.trainable_params(), lr, use_amsgrad=how == "adam amsgrad")
    if how == "groups":
        groups = [
            {"params": net.dense.trainable_params(), "lr": 0.05},
            {"params": net.out.trainable_params()},
        ]
        return nn.Momentum(groups, learning_rate=0.1, momentum=0.9)
    if how == "schedule":
        lr = nn.ExponentialDecayLR(0.1, 0.5, 1)
        return nn.Momentum(net.trainable_params(), lr, 0.9)
    if how == "nesterov":
        return nn.Momentum(net.trainable_params(), 0.1, 0.9, use_nesterov=True)
    return nn.Momentum(net.trainable_params(), 0.1, 0.9)


def _train(mode, how, save_to=None):
    kwargs = {"save_graphs": True, "save_graphs_path": str(save_to)} if save_to else {}
    ms.set_context(mode=mode, **kwargs)
    try:
        ms.set_seed(5)
        net = _Net()
        opt = _optimizer(net, how)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        step.set_train()
        losses = [step(X, Y).asnumpy() for _ in range(3)]
        moments = (*opt.moment1, *opt.moment2) if isinstance(opt, nn.Adam) else opt.moments
        state = [p.asnumpy().copy() for p in (*net.trainable_params(), *moments)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False)
    return losses, state


def _last_mindir(tmp_path) -> str:
    (last,) = tmp_path.rglob("*_mindir_load_elim.mlir")
    return last.read_text()


@pytest.mark.parametrize("how", ["fixed", "groups", "schedule", "adam", "adam schedule"])
def test_graph_gives_pynative_bits_with_one_op_per_parameter(how, tmp_path):
    graph = _train(ms.GRAPH_MODE, how, tmp_path)
    pynative = _train(ms.PYNATIVE_MODE, how)
    for g, p in zip([*graph[0], *graph[1]], [*pynative[0], *pynative[1]]):
        np.testing.assert_array_equal(g, p)
    text = _last_mindir(tmp_path)
    op = "mindir.apply_adam " if how.startswith("adam") else "mindir.apply_momentum "
    assert text.count(op) == 4  # two weights, two biases
    # left: the optimizer's global_step (Adam: and its two beta powers)
    assert text.count("mindir.assign ") == (3 if how.startswith("adam") else 1)


def test_amsgrad_keeps_the_ops_written_out(tmp_path):
    graph = _train(ms.GRAPH_MODE, "adam amsgrad", tmp_path)
    pynative = _train(ms.PYNATIVE_MODE, "adam amsgrad")
    for g, p in zip([*graph[0], *graph[1]], [*pynative[0], *pynative[1]]):
        np.testing.assert_array_equal(g, p)
    assert "mindir.apply_adam " not in _last_mindir(tmp_path)


def test_nesterov_keeps_the_ops_written_out(tmp_path):
    graph = _train(ms.GRAPH_MODE, "nesterov", tmp_path)
    pynative = _train(ms.PYNATIVE_MODE, "nesterov")
    for g, p in zip([*graph[0], *graph[1]], [*pynative[0], *pynative[1]]):
        np.testing.assert_array_equal(g, p)
    text = _last_mindir(tmp_path)
    assert "mindir.apply_momentum " not in text
    assert text.count("mindir.assign ") == 8 + 1  # two per Parameter, and global_step


def test_the_update_matches_mindsporess_formula_in_float64():
    """accum = accum * momentum + grad; var -= accum * lr, three steps by hand."""
    ms.set_context(mode=ms.GRAPH_MODE)
    w = ms.Parameter(Tensor(np.array([1.0, -2.0, 3.0], np.float32)), name="w")
    opt = nn.Momentum([w], learning_rate=0.1, momentum=0.9)
    grads = [RNG.standard_normal(3).astype(np.float32) for _ in range(3)]

    @ms.jit
    def update(g):
        return opt((g,))

    want_w, want_m = w.asnumpy().astype(np.float64), np.zeros(3)
    for g in grads:
        update(Tensor(g))
        want_m = want_m * 0.9 + g
        want_w = want_w - want_m * 0.1
    np.testing.assert_allclose(w.asnumpy(), want_w, rtol=1e-6)
    np.testing.assert_allclose(opt.moments[0].asnumpy(), want_m, rtol=1e-6)


def test_a_float16_parameter_keeps_the_ops_written_out(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        w = ms.Parameter(Tensor(np.ones(3, np.float16)), name="w16")
        opt = nn.Momentum([w], learning_rate=0.1, momentum=0.9)
        ms.jit(lambda g: opt((g,)))(Tensor(np.ones(3, np.float16)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False)
    np.testing.assert_array_equal(w.asnumpy(), np.full(3, 1 - np.float16(0.1), np.float16))
    assert "mindir.apply_momentum " not in _last_mindir(tmp_path)


class _DocsApplyMomentum(nn.Cell):
    """MindSpore's ApplyMomentum example: a Cell holding the primitive and two Parameters."""

    def __init__(self, **kwargs):
        super().__init__()
        self.apply_momentum = ms.ops.ApplyMomentum(**kwargs)
        self.variable = ms.Parameter(
            Tensor(np.array([[0.6, 0.4], [0.1, 0.5]], np.float32)), "variable"
        )
        self.accumulate = ms.Parameter(
            Tensor(np.array([[0.6, 0.5], [0.2, 0.6]], np.float32)), "accumulate"
        )

    def construct(self, lr, grad, moment):
        return self.apply_momentum(self.variable, self.accumulate, lr, grad, moment)


@pytest.mark.parametrize("kwargs", [{}, {"use_nesterov": True}, {"gradient_scale": 0.5}])
def test_the_apply_momentum_primitive_in_both_modes(kwargs, tmp_path):
    """MindSpore's docs example (lr 0.1, momentum 0.9 as Tensors): the updated
    variable, both Parameters written, graph == PyNative bit for bit, against
    float64 by hand."""
    lr, moment = Tensor(np.float32(0.1)), Tensor(np.float32(0.9))
    grad = Tensor(np.array([[0.3, 0.7], [0.1, 0.8]], np.float32))
    results = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            net = _DocsApplyMomentum(**kwargs)
            out = net(lr, grad, moment)
            results[mode] = [out.asnumpy(), net.variable.asnumpy(), net.accumulate.asnumpy()]
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    for g, p in zip(results[ms.GRAPH_MODE], results[ms.PYNATIVE_MODE]):
        np.testing.assert_array_equal(g, p)
    var, acc, g = (
        np.array([[0.6, 0.4], [0.1, 0.5]]),
        np.array([[0.6, 0.5], [0.2, 0.6]]),
        grad.asnumpy(),
    )
    g = g * kwargs.get("gradient_scale", 1.0)
    acc = acc * 0.9 + g
    var = var - (g * 0.1 + acc * 0.9 * 0.1 if kwargs.get("use_nesterov") else acc * 0.1)
    out, new_var, new_acc = results[ms.GRAPH_MODE]
    np.testing.assert_allclose(new_acc, acc, rtol=1e-6)
    np.testing.assert_allclose(new_var, var, rtol=1e-6)
    np.testing.assert_array_equal(out, new_var)


def test_the_apply_momentum_primitive_checks_its_arguments():
    with pytest.raises(TypeError, match="'use_nesterov' must be a bool"):
        ms.ops.ApplyMomentum(use_nesterov=1)
    with pytest.raises(TypeError, match="'gradient_scale' must be a float"):
        ms.ops.ApplyMomentum(gradient_scale=1)
    with pytest.raises(TypeError, match="'variable' must be a Parameter, got Tensor"):
        ms.ops.ApplyMomentum()(Tensor(np.ones(2, np.float32)), None, 0.1, None, 0.9)
