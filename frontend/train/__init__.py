"""`mindjit.train`: `Model`, its callbacks and metrics, at MindSpore 2.x's paths
(`from mindjit.train import Model, LossMonitor, Accuracy`;
`mindjit.train.callback`, `mindjit.train.metrics`)."""

from mindjit.frontend.train import callback, metrics
from mindjit.frontend.train.callback import (
    Callback,
    CheckpointConfig,
    EarlyStopping,
    History,
    LambdaCallback,
    LossMonitor,
    ModelCheckpoint,
    ReduceLROnPlateau,
    RunContext,
    SummaryCollector,
    TimeMonitor,
)
from mindjit.frontend.train.metrics import (
    MAE,
    MSE,
    Accuracy,
    CosineSimilarity,
    Loss,
    Metric,
    Precision,
    Recall,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
    get_metric_fn,
    names,
    rearrange_inputs,
)
from mindjit.frontend.train.model import Model

__all__ = [
    "MAE",
    "MSE",
    "Accuracy",
    "CosineSimilarity",
    "Callback",
    "CheckpointConfig",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "Loss",
    "LossMonitor",
    "Metric",
    "Model",
    "ModelCheckpoint",
    "Precision",
    "Recall",
    "ReduceLROnPlateau",
    "RunContext",
    "SummaryCollector",
    "TimeMonitor",
    "Top1CategoricalAccuracy",
    "Top5CategoricalAccuracy",
    "TopKCategoricalAccuracy",
    "callback",
    "get_metric_fn",
    "metrics",
    "names",
    "rearrange_inputs",
]
