"""Adaptive pooling, Conv1d and Conv2dTranspose (frontend compositions of mindir ops)
against numpy references written with plain loops (the adaptive windows; the
scatter form of the transposed convolution: every input pixel adds value *
kernel into the output); gradients against central finite differences in
float64; graph mode against PyNative; a network of them compiled for the
simulated device; bad arguments raising MindSpore's exception types."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences

import mindjit as ms
from mindjit import Tensor, nn, ops
from mindjit.frontend.graph.errors import FrontendValueError
from mindjit.frontend.ops.adaptive_pool import windows
from mindjit.frontend.ops.conv_transpose import conv_transpose2d, deconv_length, transpose_pads

RNG = np.random.default_rng(23)


def _adaptive_ref(x, oh, ow, reduce):
    out = np.zeros((*x.shape[:-2], oh, ow))
    for i, (hs, he) in enumerate(windows(x.shape[-2], oh)):
        for j, (ws, we) in enumerate(windows(x.shape[-1], ow)):
            out[..., i, j] = reduce(x[..., hs:he, ws:we], axis=(-2, -1))
    return out


@pytest.mark.parametrize(
    "output_size, want",
    [(1, (1, 1)), ((3, 2), (3, 2)), ((4, None), (4, 5)), ((None, 3), (7, 3)), (7, (7, 7))],
)
def test_adaptive_pooling_matches_the_reference(output_size, want):
    x = RNG.standard_normal((2, 3, 7, 5)).astype(np.float32)
    avg = ops.adaptive_avg_pool2d(Tensor(x), output_size).asnumpy()
    np.testing.assert_allclose(avg, _adaptive_ref(x, *want, np.mean), rtol=1e-5, atol=1e-6)
    top = ops.adaptive_max_pool2d(Tensor(x), output_size).asnumpy()
    np.testing.assert_array_equal(top, _adaptive_ref(x, *want, np.max))
    assert nn.AdaptiveAvgPool2d(output_size)(Tensor(x)).shape == (2, 3, *want)
    assert nn.AdaptiveMaxPool2d(output_size)(Tensor(x)).shape == (2, 3, *want)


def test_adaptive_pooling_divisible_and_batchless():
    x = RNG.standard_normal((2, 3, 8, 6)).astype(np.float32)
    np.testing.assert_allclose(
        nn.AdaptiveAvgPool2d((4, 3))(Tensor(x)).asnumpy(),
        _adaptive_ref(x, 4, 3, np.mean),
        rtol=1e-5,
        atol=1e-6,
    )
    np.testing.assert_array_equal(
        nn.AdaptiveMaxPool2d(2)(Tensor(x)).asnumpy(), _adaptive_ref(x, 2, 2, np.max)
    )
    chw = ops.adaptive_avg_pool2d(Tensor(x[0]), (3, 4)).asnumpy()
    np.testing.assert_allclose(chw, _adaptive_ref(x[0], 3, 4, np.mean), rtol=1e-5, atol=1e-6)


def _conv1d_ref(x, w, stride, dilation, pads, groups):
    xp = np.pad(x, ((0, 0), (0, 0), pads))
    n, c, length = xp.shape
    f, cg, k = w.shape
    out_len = (length - (dilation * (k - 1) + 1)) // stride + 1
    out = np.zeros((n, f, out_len))
    fg = f // groups
    for o in range(f):
        g = o // fg
        for t in range(k):
            tap = xp[:, g * cg : (g + 1) * cg, t * dilation :: stride][:, :, :out_len]
            out[:, o] += np.einsum("ncl,c->nl", tap, w[o, :, t])
    return out


@pytest.mark.parametrize(
    "pad_mode, padding, stride, dilation, groups, pads",
    [
        ("valid", 0, 1, 1, 1, (0, 0)),
        ("same", 0, 2, 1, 2, (1, 1)),  # 11 -> 6: need (6 - 1) * 2 + 3 - 11 = 2
        ("same", 0, 1, 2, 1, (2, 2)),
        ("pad", 2, 3, 1, 4, (2, 2)),
        ("pad", (1, 0), 1, 1, 1, (1, 0)),
    ],
)
def test_conv1d_matches_the_reference(pad_mode, padding, stride, dilation, groups, pads):
    x = RNG.standard_normal((2, 4, 11)).astype(np.float32)
    w = RNG.standard_normal((8, 4 // groups, 3)).astype(np.float32)
    b = RNG.standard_normal(8).astype(np.float32)
    got = ops.conv1d(Tensor(x), Tensor(w), Tensor(b), stride, pad_mode, padding, dilation, groups)
    want = _conv1d_ref(x, w, stride, dilation, pads, groups) + b.reshape(1, -1, 1)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-4, atol=1e-5)


def test_conv1d_layer():
    layer = nn.Conv1d(4, 6, 3, stride=2, group=2, has_bias=True)
    assert layer.weight.shape == (6, 2, 1, 3)  # MindSpore keeps Conv1d's weight 4-D
    bound = 1 / np.sqrt(2 * 3)
    assert np.abs(layer.weight.asnumpy()).max() <= bound
    x = RNG.standard_normal((2, 4, 9)).astype(np.float32)
    got = layer(Tensor(x)).asnumpy()
    assert got.shape == (2, 6, 5)  # "same": ceil(9 / 2)
    w = layer.weight.asnumpy()[:, :, 0]
    want = _conv1d_ref(x, w, 2, 1, (1, 1), 2) + layer.bias.asnumpy().reshape(1, -1, 1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    given = RNG.standard_normal((6, 2, 3)).astype(np.float32)  # a 3-D Tensor gains the 1 axis
    np.testing.assert_array_equal(
        nn.Conv1d(4, 6, 3, group=2, weight_init=Tensor(given)).weight.asnumpy()[:, :, 0], given
    )
    padded = nn.Conv1d(4, 2, 3, pad_mode="pad", padding=1, dilation=2, weight_init="ones")
    assert padded.weight.shape == (2, 4, 1, 3)
    want = _conv1d_ref(x, np.ones((2, 4, 3)), 1, 2, (1, 1), 1)
    np.testing.assert_allclose(padded(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-5)


def _deconv_ref(x, w, stride, dilation, group, out_hw, pads):
    """Scatter form: input pixel (i, j) adds x * w[:, :, a, b] at (i * s + a * d, j * s + b * d)
    of the padded output; the pads are cropped."""
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    pt, _, pl, _ = pads
    full = np.zeros(
        (n, og * group, out_hw[0] + pt + stride[0] * h + dilation[0] * kh, out_hw[1] + pl + 99)
    )
    cg = c // group
    for ci in range(c):
        g = ci // cg
        for i in range(h):
            for j in range(wd):
                for a in range(kh):
                    for b in range(kw):
                        full[
                            :,
                            g * og : (g + 1) * og,
                            i * stride[0] + a * dilation[0],
                            j * stride[1] + b * dilation[1],
                        ] += x[:, ci, i, j][:, None] * w[ci, :, a, b][None, :]
    return full[:, :, pt : pt + out_hw[0], pl : pl + out_hw[1]]


DECONV_CASES = [
    # pad_mode, padding, output_padding, stride, dilation, group, kernel
    ("same", 0, 0, 1, 1, 1, 3),
    ("same", 0, 0, 2, 1, 2, 3),
    ("same", 0, 0, 2, 1, 1, 4),
    ("valid", 0, 0, 1, 1, 1, 3),
    ("valid", 0, 0, 2, 2, 1, 3),
    ("valid", 0, 0, 3, 1, 2, 2),  # kernel shorter than the stride
    ("pad", 1, 0, 2, 1, 1, 3),
    ("pad", (1, 0, 2, 1), 1, 2, 1, 2, 3),
    ("pad", 0, 1, 1, 2, 1, 2),  # output_padding < max(stride, dilation)
]


@pytest.mark.parametrize("pad_mode, padding, extra, stride, dilation, group, k", DECONV_CASES)
def test_conv2d_transpose_matches_the_scatter_reference(
    pad_mode, padding, extra, stride, dilation, group, k
):
    net = nn.Conv2dTranspose(
        4, 6, k, stride, pad_mode, padding, extra, dilation, group, has_bias=True
    )
    assert net.weight.shape == (4, 6 // group, k, k)
    x = RNG.standard_normal((2, 4, 5, 4)).astype(np.float32)
    got = net(Tensor(x)).asnumpy()
    pads = (padding,) * 4 if isinstance(padding, int) else padding
    out_hw = tuple(
        deconv_length(pad_mode, size, k, stride, dilation, pads[2 * a] + pads[2 * a + 1])
        for a, size in enumerate((5, 4))
    )
    if pad_mode == "same":
        assert out_hw == (5 * stride, 4 * stride)
    fwd = transpose_pads(pad_mode, out_hw, (k, k), (stride,) * 2, (dilation,) * 2, pads)
    want = _deconv_ref(
        x.astype(np.float64),
        net.weight.asnumpy().astype(np.float64),
        (stride,) * 2,
        (dilation,) * 2,
        group,
        out_hw,
        fwd,
    )
    want = want + net.bias.asnumpy().reshape(1, -1, 1, 1)
    # MindSpore's Conv2dTranspose appends output_padding zeros after the bias
    want = np.pad(want, ((0, 0), (0, 0), (0, extra), (0, extra)))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_conv2d_transpose_shape_of_mindspore_example():
    net = nn.Conv2dTranspose(3, 64, 4, has_bias=False, weight_init="normal", pad_mode="pad")
    assert net(Tensor(np.ones((1, 3, 16, 50), np.float32))).shape == (1, 64, 19, 53)


def _fd_check(fn, arrays):
    assert_grads_match_finite_differences(fn, arrays, RNG)


@pytest.mark.parametrize(
    "pad_mode, padding, stride, dilation, group",
    [("same", 0, 2, 1, 2), ("valid", 0, 2, 2, 1), ("pad", (1, 0, 0, 1), 1, 1, 1)],
)
def test_conv2d_transpose_gradients(pad_mode, padding, stride, dilation, group):
    net = nn.Conv2dTranspose(2, 4, 3, stride, pad_mode, padding, 0, dilation, group)
    pads = (padding,) * 4 if isinstance(padding, int) else padding

    def fn(x, w):
        s, d = (stride, stride), (dilation, dilation)
        return conv_transpose2d(x, w, pad_mode, pads, s, d, group)

    x = RNG.standard_normal((1, 2, 3, 3))
    w = net.weight.asnumpy().astype(np.float64)
    _fd_check(fn, [x, w])


def test_conv1d_and_adaptive_pool_gradients():
    x = RNG.standard_normal((1, 2, 7))
    w = RNG.standard_normal((2, 1, 3))
    _fd_check(lambda a, b: ops.conv1d(a, b, None, 2, "same", 0, 1, 2), [x, w])
    image = RNG.standard_normal((1, 2, 5, 4))
    for size in ((3, 3), (1, 1), (5, 2)):
        _fd_check(lambda a, s=size: ops.adaptive_avg_pool2d(a, s), [image])
        _fd_check(lambda a, s=size: ops.adaptive_max_pool2d(a, s), [image])


class Mixed(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1d = nn.Conv1d(3, 4, 3, has_bias=True)
        self.up = nn.Conv2dTranspose(4, 4, 3, stride=2, has_bias=True)
        self.up_pad = nn.Conv2dTranspose(
            4, 2, 2, stride=2, pad_mode="pad", padding=1, output_padding=1, group=2
        )
        self.avg = nn.AdaptiveAvgPool2d((3, 5))
        self.max = nn.AdaptiveMaxPool2d((2, None))
        self.gap = nn.AdaptiveAvgPool2d(1)

    def construct(self, x):
        y = ops.relu(self.conv1d(x))  # (N, 4, 6)
        img = ops.reshape(y, (y.shape[0], 4, 2, 3))
        up = self.up_pad(ops.relu(self.up(img)))  # (N, 2, 7, 11)
        a = self.avg(up)
        b = self.max(up)
        return ops.reduce_sum(a * a) + ops.reduce_sum(b) + ops.reduce_sum(self.gap(up))


def test_graph_mode_equals_pynative_forward_and_grad():
    x = Tensor(RNG.standard_normal((2, 3, 6)).astype(np.float32))
    net = Mixed()
    grad = ms.grad(net, None, net.trainable_params())

    def grads(v):
        return grad(v)

    eager_out, eager_grads = net(x).asnumpy(), [g.asnumpy() for g in grad(x)]
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


def test_network_compiles_for_the_device():
    x = Tensor(RNG.standard_normal((2, 3, 6)).astype(np.float32))
    ms.set_seed(5)
    want = Mixed()(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    try:
        ms.set_seed(5)
        got = Mixed()(x).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


class WrongChannels(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 6, 3)

    def construct(self, x):
        y = x * 2
        return self.conv(y)  # LINE: wrong channels


def test_wrong_channel_count_names_the_users_line_in_graph_mode():
    x = Tensor(np.ones((1, 3, 5, 5), np.float32))
    pattern = (
        r"input of shape \(1, 3, 5, 5\) has 3 channels, but the weight of shape \(6, 4, 3, 3\)"
    )
    with pytest.raises(ValueError, match=pattern):
        WrongChannels()(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(FrontendValueError, match=pattern) as info:
            WrongChannels()(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    import inspect

    lines, start = inspect.getsourcelines(WrongChannels.construct)
    line = start + next(i for i, t in enumerate(lines) if "LINE: wrong channels" in t)
    assert str(info.value).startswith(f"frontend error: {__file__}:{line}: ValueError: ")


def test_bad_arguments_are_clear_errors():
    img = Tensor(np.ones((1, 2, 4, 4), np.float32))
    with pytest.raises(ValueError, match="'output_size' must be an int or a tuple of 2"):
        nn.AdaptiveAvgPool2d((1, 2, 3))
    with pytest.raises(TypeError, match="'output_size' must be an int or a tuple"):
        ops.adaptive_avg_pool2d(img, 1.5)
    with pytest.raises(ValueError, match="positive ints or None"):
        ops.adaptive_max_pool2d(img, (0, 2))
    with pytest.raises(ValueError, match="3-D .* or 4-D"):
        ops.adaptive_avg_pool2d(Tensor(np.ones((4, 4), np.float32)), 2)
    with pytest.raises(TypeError, match="float16, float32 or float64"):
        ops.adaptive_avg_pool2d(Tensor(np.ones((1, 4, 4), np.int32)), 2)
    with pytest.raises(NotImplementedError, match="return_indices"):
        nn.AdaptiveMaxPool2d(2, return_indices=True)
    seq = Tensor(np.ones((1, 2, 8), np.float32))
    with pytest.raises(TypeError, match="'kernel_size' must be an int"):
        nn.Conv1d(2, 2, (3,))
    with pytest.raises(ValueError, match="input must be 3-D"):
        nn.Conv1d(2, 2, 3)(img)
    with pytest.raises(ValueError, match="must be 3-D"):
        ops.conv1d(seq, Tensor(np.ones((2, 2, 1, 3), np.float32)))
    with pytest.raises(ValueError, match="input channels"):
        ops.conv1d(seq, Tensor(np.ones((2, 3, 3), np.float32)))
    with pytest.raises(ValueError, match="must be zero when 'pad_mode' is not 'pad'"):
        ops.conv1d(seq, Tensor(np.ones((2, 2, 3), np.float32)), padding=1)
    with pytest.raises(ValueError, match=r"'output_padding' must be in range of \[0, max"):
        nn.Conv2dTranspose(2, 2, 3, stride=2, pad_mode="pad", output_padding=2)
    with pytest.raises(ValueError, match="'pad_mode' must be 'pad'"):
        nn.Conv2dTranspose(2, 2, 3, stride=2, output_padding=1)
    with pytest.raises(ValueError, match="'group' should be divisible"):
        nn.Conv2dTranspose(4, 6, 3, group=4)
    with pytest.raises(ValueError, match="the input has 2 channels but the weight"):
        nn.Conv2dTranspose(3, 2, 3)(img)


def _argmax_ref(x, k, s, pads, d, extra=(0, 0)):
    """Loops over the windows: the first maximum in row-major order, as row * W + column."""
    n, c, h, w = x.shape
    oh = (h + pads[0] + pads[1] + extra[0] - (d[0] * (k[0] - 1) + 1)) // s[0] + 1
    ow = (w + pads[2] + pads[3] + extra[1] - (d[1] * (k[1] - 1) + 1)) // s[1] + 1
    values = np.full((n, c, oh, ow), -np.inf)
    index = np.zeros((n, c, oh, ow), np.int64)
    for i in range(oh):
        for j in range(ow):
            for a in range(k[0]):
                for b in range(k[1]):
                    r, q = i * s[0] + a * d[0] - pads[0], j * s[1] + b * d[1] - pads[2]
                    if not (0 <= r < h and 0 <= q < w):
                        continue
                    better = x[:, :, r, q] > values[:, :, i, j]
                    values[:, :, i, j] = np.where(better, x[:, :, r, q], values[:, :, i, j])
                    index[:, :, i, j] = np.where(better, r * w + q, index[:, :, i, j])
    return values, index


@pytest.mark.parametrize(
    "kernel, stride, padding, dilation, ceil_mode, pads, extra",
    [
        (2, None, 0, 1, False, (0, 0, 0, 0), (0, 0)),
        (3, 2, 1, 1, True, (1, 1, 1, 1), (0, 1)),
        (3, 1, 1, 2, False, (1, 1, 1, 1), (0, 0)),
        ((2, 3), (1, 2), (1, 1), 1, False, (1, 1, 1, 1), (0, 0)),
    ],
)
def test_max_pool2d_return_indices(kernel, stride, padding, dilation, ceil_mode, pads, extra):
    x = RNG.standard_normal((2, 3, 7, 6)).astype(np.float32)
    x[0, 0] = 1.0  # ties: the first maximum of each window
    out, index = ops.max_pool2d(Tensor(x), kernel, stride, padding, dilation, True, ceil_mode)
    k = (kernel, kernel) if isinstance(kernel, int) else kernel
    s = k if stride is None else ((stride, stride) if isinstance(stride, int) else stride)
    want_values, want_index = _argmax_ref(x, k, s, pads, (dilation, dilation), extra)
    assert index.dtype == ms.int64
    np.testing.assert_array_equal(out.asnumpy(), want_values)
    np.testing.assert_array_equal(index.asnumpy(), want_index)


def test_max_pool2d_layer_return_indices_in_both_modes():
    layer = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1, return_indices=True)
    x = Tensor(RNG.standard_normal((1, 2, 6, 5)).astype(np.float32))
    eager_out, eager_index = layer(x)
    want_values, want_index = _argmax_ref(x.asnumpy(), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1))
    np.testing.assert_array_equal(eager_index.asnumpy(), want_index)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph_out, graph_index = layer(x)
        ms.set_context(device_target="Ascend")
        device_out, device_index = layer(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    for out, index in ((graph_out, graph_index), (device_out, device_index)):
        np.testing.assert_array_equal(out.asnumpy(), eager_out.asnumpy())
        np.testing.assert_array_equal(index.asnumpy(), eager_index.asnumpy())


def test_even_kernels_with_same_padding_are_accepted():
    """MindSpore's pad_mode "same" takes even kernels (the odd pad element goes after)."""
    x = RNG.standard_normal((1, 2, 7, 6)).astype(np.float32)
    got = nn.MaxPool2d(2, 1, pad_mode="same")(Tensor(x)).asnumpy()
    assert got.shape == (1, 2, 7, 6)
    np.testing.assert_array_equal(got, _argmax_ref(x, (2, 2), (1, 1), (0, 1, 0, 1), (1, 1))[0])
    seq = RNG.standard_normal((1, 2, 9)).astype(np.float32)
    w = RNG.standard_normal((3, 2, 4)).astype(np.float32)
    got = ops.conv1d(Tensor(seq), Tensor(w), pad_mode="same").asnumpy()
    np.testing.assert_allclose(got, _conv1d_ref(seq, w, 1, 1, (1, 2), 1), rtol=1e-4, atol=1e-5)
    assert nn.Conv2d(2, 2, 4)(Tensor(x)).shape == (1, 2, 7, 6)
