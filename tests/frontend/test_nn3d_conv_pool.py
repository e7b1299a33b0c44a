"""Issue 38: 3-d convolution and pooling (ops.conv3d, conv3d_transpose, max_pool3d,
avg_pool3d, avg_pool1d, the adaptive 1-d and 3-d pools; nn.Conv3d, Conv3dTranspose,
MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d). MS holds what MindSpore
2.10 printed on CPU for the same cases (`cases` ran unchanged there): shape, dtype, sum,
sum of |.| and the first values. Every case runs in PyNative and graph mode; gradients
against finite differences; bad input raises MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run
from ms_inputs import g

import mindjit as ms
from mindjit import Tensor, nn, ops

RNG = np.random.default_rng(3838)


def cases(ops, nn, Tensor, g):
    """name: (function or Cell, its Tensor arguments); the same code printed MindSpore's values."""
    x = Tensor(g(1, 1, 2, 4, 5, 5))
    w, wt, b = Tensor(g(2, 4, 1, 2, 3, 2)), Tensor(g(3, 2, 2, 2, 3, 2)), Tensor(g(4, 4))
    x4, x3, x3b = Tensor(g(1, 2, 4, 5, 5)), Tensor(g(1, 2, 4, 5)), Tensor(g(1, 2, 5, 4))
    return {
        "conv3d": (lambda x, w: ops.conv3d(x, w, groups=2), (x, w)),
        "conv3d_pad": (
            lambda x, w, b: ops.conv3d(x, w, b, (1, 2, 1), "pad", (1, 0, 1), (2, 1, 1), 2),
            (x, w, b),
        ),
        "conv3d_same": (lambda x, w: ops.conv3d(x, w, stride=2, pad_mode="same", groups=2), (x, w)),
        "Conv3d": (
            nn.Conv3d(
                2,
                4,
                (2, 3, 2),
                pad_mode="pad",
                padding=(1, 0, 0, 1, 1, 1),
                group=2,
                has_bias=True,
                weight_init=w,
                bias_init="ones",
            ),
            (x,),
        ),
        "conv3d_transpose": (lambda x, w: ops.conv3d_transpose(x, w, group=2), (x, wt)),
        "conv3d_transpose_pad": (
            lambda x, w: ops.conv3d_transpose(
                x, w, "pad", (1, 0, 1, 1, 0, 1), (2, 1, 2), (1, 2, 1), 2, (1, 0, 1)
            ),
            (x, wt),
        ),
        "conv3d_transpose_same": (
            lambda x, w: ops.conv3d_transpose(x, w, pad_mode="same", stride=2, group=2),
            (x, wt),
        ),
        "conv3d_transpose_valid": (lambda x, w: ops.conv3d_transpose(x, w, stride=3), (x, wt)),
        "Conv3dTranspose_pad": (
            nn.Conv3dTranspose(
                2, 4, (2, 3, 2), 2, "pad", 1, group=2, output_padding=1, weight_init=wt
            ),
            (x,),
        ),
        "Conv3dTranspose_same": (
            nn.Conv3dTranspose(2, 4, (2, 3, 2), group=2, weight_init=wt),
            (x,),
        ),
        "max_pool3d": (lambda x: ops.max_pool3d(x, 2), (x,)),
        "max_pool3d_idx": (
            lambda x: ops.max_pool3d(x, (2, 3, 2), (1, 2, 2), (1, 1, 0), (1, 1, 2), True, True),
            (x,),
        ),
        "avg_pool3d": (lambda x: ops.avg_pool3d(x, 2, 2), (x,)),
        "avg_pool3d_ceil": (
            lambda x: ops.avg_pool3d(x, (2, 3, 2), (1, 2, 2), (1, 0, 1, 1, 0, 1), True, False),
            (x,),
        ),
        "avg_pool3d_incl": (lambda x: ops.avg_pool3d(x, (2, 3, 2), (1, 2, 2), 1, True, True), (x,)),
        "avg_pool3d_div": (
            lambda x: ops.avg_pool3d(x, (2, 3, 2), (1, 2, 2), 1, True, True, 5),
            (x,),
        ),
        "avg_pool1d": (lambda x: ops.avg_pool1d(x, 3, 2, 1, True, False), (x3,)),
        "AvgPool3d_same": (nn.AvgPool3d(3, 2, "same"), (x,)),
        "AvgPool3d_same_excl": (nn.AvgPool3d(3, 2, "same", count_include_pad=False), (x,)),
        "AvgPool3d_div": (nn.AvgPool3d(3, 2, "pad", 1, divisor_override=4), (x,)),
        "AvgPool3d_4d": (nn.AvgPool3d(2, 1, "same"), (x4,)),
        "AvgPool3d_pad3": (nn.AvgPool3d(3, 2, "pad", (1, 0, 1)), (x,)),
        "MaxPool3d_same": (nn.MaxPool3d(2, 1, "same"), (x,)),
        "MaxPool3d_idx": (nn.MaxPool3d(3, 2, "pad", 1, 1, True, True), (x,)),
        "MaxPool3d_valid": (nn.MaxPool3d((2, 2, 3), 2), (x,)),
        "adaptive_avg_pool3d": (lambda x: ops.adaptive_avg_pool3d(x, (3, None, 2)), (x,)),
        "adaptive_avg_pool3d_4d": (lambda x: ops.adaptive_avg_pool3d(x, (2, 3, None)), (x4,)),
        "adaptive_max_pool3d": (lambda x: ops.adaptive_max_pool3d(x, (3, 4, 2)), (x,)),
        "adaptive_max_pool3d_idx": (lambda x: ops.adaptive_max_pool3d(x, (2, 3, 5), True), (x,)),
        "AdaptiveAvgPool3d": (nn.AdaptiveAvgPool3d((3, 4, 2)), (x4,)),
        "AdaptiveMaxPool3d": (nn.AdaptiveMaxPool3d((3, 4, 2), True), (x,)),
        "adaptive_avg_pool1d": (lambda x: ops.adaptive_avg_pool1d(x, 1), (x3,)),
        "adaptive_max_pool1d": (lambda x: ops.adaptive_max_pool1d(x, 2), (x3b,)),
    }


# printed by MindSpore 2.10 (CPU, PyNative) for cases(mindspore.ops, mindspore.nn, ...)
MS = {
    "conv3d": (
        (1, 4, 3, 3, 4),
        "Float32",
        -9.16817,
        312.59809,
        [3.937816, -1.437153, -4.496158, -1.988377, -1.924437, 1.096134],
    ),
    "conv3d_pad": (
        (1, 4, 4, 2, 6),
        "Float32",
        76.95351,
        354.68583,
        [-3.492348, 1.846936, -1.015851, -3.249714, -0.207007, -0.434084],
    ),
    "conv3d_same": (
        (1, 4, 2, 3, 3),
        "Float32",
        -14.34127,
        133.4686,
        [0.021535, 3.267523, 0.848692, -1.924437, 0.570615, -0.48398],
    ),
    "Conv3d": (
        (1, 4, 4, 4, 6),
        "Float32",
        356.03691,
        716.77168,
        [1.011376, 1.804214, 1.278647, -0.823756, 2.054742, 0.316786],
    ),
    "conv3d_transpose": (
        (1, 4, 5, 7, 6),
        "Float32",
        0.44878,
        1468.6324,
        [0.705309, 0.793659, -1.425385, -3.504125, 5.178191, -2.313786],
    ),
    "conv3d_transpose_pad": (
        (1, 4, 8, 7, 10),
        "Float32",
        -3.33407,
        1731.63847,
        [-0.90167, -0.103529, 1.084638, 0.124537, -1.173851, -0.13478],
    ),
    "conv3d_transpose_same": (
        (1, 4, 8, 10, 10),
        "Float32",
        12.26936,
        2403.8754,
        [0.705309, -0.883197, 1.676856, -2.099781, 0.674395, -0.844486],
    ),
    "conv3d_transpose_valid": (
        (1, 2, 12, 15, 15),
        "Float32",
        0.44878,
        2241.86787,
        [0.824389, -1.235231, 0.0, 1.519168, -1.633608, 0.0],
    ),
    "Conv3dTranspose_pad": (
        (1, 4, 7, 10, 9),
        "Float32",
        -20.05174,
        1751.63662,
        [1.148376, -0.710875, 2.730237, -0.285898, 1.098042, 1.127509],
    ),
    "Conv3dTranspose_same": (
        (1, 4, 4, 5, 5),
        "Float32",
        8.1852,
        902.28424,
        [1.055503, -2.089357, 2.229953, -1.473541, 0.786997, 0.088208],
    ),
    "max_pool3d": (
        (1, 2, 2, 2, 2),
        "Float32",
        20.63145,
        20.63145,
        [2.117839, 2.042772, 0.663063, 0.167465, 0.914467, 0.731652],
    ),
    "max_pool3d_idx": [
        (
            (1, 2, 5, 3, 2),
            "Float32",
            66.25334,
            66.25334,
            [0.581118, 0.905356, 0.598846, 0.581118, 1.294064, 1.294064],
        ),
        ((1, 2, 5, 3, 2), "Int64", 3050.0, 3050.0, [7.0, 4.0, 15.0, 7.0, 22.0, 22.0]),
    ],
    "avg_pool3d": (
        (1, 2, 2, 2, 2),
        "Float32",
        -2.1882,
        4.12209,
        [0.002332, 0.178699, -0.068477, -0.558892, 0.108115, -0.682055],
    ),
    "avg_pool3d_ceil": (
        (1, 2, 4, 3, 3),
        "Float32",
        -0.85381,
        21.118,
        [0.269156, -0.006757, 0.599744, 0.187187, -0.17134, -0.148393],
    ),
    "avg_pool3d_incl": (
        (1, 2, 5, 3, 3),
        "Float32",
        -2.15195,
        13.94736,
        [0.065997, 0.099685, 0.021742, 0.08947, -0.033193, -0.085452],
    ),
    "avg_pool3d_div": (
        (1, 2, 5, 3, 3),
        "Float32",
        -5.16468,
        33.47366,
        [0.158392, 0.239244, 0.052181, 0.214729, -0.079662, -0.205085],
    ),
    "avg_pool1d": (
        (2, 4, 3),
        "Float32",
        0.38185,
        9.20093,
        [0.583601, -0.050367, -0.198901, -0.045289, 0.136246, 0.329352],
    ),
    "AvgPool3d_same": (
        (1, 2, 2, 3, 3),
        "Float32",
        -1.5551,
        3.17741,
        [-0.023557, -0.01907, 0.081349, 0.011324, -0.25722, -0.109901],
    ),
    "AvgPool3d_same_excl": (
        (1, 2, 2, 3, 3),
        "Float32",
        -2.55261,
        6.74798,
        [-0.053004, -0.028606, 0.183035, 0.016986, -0.25722, -0.164852],
    ),
    "AvgPool3d_div": (
        (1, 2, 2, 3, 3),
        "Float32",
        -7.96704,
        20.48549,
        [0.004664, 0.106865, 0.845336, 0.091855, -1.030012, 0.224377],
    ),
    "AvgPool3d_4d": (
        (2, 4, 5, 5),
        "Float32",
        -13.07902,
        43.43595,
        [0.002332, -0.111296, 0.178699, 0.422668, 0.257939, 0.204929],
    ),
    "AvgPool3d_pad3": (
        (1, 2, 2, 2, 3),
        "Float32",
        -1.7954,
        2.58972,
        [0.027513, -0.071104, 0.111585, -0.025341, -0.108656, -0.098896],
    ),
    "MaxPool3d_same": (
        (1, 2, 4, 5, 5),
        "Float32",
        195.08989,
        202.16944,
        [2.117839, 0.821618, 2.042772, 2.042772, 0.905356, 2.117839],
    ),
    "MaxPool3d_idx": [
        (
            (1, 2, 3, 3, 3),
            "Float32",
            88.27666,
            88.27666,
            [2.117839, 2.042772, 2.042772, 2.117839, 2.042772, 2.042772],
        ),
        ((1, 2, 3, 3, 3), "Int64", 3082.0, 3082.0, [30.0, 33.0, 33.0, 30.0, 33.0, 33.0]),
    ],
    "MaxPool3d_valid": (
        (1, 2, 2, 2, 2),
        "Float32",
        21.07981,
        21.07981,
        [2.117839, 2.042772, 0.663063, 0.167465, 0.914467, 0.883789],
    ),
    "adaptive_avg_pool3d": (
        (1, 2, 3, 5, 2),
        "Float32",
        -7.44355,
        14.81939,
        [-0.164723, -0.009765, 0.186459, 0.591949, -0.276723, -0.458847],
    ),
    "adaptive_avg_pool3d_4d": (
        (2, 2, 3, 5),
        "Float32",
        -2.71514,
        20.48336,
        [0.255196, -0.250532, 0.02794, 0.329457, 0.515878, 0.437866],
    ),
    "adaptive_max_pool3d": (
        (1, 2, 3, 4, 2),
        "Float32",
        67.35434,
        67.35434,
        [2.117839, 2.042772, 2.117839, 2.042772, 0.663063, 0.167465],
    ),
    "adaptive_max_pool3d_idx": [
        (
            (1, 2, 2, 3, 5),
            "Float32",
            62.44046,
            62.66048,
            [2.117839, 0.821618, 0.581118, 2.042772, 0.905356, 2.117839],
        ),
        ((1, 2, 2, 3, 5), "Int32", 2860.0, 2860.0, [30.0, 1.0, 7.0, 33.0, 4.0, 30.0]),
    ],
    "AdaptiveAvgPool3d": (
        (2, 3, 4, 2),
        "Float32",
        -5.6872,
        8.99228,
        [0.010868, 0.291092, -0.045132, 0.066551, -0.274737, -0.433309],
    ),
    "AdaptiveMaxPool3d": [
        (
            (1, 2, 3, 4, 2),
            "Float32",
            67.35434,
            67.35434,
            [2.117839, 2.042772, 2.117839, 2.042772, 0.663063, 0.167465],
        ),
        ((1, 2, 3, 4, 2), "Int32", 2429.0, 2429.0, [30.0, 33.0, 30.0, 33.0, 35.0, 38.0]),
    ],
    "adaptive_avg_pool1d": (
        (2, 4, 1),
        "Float32",
        0.02241,
        2.2043,
        [0.219968, 0.229849, -0.16127, -0.138598, -0.135567, -0.411002],
    ),
    "adaptive_max_pool1d": (
        (2, 5, 2),
        "Float32",
        7.70116,
        13.69694,
        [0.821618, 0.330437, 0.905356, 0.581118, 0.364572, 0.546713],
    ),
}


def _summary(r):
    if isinstance(r, tuple):
        return [_summary(q) for q in r]
    a = r.asnumpy().astype(np.float64)
    return tuple(a.shape), str(r.dtype), a.sum(), np.abs(a).sum(), a.ravel()[:6]


def _check(got, want):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for q, w in zip(got, want):
            _check(q, w)
        return
    assert got[:2] == want[:2]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(got[4], want[4], rtol=1e-4, atol=1e-5)


CASES = cases(ops, nn, Tensor, g)


@pytest.mark.parametrize("name", list(MS))
def test_against_mindspore(name, mode):
    fn, args = CASES[name]
    _check(_summary(run(fn, mode, *args)), MS[name])


def _f64(seed, *shape):
    return RNG.standard_normal(shape) if seed is None else g(seed, *shape).astype(np.float64)


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (
            lambda x, w: ops.conv3d(x, w, None, (2, 1, 1), "pad", (1, 0, 1), (1, 2, 1), 2),
            [(1, 2, 3, 3, 4), (2, 1, 2, 1, 2)],
        ),  # fmt: skip
        (
            lambda x, w: ops.conv3d_transpose(
                x, w, "pad", (1, 0, 0, 1, 0, 0), (2, 1, 2), 1, 2, (1, 0, 0)
            ),
            [(1, 2, 2, 2, 2), (2, 1, 2, 2, 1)],
        ),  # fmt: skip
        (lambda x: ops.avg_pool3d(x, 2, (1, 2, 1), 1, True, False), [(1, 1, 3, 3, 3)]),
        (lambda x: ops.avg_pool3d(x, 2, 1, 0, False, True, 3), [(1, 1, 2, 3, 3)]),
        (lambda x: ops.max_pool3d(x, (2, 2, 1), (1, 2, 1), (1, 0, 0)), [(1, 1, 3, 3, 2)]),
        (lambda x: ops.adaptive_avg_pool3d(x, (2, 2, 3)), [(1, 1, 3, 3, 4)]),
        (lambda x: ops.adaptive_max_pool3d(x, (2, 1, 2)), [(1, 2, 3, 2, 3)]),
        (lambda x: ops.avg_pool1d(x, 2, 1, 1), [(1, 2, 4)]),
    ],
)
def test_gradients(fn, shapes):
    arrays = [RNG.standard_normal(s) for s in shapes]
    assert_grads_match_finite_differences(fn, arrays, RNG, rtol=1e-4, atol=1e-6)


def test_nn_parameters_and_both_modes():
    conv = nn.Conv3d(2, 4, 3, has_bias=True)
    assert conv.weight.shape == (4, 2, 3, 3, 3) and conv.bias.shape == (4,)
    convt = nn.Conv3dTranspose(4, 2, 3, group=2)
    assert convt.weight.shape == (4, 1, 3, 3, 3)
    x = Tensor(g(5, 1, 2, 3, 4, 4))
    net = nn.SequentialCell([conv, nn.MaxPool3d(2, 1), convt, nn.AdaptiveAvgPool3d(1)])
    eager = run(net, ms.PYNATIVE_MODE, x)
    graph = run(net, ms.GRAPH_MODE, x)
    assert eager.shape == (1, 2, 1, 1, 1)
    np.testing.assert_allclose(graph.asnumpy(), eager.asnumpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: ops.conv3d(Tensor(g(1, 1, 2, 4, 4)), Tensor(g(2, 4, 2, 2, 2))), ValueError),
        (lambda: ops.conv3d(Tensor(g(1, 1, 2, 3, 3, 3)), Tensor(g(2, 4, 3, 2, 2, 2))), ValueError),
        (
            lambda: ops.conv3d(
                Tensor(np.ones((1, 2, 3, 3, 3), np.int32)),
                Tensor(np.ones((1, 2, 2, 2, 2), np.int32)),
            ),
            TypeError,
        ),  # fmt: skip
        (
            lambda: ops.conv3d(Tensor(g(1, 1, 2, 3, 3, 3)), Tensor(g(2, 4, 2, 2, 2, 2)), padding=1),
            ValueError,
        ),  # fmt: skip
        (lambda: nn.Conv3d(2, 3, 2, group=2), ValueError),
        (lambda: nn.Conv3d(2, 4, 2, data_format="NDHWC"), ValueError),
        (lambda: nn.Conv3d(2, 4, 2, padding=1), ValueError),
        (lambda: nn.Conv3dTranspose(2, 4, 2, stride=2, output_padding=1), ValueError),
        (
            lambda: nn.Conv3dTranspose(2, 4, 2, stride=2, pad_mode="pad", output_padding=2),
            ValueError,
        ),  # fmt: skip
        (lambda: nn.Conv3d(2, 4, 2)(Tensor(g(1, 2, 3, 3, 3))), ValueError),
        (lambda: ops.max_pool3d(Tensor(g(1, 2, 3, 3, 3)), 2), ValueError),
        (lambda: ops.avg_pool3d(Tensor(g(1, 2, 3, 3, 3)), 2), ValueError),
        (lambda: ops.avg_pool1d(Tensor(g(1, 3, 3)), 2), ValueError),
        (lambda: nn.AvgPool3d(3, 2, "valid", 1), ValueError),
        (lambda: nn.MaxPool3d(2, 1, "valid", dilation=2), ValueError),
        (lambda: nn.MaxPool3d(2, None), TypeError),
        (lambda: ops.adaptive_avg_pool1d(Tensor(g(1, 2, 5)), 2), ValueError),
        (lambda: ops.adaptive_avg_pool1d(Tensor(g(1, 5)), 5), ValueError),
        (lambda: ops.adaptive_max_pool1d(Tensor(g(1, 1, 2, 5)), 6), ValueError),
        (lambda: ops.adaptive_avg_pool3d(Tensor(g(1, 1, 2, 4, 4, 4)), (2, 3)), ValueError),
        (lambda: ops.adaptive_avg_pool3d(Tensor(g(1, 4, 4, 4)), 2), ValueError),
        (lambda: ops.adaptive_max_pool3d(Tensor(g(1, 2, 4, 4, 4)), (2, 3, None)), TypeError),
    ],
)
def test_errors(call, error):
    with pytest.raises(error):
        call()
