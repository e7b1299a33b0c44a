"""MindSpore 2.10's remaining metrics (Fbeta/F1, ConfusionMatrix(Metric), ROC/auc,
Dice, Perplexity, BleuScore, the surface distances, OcclusionSensitivity) and the
registry (names, get_metrics): every expected value below was printed by
MindSpore 2.10 on the same inputs (/tmp probes, pasted as literals)."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn

X = Tensor(np.array([[0.2, 0.5, 0.3], [0.3, 0.1, 0.6], [0.9, 0.05, 0.05], [0.1, 0.2, 0.7]]))
Y = Tensor(np.array([1, 0, 0, 2]))


def test_fbeta_and_f1():
    m = nn.Fbeta(0.5)
    m.update(X, Y)
    np.testing.assert_allclose(m.eval(), [0.8333333333, 1.0, 0.5555555556], rtol=1e-9)
    assert m.eval(True) == pytest.approx(0.7962962962962964)
    f1 = nn.F1()
    f1.update(X, Y)
    f1.update(X, Tensor(np.array([1, 2, 0, 1])))
    np.testing.assert_allclose(f1.eval(), [0.8, 0.8, 0.6666666667], rtol=1e-9)
    assert f1.eval(average=True) == pytest.approx(0.7555555555555555)
    with pytest.raises(ValueError):
        nn.Fbeta(0)
    with pytest.raises(RuntimeError):
        nn.F1().eval()
    with pytest.raises(TypeError):
        f1.eval(average=1)


def test_confusion_matrix():
    expected = {
        "no_norm": [[1, 0, 1], [0, 1, 0], [0, 0, 1]],
        "target": [[0.5, 0, 0.5], [0, 1, 0], [0, 0, 1]],
        "prediction": [[1, 0, 0.5], [0, 1, 0], [0, 0, 0.5]],
        "all": [[0.25, 0, 0.25], [0, 0.25, 0], [0, 0, 0.25]],
    }
    for norm, value in expected.items():
        m = nn.ConfusionMatrix(3, normalize=norm)
        m.update(X, Y)
        np.testing.assert_allclose(m.eval(), value)
    m = nn.ConfusionMatrix(2)
    m.update(Tensor(np.array([0.2, 0.7, 0.5, 0.9])), Tensor(np.array([0, 1, 1, 0])))
    np.testing.assert_allclose(m.eval(), [[1, 1], [0, 2]])
    with pytest.raises(TypeError):
        nn.ConfusionMatrix(2.0)
    with pytest.raises(ValueError):
        nn.ConfusionMatrix(2, normalize="label")
    with pytest.raises(RuntimeError):
        nn.ConfusionMatrix(2).eval()


CMM = {
    "tpr": 0.6666666667, "tnr": 1.0, "ppv": 1.0, "npv": 0.5, "fnr": 0.3333333333, "fpr": 0.0,
    "fdr": 0.0, "for": 0.5, "pt": 0.0, "ts": 0.6666666667, "acc": 0.75, "ba": 0.8333333333,
    "f1": 0.8, "mcc": 0.5773502692, "fm": 0.8164965809, "bm": 0.6666666667, "mk": 0.5,
}  # fmt: skip


def test_confusion_matrix_metric_from_summed_counts():
    y_pred = Tensor(np.array([[[0], [1]], [[0], [1]]], np.float32))
    y = Tensor(np.array([[[0], [1]], [[1], [1]]], np.float32))
    for name, value in CMM.items():
        m = nn.ConfusionMatrixMetric(metric_name=name)
        m.update(y_pred, y)
        np.testing.assert_allclose(m.eval(), [value], rtol=1e-9)
    m = nn.ConfusionMatrixMetric(metric_name="Matthews Correlation Coefficient")
    m.update(y_pred, y)
    np.testing.assert_allclose(m.eval(), [0.5773502692], rtol=1e-9)
    with pytest.raises(NotImplementedError):
        nn.ConfusionMatrixMetric(metric_name="nope")(y_pred, y)
    with pytest.raises(ValueError):
        nn.ConfusionMatrixMetric(decrease="max")
    with pytest.raises(ValueError):
        nn.ConfusionMatrixMetric()(y_pred, Tensor(np.full((2, 2, 1), 0.5, np.float32)))


Y_PRED4 = np.array(
    [[[[1, 0], [0, 1]], [[0, 1], [1, 0]]], [[[1, 1], [0, 0]], [[0, 0], [1, 1]]]], np.float32
)
Y4 = np.array(
    [[[[1, 0], [1, 1]], [[0, 1], [0, 0]]], [[[1, 0], [0, 0]], [[0, 1], [1, 1]]]], np.float32
)


def test_confusion_matrix_metric_per_sample():
    expected = {
        ("mean", "tpr"): 0.8333333333333333,
        ("mean", "f1"): 0.7333333333333334,
        ("mean", "mcc"): 0.5773502691896258,
        ("sum", "tpr"): 1.6666666666666665,
        ("sum", "f1"): 1.4666666666666668,
        ("sum", "mcc"): 1.1547005383792517,
        ("sum_batch", "tpr"): 1.6666666666666665,
        ("sum_batch", "f1"): 1.4666666666666668,
        ("sum_batch", "mcc"): 1.1547005383792517,
    }
    for (decrease, name), value in expected.items():
        m = nn.ConfusionMatrixMetric(False, name, True, decrease)
        m.update(Tensor(Y_PRED4), Tensor(Y4))
        assert m.eval() == pytest.approx(value, rel=1e-12)
    m = nn.ConfusionMatrixMetric(metric_name="f1")
    m.update(Y_PRED4, Y4)
    np.testing.assert_allclose(m.eval(), [0.75])


def test_roc_and_auc():
    fpr, tpr, thresholds = nn.ROC(pos_label=2)(
        Tensor(np.array([1, 2, 3, 4])), Tensor(np.array([1, 2, 2, 1]))
    )
    np.testing.assert_allclose(fpr, [0, 0.5, 0.5, 0.5, 1])
    np.testing.assert_allclose(tpr, [0, 0, 0.5, 1, 1])
    np.testing.assert_array_equal(thresholds, [5, 4, 3, 2, 1])
    scores = np.array(
        [[0.28, 0.55, 0.15, 0.05], [0.1, 0.2, 0.05, 0.05], [0.2, 0.05, 0.15, 0.05]]
        + [[0.05, 0.05, 0.05, 0.75]]
    )
    fpr, tpr, thresholds = nn.ROC(class_num=4)(Tensor(scores), Tensor(np.array([0, 1, 2, 3])))
    np.testing.assert_allclose(fpr[0], [0, 0, 1 / 3, 2 / 3, 1])
    np.testing.assert_allclose(fpr[1], [0, 1 / 3, 1 / 3, 1])
    np.testing.assert_allclose(tpr[2], [0, 1, 1])
    np.testing.assert_allclose(thresholds[3], [1.75, 0.75, 0.05])
    fpr, tpr, _ = nn.ROC(pos_label=1)(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    assert nn.auc(fpr, tpr) == pytest.approx(0.75)
    assert nn.auc(np.array([3.0, 2, 1]), np.array([1.0, 2, 4])) == pytest.approx(4.5)
    assert nn.auc(np.array([3.0, 1, 2]), np.array([1.0, 4, 2]), reorder=True) == 4.5
    with pytest.raises(ValueError):
        nn.auc(np.array([3.0, 1, 2]), np.array([1.0, 4, 2]))
    with pytest.raises(TypeError):
        nn.auc([1, 2], [1, 2])
    with pytest.raises(ValueError):
        nn.ROC(class_num=3)(scores, np.array([0, 1, 2, 3]))
    with pytest.raises(RuntimeError):
        nn.ROC().eval()


def test_dice_and_perplexity():
    pred = Tensor(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]))
    m = nn.Dice(smooth=1e-5)
    m.update(pred, Tensor(np.array([[0, 1], [1, 0], [0, 1]])))
    assert m.eval() == pytest.approx(0.2046779137180255, rel=1e-12)
    with pytest.raises(TypeError):
        nn.Dice(1)
    with pytest.raises(ValueError):
        nn.Dice(-1.0)
    assert nn.Perplexity()(pred, Tensor(np.array([1, 0, 1]))) == pytest.approx(2.231443166940565)
    assert nn.Perplexity(ignore_label=1)(pred, Tensor(np.array([1, 0, 1]))) == pytest.approx(
        3.333333333333333, rel=1e-12
    )
    with pytest.raises(RuntimeError):
        nn.Perplexity()(pred, np.array([1, 0]))
    with pytest.raises(TypeError):
        nn.Perplexity(ignore_label=1.0)


def test_bleu_score():
    cand = [["The", "cat", "The", "cat", "on", "the", "mat"]]
    refs = [
        [["The", "cat", "is", "on", "the", "mat"], ["There", "is", "a", "cat", "on", "the", "mat"]]
    ]
    m = nn.BleuScore()
    m.update(cand, refs)
    assert m.eval() == pytest.approx(0.46713797772820015, rel=1e-12)
    m = nn.BleuScore(n_gram=2, smooth=True)
    m.update(cand, refs)
    m.update([["a", "b", "c"]], [[["a", "b", "d", "e"]]])
    assert m.eval() == pytest.approx(0.6300479070108228, rel=1e-12)
    with pytest.raises(ValueError):
        nn.BleuScore(n_gram=5)
    with pytest.raises(RuntimeError):
        nn.BleuScore().eval()


A = np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]])
B = np.array([[0, 2, 1], [1, 2, 1], [0, 0, 1]])


def test_surface_distances():
    expected = {
        "euclidean": (1.4142135623730951, 0.7357022603955158, 0.9128709291752769),
        "chessboard": (1, 0.6666666666666666, 0.816496580927726),
        "taxicab": (2, 0.8333333333333333, 1.0801234497346435),
    }
    for metric, (hd, msd, rmsd) in expected.items():
        assert nn.HausdorffDistance(distance_metric=metric)(Tensor(A), Tensor(B), 0) == (
            pytest.approx(hd, rel=1e-12)
        )
        assert nn.MeanSurfaceDistance(True, metric)(Tensor(A), Tensor(B), 0) == pytest.approx(msd)
        assert nn.RootMeanSquareDistance(True, metric)(A, B, 0) == pytest.approx(rmsd, rel=1e-12)
    a = np.zeros((7, 8))
    a[1:5, 2:6] = 1
    a[3, 3] = 0
    b = np.zeros((7, 8))
    b[2:6, 1:4] = 1
    b[6, 7] = 1
    assert nn.HausdorffDistance(percentile=80.0)(a, b, 1) == pytest.approx(2.0)
    assert nn.HausdorffDistance(directed=True, crop=False)(a, b, 1) == pytest.approx(5**0.5)
    assert nn.MeanSurfaceDistance()(a, b, 1) == pytest.approx(1.1178772528480632, rel=1e-12)
    assert nn.RootMeanSquareDistance()(a, b, 1) == pytest.approx(1.7857142857142858, rel=1e-12)
    assert nn.RootMeanSquareDistance(symmetric=True)(a, b, 1) == pytest.approx(1.2728432229186242)
    c = np.zeros((4, 5, 6))
    c[1:3, 1:4, 2:5] = 1
    d = np.zeros((4, 5, 6))
    d[0:3, 2:4, 1:4] = 1
    assert nn.HausdorffDistance()(c, d, 1) == pytest.approx(1.4142135623730951)
    assert nn.MeanSurfaceDistance(symmetric=True)(c, d, 1) == pytest.approx(0.6015792847081216)
    with pytest.raises(ValueError):
        nn.HausdorffDistance()(A, B, 7)
    with pytest.raises(ValueError):
        nn.HausdorffDistance(distance_metric="cosine")
    with pytest.raises(TypeError):
        nn.RootMeanSquareDistance()(A, B, "0")
    with pytest.raises(RuntimeError):
        nn.MeanSurfaceDistance().eval()


def test_registry():
    assert nn.names() == [
        "F1", "acc", "accuracy", "auc", "bleu_score", "confusion_matrix",
        "confusion_matrix_metric", "cosine_similarity", "dice", "hausdorff_distance", "loss",
        "mae", "mean_surface_distance", "mse", "occlusion_sensitivity", "perplexity",
        "precision", "recall", "roc", "root_mean_square_distance", "top_1_accuracy",
        "top_5_accuracy", "topk",
    ]  # fmt: skip
    metrics = nn.get_metrics({"F1", "dice"})
    assert isinstance(metrics["F1"], nn.F1) and isinstance(metrics["dice"], nn.Dice)
    assert nn.get_metrics(None) is None
    with pytest.raises(TypeError):
        nn.get_metrics(["F1"])
    with pytest.raises(KeyError):
        nn.get_metrics({"nope"})
    assert ms.train.Fbeta is nn.Fbeta and ms.train.auc is nn.auc


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        w = np.linspace(-1, 1, 36).reshape(3, 12).astype(np.float32)
        b = np.array([0.1, -0.2, 0.3], np.float32)
        self.dense = nn.Dense(12, 3, weight_init=Tensor(w), bias_init=Tensor(b))

    def construct(self, x):
        return self.dense(self.flatten(x))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_occlusion_sensitivity(mode):
    x = np.arange(12, dtype=np.float32).reshape(1, 3, 4) / 10
    ms.set_context(mode=mode)
    m = nn.OcclusionSensitivity(margin=1, n_batch=5)
    m.update(_Net(), Tensor(x), np.array(1, np.int32))
    expected = [
        [5.9604645e-08, -2.5714219e-02, -6.5714300e-02, -8.2857072e-02],
        [-3.4285724e-02, -7.4285686e-02, -6.2857151e-02, -5.7142377e-03],
        [8.0000043e-02, 2.4571431e-01, 4.4000006e-01, 6.8000007e-01],
    ]
    np.testing.assert_allclose(m.eval(), expected, atol=5e-7)
    m = nn.OcclusionSensitivity(pad_val=0.5, b_box=[0, -1, 1, 2])
    m.update(_Net(), x, np.array(2))
    expected = [[-0.49142838, -0.445714], [0.58285713, 1.2285719], [0.58285713, 1.2285719]]
    np.testing.assert_allclose(m.eval(), expected, atol=5e-7)
    with pytest.raises(RuntimeError):
        m.update(_Net(), np.zeros((2, 3, 4), np.float32), np.array(1))
    with pytest.raises(TypeError):
        m.update(lambda t: t, x, np.array(1))
    with pytest.raises(ValueError):
        nn.OcclusionSensitivity(b_box=[0, 1])(_Net(), x, np.array(1))
