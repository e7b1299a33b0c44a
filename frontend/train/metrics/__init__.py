"""`mindjit.train.metrics`: the metrics `Model.eval` computes, by name
(`metrics={'accuracy'}`) or as objects (`metrics={'acc': Accuracy()}`)."""

from __future__ import annotations

from typing import Any

from mindjit.frontend.train.metrics.accuracy import Accuracy
from mindjit.frontend.train.metrics.bleu_score import BleuScore
from mindjit.frontend.train.metrics.confusion_matrix import ConfusionMatrix, ConfusionMatrixMetric
from mindjit.frontend.train.metrics.cosine_similarity import CosineSimilarity
from mindjit.frontend.train.metrics.dice import Dice
from mindjit.frontend.train.metrics.errors import MAE, MSE, Loss
from mindjit.frontend.train.metrics.fbeta import F1, Fbeta
from mindjit.frontend.train.metrics.metric import EvaluationBase, Metric, rearrange_inputs
from mindjit.frontend.train.metrics.occlusion_sensitivity import OcclusionSensitivity
from mindjit.frontend.train.metrics.perplexity import Perplexity
from mindjit.frontend.train.metrics.precision_recall import Precision, Recall
from mindjit.frontend.train.metrics.roc_auc import ROC, auc
from mindjit.frontend.train.metrics.surface_distance import (
    HausdorffDistance,
    MeanSurfaceDistance,
    RootMeanSquareDistance,
)
from mindjit.frontend.train.metrics.topk import (
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
)

_FACTORY: dict[str, Any] = {
    "accuracy": Accuracy,
    "acc": Accuracy,
    "precision": Precision,
    "recall": Recall,
    "topk": TopKCategoricalAccuracy,
    "top_1_accuracy": Top1CategoricalAccuracy,
    "top_5_accuracy": Top5CategoricalAccuracy,
    "mae": MAE,
    "mse": MSE,
    "loss": Loss,
    "cosine_similarity": CosineSimilarity,
    "F1": F1,
    "dice": Dice,
    "roc": ROC,
    "auc": auc,
    "bleu_score": BleuScore,
    "occlusion_sensitivity": OcclusionSensitivity,
    "hausdorff_distance": HausdorffDistance,
    "mean_surface_distance": MeanSurfaceDistance,
    "root_mean_square_distance": RootMeanSquareDistance,
    "perplexity": Perplexity,
    "confusion_matrix": ConfusionMatrix,
    "confusion_matrix_metric": ConfusionMatrixMetric,
}


def names() -> list[str]:
    """The metric names `get_metric_fn` knows."""
    return sorted(_FACTORY)


def get_metric_fn(name: str, *args: Any, **kwargs: Any) -> Metric:
    if name not in _FACTORY:
        raise KeyError(
            f"For 'get_metric_fn', unsupported metric {name}, please refer to official website "
            "for more details about supported metrics."
        )
    return _FACTORY[name](*args, **kwargs)


def get_metrics(metrics: Any) -> dict[str, Metric] | None:
    """A set of names or a {name: Metric} dict as {name: Metric}."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for name, metric in metrics.items():
            if not isinstance(name, str) or not isinstance(metric, Metric):
                raise TypeError(
                    "For 'get_metrics', if 'metrics' is dict, the key in 'metrics' must be string "
                    f"and value in 'metrics' must be Metric, but got key:{type(name)}, "
                    f"value:{type(metric)}."
                )
        return metrics
    if isinstance(metrics, set):
        return {name: get_metric_fn(name) for name in metrics}
    raise TypeError(
        f"For 'get_metrics', the argument 'metrics' must be None, dict or set, but got {metrics!r}"
    )


__all__ = [
    "F1",
    "MAE",
    "MSE",
    "ROC",
    "Accuracy",
    "BleuScore",
    "ConfusionMatrix",
    "ConfusionMatrixMetric",
    "CosineSimilarity",
    "Dice",
    "Fbeta",
    "HausdorffDistance",
    "MeanSurfaceDistance",
    "OcclusionSensitivity",
    "Perplexity",
    "RootMeanSquareDistance",
    "auc",
    "EvaluationBase",
    "Loss",
    "Metric",
    "Precision",
    "Recall",
    "Top1CategoricalAccuracy",
    "Top5CategoricalAccuracy",
    "TopKCategoricalAccuracy",
    "get_metric_fn",
    "get_metrics",
    "names",
    "rearrange_inputs",
]
