"""GroupNorm, InstanceNorm1d/2d/3d, MaxPool1d/AvgPool1d, Pad/ConstantPad/ZeroPad and
PixelShuffle/PixelUnshuffle against numpy references (loops over the windows,
the index formula of the shuffle); graph mode against PyNative (forward and
gradients); float64 gradients against finite differences; training steps;
MindSpore's exception types."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import train_losses

import mindjit as ms
from mindjit import Tensor, nn, ops

RNG = np.random.default_rng(9)


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def ref_group_norm(x, groups, gamma, beta, eps):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1).astype(np.float64)
    y = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)
    view = (1, c) + (1,) * (x.ndim - 2)
    return y.reshape(x.shape) * gamma.reshape(view) + beta.reshape(view)


@pytest.mark.parametrize("shape, groups", [((2, 6, 3, 4), 3), ((3, 4, 5), 1), ((2, 4), 4)])
def test_group_norm_matches_the_reference(shape, groups):
    c = shape[1]
    x = _f32(*shape)
    net = nn.GroupNorm(groups, c, gamma_init=Tensor(_f32(c)), beta_init=Tensor(_f32(c)))
    want = ref_group_norm(x, groups, net.gamma.asnumpy(), net.beta.asnumpy(), 1e-5)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        ops.group_norm(Tensor(x), groups).asnumpy(),
        ref_group_norm(x, groups, np.ones(c), np.zeros(c), 1e-5),
        rtol=1e-5,
        atol=1e-5,
    )


def test_group_norm_mindspore_example_and_params():
    net = nn.GroupNorm(2, 2)
    out = net(Tensor(np.ones([1, 2, 4, 4], np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), np.zeros((1, 2, 4, 4)))
    assert [(n, p.shape) for n, p in net.parameters_and_names()] == [
        ("gamma", (2,)),
        ("beta", (2,)),
    ]
    frozen = nn.GroupNorm(1, 2, affine=False)
    assert not frozen.gamma.requires_grad and frozen.trainable_params() == []


@pytest.mark.parametrize(
    "cls, shape",
    [
        (nn.InstanceNorm1d, (2, 3, 5)),
        (nn.InstanceNorm2d, (2, 3, 4, 2)),
        (nn.InstanceNorm3d, (1, 3, 2, 2, 3)),
    ],
)
def test_instance_norm_matches_the_reference(cls, shape):
    x = _f32(*shape)
    net = cls(3, gamma_init=Tensor(_f32(3)), beta_init=Tensor(_f32(3)))
    want = ref_group_norm(x, 3, net.gamma.asnumpy(), net.beta.asnumpy(), 1e-5)
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-5)
    net.set_train()
    np.testing.assert_allclose(net(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-5)
    names = {n: p.requires_grad for n, p in net.parameters_and_names()}
    assert names == {"moving_mean": False, "moving_variance": False, "gamma": True, "beta": True}
    assert net.moving_mean.name.endswith(("mean", "moving_mean"))


def _pool1d_ref(x, kind, k, s, pads, d=1, ceil=False, include=True):
    n, c, length = x.shape
    lo, hi = pads
    span = d * (k - 1) + 1
    total = length + lo + hi - span
    out_len = (-(-total // s) if ceil else total // s) + 1
    if ceil and (out_len - 1) * s >= length + lo:
        out_len -= 1
    fill = -np.inf if kind == "max" else 0.0
    xp = np.full((n, c, length + lo + hi + s), fill)
    xp[:, :, lo : lo + length] = x
    out = np.zeros((n, c, out_len))
    idx = np.zeros((n, c, out_len), np.int64)
    for i in range(out_len):
        taps = xp[:, :, i * s : i * s + span : d]
        if kind == "max":
            out[:, :, i] = taps.max(-1)
            idx[:, :, i] = i * s + taps.argmax(-1) * d - lo
        else:
            start, stop = i * s - lo, min(i * s - lo + span, length + hi)
            count = (stop - start) if include else (min(stop, length) - max(start, 0))
            out[:, :, i] = taps.sum(-1) / count
    return out, idx


@pytest.mark.parametrize(
    "kwargs, pads",
    [
        ({"kernel_size": 3, "stride": 2}, (0, 0)),
        ({"kernel_size": 2}, (0, 0)),
        ({"kernel_size": 3, "stride": 1, "pad_mode": "same"}, (1, 1)),
        ({"kernel_size": 4, "stride": 2, "pad_mode": "same"}, (1, 2)),
        ({"kernel_size": 3, "stride": 2, "pad_mode": "pad", "padding": 1}, (1, 1)),
    ],
)
def test_pool1d_matches_the_reference(kwargs, pads):
    x = _f32(2, 3, 9)
    got = nn.MaxPool1d(**kwargs)(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(
        got, _pool1d_ref(x, "max", kwargs["kernel_size"], kwargs.get("stride", 1), pads)[0]
    )
    include = kwargs.get("pad_mode") == "pad"
    want = _pool1d_ref(
        x, "avg", kwargs["kernel_size"], kwargs.get("stride", 1), pads, include=include
    )[0]
    # float32 averages against a float64 reference: a few ulps of O(1) values apart
    np.testing.assert_allclose(
        nn.AvgPool1d(**kwargs)(Tensor(x)).asnumpy(), want, rtol=1e-6, atol=1e-6
    )
    # (C, L) input
    assert nn.MaxPool1d(**kwargs)(Tensor(x[0])).shape == got.shape[1:]


def test_max_pool1d_dilation_ceil_and_indices():
    x = _f32(2, 2, 10)
    net = nn.MaxPool1d(3, 2, "pad", 1, dilation=2, return_indices=True, ceil_mode=True)
    out, idx = net(Tensor(x))
    want, want_idx = _pool1d_ref(x, "max", 3, 2, (1, 1), d=2, ceil=True)
    np.testing.assert_array_equal(out.asnumpy(), want)
    np.testing.assert_array_equal(idx.asnumpy(), want_idx)
    assert idx.dtype == ms.int64
    avg = nn.AvgPool1d(3, 2, "pad", 1, count_include_pad=False)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(
        avg, _pool1d_ref(x, "avg", 3, 2, (1, 1), include=False)[0], rtol=1e-6
    )


def test_padding_layers():
    x = _f32(2, 3, 4, 5)
    np.testing.assert_array_equal(
        nn.ZeroPad2d((1, 2, 0, 3))(Tensor(x)).asnumpy(),
        np.pad(x, ((0, 0), (0, 0), (0, 3), (1, 2))),
    )
    np.testing.assert_array_equal(
        nn.ZeroPad2d(1)(Tensor(x[0])).asnumpy(), np.pad(x[0], ((0, 0), (1, 1), (1, 1)))
    )
    np.testing.assert_array_equal(
        nn.Pad(((0, 0), (1, 0), (2, 2), (0, 1)))(Tensor(x)).asnumpy(),
        np.pad(x, ((0, 0), (1, 0), (2, 2), (0, 1))),
    )
    np.testing.assert_array_equal(
        nn.ConstantPad1d((2, 1), 3.5)(Tensor(x)).asnumpy(),
        np.pad(x, ((0, 0), (0, 0), (0, 0), (2, 1)), constant_values=3.5),
    )
    np.testing.assert_array_equal(
        nn.ConstantPad3d(1, -1.0)(Tensor(x)).asnumpy(),
        np.pad(x, ((0, 0), (1, 1), (1, 1), (1, 1)), constant_values=-1.0),
    )
    # MindSpore's examples of the three modes, and numpy's reflect/symmetric
    m = Tensor(np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.float32))
    np.testing.assert_array_equal(
        nn.Pad(((1, 1), (2, 2)), "REFLECT")(m).asnumpy(),
        [
            [6, 5, 4, 5, 6, 5, 4],
            [3, 2, 1, 2, 3, 2, 1],
            [6, 5, 4, 5, 6, 5, 4],
            [9, 8, 7, 8, 9, 8, 7],
            [6, 5, 4, 5, 6, 5, 4],
        ],
    )
    np.testing.assert_array_equal(
        nn.Pad(((1, 1), (2, 2)), "SYMMETRIC")(m).asnumpy(),
        [
            [2, 1, 1, 2, 3, 3, 2],
            [2, 1, 1, 2, 3, 3, 2],
            [5, 4, 4, 5, 6, 6, 5],
            [8, 7, 7, 8, 9, 9, 8],
            [8, 7, 7, 8, 9, 9, 8],
        ],
    )
    pads = ((0, 0), (2, 0), (3, 1), (0, 4))
    for mode, np_mode in (("REFLECT", "reflect"), ("SYMMETRIC", "symmetric")):
        np.testing.assert_array_equal(
            nn.Pad(pads, mode)(Tensor(x)).asnumpy(), np.pad(x, pads, mode=np_mode)
        )
    with pytest.raises(ValueError, match="REFLECT"):
        nn.Pad(((0, 0), (0, 0), (4, 0), (0, 0)), "REFLECT")(Tensor(x))
    # negative amounts crop
    np.testing.assert_array_equal(
        nn.ZeroPad2d((-1, 0, 1, -2))(Tensor(x)).asnumpy(),
        np.pad(x, ((0, 0), (0, 0), (1, 0), (0, 0)))[:, :, :-2, 1:],
    )


def _shuffle_ref(x, r):
    *lead, c, h, w = x.shape
    out = np.zeros((*lead, c // (r * r), h * r, w * r), x.dtype)
    for oc in range(c // (r * r)):
        for i in range(h * r):
            for j in range(w * r):
                out[..., oc, i, j] = x[..., oc * r * r + (i % r) * r + (j % r), i // r, j // r]
    return out


def test_pixel_shuffle_and_unshuffle():
    x = _f32(2, 8, 3, 2)
    got = nn.PixelShuffle(2)(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, _shuffle_ref(x, 2))
    np.testing.assert_array_equal(ops.pixel_shuffle(Tensor(x[0]), 2).asnumpy(), got[0])
    back = nn.PixelUnshuffle(2)(Tensor(got)).asnumpy()
    np.testing.assert_array_equal(back, x)
    y = _f32(1, 2, 9, 3, 3)
    np.testing.assert_array_equal(ops.pixel_shuffle(Tensor(y), 3).asnumpy(), _shuffle_ref(y, 3))
    assert ops.pixel_unshuffle(Tensor(_f32(1, 4, 6)), 2).shape == (4, 2, 3)
    # MindSpore's example: int32, 5-D
    ints = Tensor(np.arange(3 * 2 * 9 * 4 * 4).reshape((3, 2, 9, 4, 4)).astype(np.int32))
    assert ops.pixel_shuffle(ints, 3).shape == (3, 2, 1, 12, 12)


def _fd_check(fn, arrays):
    assert_grads_match_finite_differences(fn, arrays, RNG)


def test_gradients_match_finite_differences_in_float64():
    x = RNG.standard_normal((2, 4, 3))
    g, b = RNG.standard_normal(4), RNG.standard_normal(4)
    _fd_check(lambda a, w, c: ops.group_norm(a, 2, w, c), [x, g, b])
    inorm = nn.InstanceNorm1d(4, dtype=ms.float64)
    _fd_check(lambda a: inorm(a), [x])
    y = RNG.standard_normal((1, 2, 7))
    _fd_check(lambda a: nn.MaxPool1d(3, 2, "pad", 1)(a), [y])
    _fd_check(lambda a: nn.AvgPool1d(3, 2, "same")(a), [y])
    _fd_check(lambda a: nn.ZeroPad2d((1, 0, -1, 2))(a), [x])
    _fd_check(lambda a: nn.Pad(((0, 0), (1, 2), (2, 1)), "REFLECT")(a), [x])
    _fd_check(lambda a: nn.Pad(((1, 0), (0, 1), (0, 3)), "SYMMETRIC")(a), [x])
    _fd_check(lambda a: ops.pixel_shuffle(a, 2), [RNG.standard_normal((1, 4, 2, 3))])


class Mixed(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, pad_mode="same")
        self.gn = nn.GroupNorm(4, 8)
        self.shuffle = nn.PixelShuffle(2)
        self.inorm = nn.InstanceNorm2d(2)
        self.pad = nn.ZeroPad2d((1, 1, 0, 1))
        self.full = nn.Pad(((0, 0), (0, 0), (1, 0), (0, 0)))
        self.mirror = nn.Pad(((0, 0), (0, 0), (1, 1), (2, 0)), "REFLECT")
        self.maxp = nn.MaxPool1d(3, 2, "pad", 1)
        self.avgp = nn.AvgPool1d(2, 2)

    def construct(self, x):
        y = self.shuffle(ops.relu(self.gn(self.conv(x))))  # (N, 2, 8, 8)
        y = self.mirror(self.full(self.pad(self.inorm(y))))  # (N, 2, 12, 12)
        seq = ops.reshape(y, (y.shape[0], 2, -1))
        return ops.reduce_sum(self.maxp(seq)) + ops.reduce_sum(self.avgp(seq) ** 2)


def test_graph_mode_equals_pynative_forward_and_grad():
    net = Mixed()
    x = Tensor(_f32(2, 3, 4, 4))
    grad = ms.grad(net, None, net.trainable_params())

    def grads(v):
        return grad(v)

    eager_out = net(x).asnumpy()
    eager_grads = [g.asnumpy() for g in grad(x)]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph_out = net(x).asnumpy()
        graph_grads = [g.asnumpy() for g in ms.jit(grads)(x)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(graph_out, eager_out, rtol=1e-5, atol=1e-5)
    assert len(graph_grads) == 5
    for g, e in zip(graph_grads, eager_grads, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_training_reduces_the_loss(mode):
    ms.set_seed(4)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 4, 3, pad_mode="same")
            self.gn = nn.GroupNorm(2, 4)
            self.shuffle = nn.PixelShuffle(2)
            self.pool = nn.MaxPool1d(2, 2)
            self.fc = nn.Dense(32, 3)

        def construct(self, x):
            y = self.shuffle(ops.relu(self.gn(self.conv(x))))  # (N, 1, 8, 8)
            y = self.pool(ops.reshape(y, (y.shape[0], 1, 64)))  # (N, 1, 32)
            return self.fc(ops.reshape(y, (y.shape[0], 32)))

    net = Net()
    x = Tensor(_f32(6, 1, 4, 4))
    y = Tensor((np.arange(6) % 3).astype(np.int32))
    losses = train_losses(net, x, y, 0.02, mode)
    assert losses[-1] < losses[0]


@pytest.mark.parametrize(
    "make, exc",
    [
        (lambda: nn.GroupNorm(2.0, 4), TypeError),
        (lambda: nn.GroupNorm(0, 4), ValueError),
        (lambda: nn.GroupNorm(3, 4), ValueError),
        (lambda: nn.GroupNorm(2, 4, eps=1), TypeError),
        (lambda: nn.GroupNorm(2, 4, affine="yes"), TypeError),
        (lambda: nn.InstanceNorm2d(3.0), TypeError),
        (lambda: nn.InstanceNorm2d(0), ValueError),
        (lambda: nn.InstanceNorm2d(3, eps=1), TypeError),
        (lambda: nn.InstanceNorm2d(3, momentum=1.5), ValueError),
        (lambda: nn.InstanceNorm2d(3, affine=1), TypeError),
        (lambda: nn.InstanceNorm2d(3, gamma_init=[1.0, 1.0, 1.0]), TypeError),
        (lambda: nn.MaxPool1d(2.5), TypeError),
        (lambda: nn.MaxPool1d(0), ValueError),
        (lambda: nn.MaxPool1d(3, pad_mode="full"), ValueError),
        (lambda: nn.MaxPool1d(3, padding=1), ValueError),
        (lambda: nn.AvgPool1d(3, stride=0), ValueError),
        (lambda: nn.Pad([(1, 1)]), TypeError),
        (lambda: nn.Pad(((1, 1, 1),)), ValueError),
        (lambda: nn.Pad(((1, 1),), mode="WRAP"), ValueError),
        (lambda: nn.Pad(((1, 1),), mode="constant"), ValueError),
        (lambda: nn.ZeroPad2d((1, 1)), ValueError),
        (lambda: nn.ZeroPad2d(1.0), TypeError),
        (lambda: nn.PixelShuffle(0), ValueError),
        (lambda: nn.PixelShuffle(2.0), ValueError),
    ],
)
def test_constructor_errors(make, exc):
    with pytest.raises(exc):
        make()


def test_call_errors():
    with pytest.raises(ValueError, match="num_channels"):
        nn.GroupNorm(2, 4)(Tensor(_f32(2, 6, 3)))
    with pytest.raises(TypeError, match="float"):
        nn.GroupNorm(2, 4)(Tensor(np.ones((2, 4, 3), np.int32)))
    with pytest.raises(ValueError, match="4 dims"):
        nn.InstanceNorm2d(3)(Tensor(_f32(2, 3, 4)))
    with pytest.raises(ValueError, match="divisible"):
        ops.pixel_shuffle(Tensor(_f32(1, 6, 2, 2)), 2)
    with pytest.raises(ValueError, match="rank"):
        ops.pixel_shuffle(Tensor(_f32(4, 2)), 2)
    with pytest.raises(ValueError, match="divisible"):
        ops.group_norm(Tensor(_f32(2, 6, 3)), 4)
    with pytest.raises(ValueError, match="at least 1"):
        ops.group_norm(Tensor(_f32(2, 6, 3)), 0)
    with pytest.raises(TypeError, match="eps"):
        ops.group_norm(Tensor(_f32(2, 6, 3)), 2, eps=1)
    with pytest.raises(TypeError, match="num_groups"):
        ops.group_norm(Tensor(_f32(2, 6, 3)), 2.0)
    with pytest.raises(ValueError, match=r"\(N, C, L\)"):
        nn.MaxPool1d(2)(Tensor(_f32(1, 2, 3, 4)))
    with pytest.raises(ValueError, match="one pair per input dimension"):
        nn.Pad(((1, 1),))(Tensor(_f32(2, 3)))
    with pytest.raises(ValueError, match="rank"):
        nn.ZeroPad2d(1)(Tensor(_f32(4, 4)))


def test_network_runs_on_the_simulated_device():
    x = Tensor(_f32(2, 3, 4, 4))
    ms.set_seed(7)
    want = Mixed()(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    try:
        ms.set_seed(7)
        got = Mixed()(x).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
