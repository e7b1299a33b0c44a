"""MatrixDiag, MatrixDiagPart, MatrixSetDiag, ChannelShuffle, ReflectionPad1d/2d/3d,
ReplicationPad1d/2d/3d, L1Regularizer, DenseBnAct, Conv2dBnAct, TimeDistributed,
LPPool1d/2d, RReLU (issue 38, round 2): MindSpore 2.10's results for the same
inputs (summaries: dtype, shape, first 12 values, sum) in PyNative and GRAPH_MODE;
the Matrix* Cells against numpy and MindSpore's docstring examples (2.10 has no
CPU kernel for them); gradients by finite differences; MindSpore's errors."""

from __future__ import annotations

import grad_check
import numpy as np
import pytest
from ms_inputs import g

import mindjit as ms
from mindjit import Tensor, nn

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


# printed by MindSpore 2.10 (CPU, PyNative): dtype, shape, first 12 values, sum
MS = {
    "chshuf": (
        "float32",
        (2, 6, 2, 2),
        [0.0, 1.0, 2.0, 3.0, 12.0, 13.0, 14.0, 15.0, 4.0, 5.0, 6.0, 7.0],
        1128,
    ),
    "chshuf3": (
        "int32",
        (1, 6, 3),
        [0.0, 1.0, 2.0, 6.0, 7.0, 8.0, 12.0, 13.0, 14.0, 3.0, 4.0, 5.0],
        153,
    ),
    "rpad1": (
        "float32",
        (2, 3, 8),
        [
            -0.2483616,
            -1.3243589,
            -0.8019314,
            -1.3243589,
            -0.2483616,
            0.4204452,
            -0.2483616,
            -1.3243589,
            -0.5526473,
            0.1097064,
            1.1360465,
            0.1097064,
        ],
        -3.901939,
    ),
    "rpad1t": (
        "float32",
        (2, 3, 8),
        [
            0.4204452,
            -0.2483616,
            -1.3243589,
            -0.8019314,
            -1.3243589,
            -0.2483616,
            0.4204452,
            -0.2483616,
            -0.7847804,
            -0.5526473,
            0.1097064,
            1.1360465,
        ],
        -9.719477,
    ),
    "rpad2": (
        "float32",
        (1, 2, 5, 7),
        [
            0.5512672,
            0.2899576,
            0.5512672,
            0.1787377,
            -1.0738587,
            0.1787377,
            0.5512672,
            1.3521419,
            1.0137194,
            1.3521419,
            0.6537884,
            1.4971179,
        ],
        29.96487,
    ),
    "rpad2i": (
        "float32",
        (2, 5, 6),
        [
            1.3521419,
            1.0137194,
            1.3521419,
            0.6537884,
            1.4971179,
            0.6537884,
            1.7764912,
            1.0531157,
            1.7764912,
            -2.5532918,
            -0.1379651,
            -2.5532918,
        ],
        36.19958,
    ),
    "rpad3": (
        "float32",
        (1, 2, 5, 6, 5),
        [
            -1.3442146,
            0.6953032,
            -1.3442146,
            -0.4576158,
            -1.3442146,
            -0.930468,
            0.1054142,
            -0.930468,
            -0.0292518,
            -0.930468,
            -1.3442146,
            0.6953032,
        ],
        -53.74361,
    ),
    "rpad3t": (
        "float32",
        (2, 5, 6, 4),
        [
            -0.930468,
            0.1054142,
            -0.930468,
            -0.0292518,
            -1.3442146,
            0.6953032,
            -1.3442146,
            -0.4576158,
            -1.2895378,
            -1.9012228,
            -1.2895378,
            -1.841735,
        ],
        -52.02228,
    ),
    "reppad1": (
        "float32",
        (2, 3, 7),
        [
            -0.8019314,
            -0.8019314,
            -0.8019314,
            -1.3243589,
            -0.2483616,
            0.4204452,
            0.4204452,
            1.1360465,
            1.1360465,
            1.1360465,
            0.1097064,
            -0.5526473,
        ],
        -10.43914,
    ),
    "reppad2": (
        "float32",
        (1, 2, 5, 7),
        [
            1.0531157,
            1.0531157,
            1.7764912,
            -2.5532918,
            -0.1379651,
            -0.1379651,
            -0.1379651,
            1.0531157,
            1.0531157,
            1.7764912,
            -2.5532918,
            -0.1379651,
        ],
        21.92824,
    ),
    "reppad3": (
        "float32",
        (1, 2, 5, 6, 5),
        [
            0.0012302,
            0.0012302,
            0.2987456,
            -0.2741378,
            -0.2741378,
            0.0012302,
            0.0012302,
            0.2987456,
            -0.2741378,
            -0.2741378,
            -0.8905919,
            -0.8905919,
        ],
        -90.66859,
    ),
    "l1reg": ("float32", (), [6.1547732], 6.154773),
    "l1reg_i": ("float32", (), [20.0], 20),
    "lp1": (
        "float32",
        (2, 3, 2),
        [
            0.9506174,
            1.6483744,
            0.7464082,
            0.9176424,
            0.769827,
            0.8735328,
            1.6625438,
            3.3089755,
            2.1396525,
            2.3562877,
            1.8493263,
            1.2435118,
        ],
        18.4667,
    ),
    "lp1s": (
        "float32",
        (3, 6),
        [
            0.8415123,
            0.839061,
            np.nan,
            np.nan,
            0.9401692,
            np.nan,
            0.6254761,
            0.4196501,
            0.2942209,
            0.5467386,
            np.nan,
            np.nan,
        ],
        np.nan,
    ),
    "lp1c": (
        "float32",
        (2, 3, 3),
        [
            1.4976394,
            2.6548877,
            1.6108596,
            1.239823,
            1.3115892,
            0.4887298,
            1.1206876,
            1.3315574,
            0.0244265,
            2.5763912,
            4.7749481,
            1.2665712,
        ],
        34.29808,
    ),
    "lp2": (
        "float32",
        (2, 3, 2, 3),
        [
            1.0068187,
            2.5528774,
            2.3664627,
            1.2441301,
            0.9799223,
            0.9714963,
            1.227869,
            1.7717088,
            1.8517976,
            2.5551336,
            2.0833485,
            1.819554,
        ],
        61.79447,
    ),
    "lp2s": (
        "float32",
        (2, 3, 4, 2),
        [
            1.1240038,
            3.2728839,
            1.313912,
            1.3622056,
            1.5693661,
            1.1691298,
            2.7175965,
            3.2799516,
            1.9866412,
            1.8006418,
            2.0311005,
            1.6808482,
        ],
        106.079,
    ),
    "dba_eval": (
        "float32",
        (5, 3),
        [
            0.0,
            0.0,
            0.1265629,
            0.0,
            1.969005,
            1.2096801,
            0.0,
            0.0,
            1.6923562,
            0.0,
            2.2401817,
            0.291072,
        ],
        14.58383,
    ),
    "dba_train": (
        "float32",
        (5, 3),
        [1.5385646, 0.0, 0.0, 0.0, 0.744923, 0.0, 0.0, 0.0, 0.0, 0.5167907, 0.8799252, 0.0],
        6.104168,
    ),
    "dba_mm": ("float32", (3,), [-0.3573126, 0.0472694, 0.1774894], -0.1325538),
    "dba_leaky": (
        "float32",
        (5, 3),
        [
            -0.1687131,
            -0.9542628,
            0.1265636,
            -1.1045158,
            1.9690148,
            1.2096862,
            -1.4088748,
            -0.0495255,
            1.6923646,
            -0.7685524,
            2.2401929,
            0.2910735,
        ],
        8.220425,
    ),
    "cba_train": (
        "float32",
        (2, 3, 5, 5),
        [
            0.3834676,
            0.7058844,
            0.202903,
            0.4129074,
            0.5477656,
            0.4470578,
            0.4859675,
            0.8458862,
            0.6334226,
            0.7171142,
            0.2031682,
            0.344844,
        ],
        75.24616,
    ),
    "cba_mm": ("float32", (3,), [-0.0015338, -0.0005279, -0.0025143], -0.004575975),
    "cba_eval": (
        "float32",
        (2, 3, 5, 5),
        [
            0.1081941,
            0.9214991,
            0.0058565,
            0.155355,
            0.5367951,
            0.2277232,
            0.3336835,
            0.9948512,
            0.7941991,
            0.9338968,
            0.0058889,
            0.0644932,
        ],
        68.491,
    ),
    "td": (
        "float32",
        (2, 5, 3),
        [
            0.2848238,
            1.5627115,
            0.8927244,
            -0.5926972,
            2.3788278,
            1.1054969,
            0.2539433,
            -1.8405914,
            -0.9778143,
            0.0864147,
            -1.1051359,
            -1.4596412,
        ],
        -7.129297,
    ),
    "td_noreshape": (
        "float32",
        (2, 5, 3),
        [
            0.2848238,
            1.5627115,
            0.8927244,
            -0.5926972,
            2.3788278,
            1.1054969,
            0.2539433,
            -1.8405914,
            -0.9778143,
            0.0864147,
            -1.1051359,
            -1.4596412,
        ],
        -7.129297,
    ),
    "td_conv": (
        "float32",
        (4, 2, 3, 5, 5),
        [
            -8.7122087,
            -0.0295641,
            1.4216169,
            3.7944188,
            1.4253128,
            1.1478716,
            2.3626783,
            1.6261847,
            -0.4150255,
            -2.3345587,
            -0.9316456,
            3.9100904,
        ],
        65.76512,
    ),
}

I32 = np.int32
CASES = {
    "chshuf": (lambda: nn.ChannelShuffle(2), [np.arange(48, dtype=np.float32).reshape(2, 6, 2, 2)]),
    "chshuf3": (lambda: nn.ChannelShuffle(3), [np.arange(18, dtype=I32).reshape(1, 6, 3)]),
    "rpad1": (lambda: nn.ReflectionPad1d(2), [g(5, 2, 3, 4)]),
    "rpad1t": (lambda: nn.ReflectionPad1d((3, 1)), [g(5, 2, 3, 4)]),
    "rpad2": (lambda: nn.ReflectionPad2d((1, 2, 2, 0)), [g(6, 1, 2, 3, 4)]),
    "rpad2i": (lambda: nn.ReflectionPad2d(1), [g(6, 2, 3, 4)]),
    "rpad3": (lambda: nn.ReflectionPad3d(1), [g(7, 1, 2, 3, 4, 3)]),
    "rpad3t": (lambda: nn.ReflectionPad3d((1, 0, 0, 2, 1, 1)), [g(7, 2, 3, 4, 3)]),
    "reppad1": (lambda: nn.ReplicationPad1d((2, 1)), [g(5, 2, 3, 4)]),
    "reppad2": (lambda: nn.ReplicationPad2d((1, 2, 2, 0)), [g(6, 1, 2, 3, 4)]),
    "reppad3": (lambda: nn.ReplicationPad3d(1), [g(7, 1, 2, 3, 4, 3)]),
    "l1reg": (lambda: nn.L1Regularizer(0.5), [g(8, 3, 4)]),
    "l1reg_i": (lambda: nn.L1Regularizer(2), [np.array([[1, -2], [3, -4]], I32)]),
    "lp1": (lambda: nn.LPPool1d(2, 3), [g(1, 2, 3, 7)]),
    "lp1s": (lambda: nn.LPPool1d(3.0, 2, stride=1), [g(1, 3, 7)]),
    "lp1c": (lambda: nn.LPPool1d(1, 3, ceil_mode=True), [np.abs(g(1, 2, 3, 7))]),
    "lp2": (lambda: nn.LPPool2d(2, 2), [g(2, 2, 3, 5, 6)]),
    "lp2s": (lambda: nn.LPPool2d(2, (2, 3), stride=(1, 2)), [g(2, 2, 3, 5, 6)]),
    "dba_leaky": (
        lambda: nn.DenseBnAct(
            4, 3, weight_init=Tensor(g(3, 3, 4)), activation="leakyrelu", alpha=0.3
        ),
        [g(4, 5, 4)],
    ),
    "td": (
        lambda: nn.TimeDistributed(
            nn.Dense(4, 3, weight_init=Tensor(g(7, 3, 4)), bias_init="zeros"), 1, 0
        ),
        [g(8, 2, 5, 4)],
    ),
    "td_noreshape": (
        lambda: nn.TimeDistributed(
            nn.Dense(4, 3, weight_init=Tensor(g(7, 3, 4)), bias_init="zeros"), time_axis=1
        ),
        [g(8, 2, 5, 4)],
    ),
    "td_conv": (
        lambda: nn.TimeDistributed(
            nn.Conv2d(2, 3, 3, weight_init=Tensor(g(9, 3, 2, 3, 3))), 0, reshape_with_axis=1
        ),
        [g(10, 4, 2, 2, 5, 5)],
    ),
}


def check(got: np.ndarray, name: str) -> None:
    dtype, shape, first, total = MS[name]
    assert got.dtype == np.dtype(dtype) and got.shape == shape
    np.testing.assert_allclose(got.reshape(-1)[: len(first)], first, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got.astype(np.float64).sum(), total, rtol=1e-5, atol=1e-5)


def run(cell, mode, *args):  # type: ignore[no-untyped-def]
    ms.set_context(mode=mode)
    try:
        return cell(*[Tensor(a) if isinstance(a, np.ndarray) else a for a in args])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_equals_mindspore(name, mode):
    make, arrays = CASES[name]
    check(run(make(), mode, *arrays).asnumpy(), name)


@pytest.mark.parametrize("mode", MODES)
def test_bn_act_cells_train_and_eval(mode):
    d = nn.DenseBnAct(4, 3, weight_init=Tensor(g(3, 3, 4)), has_bn=True, activation="relu")
    # the same names as MindSpore's; its BatchNorm lists the moving statistics before
    # gamma and beta, mindjit's after them (BatchNorm's order, not DenseBnAct's)
    assert sorted(p.name for p in d.get_parameters()) == sorted(
        ["dense.weight", "dense.bias", "batchnorm.moving_mean", "batchnorm.moving_variance"]
        + ["batchnorm.gamma", "batchnorm.beta"]
    )
    d.set_train(False)
    check(run(d, mode, g(4, 5, 4)).asnumpy(), "dba_eval")
    d.set_train(True)
    check(run(d, mode, g(4, 5, 4)).asnumpy(), "dba_train")
    check(d.batchnorm.moving_mean.asnumpy(), "dba_mm")
    c = nn.Conv2dBnAct(
        2, 3, 3, weight_init=Tensor(g(5, 3, 2, 3, 3)), has_bn=True, activation="sigmoid"
    )
    c.set_train(True)
    check(run(c, mode, g(6, 2, 2, 5, 5)).asnumpy(), "cba_train")
    check(c.batchnorm.moving_mean.asnumpy(), "cba_mm")
    c.set_train(False)
    check(run(c, mode, g(6, 2, 2, 5, 5)).asnumpy(), "cba_eval")


@pytest.mark.parametrize("mode", MODES)
def test_matrix_cells(mode):
    x = g(1, 2, 3)
    got = run(nn.MatrixDiag(), mode, x).asnumpy()
    np.testing.assert_array_equal(got, np.einsum("bi,ij->bij", x, np.eye(3, dtype=np.float32)))
    for shape in [(2, 3, 4), (2, 4, 3), (3, 3)]:
        x = g(2, *shape)
        want = np.diagonal(x, 0, -2, -1)
        np.testing.assert_array_equal(run(nn.MatrixDiagPart(), mode, x).asnumpy(), want)
        d = g(3, *want.shape)
        want_set = x.copy()
        k = min(shape[-2:])
        want_set[..., range(k), range(k)] = d
        got = run(nn.MatrixSetDiag(), mode, x, d).asnumpy()
        np.testing.assert_array_equal(got, want_set)
    # MindSpore's docstring example (ops.MatrixSetDiag)
    x = np.array([[[-1, 0], [0, 1]]] * 3, np.float32)
    d = np.array([[-1.0, 2.0], [-1.0, 1.0], [-1.0, 1.0]], np.float32)
    want = np.array([[[-1, 0], [0, 2]], [[-1, 0], [0, 1]], [[-1, 0], [0, 1]]], np.float32)
    np.testing.assert_array_equal(run(nn.MatrixSetDiag(), mode, x, d).asnumpy(), want)
    ints = np.array([[1, 2], [3, 4]], I32)
    assert run(nn.MatrixDiag(), mode, np.array([1, 2], I32)).asnumpy().tolist() == [[1, 0], [0, 2]]
    assert run(nn.MatrixDiagPart(), mode, ints).asnumpy().tolist() == [1, 4]


@pytest.mark.parametrize("mode", MODES)
def test_rrelu_draws_in_both_modes(mode):
    """MindSpore 2.10's RReLU draws its slopes in eval mode too."""
    r = nn.RReLU()
    np.testing.assert_array_equal(
        run(r, mode, np.array([1.0, 2.0, 0.0], np.float32)).asnumpy(), [1.0, 2.0, 0.0]
    )
    x = -np.ones(2000, np.float32)
    a, b = run(r, mode, x).asnumpy(), run(r, mode, x).asnumpy()
    assert (a != b).any() and a.min() >= -1 / 3 and a.max() <= -1 / 8
    assert abs(a.mean() + (1 / 8 + 1 / 3) / 2) < 0.01
    ms.set_seed(4)
    first = run(r, mode, x).asnumpy()
    ms.set_seed(4)
    np.testing.assert_array_equal(run(r, MODES[1 - MODES.index(mode)], x).asnumpy(), first)
    r = nn.RReLU(0.25, 0.25)
    np.testing.assert_allclose(
        run(r, mode, g(3, 4, 5)).asnumpy(), np.where(g(3, 4, 5) > 0, 1, 0.25) * g(3, 4, 5)
    )
    assert run(nn.RReLU(), mode, np.array([-1, 2], I32)).asnumpy().tolist() == [0, 2]


def g64(seed: int, *shape: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape)


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (nn.ChannelShuffle(2), [(1, 4, 3)]),
        (nn.ReflectionPad1d((2, 1)), [(2, 4)]),
        (nn.ReflectionPad2d(1), [(1, 3, 3)]),
        (nn.ReplicationPad1d((2, 1)), [(1, 2, 3)]),
        (nn.ReplicationPad2d((1, 0, 0, 2)), [(1, 2, 3)]),
        (nn.L1Regularizer(0.5), [(3, 4)]),
        (nn.LPPool1d(2, 2), [(1, 2, 6)]),
        (nn.LPPool2d(3, 2), [(1, 1, 4, 4)]),
        (nn.RReLU(0.2, 0.2), [(3, 4)]),
        (
            nn.TimeDistributed(
                nn.Dense(3, 2, weight_init=Tensor(g64(0, 2, 3)), dtype=ms.float64), 1, 0
            ),
            [(2, 3, 3)],
        ),
        (
            nn.TimeDistributed(
                nn.Dense(3, 2, weight_init=Tensor(g64(0, 2, 3)), dtype=ms.float64), 1
            ),
            [(2, 3, 3)],
        ),
    ],
)
def test_gradients(fn, shapes):
    rng = np.random.default_rng(7)
    arrays = [np.abs(rng.normal(size=s)) + 0.5 for s in shapes]  # LPPool: positive inputs
    grad_check.assert_grads_match_finite_differences(fn, arrays, rng)


@pytest.mark.parametrize(
    "fn", [nn.MatrixDiag(), nn.MatrixDiagPart(), lambda x: nn.MatrixSetDiag()(x, x[:, 0] * 2)]
)
def test_float32_only_gradients(fn):
    """The Matrix* Cells take float32 at most: float32 inputs, a wider step."""
    rng = np.random.default_rng(8)
    x = rng.normal(size=(3, 3)).astype(np.float32)
    grad_check.assert_grads_match_finite_differences(fn, [x], rng, eps=1e-2, rtol=1e-3, atol=1e-3)


F = Tensor(g(1, 2, 3, 4))


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: nn.MatrixDiag()(Tensor(g64(1, 3))), TypeError, "Float16, Float32, Int32"),
        (
            lambda: nn.MatrixDiagPart()(Tensor(g(1, 3))),
            ValueError,
            "'x rank' must be int and must >= 2",
        ),
        (
            lambda: nn.MatrixSetDiag()(F, Tensor(g(4, 2, 4))),
            ValueError,
            r"excluding the last dimension: \[2, 3\], but got \[2, 4\]",
        ),
        (lambda: nn.ChannelShuffle(2.0), TypeError, "`groups` must be int"),
        (lambda: nn.ChannelShuffle(0), ValueError, "must be larger than 0"),
        (lambda: nn.ReflectionPad1d([1, 1]), TypeError, "must be an integer or tuple"),
        (lambda: nn.ReflectionPad2d((1, 1, 1)), ValueError, "divisible by 2"),
        (lambda: nn.ReflectionPad1d(-1), ValueError, "must be >= 0"),
        (lambda: nn.ReflectionPad1d((1.0, 1)), TypeError, "must be integer"),
        (lambda: nn.ReflectionPad1d(4)(F), ValueError, r"\[4\], \[4\] not less than \[4\]"),
        (
            lambda: nn.ReflectionPad2d(1)(Tensor(g(1, 4))),
            ValueError,
            "should be at least 2, but got 1",
        ),
        (lambda: nn.ReplicationPad1d([1, 1]), TypeError, "must be an integer or tuple"),
        (lambda: nn.ReplicationPad2d(1)(Tensor(g(1, 4))), ValueError, "edge, reflect or circular"),
        (lambda: nn.L1Regularizer(0), ValueError, "must be greater than 0"),
        (lambda: nn.L1Regularizer("a"), TypeError, "'scale' should be one of"),
        (lambda: nn.L1Regularizer(float("inf")), ValueError, "can not be INF or NAN"),
        (lambda: nn.L1Regularizer(1)(Tensor(np.array([True]))), TypeError, "'Bool'"),
        (lambda: nn.LPPool1d("a", 3)(F), TypeError, "'norm_type' must be float or int"),
        (lambda: nn.LPPool1d(0, 3)(F), ValueError, "'norm_type' can not be 0"),
        (
            lambda: nn.LPPool1d(1, 3)(Tensor(g(1, 2, 3, 7, 2))),
            ValueError,
            "x_rank must be equal to 5",
        ),
        (lambda: nn.LPPool2d(1, 3)(F), ValueError, "x_rank must be equal to 5, but got 4"),
        (lambda: nn.LPPool1d(1, 0)(F), ValueError, "'kernel_size' must be int and must >= 1"),
        (lambda: nn.DenseBnAct(2, 3, has_bn=1), TypeError, "'has_bn' must be a bool"),
        (lambda: nn.DenseBnAct(2, 3, activation=1), TypeError, "must be str or Cell or Primitive"),
        (lambda: nn.Conv2dBnAct(2, 3, 3, activation="nope"), KeyError, "nope"),
        (lambda: nn.TimeDistributed(3, 1), TypeError, "must be Cell or Primitive instance"),
        (lambda: nn.TimeDistributed(nn.ReLU(), 1.0), TypeError, "'time_axis' must be 'int'"),
        (
            lambda: nn.TimeDistributed(nn.ReLU(), 1, 0.5),
            TypeError,
            "'reshape_with_axis' must be 'int'",
        ),
        (
            lambda: nn.TimeDistributed(nn.ReLU(), 1)(Tensor(g(1, 2, 3))),
            ValueError,
            "at least 3D, but got 2",
        ),
        (
            lambda: nn.RReLU(0.5, 0.2),
            ValueError,
            "'upper' must be greater than or equal to 'lower'",
        ),
        (lambda: nn.RReLU("a"), TypeError, "'lower' should be one of"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


# nn.CosineSimilarity is MindSpore 2.10's metric (train.metrics.CosineSimilarity)
COS_X = np.array([[1.0, 0, 2], [3, 1, -1], [0, 2, 2]])
COS_MS = [
    ({}, [[0.0, 0.13484, 0.6324555], [0.13484, 0.0, -0.0], [0.6324555, -0.0, 0.0]]),
    ({"reduction": "mean"}, [0.2557652, 0.0449467, 0.2108185]),
    ({"reduction": "sum", "zero_diagonal": False}, [1.7672955, 1.13484, 1.6324555]),
    ({"similarity": "dot"}, [[0.0, 1.0, 4.0], [1.0, 0.0, 0.0], [4.0, 0.0, 0.0]]),
    ({"similarity": "dot", "reduction": "sum"}, [5.0, 1.0, 4.0]),
]


@pytest.mark.parametrize("kwargs, want", COS_MS)
def test_cosine_similarity_metric(kwargs, want):
    m = nn.CosineSimilarity(**kwargs)
    m.update(COS_X)
    got = m.eval()
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, atol=1e-7)


def test_cosine_similarity_inputs_and_errors():
    from mindjit import train

    assert nn.CosineSimilarity is train.CosineSimilarity
    assert isinstance(train.get_metric_fn("cosine_similarity"), nn.CosineSimilarity)
    m = nn.CosineSimilarity()
    m.update(Tensor(COS_X.astype(np.float32)))
    assert m.eval().dtype == np.float32
    m.update([[1, 2], [3, 4]])
    np.testing.assert_allclose(m.eval(), [[0.0, 0.9838699], [0.9838699, 0.0]], rtol=1e-6)
    m.clear()
    with pytest.raises(RuntimeError, match="call the 'update' method before"):
        m.eval()
    with pytest.raises(ValueError, match=r"must be in '\['dot', 'cosine'\]', but got 'l2'"):
        nn.CosineSimilarity(similarity="l2")
    with pytest.raises(TypeError, match="'similarity' should be 'str'"):
        nn.CosineSimilarity(similarity=1)
    with pytest.raises(ValueError, match="'reduction' must be str"):
        nn.CosineSimilarity(reduction="max")
    with pytest.raises(TypeError, match="'zero_diagonal' should be 'bool'"):
        nn.CosineSimilarity(zero_diagonal=1)


@pytest.mark.parametrize("mode", MODES)
def test_replication_pad_negative_crops(mode):
    """Printed by MindSpore 2.10: a negative amount crops, the other side replicates."""
    x = np.arange(10, dtype=np.float32).reshape(1, 2, 5)
    got = run(nn.ReplicationPad1d((-1, 2)), mode, x).asnumpy()
    np.testing.assert_array_equal(got, [[[1, 2, 3, 4, 4, 4], [6, 7, 8, 9, 9, 9]]])
    x = np.arange(12, dtype=np.float32).reshape(1, 3, 4)
    got = run(nn.ReplicationPad2d((1, -1, 0, -1)), mode, x).asnumpy()
    np.testing.assert_array_equal(got, [[[0, 0, 1, 2], [4, 4, 5, 6]]])
