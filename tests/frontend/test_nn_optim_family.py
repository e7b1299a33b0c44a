"""nn.AdamWeightDecay, nn.RMSProp, nn.Adagrad and nn.Lamb: MindSpore's update formulas
against a numpy reference over several steps, PyNative mode against one `@jit`
graph per step, their state Parameters, defaults and argument errors; and each
optimizer with a dynamic learning rate (a list, a 1-D Tensor, a schedule)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import test_nn_optim as T

import mindjit as ms
from mindjit import Tensor, nn

STEPS = T.STEPS


@pytest.fixture(autouse=True)
def _pynative_after():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _lr(learning_rate: Any, k: int) -> float:
    """The learning rate of step k: a float, or a list (its last value past the end)."""
    if isinstance(learning_rate, list | tuple):
        return learning_rate[min(k, len(learning_rate) - 1)]
    return learning_rate


def _decayed(name: str) -> bool:
    return "beta" not in name and "gamma" not in name


# --- numpy references of MindSpore's formulas -----------------------------------------------


def adam_weight_decay_reference(  # type: ignore[no-untyped-def]
    params, names, steps, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0
):
    p = [x.copy() for x in params]
    m = [np.zeros_like(x) for x in p]
    v = [np.zeros_like(x) for x in p]
    for k, grads in enumerate(steps):
        lr = _lr(learning_rate, k)
        for i, g in enumerate(grads):
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            update = m[i] / (np.sqrt(v[i]) + eps)
            if _decayed(names[i]):
                update = update + weight_decay * p[i]
            p[i] = p[i] - lr * update
    return p, {"moments1": m, "moments2": v}


def rmsprop_reference(  # type: ignore[no-untyped-def]
    params,
    names,
    steps,
    learning_rate=0.1,
    decay=0.9,
    momentum=0.0,
    epsilon=1e-10,
    centered=False,
    loss_scale=1.0,
    weight_decay=0.0,
):
    p = [x.copy() for x in params]
    ms_ = [np.ones_like(x) for x in p]
    mom = [np.zeros_like(x) for x in p]
    mg = [np.zeros_like(x) for x in p]
    for k, grads in enumerate(steps):
        lr = _lr(learning_rate, k)
        for i, g in enumerate(grads):
            g = T._prepare(g, p[i], names[i], weight_decay, loss_scale)
            ms_[i] = decay * ms_[i] + (1 - decay) * g * g
            denom = ms_[i]
            if centered:
                mg[i] = decay * mg[i] + (1 - decay) * g
                denom = ms_[i] - mg[i] * mg[i]
            mom[i] = momentum * mom[i] + lr * g / np.sqrt(denom + epsilon)
            p[i] = p[i] - mom[i]
    state = {"ms": ms_, "moment": mom}
    if centered:
        state["mg"] = mg
    return p, state


def adagrad_reference(  # type: ignore[no-untyped-def]
    params,
    names,
    steps,
    accum=0.1,
    learning_rate=0.001,
    update_slots=True,
    loss_scale=1.0,
    weight_decay=0.0,
):
    p = [x.copy() for x in params]
    acc = [np.full_like(x, accum) for x in p]
    for k, grads in enumerate(steps):
        lr = _lr(learning_rate, k)
        for i, g in enumerate(grads):
            g = T._prepare(g, p[i], names[i], weight_decay, loss_scale)
            if update_slots:
                acc[i] = acc[i] + g * g
            p[i] = p[i] - lr * g / np.sqrt(acc[i])
    return p, {"accum": acc}


def lamb_reference(  # type: ignore[no-untyped-def]
    params, names, steps, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0
):
    p = [x.copy() for x in params]
    m = [np.zeros_like(x) for x in p]
    v = [np.zeros_like(x) for x in p]
    for k, grads in enumerate(steps):
        lr, t = _lr(learning_rate, k), k + 1
        for i, g in enumerate(grads):
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            m_hat, v_hat = m[i] / (1 - beta1**t), v[i] / (1 - beta2**t)
            w_norm, g_norm = np.linalg.norm(p[i]), np.linalg.norm(g)
            r_norm = np.linalg.norm(m_hat / np.sqrt(v_hat + eps) + weight_decay * p[i])
            ratio = w_norm / r_norm if w_norm > 0 and g_norm > 0 else 1.0
            ratio = min(max(ratio, 0.0), 10.0)
            update = m_hat / (np.sqrt(v_hat) + eps)
            if _decayed(names[i]):
                update = update + weight_decay * p[i]
            p[i] = p[i] - ratio * lr * update
    return p, {"moments1": m, "moments2": v}


CASES: list[tuple[str, Any, Any, dict]] = [
    ("adamwd", nn.AdamWeightDecay, adam_weight_decay_reference, {}),
    (
        "adamwd-decay",
        nn.AdamWeightDecay,
        adam_weight_decay_reference,
        {"learning_rate": 0.01, "beta1": 0.8, "beta2": 0.99, "eps": 1e-8, "weight_decay": 0.1},
    ),
    (
        "adamwd-dynamic",
        nn.AdamWeightDecay,
        adam_weight_decay_reference,
        {"learning_rate": [0.01, 0.02, 0.005], "weight_decay": 0.01},
    ),
    ("rmsprop", nn.RMSProp, rmsprop_reference, {}),
    ("rmsprop-momentum", nn.RMSProp, rmsprop_reference, {"learning_rate": 0.01, "momentum": 0.9}),
    (
        "rmsprop-centered",
        nn.RMSProp,
        rmsprop_reference,
        {"learning_rate": 0.01, "decay": 0.8, "momentum": 0.5, "centered": True, "epsilon": 1e-6},
    ),
    (
        "rmsprop-decay-scale",
        nn.RMSProp,
        rmsprop_reference,
        {"learning_rate": 0.01, "weight_decay": 0.1, "loss_scale": 4.0},
    ),
    ("adagrad", nn.Adagrad, adagrad_reference, {}),
    ("adagrad-lr", nn.Adagrad, adagrad_reference, {"accum": 0.5, "learning_rate": 0.1}),
    (
        "adagrad-no-slots",
        nn.Adagrad,
        adagrad_reference,
        {"learning_rate": 0.1, "update_slots": False, "weight_decay": 0.1, "loss_scale": 2.0},
    ),
    ("lamb", nn.Lamb, lamb_reference, {"learning_rate": 0.01}),
    (
        "lamb-decay",
        nn.Lamb,
        lamb_reference,
        {"learning_rate": 0.05, "beta1": 0.8, "weight_decay": 0.1},
    ),
    ("lamb-dynamic", nn.Lamb, lamb_reference, {"learning_rate": (0.05, 0.01), "eps": 1e-4}),
]


@pytest.mark.parametrize("name, cls, reference, kwargs", CASES, ids=[c[0] for c in CASES])
def test_pynative_and_graph_equal_the_numpy_formulas(name, cls, reference, kwargs):
    eager_net, eager_opt, eager_results = T._train(cls, kwargs, graph=False)
    graph_net, graph_opt, graph_results = T._train(cls, kwargs, graph=True)
    start = T.Net()
    names = [p.name for p in start.trainable_params()]
    want, want_state = reference(
        T._values(start.trainable_params()),
        names,
        [[g.asnumpy().astype(np.float64) for g in T.fake_grads(s)] for s in range(STEPS)],
        **kwargs,
    )
    eager, graph = T._values(eager_net.trainable_params()), T._values(graph_net.trainable_params())
    for e, g, w in zip(eager, graph, want, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(e, w, rtol=1e-5, atol=1e-6)
    assert not np.allclose(eager[0], T._values(start.trainable_params())[0])  # it did train
    for attr, values in want_state.items():
        for opt in (eager_opt, graph_opt):
            for state, w in zip(getattr(opt, attr), values, strict=True):
                np.testing.assert_allclose(state.asnumpy(), w, rtol=1e-5, atol=1e-6)
    for opt in (eager_opt, graph_opt):
        assert opt.global_step.asnumpy().tolist() == [STEPS]
    assert eager_results == graph_results == [(True, True, True)] * STEPS


def test_adam_weight_decay_is_not_adam():
    """No bias correction, and the decay is decoupled: with weight_decay the first
    step of AdamWeightDecay moves p by lr * (g / (|g| + eps) + wd * p) (m/sqrt(v) =
    0.1 g / sqrt(0.001 g^2) on the first step)."""
    net = T.Net()
    before = T._values(net.trainable_params())
    opt = nn.AdamWeightDecay(net.trainable_params(), 0.01, weight_decay=0.5)
    grads = T.fake_grads(0)
    opt(grads)
    g = grads[0].asnumpy().astype(np.float64)
    first = 0.1 * g / (np.sqrt(0.001) * np.abs(g) + 1e-6)
    want = before[0] - 0.01 * (first + 0.5 * before[0])
    np.testing.assert_allclose(net.trainable_params()[0].asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_state_parameters_and_names():
    net = T.Net()
    params = net.trainable_params()
    assert [n for n, _ in nn.AdamWeightDecay(params).parameters_and_names()] == [
        "w",  # the ParameterTuple `parameters` registers the network's (MindSpore's rule)
        "b",
        "norm.gamma",
        "global_step",
        "adam_m.w",
        "adam_m.b",
        "adam_m.norm.gamma",
        "adam_v.w",
        "adam_v.b",
        "adam_v.norm.gamma",
    ]
    rms = nn.RMSProp(params, centered=True)
    assert [p.name for p in rms.mg] == ["mean_grad.w", "mean_grad.b", "mean_grad.norm.gamma"]
    assert [p.name for p in rms.ms] == ["mean_square.w", "mean_square.b", "mean_square.norm.gamma"]
    assert rms.ms[0].asnumpy().tolist() == [[1.0] * 3] * 2  # MindSpore 2.x starts it at one
    assert [p.name for p in rms.moment][0] == "moment.w"
    assert not hasattr(nn.RMSProp(params), "mg")
    ada = nn.Adagrad(params, accum=0.25)
    assert [p.name for p in ada.accum][0] == "accum.w"
    assert ada.accum[1].asnumpy().tolist() == [0.25] * 3
    lamb = nn.Lamb(params, 0.1)
    assert [p.name for p in lamb.moments1][0] == "lamb_m.w"
    assert [p.name for p in lamb.moments2][0] == "lamb_v.w"
    for opt in (rms, ada, lamb):
        assert opt.trainable_params() == params  # the network's only: the state is not trained
        assert isinstance(opt, nn.Optimizer)


def test_defaults_follow_mindspore():
    params = T.Net().trainable_params()
    a = nn.AdamWeightDecay(params)
    assert (a.learning_rate, a.beta1, a.beta2, a.eps, a.weight_decay) == (
        1e-3,
        0.9,
        0.999,
        1e-6,
        0.0,
    )
    r = nn.RMSProp(params)
    assert (r.learning_rate, r.decay, r.momentum, r.epsilon, r.centered, r.use_locking) == (
        0.1,
        0.9,
        0.0,
        1e-10,
        False,
        False,
    )
    assert (r.loss_scale, r.weight_decay) == (1.0, 0.0)
    g = nn.Adagrad(params)
    assert (g.initial_accum, g.learning_rate, g.update_slots, g.loss_scale, g.weight_decay) == (
        0.1,
        0.001,
        True,
        1.0,
        0.0,
    )
    lamb = nn.Lamb(params, 0.1)
    assert (lamb.beta1, lamb.beta2, lamb.eps, lamb.weight_decay) == (0.9, 0.999, 1e-6, 0.0)
    with pytest.raises(TypeError):
        nn.Lamb(params)  # learning_rate is required, as in MindSpore


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda p: nn.AdamWeightDecay(p, beta1=1.0), ValueError, "'beta1' must be in range"),
        (lambda p: nn.AdamWeightDecay(p, beta2=0), TypeError, "'beta2' must be type of float"),
        (lambda p: nn.AdamWeightDecay(p, eps=0.0), ValueError, "'eps' must be a positive"),
        (lambda p: nn.AdamWeightDecay(p, weight_decay=-0.1), ValueError, "'weight_decay'"),
        (lambda p: nn.RMSProp(p, decay=-0.1), ValueError, "'decay' must be a non-negative"),
        (lambda p: nn.RMSProp(p, momentum=1), TypeError, "'momentum' must be type of float"),
        (lambda p: nn.RMSProp(p, epsilon=0.0), ValueError, "'epsilon' must be a positive"),
        (lambda p: nn.RMSProp(p, centered=1), TypeError, "'centered' must be type of bool"),
        (lambda p: nn.RMSProp(p, loss_scale=0.0), ValueError, "'loss_scale'"),
        (lambda p: nn.Adagrad(p, accum=-1.0), ValueError, "'accum' must be a non-negative"),
        (lambda p: nn.Adagrad(p, update_slots=None), TypeError, "'update_slots'"),
        (lambda p: nn.Lamb(p, 0.1, beta1=0.0), ValueError, "'beta1' must be in range"),
        (lambda p: nn.Lamb(p, -0.1), ValueError, "'learning_rate' must be at least"),
        (lambda p: nn.Lamb(p, [0.1, True]), TypeError, "dynamic 'learning_rate'"),
        (lambda p: nn.Lamb(p, []), ValueError, "must not be empty"),
        (lambda p: nn.SGD(p, Tensor(np.ones((2, 2), np.float32))), ValueError, "dimension"),
    ],
)
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make(T.Net().trainable_params())


# --- dynamic learning rates -------------------------------------------------------------------


@pytest.mark.parametrize("how", ["pynative", "jit", "graph-mode"])
@pytest.mark.parametrize(
    "learning_rate, want",
    [
        ([0.1, 0.2, 0.3], [0.1, 0.2, 0.3, 0.3, 0.3]),  # the last value past the end
        ((0.5, 0.25), [0.5, 0.25, 0.25, 0.25, 0.25]),
        (Tensor(np.array([0.3, 0.1, 0.2], np.float32)), [0.3, 0.1, 0.2, 0.2, 0.2]),
        (nn.WarmUpLR(0.4, 2), [0.0, 0.2, 0.4, 0.4, 0.4]),
        (nn.CosineDecayLR(0.0, 0.2, 2), [0.2, 0.1, 0.0, 0.0, 0.0]),
        (Tensor(np.array(0.05, np.float32)), [0.05] * 5),  # 0-d: fixed
    ],
)
def test_the_learning_rate_of_step_k(how, learning_rate, want):
    """Plain SGD with gradient 1: each step moves p by exactly the lr of that step,
    which `get_lr()` gives before the step (PyNative, a @jit step, GRAPH_MODE)."""
    p = ms.Parameter(Tensor(np.zeros(2, np.float32)), name="w")
    opt = nn.SGD([p], learning_rate=learning_rate)
    step = T.P.OptimizerStep(opt) if how == "jit" else opt
    moved, reported = [], []
    for _ in range(5):
        before = p.asnumpy().copy()
        reported.append(float(np.asarray(getattr(opt.get_lr(), "asnumpy", lambda: 0)())))
        ms.set_context(mode=ms.GRAPH_MODE if how == "graph-mode" else ms.PYNATIVE_MODE)
        step((Tensor(np.ones(2, np.float32)),))
        ms.set_context(mode=ms.PYNATIVE_MODE)
        moved.append(float((before - p.asnumpy())[0]))
    np.testing.assert_allclose(moved, want, rtol=1e-6, atol=1e-7)
    if opt.dynamic_lr:
        np.testing.assert_allclose(reported, want, rtol=1e-6, atol=1e-7)
    assert opt.global_step.asnumpy().tolist() == [5]


def test_a_dynamic_learning_rate_is_state_of_the_optimizer():
    p = ms.Parameter(Tensor(np.zeros(2, np.float32)), name="w")
    opt = nn.Momentum([p], [0.1, 0.05], 0.9)
    assert opt.dynamic_lr and not nn.Momentum([p], 0.1, 0.9).dynamic_lr
    names = [n for n, _ in opt.parameters_and_names()]
    assert names == ["w", "global_step", "moments.w", "learning_rate.learning_rate"]
    assert opt.learning_rate.learning_rate.name == "learning_rate"
    assert opt.trainable_params() == [p]
    assert "learning_rate=IteratorLearningRate" in repr(opt)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_schedule_equals_its_list(mode):
    """Momentum with CosineDecayLR trains as with nn.cosine_decay_lr's list (one
    step per epoch), in a TrainOneStepCell, in both modes."""
    ms.set_context(mode=mode)
    results = []
    for lr in (nn.CosineDecayLR(0.01, 0.1, 3), nn.cosine_decay_lr(0.01, 0.1, 6, 1, 3)):
        ms.set_seed(2)
        net = nn.Dense(3, 2)
        opt = nn.Momentum(net.trainable_params(), lr, 0.9)
        train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        x = Tensor(np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32))
        y = Tensor(np.ones((4, 2), np.float32))
        losses = [float(train(x, y).asnumpy()) for _ in range(6)]
        results.append((losses, T._values(net.trainable_params())))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    for a, b in zip(results[0][1], results[1][1], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


class HalfSGD(nn.Optimizer):
    """A user's optimizer in MindSpore's style: its construct calls get_lr()."""

    def __init__(self, params, learning_rate):
        super().__init__(learning_rate, params)

    def construct(self, gradients):
        lr = self.get_lr()
        for i in range(len(self.parameters)):
            ms.ops.assign(self.parameters[i], self.parameters[i] - gradients[i] * lr * 0.5)
        return self.finish_step()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_user_optimizer_calling_get_lr(mode):
    ms.set_context(mode=mode)
    p = ms.Parameter(Tensor(np.zeros(1, np.float32)), name="w")
    opt = HalfSGD([p], nn.WarmUpLR(0.4, 2))
    for _ in range(3):
        opt((Tensor(np.ones(1, np.float32)),))
    np.testing.assert_allclose(p.asnumpy(), [-(0.0 + 0.1 + 0.2)], rtol=1e-6)


@pytest.mark.parametrize(
    "make",
    [
        lambda p: nn.AdamWeightDecay(p, [0.02, 0.01, 0.005], weight_decay=0.01),
        lambda p: nn.RMSProp(p, nn.CosineDecayLR(0.001, 0.01, 3), momentum=0.5, centered=True),
        lambda p: nn.Adagrad(p, learning_rate=nn.WarmUpLR(0.1, 2)),
        lambda p: nn.Lamb(p, nn.PolynomialDecayLR(0.02, 0.001, 3, 1.0), weight_decay=0.01),
    ],
)
def test_on_the_device_as_on_the_cpu(make):
    """A TrainOneStepCell with each optimizer and a dynamic learning rate, in graph
    mode on the simulated Ascend device and on the CPU."""
    from mindjit.frontend.graph import api

    results = {}
    try:
        for device in ("CPU", "Ascend"):
            ms.set_context(mode=ms.GRAPH_MODE, device_target=device)
            ms.set_seed(5)
            net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
            train = nn.TrainOneStepCell(
                nn.WithLossCell(net, nn.MSELoss()), make(net.trainable_params())
            )
            r = np.random.default_rng(1)
            x = Tensor(r.normal(size=(6, 3)).astype(np.float32))
            y = Tensor(r.normal(size=(6, 2)).astype(np.float32))
            losses = [float(train(x, y).asnumpy()) for _ in range(4)]
            results[device] = (losses, T._values(net.trainable_params()))
    finally:
        ms.set_context(device_target="CPU")
        api.clear_cache()
    np.testing.assert_allclose(results["Ascend"][0], results["CPU"][0], rtol=1e-5)
    assert results["CPU"][0][-1] < results["CPU"][0][0]
    for a, b in zip(results["Ascend"][1], results["CPU"][1], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
