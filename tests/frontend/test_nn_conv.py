"""ops.conv2d / max_pool2d / avg_pool2d / pad / flip and nn.Conv2d, MaxPool2d,
AvgPool2d, Flatten against numpy references written with plain loops over the
window taps; graph mode against PyNative; LeNet5 (examples/models) training."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn, ops

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "models"))

RNG = np.random.default_rng(11)


def _conv_ref(x, w, stride, dilation, pads, group):
    pt, pb, pl, pr = pads
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    n, c, h, wd = xp.shape
    f, cg, kh, kw = w.shape
    oh = (h - (dilation[0] * (kh - 1) + 1)) // stride[0] + 1
    ow = (wd - (dilation[1] * (kw - 1) + 1)) // stride[1] + 1
    out = np.zeros((n, f, oh, ow), np.float64)
    fg = f // group
    for o in range(f):
        g = o // fg
        for i in range(kh):
            for j in range(kw):
                tap = xp[
                    :,
                    g * cg : (g + 1) * cg,
                    i * dilation[0] : i * dilation[0] + (oh - 1) * stride[0] + 1 : stride[0],
                    j * dilation[1] : j * dilation[1] + (ow - 1) * stride[1] + 1 : stride[1],
                ]
                out[:, o] += np.einsum("nchw,c->nhw", tap, w[o, :, i, j])
    return out


@pytest.mark.parametrize(
    "pad_mode, padding, stride, dilation, groups",
    [
        ("valid", 0, 1, 1, 1),
        ("same", 0, 2, 1, 1),
        ("same", 0, 3, 2, 2),
        ("pad", (1, 2), 2, 1, 4),
    ],
)
def test_ops_conv2d_matches_the_reference(pad_mode, padding, stride, dilation, groups):
    x = RNG.standard_normal((2, 4, 9, 8)).astype(np.float32)
    w = RNG.standard_normal((8, 4 // groups, 3, 3)).astype(np.float32)
    b = RNG.standard_normal(8).astype(np.float32)
    got = ops.conv2d(Tensor(x), Tensor(w), Tensor(b), stride, pad_mode, padding, dilation, groups)
    s, d = (stride, stride), (dilation, dilation)
    if pad_mode == "same":
        from mindjit.frontend.ops.conv import same_pads

        pads = (*same_pads(9, 3, stride, dilation), *same_pads(8, 3, stride, dilation))
        assert got.shape[2:] == (-(-9 // stride), -(-8 // stride))
    elif pad_mode == "pad":
        pads = (padding[0], padding[0], padding[1], padding[1])
    else:
        pads = (0, 0, 0, 0)
    want = _conv_ref(x, w, s, d, pads, groups) + b.reshape(1, -1, 1, 1)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-4)


def _pool_ref(x, k, s, pads, kind, include=True, ceil_extra=(0, 0)):
    pt, pb, pl, pr = pads
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(
        x,
        ((0, 0), (0, 0), (pt, pb + ceil_extra[0]), (pl, pr + ceil_extra[1])),
        constant_values=fill,
    )
    inside = np.pad(np.ones(x.shape[2:]), ((pt, pb + ceil_extra[0]), (pl, pr + ceil_extra[1])))
    counted = np.pad(
        np.ones((x.shape[2] + pt + pb, x.shape[3] + pl + pr)),
        ((0, ceil_extra[0]), (0, ceil_extra[1])),
    )
    oh = (xp.shape[2] - k[0]) // s[0] + 1
    ow = (xp.shape[3] - k[1]) // s[1] + 1
    out = np.zeros((*x.shape[:2], oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s[0] : i * s[0] + k[0], j * s[1] : j * s[1] + k[1]]
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                cnt = (counted if include else inside)[
                    i * s[0] : i * s[0] + k[0], j * s[1] : j * s[1] + k[1]
                ]
                out[:, :, i, j] = win.sum(axis=(2, 3)) / cnt.sum()
    return out


def test_nn_pooling_matches_the_reference():
    x = RNG.standard_normal((2, 3, 7, 6)).astype(np.float32)
    t = Tensor(x)
    np.testing.assert_allclose(
        nn.MaxPool2d(2, 2)(t).asnumpy(), _pool_ref(x, (2, 2), (2, 2), (0,) * 4, "max")
    )
    np.testing.assert_allclose(
        nn.MaxPool2d(3, 2, pad_mode="pad", padding=1, ceil_mode=True)(t).asnumpy(),
        _pool_ref(x, (3, 3), (2, 2), (1, 1, 1, 1), "max", ceil_extra=(0, 1)),
    )
    # "same": the padding is not counted (MindSpore's CPU kernel)
    same = nn.AvgPool2d(3, 2, pad_mode="same")(t).asnumpy()
    np.testing.assert_allclose(
        same, _pool_ref(x, (3, 3), (2, 2), (1, 1, 0, 1), "avg", False), rtol=1e-6, atol=1e-6
    )  # float32 averages against a float64 reference: a few ulps of O(1) values apart
    for include in (True, False):
        got = nn.AvgPool2d(3, 1, "pad", 1, count_include_pad=include)(t).asnumpy()
        want = _pool_ref(x, (3, 3), (1, 1), (1, 1, 1, 1), "avg", include)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    got = ops.avg_pool2d(t, 2, 2, divisor_override=3).asnumpy()
    np.testing.assert_allclose(
        got, _pool_ref(x, (2, 2), (2, 2), (0,) * 4, "avg") * 4 / 3, rtol=1e-6, atol=1e-6
    )


def test_pad_flip_flatten():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    got = ops.pad(Tensor(x), (1, -1, 2, 0), value=0.5).asnumpy()
    want = np.pad(x, ((0, 0), (2, 0), (1, 0)), constant_values=0.5)[:, :, :-1]
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ops.flip(Tensor(x), (0, -1)).asnumpy(), x[::-1, :, ::-1])
    assert nn.Flatten()(Tensor(x)).shape == (2, 12)
    assert nn.Flatten(0, 1)(Tensor(x)).shape == (6, 4)


def test_conv2d_layer_defaults_and_errors():
    layer = nn.Conv2d(4, 6, 3, group=2, has_bias=True)
    assert layer.weight.shape == (6, 2, 3, 3) and layer.bias.shape == (6,)
    bound = 1 / np.sqrt(2 * 9)  # HeUniform(sqrt(5)) and the bias: U(+-1/sqrt(fan_in))
    assert np.abs(layer.weight.asnumpy()).max() <= bound
    assert np.abs(layer.bias.asnumpy()).max() <= bound
    assert layer(Tensor(np.ones((1, 4, 5, 5), np.float32))).shape == (1, 6, 5, 5)  # "same"
    with pytest.raises(ValueError, match="'group' should be divisible"):
        nn.Conv2d(4, 6, 3, group=4)
    with pytest.raises(ValueError, match="pad_mode"):
        nn.Conv2d(4, 6, 3, pad_mode="SAME")
    with pytest.raises(ValueError, match="must be zero when 'pad_mode' is not 'pad'"):
        nn.Conv2d(4, 6, 3, padding=1)
    with pytest.raises(ValueError, match="input channels"):
        layer(Tensor(np.ones((1, 3, 5, 5), np.float32)))
    with pytest.raises(ValueError, match="'pad_mode' must be 'VALID', 'SAME' or 'PAD'"):
        nn.MaxPool2d(2, pad_mode="full")
    with pytest.raises(ValueError, match="only be set with pad_mode 'pad'"):
        nn.MaxPool2d(2, padding=1)


class ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, has_bias=True)
        self.dw = nn.Conv2d(8, 8, 3, pad_mode="pad", padding=1, group=8)
        self.pool = nn.AvgPool2d(2, 2)
        self.max = nn.MaxPool2d(3, 1, pad_mode="same")
        self.flatten = nn.Flatten()

    def construct(self, x):
        y = self.max(ops.relu(self.dw(ops.relu(self.conv(x)))))
        return self.flatten(self.pool(ops.flip(ops.pad(y, (1, 1, 0, 0)), (3,))))


def test_graph_mode_equals_pynative_forward_and_grad():
    x = Tensor(RNG.standard_normal((2, 3, 9, 9)).astype(np.float32))
    net = ConvNet()

    def loss(v):
        y = net(v)
        return ops.reduce_sum(y * y)

    grad = ms.grad(loss, None, net.trainable_params())

    def grads(v):
        return grad(v)

    eager_out, eager_grads = net(x).asnumpy(), [g.asnumpy() for g in grad(x)]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph_out = net(x).asnumpy()
        graph_grads = [g.asnumpy() for g in ms.jit(grads)(x)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(graph_out, eager_out, rtol=1e-6, atol=1e-6)
    for g, e in zip(graph_grads, eager_grads, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_lenet5_trains_in_graph_mode_as_in_pynative():
    from lenet5 import LeNet5, synthetic_batch, train_step_fn

    def run(mode):
        ms.set_context(mode=mode)
        try:
            ms.set_seed(3)
            net = LeNet5()
            step = train_step_fn(net, lr=0.05)
            if mode == ms.GRAPH_MODE:
                step = ms.jit(step)
            x, y = synthetic_batch(8)
            losses = [float(step(x, y).asnumpy()) for _ in range(4)]
            return losses, [p.asnumpy() for p in net.trainable_params()]
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)

    graph_losses, graph_params = run(ms.GRAPH_MODE)
    eager_losses, eager_params = run(ms.PYNATIVE_MODE)
    assert graph_losses[-1] < graph_losses[0]
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    for g, e in zip(graph_params, eager_params, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def test_lenet5_compiles_for_the_device():
    from lenet5 import LeNet5, synthetic_batch

    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    try:
        ms.set_seed(3)
        net = LeNet5()
        x, _ = synthetic_batch(4)
        out = net(x).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    ms.set_seed(3)
    np.testing.assert_allclose(out, LeNet5()(x).asnumpy(), rtol=1e-5, atol=1e-6)


def test_bad_arguments_are_clear_errors():
    x = Tensor(np.ones((1, 2, 4, 4), np.float32))
    with pytest.raises(ValueError, match="4-D"):
        ops.conv2d(Tensor(np.ones((2, 4, 4), np.float32)), x)
    with pytest.raises(TypeError, match="float tensor"):
        ops.max_pool2d(Tensor(np.ones((1, 2, 4, 4), np.int32)), 2)
    with pytest.raises(ValueError, match="larger than the padded input"):
        ops.conv2d(x, Tensor(np.ones((3, 2, 5, 5), np.float32)))
    with pytest.raises(ValueError, match="at most half the kernel size"):
        ops.max_pool2d(x, 2, padding=2)
    with pytest.raises(NotImplementedError, match="ceil_mode"):
        ops.avg_pool2d(x, 2, 2, ceil_mode=True, divisor_override=3)
    with pytest.raises(TypeError, match="even number of ints"):
        ops.pad(x, (1, 2, 3))
    with pytest.raises(ValueError, match="crops more than axis 3"):
        ops.pad(x, (-3, -2))
    with pytest.raises(NotImplementedError, match="only mode 'constant'"):
        ops.pad(x, (1, 1), mode="reflect")
    with pytest.raises(ValueError, match="at least one axis"):
        ops.flip(x, ())
    with pytest.raises(TypeError, match="'start_dim' must be an int"):
        nn.Flatten(1.0)
