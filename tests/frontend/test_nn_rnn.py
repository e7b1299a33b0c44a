"""nn.RNN/GRU/LSTM and RNNCell/GRUCell/LSTMCell against a numpy reference of
MindSpore's equations (gate orders LSTM i, f, g, o and GRU r, z, n; seq_length
as MindSpore's ReverseSequence + masked recurrence); Parameter names, shapes and
init bounds; graph mode against PyNative (forward and gradients); gradients
against central finite differences in float64; training steps reduce a loss;
MindSpore's exception types for bad arguments."""

from __future__ import annotations

import math

import numpy as np
import pytest
from grad_check import assert_parameter_grads_match, central_differences
from modes import train_losses

import mindjit as ms
from mindjit import Tensor, nn, ops

RNG = np.random.default_rng(11)


def _sig(x):
    return 1 / (1 + np.exp(-x))


def ref_step(mode, x, h, w_ih, w_hh, b_ih, b_hh):
    hidden = h[0] if mode == "LSTM" else h
    gx = x @ w_ih.T + (0 if b_ih is None else b_ih)
    gh = hidden @ w_hh.T + (0 if b_hh is None else b_hh)
    if mode == "LSTM":
        i, f, g, o = np.split(gx + gh, 4, axis=1)
        c = _sig(f) * h[1] + _sig(i) * np.tanh(g)
        return _sig(o) * np.tanh(c), c
    if mode == "GRU":
        i_r, i_z, i_n = np.split(gx, 3, axis=1)
        h_r, h_z, h_n = np.split(gh, 3, axis=1)
        r, z = _sig(i_r + h_r), _sig(i_z + h_z)
        n = np.tanh(i_n + r * (h_n))
        return (1 - z) * n + z * h
    if mode == "RNN_RELU":
        return np.maximum(gx + gh, 0)
    return np.tanh(gx + gh)


def _reverse_sequence(x, lengths):
    out = x.copy()
    for b, n in enumerate(lengths):
        out[:n, b] = x[:n, b][::-1]
    return out


def ref_direction(mode, x, state, weights, lengths):
    """MindSpore's masked recurrence over (T, B, I): past a row's length the state
    is kept and the output is zero."""
    steps, batch = x.shape[:2]
    outs = []
    for t in range(steps):
        new = ref_step(mode, x[t], state, *weights)
        keep = (np.asarray(lengths) > t)[:, None]
        if mode == "LSTM":
            state = (np.where(keep, new[0], state[0]), np.where(keep, new[1], state[1]))
            outs.append(np.where(keep, new[0], 0))
        else:
            state = np.where(keep, new, state)
            outs.append(np.where(keep, new, 0))
    return np.stack(outs), state


def ref_rnn(net, mode, x, hx=None, lengths=None):
    """The whole stacked layer in numpy, reading the net's Parameters by name."""
    params = {n: p.asnumpy().astype(np.float64) for n, p in net.parameters_and_names()}
    if net.batch_first:
        x = x.transpose(1, 0, 2)
    steps, batch = x.shape[:2]
    lengths = [steps] * batch if lengths is None else list(lengths)
    dirs = 2 if net.bidirectional else 1
    shape = (net.num_layers * dirs, batch, net.hidden_size)
    if hx is None:
        hx = (np.zeros(shape), np.zeros(shape)) if mode == "LSTM" else np.zeros(shape)
    layer_in, h_n, c_n = x.astype(np.float64), [], []
    for layer in range(net.num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            sfx = f"l{layer}" + ("_reverse" if d else "")
            w = [params.get(f"{n}_{sfx}") for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
            state = (hx[0][k], hx[1][k]) if mode == "LSTM" else hx[k]
            seq = _reverse_sequence(layer_in, lengths) if d else layer_in
            out, final = ref_direction(mode, seq, state, w, lengths)
            outs.append(_reverse_sequence(out, lengths) if d else out)
            if mode == "LSTM":
                h_n.append(final[0])
                c_n.append(final[1])
            else:
                h_n.append(final)
        layer_in = np.concatenate(outs, axis=2)
    out = layer_in.transpose(1, 0, 2) if net.batch_first else layer_in
    if mode == "LSTM":
        return out, (np.stack(h_n), np.stack(c_n))
    return out, np.stack(h_n)


def _flat(result):
    out, state = result
    states = state if isinstance(state, tuple) else (state,)
    return [np.asarray(v.asnumpy() if hasattr(v, "asnumpy") else v) for v in (out, *states)]


LAYERS = [
    ("LSTM", lambda **kw: nn.LSTM(3, 4, **kw)),
    ("GRU", lambda **kw: nn.GRU(3, 4, **kw)),
    ("RNN_TANH", lambda **kw: nn.RNN(3, 4, **kw)),
    ("RNN_RELU", lambda **kw: nn.RNN(3, 4, nonlinearity="relu", **kw)),
]
CONFIGS = [
    {},
    {"num_layers": 2, "bidirectional": True},
    {"batch_first": True, "has_bias": False},
    {"num_layers": 2, "batch_first": True, "bidirectional": True},
]


@pytest.mark.parametrize("mode, make", LAYERS, ids=[m for m, _ in LAYERS])
@pytest.mark.parametrize("config", CONFIGS, ids=range(len(CONFIGS)))
def test_layers_match_the_reference(mode, make, config):
    net = make(**config)
    x = RNG.standard_normal((2, 5, 3) if config.get("batch_first") else (5, 2, 3))
    x = x.astype(np.float32)
    got = _flat(net(Tensor(x)))
    want = _flat(ref_rnn(net, mode, x))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    # with an initial state and padded rows
    dirs = 2 if config.get("bidirectional") else 1
    shape = (config.get("num_layers", 1) * dirs, 2, 4)
    h0 = RNG.standard_normal(shape).astype(np.float32)
    c0 = RNG.standard_normal(shape).astype(np.float32)
    hx = (Tensor(h0), Tensor(c0)) if mode == "LSTM" else Tensor(h0)
    lengths = np.array([5, 2], np.int32)
    got = _flat(net(Tensor(x), hx, Tensor(lengths)))
    want = _flat(ref_rnn(net, mode, x, (h0, c0) if mode == "LSTM" else h0, lengths))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_parameter_names_shapes_and_init_bounds():
    net = nn.LSTM(10, 16, 2, bidirectional=True)
    names = dict(net.parameters_and_names())
    assert list(names)[:4] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    assert names["weight_ih_l0"].shape == (64, 10)
    assert names["weight_ih_l1_reverse"].shape == (64, 32)
    assert names["bias_hh_l1_reverse"].shape == (64,)
    assert len(names) == 16
    bound = 1 / math.sqrt(16)
    for p in names.values():
        assert p.dtype == ms.float32
        assert np.abs(p.asnumpy()).max() <= bound
    assert dict(nn.GRU(3, 5, has_bias=False).parameters_and_names())["weight_hh_l0"].shape == (
        15,
        5,
    )
    assert len(list(nn.GRU(3, 5, has_bias=False).get_parameters())) == 2
    assert nn.RNN(3, 5).weight_ih_l0.shape == (5, 3)

    class Wrap(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(3, 2)

    assert [p.name for p in Wrap().get_parameters()][0] == "rnn.weight_ih_l0"
    cell = nn.LSTMCell(3, 5)
    assert [(n, p.shape) for n, p in cell.parameters_and_names()] == [
        ("weight_ih", (20, 3)),
        ("weight_hh", (20, 5)),
        ("bias_ih", (20,)),
        ("bias_hh", (20,)),
    ]
    assert nn.GRUCell(3, 5).weight_ih.shape == (15, 3)
    assert nn.RNNCell(3, 5, has_bias=False).bias_ih is None


def test_mindspore_doc_example_shapes():
    net = nn.LSTM(10, 16, 2, has_bias=True, batch_first=True, bidirectional=False)
    x = Tensor(np.ones([3, 5, 10]).astype(np.float32))
    h0 = Tensor(np.ones([1 * 2, 3, 16]).astype(np.float32))
    c0 = Tensor(np.ones([1 * 2, 3, 16]).astype(np.float32))
    output, (hn, cn) = net(x, (h0, c0))
    assert output.shape == (3, 5, 16) and hn.shape == (2, 3, 16) and cn.shape == (2, 3, 16)
    output, hn = nn.GRU(10, 16, 2, batch_first=True)(x, h0)
    assert output.shape == (3, 5, 16) and hn.shape == (2, 3, 16)
    output, hn = nn.RNN(10, 16, 2, batch_first=True, bidirectional=True)(x)
    assert output.shape == (3, 5, 32) and hn.shape == (4, 3, 16)


@pytest.mark.parametrize(
    "mode, cell",
    [
        ("LSTM", lambda: nn.LSTMCell(3, 4)),
        ("GRU", lambda: nn.GRUCell(3, 4)),
        ("RNN_TANH", lambda: nn.RNNCell(3, 4)),
        ("RNN_RELU", lambda: nn.RNNCell(3, 4, nonlinearity="relu")),
        ("GRU", lambda: nn.GRUCell(3, 4, has_bias=False)),
    ],
)
def test_cells_match_the_reference(mode, cell):
    net = cell()
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    h = RNG.standard_normal((2, 4)).astype(np.float32)
    c = RNG.standard_normal((2, 4)).astype(np.float32)
    w = [
        None if p is None else p.asnumpy().astype(np.float64)
        for p in (net.weight_ih, net.weight_hh, net.bias_ih, net.bias_hh)
    ]
    if mode == "LSTM":
        got = [v.asnumpy() for v in net(Tensor(x), (Tensor(h), Tensor(c)))]
        want = ref_step(mode, x, (h, c), *w)
    else:
        got = [net(Tensor(x), Tensor(h)).asnumpy()]
        want = [ref_step(mode, x, h, *w)]
    for g, r in zip(got, want, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)


class SeqModel(nn.Cell):
    """Every layer kind in one network: LSTM -> GRU (bidirectional) -> RNN -> cells."""

    def __init__(self, dtype=ms.float32):
        super().__init__()
        self.lstm = nn.LSTM(3, 4, batch_first=True, dtype=dtype)
        self.gru = nn.GRU(4, 3, bidirectional=True, batch_first=True, dtype=dtype)
        self.rnn = nn.RNN(6, 2, 2, batch_first=True, nonlinearity="relu", dtype=dtype)
        self.cell = nn.LSTMCell(2, 2, dtype=dtype)
        self.gcell = nn.GRUCell(2, 2, dtype=dtype)

    def construct(self, x, lengths):
        y, (h, c) = self.lstm(x, seq_length=lengths)
        y, h2 = self.gru(y, seq_length=lengths)
        y, h3 = self.rnn(y)
        hc = (h3[0], h3[1])
        for t in range(y.shape[1]):
            hc = self.cell(y[:, t, :], hc)
        g = self.gcell(hc[0], hc[1])
        return ops.reduce_sum(y * y) + ops.reduce_sum(h * c) + ops.reduce_sum(h2) + ops.sum(g)


def test_graph_mode_equals_pynative_forward_and_grad():
    net = SeqModel()
    x = Tensor(RNG.standard_normal((2, 4, 3)).astype(np.float32))
    lengths = Tensor(np.array([4, 3], np.int32))
    grad = ms.grad(net, None, net.trainable_params())

    def grads(v, n):
        return grad(v, n)

    eager_out = net(x, lengths).asnumpy()
    eager_grads = [g.asnumpy() for g in grad(x, lengths)]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph_out = net(x, lengths).asnumpy()
        graph_grads = [g.asnumpy() for g in ms.jit(grads)(x, lengths)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(graph_out, eager_out, rtol=1e-5, atol=1e-5)
    assert len(graph_grads) == len(net.trainable_params()) == 4 + 8 + 8 + 4 + 4
    for g, e in zip(graph_grads, eager_grads, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


def test_gradients_match_finite_differences_in_float64():
    net = SeqModel(ms.float64)
    x = RNG.standard_normal((2, 3, 3))
    lengths = Tensor(np.array([3, 2], np.int32))
    params = net.trainable_params()
    grads = ms.grad(net, 0, params)(Tensor(x), lengths)
    dx, dparams = grads
    eps = 1e-6

    def loss():
        return float(net(Tensor(x), lengths).asnumpy())

    want = central_differences(loss, x, eps)
    np.testing.assert_allclose(dx.asnumpy(), want, rtol=1e-5, atol=1e-7)
    # a few entries of each Parameter
    assert_parameter_grads_match(loss, params, dparams, 3, eps, rtol=1e-5, atol=1e-7)


class Classifier(nn.Cell):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer
        self.fc = nn.Dense(8, 4)

    def construct(self, x):
        _, h = self.layer(x)
        h = h[0] if isinstance(h, tuple) else h
        return self.fc(ops.concat((h[-2], h[-1]), 1))


@pytest.mark.parametrize("kind", [nn.LSTM, nn.GRU, nn.RNN])
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_training_reduces_the_loss(kind, mode):
    ms.set_seed(3)
    net = Classifier(kind(5, 4, 2, batch_first=True, bidirectional=True, dropout=0.1))
    x = Tensor(RNG.standard_normal((8, 6, 5)).astype(np.float32))
    y = Tensor((np.arange(8) % 4).astype(np.int32))
    losses = train_losses(net, x, y, 0.02, mode)
    assert losses[-1] < losses[0]


def test_dropout_only_between_layers_and_only_in_training():
    net = nn.GRU(3, 4, 2, dropout=0.5)
    x = Tensor(RNG.standard_normal((4, 2, 3)).astype(np.float32))
    eval_out = net(x)[0].asnumpy()
    np.testing.assert_allclose(eval_out, ref_rnn(net, "GRU", x.asnumpy())[0], rtol=1e-5, atol=1e-5)
    net.set_train()
    assert not np.allclose(net(x)[0].asnumpy(), eval_out)


def test_float16_input_keeps_its_dtype():
    net = nn.LSTM(3, 4)
    out, (h, c) = net(Tensor(np.ones((2, 1, 3), np.float16)))
    assert out.dtype == h.dtype == c.dtype == ms.float16


@pytest.mark.parametrize(
    "make, exc",
    [
        (lambda: nn.LSTM(3.0, 4), TypeError),
        (lambda: nn.LSTM(3, 0), ValueError),
        (lambda: nn.GRU(3, 4, num_layers=-1), ValueError),
        (lambda: nn.GRU(3, 4, has_bias=1), TypeError),
        (lambda: nn.GRU(3, 4, batch_first="yes"), TypeError),
        (lambda: nn.RNN(3, 4, bidirectional=None), TypeError),
        (lambda: nn.LSTM(3, 4, dropout="0.1"), TypeError),
        (lambda: nn.LSTM(3, 4, dropout=1.0), ValueError),
        (lambda: nn.LSTM(3, 4, dropout=-0.1), ValueError),
        (lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), ValueError),
        (lambda: nn.LSTM(3, 4, dtype=ms.int32), TypeError),
        (lambda: nn.RNNCell(3, 4, nonlinearity="gelu"), ValueError),
        (lambda: nn.RNNCell(3, 4, nonlinearity=1), TypeError),
        (lambda: nn.GRUCell(3, -4), ValueError),
        (lambda: nn.LSTMCell(3, 4, has_bias="no"), TypeError),
    ],
)
def test_constructor_errors(make, exc):
    with pytest.raises(exc):
        make()


def test_call_errors():
    x = Tensor(np.ones((5, 2, 3), np.float32))
    with pytest.raises(TypeError, match="'hx' must be a tuple"):
        nn.LSTM(3, 4)(x, Tensor(np.zeros((1, 2, 4), np.float32)))
    with pytest.raises(TypeError, match="the dtypes of the inputs must be the same"):
        nn.GRU(3, 4)(x, Tensor(np.zeros((1, 2, 4), np.float16)))
    with pytest.raises(TypeError, match="float16 or float32"):
        nn.GRU(3, 4)(Tensor(np.ones((5, 2, 3), np.int32)))
    with pytest.raises(ValueError, match="must have shape"):
        nn.GRU(3, 4)(x, Tensor(np.zeros((2, 2, 4), np.float32)))
    with pytest.raises(ValueError, match="3-D"):
        nn.RNN(3, 4)(Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="input_size"):
        nn.RNN(3, 4)(Tensor(np.ones((5, 2, 4), np.float32)))
    with pytest.raises(TypeError, match="seq_length"):
        nn.RNN(3, 4)(x, None, Tensor(np.array([5, 3], np.float32)))
    with pytest.raises(ValueError, match="seq_length"):
        nn.RNN(3, 4)(x, None, Tensor(np.array([5, 3, 1], np.int32)))
    with pytest.raises(ValueError, match="batch size of x and hx"):
        nn.GRUCell(3, 4)(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((3, 4), np.float32)))
    with pytest.raises(TypeError, match="length of 'hx'"):
        h = Tensor(np.ones((2, 4), np.float32))
        nn.LSTMCell(3, 4)(Tensor(np.ones((2, 3), np.float32)), (h, h, h))


def test_graph_mode_error_is_a_value_error():
    net = nn.GRU(3, 4)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(ValueError, match="must have shape"):
            net(Tensor(np.ones((5, 2, 3), np.float32)), Tensor(np.zeros((2, 2, 4), np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_network_runs_on_the_simulated_device():
    x = Tensor(RNG.standard_normal((2, 4, 3)).astype(np.float32))
    lengths = Tensor(np.array([4, 3], np.int32))
    ms.set_seed(6)
    want = SeqModel()(x, lengths).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    try:
        ms.set_seed(6)
        got = SeqModel()(x, lengths).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
