"""Conv1dTranspose, BatchNorm3d, AdaptiveAvgPool1d, AdaptiveMaxPool1d (issue 38):
MindSpore 2.10's results for the same inputs and weights (summaries below: shape,
sum, sum of |x| and the first row), in PyNative and GRAPH_MODE; the adaptive pools
against numpy (MindSpore's rule: W a multiple of output_size); gradients by finite
differences; MindSpore's errors."""

from __future__ import annotations

import grad_check
import numpy as np
import pytest
from ms_inputs import g

import mindjit as ms
from mindjit import Tensor, nn

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


# printed by MindSpore 2.10 (CPU, PyNative): shape, sum, sum of |.|, first row [0, 0, ...]
MS = {
    "conv1dT_same": (
        (2, 4, 14),
        7.194389,
        144.209121,
        [
            2.1163857,
            -1.7931025,
            -0.4233366,
            -0.832891,
            1.8475225,
            0.4349585,
            -0.7134173,
            -0.0624563,
        ],
    ),
    "conv1dT_pad": (
        (2, 2, 15),
        37.238127,
        66.594039,
        [0.2442295, -0.5928177, 0.2442295, -1.4748461, 0.2442295, 0.457344, 0.2442295, -1.522374],
    ),
    "conv1dT_valid_g": (
        (1, 2, 15),
        -2.197387,
        13.369335,
        [-0.5762887, 0.251461, 0.0, -0.7269065, 0.5404992, 0.0, 0.4210208, 0.7977809],
    ),
    "bn3d_train": (
        (2, 3, 4, 5, 6),
        0.000014,
        582.300674,
        [0.5203798, -0.4737515, 0.709101, -1.412315, 1.7370402, -0.1782678, 0.5698581, 0.8196902],
    ),
    "bn3d_eval": (
        (2, 3, 4, 5, 6),
        41.425172,
        566.898216,
        [0.4895678, -0.4769214, 0.6730415, -1.3893879, 1.6723986, -0.1896537, 0.5376704, 0.7805558],
    ),
    "bn3d_moving_mean": [-0.00181075, 0.0162746, 0.00470827],
    "bn3d_moving_var": [0.99437803, 1.00290751, 0.98529172],
}

X3 = g(40, 2, 3, 7)
CONVS = {
    "conv1dT_same": (
        lambda: nn.Conv1dTranspose(3, 4, 3, stride=2, weight_init=Tensor(g(41, 3, 4, 3))),
        X3,
    ),
    "conv1dT_pad": (
        lambda: nn.Conv1dTranspose(
            3,
            2,
            3,
            stride=2,
            pad_mode="pad",
            padding=1,
            dilation=2,
            has_bias=True,
            weight_init=Tensor(g(42, 3, 2, 3)),
            bias_init=Tensor(g(43, 2)),
        ),
        X3,
    ),
    "conv1dT_valid_g": (
        lambda: nn.Conv1dTranspose(
            4, 2, 2, stride=3, pad_mode="valid", group=2, weight_init=Tensor(g(44, 4, 1, 2))
        ),
        g(45, 1, 4, 5),
    ),
}


def check_summary(got: np.ndarray, name: str) -> None:
    shape, total, abs_total, row = MS[name]
    assert got.shape == shape and got.dtype == np.float32
    np.testing.assert_allclose(got.sum(), total, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.abs(got).sum(), abs_total, rtol=1e-5)
    np.testing.assert_allclose(got[0, 0].reshape(-1)[: len(row)], row, rtol=1e-5, atol=1e-6)


def run(cell, mode, *arrays):  # type: ignore[no-untyped-def]
    ms.set_context(mode=mode)
    try:
        return cell(*[Tensor(a) for a in arrays]).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(CONVS))
def test_conv1d_transpose_equals_mindspore(name, mode):
    make, x = CONVS[name]
    check_summary(run(make(), mode, x), name)


def test_conv1d_transpose_weight_and_gradient():
    conv = nn.Conv1dTranspose(3, 2, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
    assert conv.weight.shape == (3, 2, 1, 3) and conv.bias.shape == (2,)
    rng = np.random.default_rng(0)
    conv64 = nn.Conv1dTranspose(
        3,
        2,
        3,
        stride=2,
        pad_mode="pad",
        padding=1,
        weight_init=Tensor(rng.normal(size=(3, 2, 3))),
        dtype=ms.float64,
    )
    grad_check.assert_grads_match_finite_differences(conv64, [rng.normal(size=(1, 3, 4))], rng)


@pytest.mark.parametrize("mode", MODES)
def test_batchnorm3d_equals_mindspore(mode):
    x5 = g(50, 2, 3, 4, 5, 6)
    bn = nn.BatchNorm3d(3)
    bn.set_train(True)
    check_summary(run(bn, mode, x5), "bn3d_train")
    np.testing.assert_allclose(bn.bn2d.moving_mean.asnumpy(), MS["bn3d_moving_mean"], atol=1e-7)
    np.testing.assert_allclose(bn.bn2d.moving_variance.asnumpy(), MS["bn3d_moving_var"], rtol=1e-6)
    bn.set_train(False)
    check_summary(run(bn, mode, x5), "bn3d_eval")
    assert [p.name for p in bn.get_parameters()][:2] == ["bn2d.gamma", "bn2d.beta"]


@pytest.mark.parametrize("mode", MODES)
def test_adaptive_pools_1d(mode):
    x = g(60, 2, 3, 12)
    got = run(nn.AdaptiveAvgPool1d(4), mode, x)
    np.testing.assert_allclose(got, x.reshape(2, 3, 4, 3).mean(-1), rtol=1e-6, atol=1e-7)
    got = run(nn.AdaptiveMaxPool1d(3), mode, x)
    np.testing.assert_array_equal(got, x.reshape(2, 3, 3, 4).max(-1))
    np.testing.assert_array_equal(run(nn.AdaptiveMaxPool1d(12), mode, x), x)


def test_adaptive_avg_pool_1d_gradient():
    rng = np.random.default_rng(1)
    grad_check.assert_grads_match_finite_differences(
        nn.AdaptiveAvgPool1d(2), [rng.normal(size=(1, 2, 6))], rng
    )


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: nn.AdaptiveAvgPool1d(3)(Tensor(X3)), ValueError, "divisible by output size 3"),
        (
            lambda: nn.AdaptiveAvgPool1d(9)(Tensor(X3)),
            ValueError,
            "greater or equal to output size 9",
        ),
        (lambda: nn.AdaptiveAvgPool1d(2.0), TypeError, "'output_size' should be 'int'"),
        (lambda: nn.AdaptiveMaxPool1d(2)(Tensor(g(1, 8))), ValueError, "must has 3 dim"),
        (lambda: nn.BatchNorm3d(3)(Tensor(X3)), ValueError, "must have 5 dims, but got 3"),
        (lambda: nn.Conv1dTranspose(3, 2, 2.5), TypeError, "'kernel_size'"),
        (lambda: nn.Conv1dTranspose(3, 2, 3, padding=-1), ValueError, "'padding'"),
        (lambda: nn.Conv1dTranspose(3, 2, 3)(Tensor(g(1, 1, 3, 4, 5))), ValueError, "3-D"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
