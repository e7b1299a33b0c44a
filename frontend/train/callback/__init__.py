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
from mindjit.frontend.train.callback.loss_monitor import LossMonitor
from mindjit.frontend.train.callback.time_monitor import TimeMonitor

__all__ = [
    "Callback",
    "CallbackManager",
    "CheckpointConfig",
    "InternalCallbackParam",
    "LossMonitor",
    "ModelCheckpoint",
    "RunContext",
    "TimeMonitor",
]
