"""Parameter groups (MindSpore's list of dicts): per-group 'lr' (fixed or dynamic)
and 'weight_decay', 'order_params', in PyNative mode, a @jit step and GRAPH_MODE;
the groups' argument errors."""

from __future__ import annotations

import numpy as np
import pytest
import test_nn_optim as T

import mindjit as ms
from mindjit import Parameter, Tensor, nn


@pytest.fixture(autouse=True)
def _pynative_after():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _step(opt, how: str, grads) -> None:
    ms.set_context(mode=ms.GRAPH_MODE if how == "graph-mode" else ms.PYNATIVE_MODE)
    (T.P.OptimizerStep(opt) if how == "jit" else opt)(grads)
    ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("how", ["pynative", "jit", "graph-mode"])
def test_sgd_groups_lr_and_weight_decay(how):
    """p -= lr_group * (g + wd_group * p); a group's decay applies to every Parameter
    in it, 'gamma' or not; 'order_params' sets the order of Parameters and gradients."""
    net = T.Net()
    w, b, gamma = net.trainable_params()
    groups = [
        {"params": [w], "lr": 0.05, "weight_decay": 0.5},
        {"params": [gamma], "weight_decay": 0.25},
        {"params": [b]},
        {"order_params": [w, b, gamma]},
    ]
    opt = nn.SGD(groups, learning_rate=0.1, weight_decay=0.0)
    assert opt.parameters == (w, b, gamma) and opt.is_group and opt.is_group_lr
    assert opt.weight_decays == (0.5, 0.0, 0.25) and opt.decay_flags == (True, False, True)
    p = [x.asnumpy().astype(np.float64) for x in (w, b, gamma)]
    rates, decays = (0.05, 0.1, 0.1), (0.5, 0.0, 0.25)
    step = T.P.OptimizerStep(opt) if how == "jit" else None
    for s in range(3):
        grads = T.fake_grads(s)
        ms.set_context(mode=ms.GRAPH_MODE if how == "graph-mode" else ms.PYNATIVE_MODE)
        (step or opt)(grads)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        for i, g in enumerate(grads):
            p[i] = p[i] - rates[i] * (g.asnumpy() + decays[i] * p[i])
    for got, want in zip((w, b, gamma), p, strict=True):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert opt.get_lr_parameter(w).asnumpy() == np.float32(0.05)
    assert opt.get_lr_parameter([b, gamma])[1].asnumpy() == np.float32(0.1)
    assert opt.get_lr() == (0.05, 0.1, 0.1)


@pytest.mark.parametrize("how", ["pynative", "jit", "graph-mode"])
def test_dynamic_group_learning_rates(how):
    """A list, a schedule and the default float, per group, step by step: SGD with
    gradient 1 moves each Parameter by its group's lr of that step."""
    a = Parameter(Tensor(np.zeros(2, np.float32)), name="a")
    b = Parameter(Tensor(np.zeros(3, np.float32)), name="b")
    c = Parameter(Tensor(np.zeros(1, np.float32)), name="c")
    groups = [
        {"params": [a], "lr": [0.3, 0.2, 0.1]},
        {"params": [b], "lr": nn.WarmUpLR(0.4, 2)},
        {"params": [c]},
    ]
    opt = nn.SGD(groups, learning_rate=0.05)
    assert opt.dynamic_lr
    names = [n for n, _ in opt.parameters_and_names()]
    assert "group_learning_rates.0.learning_rate" in names
    assert opt.get_lr_parameter(a).name == "learning_rate_group_0"
    assert isinstance(opt.get_lr_parameter(b), nn.WarmUpLR)
    want = [(0.3, 0.0, 0.05), (0.2, 0.2, 0.05), (0.1, 0.4, 0.05), (0.1, 0.4, 0.05)]
    ones = tuple(Tensor(np.ones(x.shape, np.float32)) for x in (a, b, c))
    step = T.P.OptimizerStep(opt) if how == "jit" else None
    for rates in want:
        reported = [float(np.asarray(getattr(r, "asnumpy", lambda r=r: r)())) for r in opt.get_lr()]
        before = [x.asnumpy()[0] for x in (a, b, c)]
        ms.set_context(mode=ms.GRAPH_MODE if how == "graph-mode" else ms.PYNATIVE_MODE)
        (step or opt)(ones)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        moved = [before[i] - x.asnumpy()[0] for i, x in enumerate((a, b, c))]
        np.testing.assert_allclose(moved, rates, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(reported, rates, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("graph", [False, True])
@pytest.mark.parametrize("cls", [nn.Adam, nn.AdamWeightDecay, nn.Lamb, nn.RMSProp])
def test_a_grouped_optimizer_equals_one_optimizer_per_group(cls, graph):
    """Adam's beta powers (or Lamb's step count) are shared, the rest is per
    Parameter: groups with their own lr and weight_decay train as one optimizer per group."""
    net, ref = T.Net(), T.Net()
    w, b, gamma = net.trainable_params()
    rw, rb, rgamma = ref.trainable_params()
    grouped = cls(
        [{"params": [w, b], "lr": 0.02, "weight_decay": 0.1}, {"params": [gamma]}],
        learning_rate=0.01,
    )
    separate = [cls([rw, rb], learning_rate=0.02, weight_decay=0.1), cls([rgamma], 0.01)]
    step = T.P.OptimizerStep(grouped) if graph else grouped
    for s in range(T.STEPS):
        g = T.fake_grads(s)
        step(g)
        separate[0]((g[0], g[1]))
        separate[1]((g[2],))
    for got, want in zip(T._values(net.trainable_params()), T._values(ref.trainable_params())):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_the_zoo_bert_grouping_trains(mode):
    """BERT's recipe in the model zoo: AdamWeightDecay over decayed weights and
    undecayed biases and LayerNorm, a PolynomialDecayLR, 'order_params'."""
    ms.set_context(mode=mode)
    ms.set_seed(3)
    net = nn.SequentialCell([nn.Dense(4, 8), nn.LayerNorm((8,)), nn.ReLU(), nn.Dense(8, 3)])
    params = net.trainable_params()
    decay = [p for p in params if "bias" not in p.name and "layernorm" not in p.name.lower()]
    other = [p for p in params if not any(p is q for q in decay)]
    lr = nn.PolynomialDecayLR(0.05, 0.001, 10, 1.0)
    opt = nn.AdamWeightDecay(
        [{"params": decay, "weight_decay": 0.01}, {"params": other}, {"order_params": params}],
        learning_rate=lr,
        eps=1e-6,
    )
    assert opt.parameters == tuple(params)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    r = np.random.default_rng(0)
    x = Tensor(r.normal(size=(16, 4)).astype(np.float32))
    y = Tensor(r.integers(0, 3, 16).astype(np.int32))
    losses = [float(train(x, y).asnumpy()) for _ in range(10)]
    assert losses[-1] < 0.8 * losses[0]
    assert opt.global_step.asnumpy().tolist() == [10]


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda p: nn.SGD([{"params": p, "momentum": 0.9}]), KeyError, "must be one of in"),
        (lambda p: nn.SGD([{"lr": 0.1}]), KeyError, "'params'"),
        (lambda p: nn.SGD([{"params": p[0]}]), TypeError, "list of Parameters"),
        (lambda p: nn.SGD([{"params": [p[0], 1.0]}]), TypeError, "at index 1"),
        (lambda p: nn.SGD([{"params": p}, {"params": [p[0]]}]), RuntimeError, "already exists"),
        (
            lambda p: nn.SGD([{"params": p}, {"order_params": p, "lr": 0.1}]),
            ValueError,
            "only include the 'order_params' key",
        ),
        (lambda p: nn.SGD([{"params": p}, {"order_params": p[:2]}]), ValueError, "length"),
        (
            lambda p: nn.SGD([{"params": p}, {"order_params": [p[0], p[0], p[1]]}]),
            ValueError,
            "listed once",
        ),
        (lambda p: nn.SGD([{"params": p, "weight_decay": -1.0}]), ValueError, "'weight_decay'"),
        (lambda p: nn.SGD([{"params": p, "lr": "x"}]), TypeError, "'learning_rate'"),
        (lambda p: nn.SGD([{"params": p, "grad_centralization": True}]), ValueError, "mindjit"),
        (lambda p: nn.SGD([{"order_params": p}]), ValueError, "must not be empty"),
        (lambda p: nn.SGD(p).get_lr_parameter(Tensor(1.0)), TypeError, "'param'"),
        (
            lambda p: nn.SGD(p[:1]).get_lr_parameter(p[1]),
            ValueError,
            "is not in optimizer",
        ),
    ],
)
def test_group_errors(make, error, match):
    with pytest.raises(error, match=match):
        make(T.Net().trainable_params())
