"""Softsign, GLU, Softmax2d, Unflatten, Linear, Tril, Triu, Roll, OneHot, Norm,
Range, MatMul, Moments, ReduceLogSumExp, Dropout1d, Dropout3d (issue 38, round 2):
MindSpore 2.10's results for the same inputs (summaries below: dtype, shape, the
first 12 values and the sum) in PyNative and GRAPH_MODE; Roll against numpy
(MindSpore 2.10's CPU build has no Roll kernel); gradients by finite differences;
MindSpore's errors for bad arguments."""

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
    "softsign": (
        "float32",
        (2, 3, 4),
        [
            0.2568284,
            0.4510376,
            0.2483673,
            -0.5658134,
            0.4751636,
            0.3086162,
            -0.3493621,
            0.3675362,
            0.2671697,
            0.2272816,
            0.0276367,
            0.3534676,
        ],
        1.579317,
    ),
    "glu": (
        "float32",
        (2, 3, 2),
        [
            0.2010838,
            0.1755256,
            0.3339827,
            0.286271,
            0.1848765,
            0.1862955,
            -0.2811427,
            -0.1051408,
            0.0124691,
            -0.127527,
            0.0063903,
            -0.2018458,
        ],
        0.6712383,
    ),
    "glu1": (
        "float32",
        (2, 2, 3),
        [
            0.0792805,
            -0.3577396,
            -0.2353815,
            -0.8910816,
            1.3077133,
            0.4839582,
            -0.174824,
            -0.2302301,
            0.3179128,
            -0.0542485,
            0.317303,
            -0.3650454,
        ],
        0.197617,
    ),
    "softmax2d": (
        "float32",
        (2, 3, 4),
        [
            0.7468795,
            0.7280058,
            0.692654,
            0.1298819,
            0.7038364,
            0.6767402,
            0.5609344,
            0.6981092,
            0.588176,
            0.6387022,
            0.2200042,
            0.3869831,
        ],
        12,
    ),
    "unflatten": (
        "float32",
        (2, 3, 1, 4),
        [
            0.3455842,
            0.8216182,
            0.3304371,
            -1.3031572,
            0.9053559,
            0.4463746,
            -0.5369532,
            0.5811181,
            0.3645724,
            0.2941325,
            0.0284222,
            0.546713,
        ],
        2.783073,
    ),
    "unflatten_last": (
        "float32",
        (2, 3, 2, 2),
        [
            0.3455842,
            0.8216182,
            0.3304371,
            -1.3031572,
            0.9053559,
            0.4463746,
            -0.5369532,
            0.5811181,
            0.3645724,
            0.2941325,
            0.0284222,
            0.546713,
        ],
        2.783073,
    ),
    "linear": (
        "float32",
        (2, 3, 3),
        [
            -1.1682142,
            -0.8735183,
            4.6290984,
            -0.4992576,
            0.2690949,
            2.0375438,
            -0.9579562,
            -0.5873679,
            2.1393228,
            -2.2800713,
            1.0287436,
            1.4395362,
        ],
        5.004087,
    ),
    "tril": (
        "float32",
        (4, 5),
        [
            -0.8019314,
            -0.0,
            -0.0,
            0.0,
            0.0,
            0.1097064,
            -0.5526473,
            -0.0,
            0.0,
            0.0,
            0.2727688,
            -1.2333287,
        ],
        -6.772043,
    ),
    "tril_k": (
        "float32",
        (4, 5),
        [
            -0.8019314,
            -1.3243589,
            -0.0,
            0.0,
            0.0,
            0.1097064,
            -0.5526473,
            -0.7847804,
            0.0,
            0.0,
            0.2727688,
            -1.2333287,
        ],
        -7.769169,
    ),
    "triu_k": (
        "float32",
        (4, 5),
        [
            -0.8019314,
            -1.3243589,
            -0.2483616,
            0.4204452,
            1.1360465,
            0.1097064,
            -0.5526473,
            -0.7847804,
            0.7487458,
            1.634783,
            0.0,
            -1.2333287,
        ],
        -2.331565,
    ),
    "tril_int": (
        "int32",
        (3, 4),
        [0.0, 0.0, 0.0, 0.0, 4.0, 5.0, 0.0, 0.0, 8.0, 9.0, 10.0, 0.0],
        36,
    ),
    "onehot": ("float32", (3, 4), [0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], 3),
    "onehot_ax0": (
        "float32",
        (3, 2, 2),
        [-1.0, -1.0, 5.0, -1.0, 5.0, -1.0, -1.0, -1.0, -1.0, 5.0, -1.0, 5.0],
        12,
    ),
    "range": ("int32", (4,), [1.0, 3.0, 5.0, 7.0], 16),
    "range_f": ("float32", (3,), [0.5, 1.5, 2.5], 4.5),
    "range1": ("int32", (5,), [0.0, 1.0, 2.0, 3.0, 4.0], 10),
    "norm": ("float32", (), [4.2663908], 4.266391),
    "norm1": ("float32", (4,), [1.9814337, 2.0411935, 2.2616358, 2.2348475], 8.519111),
    "norm_keep": (
        "float32",
        (1, 5),
        [1.9312752, 1.8940566, 1.7172452, 1.9218374, 2.0597155],
        9.52413,
    ),
    "matmul": (
        "float32",
        (2, 3, 5),
        [
            -3.1069932,
            -0.3043238,
            1.8861634,
            0.8257618,
            -1.3284895,
            0.0216041,
            -1.3949522,
            0.918076,
            -5.0230269,
            -3.2495933,
            -1.2054096,
            1.6270645,
        ],
        -19.88073,
    ),
    "matmul_t": (
        "float32",
        (3, 5),
        [
            -0.7101032,
            0.4361294,
            0.0842466,
            0.6035588,
            -3.3063557,
            -0.2645695,
            -1.4833809,
            -0.7062476,
            -0.6754826,
            -5.9287229,
            1.277687,
            -1.6017023,
        ],
        -10.73388,
    ),
    "matmul_v": ("float32", (), [3.0947061], 3.094706),
    "matmul_v2": (
        "float32",
        (2, 3),
        [0.2358658, -1.5773917, 3.5249753, 0.3352332, -5.1071973, -3.5791297],
        -6.167645,
    ),
    "moments[0]": ("float32", (), [0.1159614], 0.1159614),
    "moments[1]": ("float32", (), [0.3804977], 0.3804977),
    "moments_ax[0]": ("float32", (1, 3, 1), [-0.0735194, 0.0130075, 0.408396], 0.3478841),
    "moments_ax[1]": ("float32", (1, 3, 1), [0.4648264, 0.3010276, 0.2436188], 1.009473),
    "moments_ax1[0]": (
        "float32",
        (2, 4),
        [0.5385042, 0.5207084, -0.0593646, -0.058442, -0.2295299, -0.2436565, 0.010012, 0.4494594],
        0.9276909,
    ),
    "moments_ax1[1]": (
        "float32",
        (2, 4),
        [0.0673502, 0.0491363, 0.1292476, 0.7748553, 0.1286523, 0.0033073, 0.8393734, 0.2774058],
        2.269328,
    ),
    "rlse": (
        "float32",
        (2, 4),
        [1.6725105, 1.644568, 1.1002547, 1.3316464, 0.9272327, 0.8566295, 1.552356, 1.6733241],
        10.75852,
    ),
    "rlse_k": ("float32", (1, 3, 1), [2.2100534, 2.2434406, 2.6166465], 7.070141),
}

X = g(1, 2, 3, 4)
M = g(5, 4, 5)
I32 = np.int32
CASES = {
    "softsign": (nn.Softsign, [X]),
    "glu": (nn.GLU, [X]),
    "glu1": (lambda: nn.GLU(axis=1), [g(2, 2, 4, 3)]),
    "softmax2d": (nn.Softmax2d, [X]),
    "unflatten": (lambda: nn.Unflatten(1, (3, 1)), [X]),
    "unflatten_last": (lambda: nn.Unflatten(-1, [2, 2]), [X]),
    "linear": (
        lambda: nn.Linear(4, 3, weight_init=Tensor(g(3, 3, 4)), bias_init=Tensor(g(4, 3))),
        [X],
    ),
    "tril": (nn.Tril, [M]),
    "tril_int": (nn.Tril, [np.arange(12, dtype=I32).reshape(3, 4)]),
    "onehot": (lambda: nn.OneHot(depth=4), [np.array([1, 0, 3], I32)]),
    "onehot_ax0": (
        lambda: nn.OneHot(axis=0, depth=3, on_value=5.0, off_value=-1.0),
        [np.array([[1, 2], [0, 2]], I32)],
    ),
    "range": (lambda: nn.Range(1, 8, 2), []),
    "range_f": (lambda: nn.Range(0.5, 3), []),
    "range1": (lambda: nn.Range(5), []),
    "norm": (nn.Norm, [M]),
    "norm1": (lambda: nn.Norm(axis=1), [M]),
    "norm_keep": (lambda: nn.Norm(axis=(0,), keep_dims=True), [M]),
    "matmul": (nn.MatMul, [g(6, 2, 3, 4), g(7, 4, 5)]),
    "matmul_t": (
        lambda: nn.MatMul(transpose_x1=True, transpose_x2=True),
        [g(6, 4, 3), g(7, 5, 4)],
    ),
    "matmul_v": (nn.MatMul, [g(8, 4), g(9, 4)]),
    "matmul_v2": (nn.MatMul, [g(8, 4), g(9, 2, 4, 3)]),
    "moments": (nn.Moments, [X]),
    "moments_ax": (lambda: nn.Moments(axis=(0, 2), keep_dims=True), [X]),
    "moments_ax1": (lambda: nn.Moments(axis=1), [X]),
    "rlse": (lambda: nn.ReduceLogSumExp(1), [X]),
    "rlse_k": (lambda: nn.ReduceLogSumExp((0, 2), True), [X]),
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
    out = run(make(), mode, *arrays)
    if isinstance(out, tuple):
        for i, o in enumerate(out):
            check(o.asnumpy(), f"{name}[{i}]")
    else:
        check(out.asnumpy(), name)


@pytest.mark.parametrize("mode", MODES)
def test_tril_triu_with_k(mode):
    check(run(nn.Tril(), mode, M, 1).asnumpy(), "tril_k")
    check(run(nn.Triu(), mode, M, -1).asnumpy(), "triu_k")
    assert run(nn.Tril(), mode, g(3, 2, 2, 3)).shape == (2, 2, 3)


@pytest.mark.parametrize("mode", MODES)
def test_roll_equals_numpy(mode):
    np.testing.assert_array_equal(run(nn.Roll(2, 1), mode, M).asnumpy(), np.roll(M, 2, 1))
    got = run(nn.Roll((1, -2), [0, 1]), mode, M).asnumpy()
    np.testing.assert_array_equal(got, np.roll(M, (1, -2), (0, 1)))


def test_linear_defaults():
    lin = nn.Linear(4, 3)
    assert [(p.name, p.shape, p.dtype) for p in lin.get_parameters()] == [
        ("weight", (3, 4), ms.float32),
        ("bias", (3,), ms.float32),
    ]
    assert lin.extend_repr() == "input_features=4, output_features=3, has_bias=True"
    w, b = lin.weight.asnumpy(), lin.bias.asnumpy()
    assert np.abs(w).max() <= 0.5 and np.abs(b).max() <= 0.5 and w.std() > 0.05
    assert [p.name for p in nn.Linear(2, 3, bias=False).get_parameters()] == ["weight"]
    assert nn.Linear(2, 3, dtype=ms.float64).weight.dtype == ms.float64
    assert nn.OneHot(depth=3)(Tensor(np.ones(3, np.int64))).dtype == ms.float32
    assert nn.OneHot(depth=3, dtype=ms.float16)(Tensor(np.ones(3, I32))).dtype == ms.float16
    assert [t.dtype for t in nn.Moments()(Tensor(np.ones(3, np.float16)))] == [ms.float16] * 2
    np.testing.assert_allclose(nn.Norm()(Tensor(np.ones(3, I32))).asnumpy(), 1.7320508)


def g64(seed: int, *shape: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape)


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (nn.Softsign(), [(2, 3)]),
        (nn.GLU(), [(2, 4)]),
        (nn.Softmax2d(), [(3, 2, 2)]),
        (nn.Unflatten(1, (2, 2)), [(2, 4)]),
        (nn.Roll((1, 2), (0, 1)), [(3, 4)]),
        (nn.Norm(axis=1), [(3, 4)]),
        (nn.MatMul(transpose_x2=True), [(2, 3), (4, 3)]),
        (nn.MatMul(), [(3,), (2, 3, 2)]),
        (nn.ReduceLogSumExp(1), [(3, 4)]),
        (nn.Linear(3, 2, weight_init=Tensor(g64(0, 2, 3)), dtype=ms.float64), [(2, 3)]),
    ],
)
def test_gradients(fn, shapes):
    rng = np.random.default_rng(7)
    grad_check.assert_grads_match_finite_differences(fn, [rng.normal(size=s) for s in shapes], rng)


@pytest.mark.parametrize(
    "fn",
    [
        nn.Tril(),
        nn.Triu(),
        lambda x: nn.Moments(axis=1)(x)[1],
        lambda x: nn.Moments(axis=0)(x)[0],
    ],
)
def test_float32_only_gradients(fn):
    """Tril / Triu compute in float32 (as MindSpore does) and Moments takes float32
    only: float32 inputs, a wider step."""
    rng = np.random.default_rng(8)
    x = rng.normal(size=(3, 4)).astype(np.float32)
    grad_check.assert_grads_match_finite_differences(fn, [x], rng, eps=1e-2, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "make, shape, channels",
    [
        (nn.Dropout1d, (4, 6, 8), (4, 6)),
        (nn.Dropout1d, (6, 8), (6,)),
        (nn.Dropout3d, (3, 4, 2, 3, 2), (3, 4)),
    ],
)
def test_channel_dropouts(make, shape, channels, mode):
    x = np.ones(shape, np.float32)
    cell = make(0.5)
    np.testing.assert_array_equal(run(cell, mode, x).asnumpy(), x)  # eval: identity
    cell.set_train()
    ms.set_seed(3)
    got = run(cell, mode, x).asnumpy()
    per = got.reshape(channels + (-1,))
    assert set(np.unique(per)) == {0.0, 2.0}
    assert (per.min(-1) == per.max(-1)).all()  # one draw per channel
    ms.set_seed(3)
    np.testing.assert_array_equal(run(cell, MODES[1 - MODES.index(mode)], x).asnumpy(), got)
    np.testing.assert_array_equal(run(make(0.0), mode, x).asnumpy(), x)
    one = make(1.0)
    one.set_train()
    np.testing.assert_array_equal(run(one, mode, x).asnumpy(), 0 * x)
    assert nn.Dropout3d(0.2).extend_repr() == "p=0.8"  # MindSpore 2.10 shows keep_prob


def bad_train(cell, shape):  # type: ignore[no-untyped-def]
    cell.set_train()
    return cell(Tensor(np.ones(shape, np.float32)))


F3 = Tensor(X)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: nn.GLU(axis=1)(F3), ValueError, "divisible by output_num = 2, but got 3"),
        (lambda: nn.Softsign()(Tensor(np.ones(3, I32))), TypeError, "Softsign"),
        (lambda: nn.Softmax2d()(Tensor(M)), ValueError, "3 or 4 dims, but got 2"),
        (lambda: nn.Unflatten(1.0, (3, 1)), TypeError, "'axis' must be 'int'"),
        (lambda: nn.Unflatten(1, 3), TypeError, "'unflattended_size'"),
        (lambda: nn.Dropout1d(1), TypeError, "'p' should be 'float'"),
        (lambda: nn.Dropout1d(1.5), ValueError, r"range \[0, 1\], but got 1.5"),
        (lambda: nn.Dropout3d(1), TypeError, "'p' should be 'float'"),
        (lambda: nn.Dropout3d(-0.5), ValueError, r"range \[0, 1\]"),
        (lambda: bad_train(nn.Dropout1d(), (2, 3, 4, 5)), ValueError, "2D or 3D, but got 4"),
        (lambda: bad_train(nn.Dropout3d(), (2, 3, 4, 5)), ValueError, "equal to 5 , but got 4"),
        (lambda: nn.Linear(0, 3), ValueError, "'in_features' must be int and must > 0"),
        (lambda: nn.Linear(2, 3, bias=1), TypeError, "'has_bias' must be a bool"),
        (lambda: nn.Linear(2, 3, weight_init=Tensor(np.ones((2, 3)))), ValueError, "weight init"),
        (lambda: nn.Linear(2, 3, bias_init=Tensor(np.ones(2))), ValueError, "bias init"),
        (lambda: nn.Tril()(Tensor(np.ones(3, np.float32))), ValueError, "rank must be greater"),
        (lambda: nn.Roll(1.0, 0), TypeError, "'shift' should be one of"),
        (lambda: nn.Roll((1, 2), (0,)), ValueError, "length of 'shift' 2"),
        (lambda: nn.OneHot(depth=3)(Tensor(M)), TypeError, r"Tensor\[Int32\], Tensor\[Int64\]"),
        (lambda: nn.OneHot(depth=-1)(Tensor(np.ones(3, I32))), ValueError, "depth value"),
        (lambda: nn.Range(1, 5, 0), ValueError, "'delta' can not be zero"),
        (lambda: nn.Norm(keep_dims=1), TypeError, "'keep_dims' should be 'bool'"),
        (lambda: nn.MatMul(transpose_x1=1), TypeError, "'transpose_x1' should be 'bool'"),
        (lambda: nn.MatMul()(Tensor(M), Tensor(M)), ValueError, "'x1_col' 5 and 'x2_row' 4"),
        (lambda: nn.Moments(axis=1.0), TypeError, "'axis' should be one of"),
        (lambda: nn.Moments(keep_dims=1), TypeError, "'keep_dims' should be 'bool'"),
        (lambda: nn.Moments()(Tensor(np.ones(3, I32))), TypeError, "float16, mindspore.float32"),
        (lambda: nn.ReduceLogSumExp(1.0), TypeError, "'axis' should be one of"),
        (lambda: nn.ReduceLogSumExp(1, 1), TypeError, "'keep_dims' should be 'bool'"),
        (lambda: nn.ReduceLogSumExp(0)(Tensor(np.ones(3, I32))), TypeError, "primitive\\[Exp\\]"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_igamma_cell(mode) -> None:
    """nn.IGamma is ops.igamma; MindSpore 2.10 printed these for its docstring's inputs."""
    a = np.array([2.0, 4.0, 6.0, 8.0], np.float32)
    x = np.array([2.0, 3.0, 4.0, 5.0], np.float32)
    got = run(nn.IGamma(), mode, a, x).asnumpy()
    np.testing.assert_allclose(got, [0.59399456, 0.35276744, 0.21486895, 0.1333711], rtol=1e-4)
