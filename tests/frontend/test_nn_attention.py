"""nn.MultiheadAttention and the Transformer layers against a numpy reference of
the same equations (projections, per-head softmax(q k^T / sqrt(d) + mask) v,
bool masks as -inf, key_padding_mask over heads, add_bias_kv / add_zero_attn,
post- and pre-norm residual blocks); Parameter names; graph mode against
PyNative (forward and gradients); float64 gradients against finite differences;
training reduces a loss; MindSpore's exception types."""

from __future__ import annotations

import math

import numpy as np
import pytest
from grad_check import assert_parameter_grads_match, central_differences
from modes import train_losses

import mindjit as ms
from mindjit import Tensor, nn, ops

RNG = np.random.default_rng(5)
_erf = np.vectorize(math.erf)


def _p(cell, name):
    return dict(cell.parameters_and_names())[name].asnumpy().astype(np.float64)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _mask(m):
    m = np.asarray(m)
    return np.where(m, -np.inf, 0.0) if m.dtype == bool else m.astype(np.float64)


def ref_mha(cell, q, k, v, kpm=None, attn_mask=None, average=True):
    """(L, N, E) inputs (or batch_first / unbatched as the cell says)."""
    params = dict(cell.parameters_and_names())
    get = {n: p.asnumpy().astype(np.float64) for n, p in params.items()}
    unbatched = q.ndim == 2
    if unbatched:
        q, k, v = q[:, None], k[:, None], v[:, None]
        kpm = None if kpm is None else np.asarray(kpm)[None]
    elif cell.batch_first:
        q, k, v = (t.transpose(1, 0, 2) for t in (q, k, v))
    e, h = cell.embed_dim, cell.num_heads
    d = e // h
    if "in_proj_weight" in get:
        wq, wk, wv = np.split(get["in_proj_weight"], 3)
    else:
        wq, wk, wv = get["q_proj_weight"], get["k_proj_weight"], get["v_proj_weight"]
    bq, bk, bv = np.split(get["in_proj_bias"], 3) if "in_proj_bias" in get else (0, 0, 0)
    qp, kp, vp = q @ wq.T + bq, k @ wk.T + bk, v @ wv.T + bv
    length, n = q.shape[:2]
    src = k.shape[0]
    am = None if attn_mask is None else _mask(attn_mask)
    pm = None if kpm is None else _mask(kpm)
    if "bias_k" in get:
        kp = np.concatenate([kp, np.broadcast_to(get["bias_k"], (1, n, e))])
        vp = np.concatenate([vp, np.broadcast_to(get["bias_v"], (1, n, e))])
        am = None if am is None else np.concatenate([am, np.zeros(am.shape[:-1] + (1,))], -1)
        pm = None if pm is None else np.concatenate([pm, np.zeros((n, 1))], -1)
        src += 1
    heads = lambda t: t.reshape(t.shape[0], n * h, d).transpose(1, 0, 2)  # noqa: E731
    qh, kh, vh = heads(qp), heads(kp), heads(vp)
    if cell.add_zero_attn:
        kh = np.concatenate([kh, np.zeros((n * h, 1, d))], 1)
        vh = np.concatenate([vh, np.zeros((n * h, 1, d))], 1)
        am = None if am is None else np.concatenate([am, np.zeros(am.shape[:-1] + (1,))], -1)
        pm = None if pm is None else np.concatenate([pm, np.zeros((n, 1))], -1)
        src += 1
    scores = qh @ kh.transpose(0, 2, 1) / math.sqrt(d)
    if am is not None:
        scores = scores + (am[None] if am.ndim == 2 else am)
    if pm is not None:
        scores = scores + np.repeat(pm, h, axis=0)[:, None, :]
    w = _softmax(scores)
    out = (w @ vh).transpose(1, 0, 2).reshape(length, n, e)
    out = out @ get["out_proj.weight"].T + get.get("out_proj.bias", 0)
    w = w.reshape(n, h, length, src)
    if average:
        w = w.mean(1)
    if unbatched:
        return out[:, 0], w[0]
    if cell.batch_first:
        out = out.transpose(1, 0, 2)
    return out, w


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _close(got, want, tol=1e-5):
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"batch_first": True},
        {"kdim": 3, "vdim": 5},
        {"has_bias": False},
        {"add_bias_kv": True},
        {"add_zero_attn": True},
        {"add_bias_kv": True, "add_zero_attn": True, "batch_first": True},
    ],
)
def test_multihead_attention_matches_the_reference(kwargs):
    cell = nn.MultiheadAttention(8, 2, **kwargs)
    kdim, vdim = kwargs.get("kdim", 8), kwargs.get("vdim", 8)
    bf = kwargs.get("batch_first", False)
    q = _f32(2, 4, 8) if bf else _f32(4, 2, 8)
    k = _f32(2, 3, kdim) if bf else _f32(3, 2, kdim)
    v = _f32(2, 3, vdim) if bf else _f32(3, 2, vdim)
    out, w = cell(Tensor(q), Tensor(k), Tensor(v))
    ro, rw = ref_mha(cell, q, k, v)
    _close(out.asnumpy(), ro)
    _close(w.asnumpy(), rw)
    kpm = np.array([[False, True, False], [False, False, False]])
    am = RNG.standard_normal((4, 3)).astype(np.float32)
    out, w = cell(
        Tensor(q),
        Tensor(k),
        Tensor(v),
        key_padding_mask=Tensor(kpm),
        attn_mask=Tensor(am),
        average_attn_weights=False,
    )
    ro, rw = ref_mha(cell, q, k, v, kpm, am, average=False)
    _close(out.asnumpy(), ro)
    _close(w.asnumpy(), rw)
    assert w.shape == (2, 2, 4, rw.shape[-1])


def test_masks_bool_float_3d_and_unbatched():
    cell = nn.MultiheadAttention(6, 3)
    q, k = _f32(4, 2, 6), _f32(5, 2, 6)
    causal = np.triu(np.ones((4, 5), bool), 1)
    out, w = cell(Tensor(q), Tensor(k), Tensor(k), attn_mask=Tensor(causal))
    ro, rw = ref_mha(cell, q, k, k, attn_mask=causal)
    _close(out.asnumpy(), ro)
    _close(w.asnumpy(), rw)
    assert np.all(w.asnumpy()[:, 0, 1:] == 0)
    mask3 = RNG.random((6, 4, 5)) > 0.7
    mask3[:, :, 0] = False
    kpm = np.zeros((2, 5), np.float32)
    kpm[1, 3] = -2.0
    out, w = cell(Tensor(q), Tensor(k), Tensor(k), Tensor(kpm), attn_mask=Tensor(mask3))
    ro, rw = ref_mha(cell, q, k, k, kpm, mask3)
    _close(out.asnumpy(), ro)
    _close(w.asnumpy(), rw)
    # unbatched (L, E)
    out, w = cell(Tensor(q[:, 0]), Tensor(k[:, 0]), Tensor(k[:, 0]), Tensor(kpm[1]))
    ro, rw = ref_mha(cell, q[:, 0], k[:, 0], k[:, 0], kpm[1])
    _close(out.asnumpy(), ro)
    _close(w.asnumpy(), rw)
    assert out.shape == (4, 6) and w.shape == (4, 5)
    # need_weights=False: a one-tuple, as MindSpore returns
    only = cell(Tensor(q), Tensor(k), Tensor(k), need_weights=False)
    assert isinstance(only, tuple) and len(only) == 1
    _close(only[0].asnumpy(), ref_mha(cell, q, k, k)[0])


def test_parameter_names_and_shapes():
    names = {n: p.shape for n, p in nn.MultiheadAttention(8, 2).parameters_and_names()}
    assert names == {
        "in_proj_weight": (24, 8),
        "in_proj_bias": (24,),
        "out_proj.weight": (8, 8),
        "out_proj.bias": (8,),
    }
    names = {
        n: p.shape
        for n, p in nn.MultiheadAttention(
            8, 2, kdim=3, vdim=4, add_bias_kv=True
        ).parameters_and_names()
    }
    assert names["q_proj_weight"] == (8, 8) and names["k_proj_weight"] == (8, 3)
    assert names["v_proj_weight"] == (8, 4) and names["bias_k"] == (1, 1, 8)
    assert "in_proj_weight" not in names
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    assert {n for n, _ in layer.parameters_and_names()} == {
        "self_attn.in_proj_weight",
        "self_attn.in_proj_bias",
        "self_attn.out_proj.weight",
        "self_attn.out_proj.bias",
        "dense1.weight",
        "dense1.bias",
        "dense2.weight",
        "dense2.bias",
        "norm1.gamma",
        "norm1.beta",
        "norm2.gamma",
        "norm2.beta",
    }
    enc = nn.TransformerEncoder(layer, 3)
    params = list(enc.get_parameters())
    assert len(params) == 36 and len({id(p) for p in params}) == 36
    assert enc.layers[2].dense1.weight.name == "layers.2.dense1.weight"
    # every layer a deep copy of one fresh layer (MindSpore's construction)
    np.testing.assert_array_equal(
        enc.layers[0].dense1.weight.asnumpy(), enc.layers[2].dense1.weight.asnumpy()
    )
    dec = nn.TransformerDecoderLayer(8, 2, 16)
    assert "multihead_attn.in_proj_weight" in dec.parameters_dict()
    assert "norm3.gamma" in dec.parameters_dict()


def _layer_norm(x, g, b, eps):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


def ref_encoder_layer(layer, x, mask=None, kpm=None):
    def p(name):
        return _p(layer, name)

    def act(t):
        if layer.activation is ops.relu or isinstance(layer.activation, nn.ReLU):
            return np.maximum(t, 0)
        if isinstance(layer.activation, nn.GELU) and layer.activation.approximate:
            return 0.5 * t * (1 + np.tanh(math.sqrt(2 / math.pi) * (t + 0.044715 * t**3)))
        return 0.5 * t * (1 + _erf(t / math.sqrt(2)))

    eps = layer.layernorm_eps

    def norm(i, t):
        return _layer_norm(t, p(f"norm{i}.gamma"), p(f"norm{i}.beta"), eps)

    def sa(t):
        return ref_mha(layer.self_attn, t, t, t, kpm, mask)[0]

    def ff(t):
        hidden = act(t @ p("dense1.weight").T + p("dense1.bias"))
        return hidden @ p("dense2.weight").T + p("dense2.bias")

    if layer.norm_first:
        x = x + sa(norm(1, x))
        return x + ff(norm(2, x))
    x = norm(1, x + sa(x))
    return norm(2, x + ff(x))


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"norm_first": True, "activation": "gelu"},
        {"batch_first": True, "activation": nn.GELU()},
        {"activation": ops.relu, "layer_norm_eps": 1e-3},
    ],
)
def test_encoder_layer_matches_the_reference(kwargs):
    layer = nn.TransformerEncoderLayer(8, 2, 16, **kwargs)
    x = _f32(2, 4, 8) if kwargs.get("batch_first") else _f32(4, 2, 8)
    causal = np.triu(np.ones((4, 4), bool), 1)
    kpm = np.array([[False, False, False, True], [False] * 4])
    got = layer(Tensor(x), Tensor(causal), Tensor(kpm)).asnumpy()
    _close(got, ref_encoder_layer(layer, x, causal, kpm), 1e-4)
    enc = nn.TransformerEncoder(layer, 2, nn.LayerNorm((8,)))
    got = enc(Tensor(x), src_key_padding_mask=Tensor(kpm)).asnumpy()
    want = x
    for sub in enc.layers:
        want = ref_encoder_layer(sub, want, None, kpm)
    want = _layer_norm(want, _p(enc, "norm.gamma"), _p(enc, "norm.beta"), 1e-7)
    _close(got, want, 1e-4)


def test_decoder_and_transformer_shapes_and_reference():
    model = nn.Transformer(8, 2, 1, 2, 16, batch_first=True)
    src, tgt = _f32(2, 5, 8), _f32(2, 3, 8)
    out = model(Tensor(src), Tensor(tgt), tgt_mask=Tensor(np.triu(np.ones((3, 3), bool), 1)))
    assert out.shape == (2, 3, 8)
    # xavier re-initialisation of every matrix
    w = model.encoder.layers[0].dense1.weight.asnumpy()
    assert np.abs(w).max() <= math.sqrt(6 / (8 + 16)) + 1e-6
    # decoder layer, post-norm, against the reference built from its blocks
    layer = nn.TransformerDecoderLayer(8, 2, 16)
    x, mem = _f32(3, 2, 8), _f32(5, 2, 8)

    def p(n):
        return _p(layer, n)

    def norm(i, t):
        return _layer_norm(t, p(f"norm{i}.gamma"), p(f"norm{i}.beta"), 1e-5)

    a = ref_mha(layer.self_attn, x, x, x)[0]
    h = norm(1, x + a)
    m = ref_mha(layer.multihead_attn, h, mem, mem)[0]
    h = norm(2, h + m)
    f = np.maximum(h @ p("dense1.weight").T + p("dense1.bias"), 0)
    want = norm(3, h + f @ p("dense2.weight").T + p("dense2.bias"))
    _close(layer(Tensor(x), Tensor(mem)).asnumpy(), want, 1e-4)


class AttnNet(nn.Cell):
    def __init__(self, dtype=ms.float32):
        super().__init__()
        self.attn = nn.MultiheadAttention(6, 2, kdim=4, vdim=4, batch_first=True, dtype=dtype)
        self.enc = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(
                6, 3, 8, dropout=0.0, batch_first=True, norm_first=True, dtype=dtype
            ),
            2,
        )
        self.dec = nn.TransformerDecoderLayer(6, 2, 8, dropout=0.0, batch_first=True, dtype=dtype)

    def construct(self, x, mem, kpm):
        y, w = self.attn(x, mem, mem, key_padding_mask=kpm)
        z = self.enc(y)
        d = self.dec(z, y)
        return ops.reduce_sum(d * d) + ops.reduce_sum(w * w)


def test_graph_mode_equals_pynative_forward_and_grad():
    net = AttnNet()
    x, mem = Tensor(_f32(2, 3, 6)), Tensor(_f32(2, 4, 4))
    kpm = Tensor(np.array([[False, False, True, True], [False] * 4]))
    grad = ms.grad(net, None, net.trainable_params())

    def grads(a, b, c):
        return grad(a, b, c)

    eager_out = net(x, mem, kpm).asnumpy()
    eager_grads = [g.asnumpy() for g in grad(x, mem, kpm)]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph_out = net(x, mem, kpm).asnumpy()
        graph_grads = [g.asnumpy() for g in ms.jit(grads)(x, mem, kpm)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _close(graph_out, eager_out, 1e-4)
    assert len(graph_grads) == len(eager_grads) == len(net.trainable_params())
    for g, e in zip(graph_grads, eager_grads, strict=True):
        assert np.isfinite(g).all()
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


def test_gradients_match_finite_differences_in_float64():
    net = AttnNet(ms.float64)
    x, mem = RNG.standard_normal((2, 3, 6)), RNG.standard_normal((2, 4, 4))
    kpm = Tensor(np.array([[False, False, True, True], [False] * 4]))
    params = net.trainable_params()
    (dx, dmem), dparams = ms.grad(net, (0, 1), params)(Tensor(x), Tensor(mem), kpm)
    eps = 1e-6

    def loss():
        return float(net(Tensor(x), Tensor(mem), kpm).asnumpy())

    for arr, got in ((x, dx), (mem, dmem)):
        want = central_differences(loss, arr, eps)
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert_parameter_grads_match(loss, params, dparams, 2, eps, rtol=1e-5, atol=1e-6)


class SeqClassifier(nn.Cell):
    def __init__(self):
        super().__init__()
        self.enc = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True), 2
        )
        self.fc = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc(ops.reduce_mean(self.enc(x), 1))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_training_reduces_the_loss(mode):
    ms.set_seed(2)
    net = SeqClassifier()
    x = Tensor(_f32(6, 4, 8))
    y = Tensor((np.arange(6) % 3).astype(np.int32))
    losses = train_losses(net, x, y, 0.01, mode)
    assert losses[-1] < losses[0]


def test_attention_dropout_only_in_training():
    cell = nn.MultiheadAttention(4, 2, dropout=0.5)
    q = Tensor(_f32(3, 2, 4))
    eval_w = cell(q, q, q)[1].asnumpy()
    _close(eval_w, ref_mha(cell, q.asnumpy(), q.asnumpy(), q.asnumpy())[1])
    cell.set_train()
    assert not np.allclose(cell(q, q, q)[1].asnumpy(), eval_w)


@pytest.mark.parametrize(
    "make, exc",
    [
        (lambda: nn.MultiheadAttention(10, 3), ValueError),
        (lambda: nn.MultiheadAttention(8, 0), ValueError),
        (lambda: nn.MultiheadAttention(8, 2, dropout=1.5), ValueError),
        (lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"), ValueError),
        (lambda: nn.TransformerEncoderLayer(8, 2, activation=nn.Tanh()), ValueError),
        (lambda: nn.TransformerEncoderLayer(8, 2, activation=ops.tanh), ValueError),
        (lambda: nn.TransformerEncoderLayer(8, 2, activation=3), ValueError),
        (lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2), -1), ValueError),
        (lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2), 2.0), TypeError),
    ],
)
def test_constructor_errors(make, exc):
    with pytest.raises(exc):
        make()


def test_call_errors():
    cell = nn.MultiheadAttention(8, 2)
    q = Tensor(_f32(3, 2, 8))
    with pytest.raises(TypeError, match="key_padding_mask"):
        cell(q, q, q, key_padding_mask=Tensor(np.zeros((2, 3), np.int32)))
    with pytest.raises(ValueError, match="attn_mask"):
        cell(q, q, q, attn_mask=Tensor(np.zeros((3, 4), np.float32)))
    with pytest.raises(ValueError, match="key_padding_mask"):
        cell(q, q, q, key_padding_mask=Tensor(np.zeros((2, 4), np.float32)))
    with pytest.raises(ValueError, match="embed_dim"):
        cell(Tensor(_f32(3, 2, 6)), q, q)
    with pytest.raises(AssertionError):
        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1)(
            q, src_key_padding_mask=Tensor(np.zeros((2, 3), np.int32))
        )
    # no layers: the identity (then the norm, if any), as MindSpore's empty CellList
    np.testing.assert_array_equal(
        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 0)(q).asnumpy(), q.asnumpy()
    )
    with pytest.raises(ValueError, match="d_model"):
        nn.Transformer(8, 2, 1, 1, 16)(q, Tensor(_f32(3, 2, 4)))


def test_network_runs_on_the_simulated_device():
    x, mem = Tensor(_f32(2, 3, 6)), Tensor(_f32(2, 4, 4))
    kpm = Tensor(np.array([[False, False, True, True], [False] * 4]))
    ms.set_seed(8)
    want = AttnNet()(x, mem, kpm).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    try:
        ms.set_seed(8)
        got = AttnNet()(x, mem, kpm).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
