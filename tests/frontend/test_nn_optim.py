"""nn's optimizers: MindSpore's update formulas against a numpy reference, PyNative
mode against one `@jit` graph per step, state Parameters, the Assigns in the
compiled program, and argument errors."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import nn_train_programs as P
import numpy as np
import pytest

import mindjit as ms
from mindjit import Parameter, Tensor, nn
from mindjit.dialects.parsing import parse_file
from mindjit.frontend.graph import api

STEPS = 4


@pytest.fixture(autouse=True)
def _pynative_after():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


class Net(nn.Cell):
    """Three Parameters; `norm.gamma` is one MindSpore's weight decay leaves alone."""

    def __init__(self, seed: int = 0):
        super().__init__()
        r = np.random.default_rng(seed)
        self.w = Parameter(Tensor(r.normal(size=(2, 3)).astype(np.float32)), name="w")
        self.b = Parameter(Tensor(r.normal(size=(3,)).astype(np.float32)), name="b")
        self.gamma = Parameter(Tensor(r.normal(size=(3,)).astype(np.float32)), name="norm.gamma")

    def construct(self, x):
        return x


def fake_grads(step: int) -> tuple[Tensor, ...]:
    r = np.random.default_rng(100 + step)
    return tuple(Tensor(r.normal(size=shape).astype(np.float32)) for shape in ((2, 3), (3,), (3,)))


# --- numpy references of MindSpore's formulas ---------------------------------------------------


def _prepare(g, p, name, wd, loss_scale):  # type: ignore[no-untyped-def]
    g = g / loss_scale
    if wd and "beta" not in name and "gamma" not in name:
        g = g + wd * p
    return g


def sgd_reference(  # type: ignore[no-untyped-def]
    params,
    names,
    steps,
    learning_rate=0.1,
    momentum=0.0,
    dampening=0.0,
    weight_decay=0.0,
    nesterov=False,
    loss_scale=1.0,
):
    lr = learning_rate
    p = [x.copy() for x in params]
    accum = [np.zeros_like(x) for x in p]
    stat = [np.ones_like(x) for x in p]
    for grads in steps:
        for i, g in enumerate(grads):
            g = _prepare(g, p[i], names[i], weight_decay, loss_scale)
            if momentum > 0:
                accum[i] = np.where(stat[i] > 0, g, momentum * accum[i] + (1 - dampening) * g)
                stat[i] = np.zeros_like(stat[i])
                g = g + momentum * accum[i] if nesterov else accum[i]
            p[i] = p[i] - lr * g
    return p, {"accum": accum, "stat": stat}


def momentum_reference(  # type: ignore[no-untyped-def]
    params,
    names,
    steps,
    learning_rate,
    momentum,
    weight_decay=0.0,
    loss_scale=1.0,
    use_nesterov=False,
):
    lr = learning_rate
    p = [x.copy() for x in params]
    v = [np.zeros_like(x) for x in p]
    for grads in steps:
        for i, g in enumerate(grads):
            g = _prepare(g, p[i], names[i], weight_decay, loss_scale)
            v[i] = momentum * v[i] + g
            if use_nesterov:
                p[i] = p[i] - (g * lr + v[i] * momentum * lr)
            else:
                p[i] = p[i] - lr * v[i]
    return p, {"moments": v}


def adam_reference(  # type: ignore[no-untyped-def]
    params,
    names,
    steps,
    learning_rate=1e-3,
    beta1=0.9,
    beta2=0.999,
    eps=1e-8,
    use_nesterov=False,
    weight_decay=0.0,
    loss_scale=1.0,
    use_amsgrad=False,
):
    p = [x.copy() for x in params]
    m = [np.zeros_like(x) for x in p]
    v = [np.zeros_like(x) for x in p]
    vhat = [np.zeros_like(x) for x in p]
    b1p = b2p = 1.0
    for grads in steps:
        b1p, b2p = b1p * beta1, b2p * beta2
        lr_t = learning_rate * np.sqrt(1 - b2p) / (1 - b1p)
        for i, g in enumerate(grads):
            g = _prepare(g, p[i], names[i], weight_decay, loss_scale)
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            vhat[i] = np.maximum(vhat[i], v[i])
            denom = np.sqrt(vhat[i] if use_amsgrad else v[i]) + eps
            numer = m[i] * beta1 + (1 - beta1) * g if use_nesterov else m[i]
            p[i] = p[i] - lr_t * numer / denom
    state = {"moment1": m, "moment2": v, "beta1_power": b1p, "beta2_power": b2p}
    if use_amsgrad:
        state["vhat"] = vhat
    return p, state


CASES: list[tuple[str, Any, Any, dict]] = [
    ("sgd", nn.SGD, sgd_reference, {}),
    ("sgd-lr", nn.SGD, sgd_reference, {"learning_rate": 0.05}),
    ("sgd-momentum", nn.SGD, sgd_reference, {"momentum": 0.9, "dampening": 0.1}),
    ("sgd-nesterov", nn.SGD, sgd_reference, {"momentum": 0.8, "nesterov": True}),
    ("sgd-decay", nn.SGD, sgd_reference, {"momentum": 0.5, "weight_decay": 0.1}),
    ("momentum", nn.Momentum, momentum_reference, {"learning_rate": 0.1, "momentum": 0.9}),
    (
        "momentum-nesterov",
        nn.Momentum,
        momentum_reference,
        {"learning_rate": 0.05, "momentum": 0.9, "use_nesterov": True},
    ),
    (
        "momentum-decay-scale",
        nn.Momentum,
        momentum_reference,
        {"learning_rate": 0.1, "momentum": 0.9, "weight_decay": 0.01, "loss_scale": 8.0},
    ),
    ("adam", nn.Adam, adam_reference, {}),
    ("adam-lr", nn.Adam, adam_reference, {"learning_rate": 0.01, "beta1": 0.8, "beta2": 0.99}),
    ("adam-nesterov", nn.Adam, adam_reference, {"learning_rate": 0.01, "use_nesterov": True}),
    ("adam-decay", nn.Adam, adam_reference, {"learning_rate": 0.01, "weight_decay": 0.1}),
    ("adam-amsgrad", nn.Adam, adam_reference, {"learning_rate": 0.02, "use_amsgrad": True}),
    ("adam-scale", nn.Adam, adam_reference, {"learning_rate": 0.01, "loss_scale": 4.0}),
]


def _train(cls, kwargs, graph: bool):  # type: ignore[no-untyped-def]
    net = Net()
    opt = cls(net.trainable_params(), **kwargs)
    step = P.OptimizerStep(opt) if graph else opt
    api.clear_cache()
    results = [step(fake_grads(s)) for s in range(STEPS)]
    assert len(api.cached_programs()) == (1 if graph else 0)  # one graph, run every step
    return net, opt, results


def _values(params) -> list[np.ndarray]:  # type: ignore[no-untyped-def]
    return [p.asnumpy().copy() for p in params]


@pytest.mark.parametrize("name, cls, reference, kwargs", CASES, ids=[c[0] for c in CASES])
def test_pynative_and_graph_equal_the_numpy_formulas(name, cls, reference, kwargs):
    eager_net, eager_opt, eager_results = _train(cls, kwargs, graph=False)
    graph_net, graph_opt, graph_results = _train(cls, kwargs, graph=True)
    start = Net()
    names = [p.name for p in start.trainable_params()]
    want, want_state = reference(
        _values(start.trainable_params()),
        names,
        [[g.asnumpy().astype(np.float64) for g in fake_grads(s)] for s in range(STEPS)],
        **kwargs,
    )
    eager, graph = _values(eager_net.trainable_params()), _values(graph_net.trainable_params())
    for e, g, w in zip(eager, graph, want):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(e, w, rtol=1e-5, atol=1e-6)
    assert not np.allclose(eager[0], _values(start.trainable_params())[0])  # it did train
    # the optimizer's own state, in both modes
    for prefix, values in want_state.items():
        for opt in (eager_opt, graph_opt):
            got = getattr(opt, prefix)
            if isinstance(got, tuple):
                for state, w in zip(got, values):
                    np.testing.assert_allclose(state.asnumpy(), w, rtol=1e-5, atol=1e-6)
            else:
                np.testing.assert_allclose(got.asnumpy(), [values], rtol=1e-5)
    for opt in (eager_opt, graph_opt):
        assert opt.global_step.asnumpy().tolist() == [STEPS]
    assert eager_results == graph_results == [(True, True, True)] * STEPS


def test_pynative_then_graph_steps_continue_one_state():
    """Graph steps start from the state PyNative steps left (and the reverse)."""
    net, ref_net = Net(), Net()
    opt = nn.Adam(net.trainable_params(), 0.01)
    ref = nn.Adam(ref_net.trainable_params(), 0.01)
    graph_step = P.OptimizerStep(opt)
    for s in range(STEPS):
        (opt if s % 2 else graph_step)(fake_grads(s))
        ref(fake_grads(s))
    for a, b in zip(_values(net.trainable_params()), _values(ref_net.trainable_params())):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    assert opt.global_step.asnumpy().tolist() == [STEPS]


def test_docs_program_compiles_the_update_into_one_graph_of_assigns(tmp_path: Path):
    """`optimizer = nn.Adam(network.trainable_params(), 0.01)`; `@ms.jit def
    step(grads): optimizer(grads)`: every update is in one graph (a mindir.apply_adam
    per Parameter, Assigns for the optimizer's own state)."""
    params = P.docs_network.trainable_params()
    before = _values(params)
    grads = (Tensor(np.full((1, 10), 0.5, np.float32)), Tensor(np.array([-1.0], np.float32)))
    api.clear_cache()
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        result = P.docs_step(grads)
    finally:
        ms.set_context(save_graphs=False)
    assert result == (True, True)
    frontend = Counter(
        op.name for op in parse_file(str(next(tmp_path.glob("*_00_frontend.mlir")))).walk()
    )
    # each Parameter's step with its 2 moments is one mindir.apply_adam (MindSpore's
    # Adam); Assigns: the 2 beta powers and the global step
    assert frontend["mindir.apply_adam"] == 2 and frontend["mindir.assign"] == 3
    program = api.cached_programs()[-1]  # lowered: 2 Parameters, 2 x 2 moments, 3 more
    assert program.op_counts()["ml_program.global_store"] == 9
    assert frontend["func.func"] >= 2  # the step and the optimizer's construct
    want, _ = adam_reference(
        [b.astype(np.float64) for b in before],
        [p.name for p in params],
        [[g.asnumpy().astype(np.float64) for g in grads]],
        learning_rate=0.01,
    )
    for p, w in zip(params, want):  # float32's 1 - beta2_power is 1e-5 off: atol
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)
    # Adam's first step moves each element by about lr, against the gradient's sign
    np.testing.assert_allclose(params[0].asnumpy(), before[0] - 0.01, atol=1e-6)
    np.testing.assert_allclose(params[1].asnumpy(), before[1] + 0.01, atol=1e-6)


def test_optimizer_as_a_graph_mode_cell():
    net, ref_net = Net(), Net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    ref = nn.Momentum(ref_net.trainable_params(), 0.1, 0.9)
    api.clear_cache()
    ms.set_context(mode=ms.GRAPH_MODE)
    for s in range(2):
        assert opt(fake_grads(s)) == (True, True, True)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert len(api.cached_programs()) == 1
    for s in range(2):
        ref(fake_grads(s))
    for a, b in zip(_values(net.trainable_params()), _values(ref_net.trainable_params())):
        np.testing.assert_allclose(a, b, rtol=1e-6)


# --- state and arguments ---------------------------------------------------------------------


def test_state_parameters_are_owned_by_the_optimizer_and_not_trained():
    net = Net()
    opt = nn.Adam(net.trainable_params(), use_amsgrad=True)
    names = [name for name, _ in opt.parameters_and_names()]
    # MindSpore's rule: `self.parameters` is a ParameterTuple, so the network's
    # Parameters are registered in the optimizer too (first: assigned first)
    assert names == [
        "w",
        "b",
        "norm.gamma",
        "global_step",
        "beta1_power",
        "beta2_power",
        "moment1.w",
        "moment1.b",
        "moment1.norm.gamma",
        "moment2.w",
        "moment2.b",
        "moment2.norm.gamma",
        "vhat.w",
        "vhat.b",
        "vhat.norm.gamma",
    ]
    assert opt.trainable_params() == net.trainable_params()
    state = [p for p in opt.get_parameters() if all(p is not q for q in opt.parameters)]
    assert len(state) == 12 and all(not p.requires_grad for p in state)
    assert opt.parameters == tuple(net.trainable_params())
    assert isinstance(opt.parameters, ms.ParameterTuple)
    assert opt.moment1[0].shape == (2, 3) and opt.moment1[0].dtype == ms.float32
    assert [p.name for p in nn.Momentum(net.trainable_params(), 0.1, 0.9).moments] == [
        "moments.w",
        "moments.b",
        "moments.norm.gamma",
    ]
    sgd = nn.SGD(net.trainable_params(), momentum=0.9)
    assert [p.name for p in sgd.accum] == ["accum.w", "accum.b", "accum.norm.gamma"]
    assert sgd.stat[0].asnumpy().tolist() == [[1.0] * 3] * 2
    assert isinstance(opt, nn.Optimizer) and isinstance(opt, nn.Cell)


def test_defaults_follow_mindspore():
    params = Net().trainable_params()
    sgd = nn.SGD(params)
    assert (sgd.learning_rate, sgd.momentum, sgd.dampening, sgd.weight_decay, sgd.nesterov) == (
        0.1,
        0.0,
        0.0,
        0.0,
        False,
    )
    adam = nn.Adam(params)
    assert (adam.learning_rate, adam.beta1, adam.beta2, adam.eps) == (1e-3, 0.9, 0.999, 1e-8)
    assert (adam.weight_decay, adam.use_nesterov, adam.use_amsgrad) == (0.0, False, False)
    assert adam.decay_flags == (True, True, False)  # 'gamma' is not decayed
    momentum = nn.Momentum(params, 0.1, 0.9)
    assert (momentum.weight_decay, momentum.use_nesterov) == (0.0, False)


@pytest.mark.parametrize("graph", [False, True])
@pytest.mark.parametrize(
    "grads, match",
    [
        (lambda g: g[:2], r"number of gradients \(2\) must equal the number of parameters \(3\)"),
        (lambda g: (*g, g[0]), r"number of gradients \(4\)"),
        (lambda g: (g[0], g[2], g[1][:2]), r"'norm.gamma' must have its shape \(3,\)"),
    ],
)
def test_wrong_gradients_are_a_value_error_in_both_modes(graph, grads, match):
    opt = nn.SGD(Net().trainable_params())
    step = P.OptimizerStep(opt) if graph else opt
    with pytest.raises(ValueError, match=match):
        step(grads(fake_grads(0)))


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda p: nn.SGD([]), ValueError, "must not be empty"),
        (lambda p: nn.SGD([Tensor([1.0])]), TypeError, "must be a Parameter"),
        (lambda p: nn.SGD(p[0]), TypeError, "list of Parameters"),
        (lambda p: nn.SGD([p[0], p[0]]), ValueError, "twice"),
        (lambda p: nn.SGD(p, learning_rate=-0.1), ValueError, "'learning_rate' must be at least"),
        (lambda p: nn.SGD(p, momentum=-1.0), ValueError, "'momentum'"),
        (lambda p: nn.SGD(p, weight_decay=-1.0), ValueError, "'weight_decay'"),
        (lambda p: nn.SGD(p, nesterov=True), ValueError, "'nesterov' is true"),
        (lambda p: nn.SGD(p, momentum=0.9, dampening=0.1, nesterov=True), ValueError, "dampening"),
        (lambda p: nn.Momentum(p, 0.1, -0.5), ValueError, "'momentum'"),
        (lambda p: nn.Adam(p, beta1=1.0), ValueError, "'beta1' must be in range"),
        (lambda p: nn.Adam(p, beta2=0.0), ValueError, "'beta2' must be in range"),
        (lambda p: nn.Adam(p, eps=0.0), ValueError, "'eps'"),
        (lambda p: nn.Adam(p, loss_scale=0.0), ValueError, "'loss_scale'"),
        (lambda p: nn.Adam(p, learning_rate="fast"), TypeError, "'learning_rate' must be a float"),
        (lambda p: nn.Adam([{"params": p}, p[0]]), TypeError, "all Parameters or all dicts"),
    ],
)
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make(Net().trainable_params())


def test_a_tensor_learning_rate_and_the_base_class():
    params = Net().trainable_params()
    assert nn.SGD(params, learning_rate=Tensor(0.5, ms.float32)).learning_rate == 0.5
    base = nn.Optimizer(0.1, params)
    with pytest.raises(NotImplementedError, match="base class"):
        base(fake_grads(0))


# --- a whole training step in one graph ---------------------------------------------------------


def test_a_training_step_is_one_graph_and_follows_the_mse_gradient():
    """value_and_grad of `MSELoss(Dense(x), y)` and SGD, in one @jit graph: each step
    is W -= lr * 2/N (xW^T + b - y)^T x, b -= lr * 2/N sum(xW^T + b - y)."""
    r = np.random.default_rng(5)
    network = nn.Dense(4, 1, weight_init=Tensor(r.normal(size=(1, 4)).astype(np.float32)))
    optimizer = nn.SGD(network.trainable_params(), learning_rate=0.1)
    train = P.TrainStep(network, nn.MSELoss(), optimizer)
    x = r.normal(size=(8, 4))
    y = r.normal(size=(8, 1))
    w, b = network.weight.asnumpy().astype(np.float64), np.zeros(1)
    api.clear_cache()
    losses = []
    for _ in range(5):
        err = x @ w.T + b - y
        want_loss = np.mean(err**2)
        w, b = w - 0.1 * 2 / 8 * err.T @ x, b - 0.1 * 2 / 8 * err.sum(0)
        loss = train(Tensor(x.astype(np.float32)), Tensor(y.astype(np.float32)))
        losses.append(float(loss.asnumpy()))
        np.testing.assert_allclose(losses[-1], want_loss, rtol=1e-5)
        np.testing.assert_allclose(network.weight.asnumpy(), w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(network.bias.asnumpy(), b, rtol=1e-5, atol=1e-6)
    assert losses == sorted(losses, reverse=True)
    assert len(api.cached_programs()) == 1
    assert optimizer.global_step.asnumpy().tolist() == [5]


@pytest.mark.parametrize(
    "make_loss, make_net, label",
    [
        (lambda: nn.BCELoss(), lambda: nn.SequentialCell([nn.Dense(4, 1), nn.Sigmoid()]), "bin"),
        (lambda: nn.BCEWithLogitsLoss(), lambda: nn.Dense(4, 1), "bin"),
        (
            lambda: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
            lambda: nn.Dense(4, 3),
            "class",
        ),
    ],
)
def test_training_with_adam_lowers_each_loss(make_loss, make_net, label):
    r = np.random.default_rng(9)
    data = r.normal(size=(16, 4))
    x = Tensor(data.astype(np.float32))
    scores = data @ r.normal(size=(4, 3))  # labels a linear model can learn
    if label == "bin":
        y = Tensor((scores[:, :1] > 0).astype(np.float32))
    else:
        y = Tensor(scores.argmax(-1).astype(np.int32))
    network = make_net()
    train = P.TrainStep(network, make_loss(), nn.Adam(network.trainable_params(), 0.05))
    losses = [float(train(x, y).asnumpy()) for _ in range(20)]
    assert losses[-1] < 0.5 * losses[0]
