"""The losses of frontend/nn/loss_extra.py and loss_margin.py (issue 38): values MindSpore 2.10 printed
for the same inputs (constants below), in PyNative mode and as GRAPH_MODE Cells;
numpy references from MindSpore's documented formulas where its CPU build has no
kernel (SoftMarginLoss, TripletMarginLoss, MultilabelMarginLoss); gradients by
finite differences; bad arguments with MindSpore's exception types."""

from __future__ import annotations

import grad_check
import numpy as np
import pytest
from ms_inputs import g

import mindjit as ms
from mindjit import Tensor, nn

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]
REDUCTIONS = ["mean", "sum", "none"]


def sign(seed: int, *shape: int) -> np.ndarray:
    return np.where(np.random.default_rng(seed).random(shape) < 0.5, -1.0, 1.0).astype(np.float32)


X, Y, Z = g(1, 3, 4), g(2, 3, 4), g(3, 3, 4)
S = sign(4, 3, 4)
T01 = (S > 0).astype(np.float32)
W4 = np.array([0.5, 1.0, 2.0, 1.5], np.float32)
W3 = np.array([0.2, 1.0, 3.0], np.float32)
TGT = np.array([0, 3, 1], np.int64)
CNT = np.abs(g(5, 3, 4)) * 3
VAR = np.abs(g(6, 3, 4)) + 0.05
LG = g(7, 3, 3, 5)
LAB = np.array([[[0, 2, 1, 1, 0]], [[2, 2, 0, 1, 1]], [[1, 0, 0, 2, 1]]], np.int32)
PROB = np.abs(g(8, 3, 3, 5))
P01 = 1 / (1 + np.exp(-X))
ONE_HOT = np.eye(4, dtype=np.float32)[[0, 3, 1]]

# name -> (the Cell for a reduction, its inputs); MindSpore's results in MS below
CASES = {
    "margin_ranking": (lambda r: nn.MarginRankingLoss(0.3, r), (X, Y, S)),
    "mlsm": (lambda r: nn.MultiLabelSoftMarginLoss(reduction=r), (X, T01)),
    "mlsm_w": (lambda r: nn.MultiLabelSoftMarginLoss(weight=Tensor(W4), reduction=r), (X, T01)),
    "multimargin": (lambda r: nn.MultiMarginLoss(reduction=r), (X, TGT)),
    "multimargin_p2_m07_w": (
        lambda r: nn.MultiMarginLoss(p=2, margin=0.7, reduction=r, weight=Tensor(W4)),
        (X, TGT),
    ),
    "poisson": (lambda r: nn.PoissonNLLLoss(reduction=r), (X, CNT)),
    "poisson_nolog_full": (
        lambda r: nn.PoissonNLLLoss(log_input=False, full=True, reduction=r),
        (np.abs(X), CNT),
    ),
    "gaussian": (lambda r: nn.GaussianNLLLoss(reduction=r), (X, Y, VAR)),
    "gaussian_full_var1": (
        lambda r: nn.GaussianNLLLoss(full=True, eps=0.1, reduction=r),
        (X, Y, VAR[:, :1]),
    ),
    "gaussian_var_squeezed": (lambda r: nn.GaussianNLLLoss(reduction=r), (X, Y, VAR[:, 0])),
    "hinge": (lambda r: nn.HingeEmbeddingLoss(reduction=r), (X, S)),
    "hinge_m05": (lambda r: nn.HingeEmbeddingLoss(margin=0.5, reduction=r), (X, S)),
    "mae": (lambda r: nn.MAELoss(r), (X, Y)),
    "tmwd": (lambda r: nn.TripletMarginWithDistanceLoss(reduction=r), (X, Y, Z)),
    "tmwd_swap_m2": (
        lambda r: nn.TripletMarginWithDistanceLoss(swap=True, margin=2.0, reduction=r),
        (X, Y, Z),
    ),
    "focal": (lambda r: nn.FocalLoss(reduction=r), (LG, LAB)),
    "focal_w_g1": (lambda r: nn.FocalLoss(weight=Tensor(W3), gamma=1.0, reduction=r), (LG, LAB)),
    "focal_prob": (lambda r: nn.FocalLoss(reduction=r), (LG, PROB)),
    "focal_2d": (lambda r: nn.FocalLoss(reduction=r), (X, np.array([[1], [3], [0]], np.int32))),
}
UNREDUCED = {  # no reduction argument
    "rmse": (nn.RMSELoss, (X, Y)),
    "dice": (nn.DiceLoss, (P01, T01)),
    "dice_smooth": (lambda: nn.DiceLoss(smooth=0.5), (P01, T01)),
    "mcdice": (nn.MultiClassDiceLoss, (X, ONE_HOT)),
    "mcdice_none": (lambda: nn.MultiClassDiceLoss(activation=None), (P01, ONE_HOT)),
}

# printed by MindSpore 2.10 (CPU, PyNative) for the inputs below: name -> (value, dtype)
MS = {
    "margin_ranking_mean": 0.5015022,
    "mlsm_mean": 0.645951,
    "mlsm_w_mean": 0.8668868,
    "multimargin_mean": 0.6423076,
    "multimargin_p2_m07_w_mean": 0.3890418,
    "poisson_mean": 0.5483602,
    "poisson_nolog_full_mean": 3.5657871,
    "gaussian_mean": 0.5265726,
    "gaussian_full_var1_mean": 1.247861,
    "gaussian_var_squeezed_mean": 0.3289225,
    "hinge_mean": 0.52351,
    "hinge_m05_mean": 0.367496,
    "mae_mean": 0.6764001,
    "tmwd_mean": 0.0,
    "tmwd_swap_m2_mean": 0.5104387,
    "focal_mean": 0.6984846,
    "focal_w_g1_mean": 1.2140959,
    "focal_prob_mean": 0.6955209,
    "focal_2d_mean": 0.5613245,
    "margin_ranking_sum": 6.0180259,
    "mlsm_sum": 1.9378529,
    "mlsm_w_sum": 2.6006603,
    "multimargin_sum": 1.9269228,
    "multimargin_p2_m07_w_sum": 1.1671252,
    "poisson_sum": 6.5803223,
    "poisson_nolog_full_sum": 42.789444,
    "gaussian_sum": 6.3188715,
    "gaussian_full_var1_sum": 14.9743328,
    "gaussian_var_squeezed_sum": 3.9470706,
    "hinge_sum": 6.2821207,
    "hinge_m05_sum": 4.4099517,
    "mae_sum": 8.1168013,
    "tmwd_sum": 0.0,
    "tmwd_swap_m2_sum": 1.531316,
    "focal_sum": 2.0954537,
    "focal_w_g1_sum": 3.642288,
    "focal_prob_sum": 6.2596879,
    "focal_2d_sum": 1.6839737,
    "margin_ranking_none": [
        [0.1434692, 0.0, 0.0, 1.4383101],
        [1.1943515, 0.0, 0.5115304, 0.1073116],
        [0.2166383, 0.0, 1.2491453, 1.1572695],
    ],
    "mlsm_none": [0.4203761, 0.8258053, 0.6916714],
    "mlsm_w_none": [0.5188953, 1.1608311, 0.9209338],
    "multimargin_none": [0.6152217, 0.5473735, 0.7643275],
    "multimargin_p2_m07_w_none": [0.2315099, 0.5132167, 0.4223987],
    "poisson_none": [
        [0.5814081, -0.9901748, 1.1453706, 1.9153913],
        [-0.6127675, 1.4157259, 1.4747636, 0.4198866],
        [0.620979, -0.1005677, 1.005572, -0.2952651],
    ],
    "poisson_nolog_full_none": [
        [3.965868, 4.7188978, 1.1554984, 1.0357025],
        [3.5470459, 0.711841, 1.9199368, 2.8677144],
        [3.5262036, 10.9038706, 2.9420691, 5.4947948],
    ],
    "gaussian_none": [
        [0.0601751, 0.7959506, 0.5845602, 2.6110342],
        [0.4068613, 0.3426322, -0.1438499, 0.2301962],
        [-0.5292463, 0.3435696, 1.2316457, 0.3853428],
    ],
    "gaussian_full_var1_none": [
        [0.9791136, 1.7871972, 1.2185677, 1.5553215],
        [1.3257997, 1.1786971, 0.9708567, 0.9672767],
        [0.389692, 1.4369978, 1.704455, 1.4603577],
    ],
    "gaussian_var_squeezed_none": [
        [0.0601751, 0.8682587, 0.2996292, 0.6363829],
        [0.4068613, 0.2597586, 0.0519182, 0.0483382],
        [-0.5292466, 0.5180592, 0.7855165, 0.5414191],
    ],
    "hinge_none": [
        [0.3455842, 0.8216181, 0.3304371, 2.3031573],
        [0.9053559, 0.5536255, -0.5369532, 0.4188819],
        [0.3645724, 0.2941325, 0.0284222, 0.453287],
    ],
    "hinge_m05_none": [
        [0.3455842, 0.8216181, 0.3304371, 1.8031572],
        [0.9053559, 0.0536254, -0.5369532, 0.0],
        [0.3645724, 0.2941325, 0.0284222, 0.0],
    ],
    "mae_none": [
        [0.1565308, 1.3443665, 0.7435006, 1.1383101],
        [0.8943515, 0.6977913, 0.2115304, 0.1926885],
        [0.0833617, 0.8479553, 0.9491452, 0.8572695],
    ],
    "tmwd_none": [0.0, 0.0, 0.0],
    "tmwd_swap_m2_none": [0.4885987, 0.9021144, 0.140603],
    "focal_none": [0.3591038, 0.7189422, 1.0174078],
    "focal_w_g1_none": [0.5575696, 2.1888776, 0.8958408],
    "focal_prob_none": [
        [1.021817, 0.4651963, 0.4369152],
        [0.6126092, 0.5686729, 0.3236691],
        [1.0065789, 1.132327, 0.6919026],
    ],
    "focal_2d_none": [0.2827967, 0.6634863, 0.7376907],
    "rmse": 0.7858532,
    "dice": 0.2292502,
    "dice_smooth": 0.2601522,
    "mcdice": 0.6856145,
    "mcdice_none": 0.5629692,
    "mlsm_int_target": 0.6233635,
}


def run(cell, mode, *arrays):  # type: ignore[no-untyped-def]
    ms.set_context(mode=mode)
    try:
        return cell(*[Tensor(a) for a in arrays]).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_equals_mindspore(name, reduction, mode):
    make, arrays = CASES[name]
    got = run(make(reduction), mode, *arrays)
    want = np.asarray(MS[f"{name}_{reduction}"])
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(UNREDUCED))
def test_unreduced_loss_equals_mindspore(name, mode):
    make, arrays = UNREDUCED[name]
    got = run(make(), mode, *arrays)
    assert got.dtype == np.float32 and got.shape == ()
    np.testing.assert_allclose(got, MS[name], rtol=2e-5, atol=2e-6)


# --- no CPU kernel in MindSpore: its documented formulas --------------------------------


def reduce(x: np.ndarray, reduction: str) -> np.ndarray:
    return {"mean": np.mean, "sum": np.sum}.get(reduction, lambda v: v)(x)


def soft_margin(x, y):  # type: ignore[no-untyped-def]
    return np.log1p(np.exp(-y * x))


def triplet(a, p, n, margin=1.0, norm=2, eps=1e-6, swap=False):  # type: ignore[no-untyped-def]
    def d(u, v):  # type: ignore[no-untyped-def]
        return np.sum(np.abs(u - v + eps) ** norm, axis=1) ** (1.0 / norm)

    d_neg = np.minimum(d(a, n), d(p, n)) if swap else d(a, n)
    return np.maximum(d(a, p) - d_neg + margin, 0.0)


def multilabel_margin(x, target):  # type: ignore[no-untyped-def]
    out = []
    for row, t in zip(x, target):
        stop = list(t).index(-1) if -1 in t else len(t)
        js = list(t[:stop])
        others = [i for i in range(len(row)) if i not in js]
        out.append(sum(max(0.0, 1 - (row[j] - row[i])) for j in js for i in others) / len(row))
    return np.array(out)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_loss(reduction, mode):
    got = run(nn.SoftMarginLoss(reduction), mode, X, S)
    np.testing.assert_allclose(got, reduce(soft_margin(X, S), reduction), rtol=2e-6)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p, swap, margin", [(2, False, 1.0), (1, True, 0.5), (3, False, 2.0)])
def test_triplet_margin_loss(p, swap, margin, reduction, mode):
    loss = nn.TripletMarginLoss(p=p, swap=swap, reduction=reduction, margin=margin)
    got = run(loss, mode, X, Y, Z)
    want = reduce(triplet(X, Y, Z, margin, p, swap=swap), reduction)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_triplet_margin_loss_docs_example(mode):
    x = np.array([[0.3, 0.7], [0.5, 0.5]], np.float32)
    positive = np.array([[0.4, 0.6], [0.4, 0.6]], np.float32)
    negative = np.array([[0.2, 0.9], [0.3, 0.7]], np.float32)
    got = run(nn.TripletMarginLoss(), mode, x, positive, negative)
    np.testing.assert_allclose(got, 0.8881968, rtol=1e-6)  # MindSpore's docs print this


def test_triplet_margin_loss_call_margin_counts_only_with_the_default():
    a, p, n = (Tensor(v) for v in (X, Y, Z))
    want = np.mean(triplet(X, Y, Z, 0.25))
    np.testing.assert_allclose(nn.TripletMarginLoss()(a, p, n, 0.25).asnumpy(), want, rtol=1e-5)
    cell = nn.TripletMarginLoss(margin=2.0)  # MindSpore: the Cell's margin wins if not 1.0
    np.testing.assert_allclose(
        cell(a, p, n, 0.25).asnumpy(), np.mean(triplet(X, Y, Z, 2.0)), rtol=1e-5
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(reduction, mode):
    target = np.array([[3, 0, -1, 1], [1, 2, 3, 0], [-1, 0, 0, 0]], np.int32)
    got = run(nn.MultilabelMarginLoss(reduction), mode, X, target)
    np.testing.assert_allclose(got, reduce(multilabel_margin(X, target), reduction), rtol=1e-5)


def test_multilabel_margin_loss_docs_example():
    x = np.array([[0.1, 0.2, 0.4, 0.8], [0.2, 0.3, 0.5, 0.7]], np.float32)
    target = np.array([[1, 2, 0, 3], [2, 3, -1, 1]], np.int32)
    got = nn.MultilabelMarginLoss()(Tensor(x), Tensor(target)).asnumpy()
    np.testing.assert_allclose(got, 0.325, rtol=1e-6)  # MindSpore's docs print 0.325


# --- gradients ---------------------------------------------------------------------------

GRADS = [  # (loss, float inputs differentiated, fixed inputs after them)
    (lambda: nn.MarginRankingLoss(0.3, "none"), (X, Y), (S,)),
    (lambda: nn.SoftMarginLoss("none"), (X,), (S,)),
    (lambda: nn.HingeEmbeddingLoss(reduction="none"), (X,), (S,)),
    (lambda: nn.MultiLabelSoftMarginLoss(Tensor(W4.astype(np.float64)), "none"), (X,), (T01,)),
    (lambda: nn.MultiMarginLoss(p=2, margin=0.7, reduction="none"), (X,), (TGT,)),
    (lambda: nn.TripletMarginLoss(p=3, swap=True, reduction="none"), (X, Y, Z), ()),
    (lambda: nn.GaussianNLLLoss(full=True, reduction="none"), (X, Y, VAR), ()),
    (lambda: nn.MultilabelMarginLoss("none"), (X,), (np.array([[3, 0, -1, 1]] * 3, np.int32),)),
]


@pytest.mark.parametrize("case", range(len(GRADS)))
def test_gradients_match_finite_differences(case):
    make, floats, fixed = GRADS[case]
    loss = make()
    arrays = [a.astype(np.float64) for a in floats]
    fixed_t = [Tensor(f.astype(np.float64) if f.dtype == np.float32 else f) for f in fixed]
    rng = np.random.default_rng(case)
    grad_check.assert_grads_match_finite_differences(
        lambda *xs: loss(*xs, *fixed_t), arrays, rng, rtol=1e-5, atol=1e-6
    )


@pytest.mark.parametrize(
    "make, floats, fixed",
    [
        (lambda: nn.FocalLoss(Tensor(W3), reduction="none"), (LG,), (LAB,)),
        (
            lambda: nn.PoissonNLLLoss(log_input=False, full=True, reduction="none"),
            (np.abs(X) + 0.5,),
            (CNT,),
        ),
        (lambda: nn.DiceLoss(), (P01,), (T01,)),
        (lambda: nn.MultiClassDiceLoss(), (X,), (ONE_HOT,)),
        (lambda: nn.TripletMarginWithDistanceLoss(swap=True, reduction="none"), (X, Y, Z), ()),
    ],
)
def test_float32_losses_gradients_match_finite_differences(make, floats, fixed):
    """Losses reduced through LossBase.get_loss compute in float32 (MindSpore's rule):
    differences with a larger step, compared loosely."""
    loss = make()
    arrays = [a.astype(np.float32) for a in floats]
    fixed_t = [Tensor(f) for f in fixed]
    grad_check.assert_grads_match_finite_differences(
        lambda *xs: loss(*xs, *fixed_t), arrays, np.random.default_rng(0), 1e-2, 2e-2, 2e-3
    )


# --- bad arguments -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: nn.MarginRankingLoss(1)(*map(Tensor, (X, Y, S))), TypeError, "'margin'.*'float'"),
        (lambda: nn.SoftMarginLoss("bad"), ValueError, "'reduction'"),
        (lambda: nn.SoftMarginLoss()(Tensor(X), Tensor(S[:, :2])), ValueError, "shape"),
        (lambda: nn.HingeEmbeddingLoss(margin="a"), TypeError, "'margin'"),
        (lambda: nn.GaussianNLLLoss(eps=0.0), ValueError, r"'eps' must be in range of \(0, inf\)"),
        (lambda: nn.GaussianNLLLoss(eps=1), TypeError, "'eps' must be 'float'"),
        (lambda: nn.FocalLoss(gamma=2), TypeError, "'gamma' should be 'float'"),
        (lambda: nn.FocalLoss()(Tensor(X[0]), Tensor(ONE_HOT[0])), ValueError, r"in \[2, 4\]"),
        (
            lambda: nn.FocalLoss()(Tensor(X), Tensor(np.array([[1], [3], [0]], np.uint8))),
            TypeError,
            "'labels' should be one of",
        ),
        (lambda: nn.DiceLoss()(Tensor(X), Tensor(X[:2])), ValueError, "'logits_shape'"),
        (lambda: nn.DiceLoss(smooth=1), TypeError, "'smooth'"),
        (
            lambda: nn.MultiMarginLoss()(Tensor(X), Tensor(TGT.astype(np.float32))),
            TypeError,
            r"Tensor\[Int64\]",
        ),
        (lambda: nn.MultiMarginLoss(p=3), ValueError, "'p'"),
        (lambda: nn.MultiClassDiceLoss(activation="gelu"), ValueError, "'activation' must be in"),
        (
            lambda: nn.MultiClassDiceLoss()(Tensor(X[0]), Tensor(ONE_HOT[0])),
            ValueError,
            "'logits' dimension must be greater than 1",
        ),
        (lambda: nn.PoissonNLLLoss(reduction="x"), ValueError, "'reduction' must be in"),
        (lambda: nn.TripletMarginWithDistanceLoss(margin=1), TypeError, "'margin' must be 'float'"),
        (
            lambda: nn.MultilabelMarginLoss()(Tensor(X), Tensor(np.zeros((3, 4), np.int64))),
            TypeError,
            r"Tensor\[Int32\]",
        ),
        (
            lambda: nn.RMSELoss()(Tensor(np.ones(3, np.uint8)), Tensor(np.ones(3, np.uint8))),
            TypeError,
            "uint8",
        ),
    ],
)
def test_bad_arguments_raise_mindspores_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_bad_argument_in_graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ValueError, match="'logits_shape'"):
        nn.DiceLoss()(Tensor(X), Tensor(X[:2]))
