"""`mindjit.train.callback`: the hooks of `Model.train` / `Model.eval` and the
callbacks MindSpore ships that mindjit has (`from mindjit.train.callback import
LossMonitor` as from mindspore.train.callback)."""

from mindjit.frontend.train.callback.callback import (
    Callback,
    CallbackManager,
    InternalCallbackParam,
    RunContext,
)
from mindjit.frontend.train.callback.checkpoint import CheckpointConfig, ModelCheckpoint
from mindjit.frontend.train.callback.early_stopping import EarlyStopping
from mindjit.frontend.train.callback.history import History
from mindjit.frontend.train.callback.lambda_callback import LambdaCallback
from mindjit.frontend.train.callback.loss_monitor import LossMonitor
from mindjit.frontend.train.callback.reduce_lr import ReduceLROnPlateau
from mindjit.frontend.train.callback.summary import SummaryCollector
from mindjit.frontend.train.callback.time_monitor import TimeMonitor

__all__ = [
    "Callback",
    "CallbackManager",
    "CheckpointConfig",
    "EarlyStopping",
    "History",
    "InternalCallbackParam",
    "LambdaCallback",
    "LossMonitor",
    "ModelCheckpoint",
    "ReduceLROnPlateau",
    "RunContext",
    "SummaryCollector",
    "TimeMonitor",
]
