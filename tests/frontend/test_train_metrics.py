"""The metrics of mindjit.train (and nn's 1.x names for them): the values of
MindSpore's API examples, set_indexes, the factory, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor
from mindjit.train import (
    MAE,
    MSE,
    Accuracy,
    Loss,
    Metric,
    Precision,
    Recall,
    TopKCategoricalAccuracy,
    get_metric_fn,
    names,
)

X = Tensor(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]], np.float32))
Y = Tensor(np.array([1, 0, 1]))


def test_the_values_of_mindspores_examples():
    assert Accuracy("classification")(X, Y) == pytest.approx(2 / 3)
    np.testing.assert_allclose(Precision("classification")(X, Y), [0.5, 1.0])
    np.testing.assert_allclose(Recall("classification")(X, Y), [1.0, 0.5])
    recall = Recall()
    recall.update(X, Y)
    assert recall.eval(average=True) == pytest.approx(0.75)
    pred = Tensor(np.array([0.1, 0.2, 0.6, 0.9], np.float32))
    assert MAE()(pred, Tensor(np.array([0.1, 0.25, 0.7, 0.9], np.float32))) == pytest.approx(0.0375)
    assert MSE()(pred, Tensor(np.array([0.1, 0.25, 0.5, 0.9], np.float32))) == pytest.approx(
        0.003125, rel=1e-5
    )
    assert Loss()(Tensor(np.array(0.2, np.float32))) == pytest.approx(0.2)


def test_accuracy_accumulates_and_takes_one_hot_labels_and_multilabel():
    acc = Accuracy()
    acc.update(X, Y)
    acc.update(np.array([[0.0, 1.0]]), np.array([[0, 1]]))  # a one-hot label
    assert acc.eval() == pytest.approx(3 / 4)
    multi = Accuracy("multilabel")
    multi.update(np.array([[1, 0], [1, 1]]), np.array([[1, 0], [0, 1]]))
    assert multi.eval() == pytest.approx(0.5)
    with pytest.raises(RuntimeError, match="number of samples is 0"):
        Accuracy().eval()
    with pytest.raises(ValueError, match="it needs 2 inputs"):
        Accuracy().update(X)
    with pytest.raises(ValueError, match="shape can not match"):
        Accuracy().update(X, Tensor(np.array([1, 0])))
    with pytest.raises(TypeError, match="must be in"):
        Accuracy("regression")
    with pytest.raises(TypeError, match="must be tensor, list or numpy.ndarray"):
        Accuracy().update(X, (1, 0, 1))


def test_top_k_and_set_indexes():
    logits = np.array([[0.1, 0.5, 0.4], [0.7, 0.2, 0.1], [0.2, 0.3, 0.5]])
    labels = np.array([2, 1, 0])
    assert TopKCategoricalAccuracy(2)(logits, labels) == pytest.approx(2 / 3)
    assert get_metric_fn("top_1_accuracy")(logits, labels) == 0
    picked = Accuracy().set_indexes([1, 2])  # (loss, logits, label) -> (logits, label)
    assert picked(Tensor(np.float32(1)), X, Y) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="'indexes' must be a list"):
        Accuracy().set_indexes((0, 1))


def test_the_factory_and_the_nn_names():
    assert isinstance(get_metric_fn("acc"), Accuracy) and "accuracy" in names()
    with pytest.raises(KeyError, match="unsupported metric bleu,"):
        get_metric_fn("bleu")
    assert ms.nn.Accuracy is Accuracy and ms.nn.Metric is Metric and ms.nn.MAE is MAE

    class MyMAE(Metric):  # MindSpore's custom-metric example
        def clear(self):
            self.total, self.n = 0.0, 0

        def update(self, *inputs):
            self.total += np.abs(inputs[1].asnumpy() - inputs[0].asnumpy()).sum()
            self.n += inputs[0].shape[0]

        def eval(self):
            return self.total / self.n

    assert MyMAE()(X, X) == 0.0
