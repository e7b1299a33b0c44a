"""`EarlyStopping(monitor='eval_loss', min_delta=0, patience=0, verbose=False,
mode='auto', baseline=None, restore_best_weights=False)`: stop training when
`monitor` has not improved for `patience` epochs (monitor.py says what is
monitored).

At each epoch's end the wait grows by one and an improvement on the best value
(by more than `min_delta`, and on `baseline` if given) resets it; at
`wait >= patience` the callback requests the stop. So, as in MindSpore, the
default patience of 0 stops after the first epoch. `restore_best_weights`
keeps a copy of the train network's Parameters at the best epoch and loads it
back when stopping. Unlike MindSpore 2.x, whose `baseline` took min_delta's
value, `baseline` is the value given.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend.checkpoint_net import load_param_into_net
from mindjit.frontend.tensor import Parameter, Tensor
from mindjit.frontend.train.callback.callback import Callback, RunContext
from mindjit.frontend.train.callback.monitor import (
    Direction,
    check_bool,
    check_int,
    check_number,
    check_str,
    monitor_value,
)

_OWNER = "EarlyStopping"


def snapshot(network: Any) -> dict[str, Parameter]:
    """A copy of a network's Parameters, as `load_param_into_net` takes them."""
    return {
        name: Parameter(Tensor(np.array(p.asnumpy(), copy=True)), name=name)
        for name, p in network.parameters_dict().items()
    }


class EarlyStopping(Callback):
    def __init__(
        self,
        monitor: str = "eval_loss",
        min_delta: float = 0,
        patience: int = 0,
        verbose: bool = False,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_weights: bool = False,
    ):
        super().__init__()
        self.monitor = check_str(monitor, "monitor", _OWNER)
        self.min_delta = abs(check_number(min_delta, "min_delta", _OWNER))
        self.patience = check_int(patience, "patience", _OWNER)
        self.verbose = check_bool(verbose, "verbose", _OWNER)
        self.mode = check_str(mode, "mode", _OWNER)
        self.baseline = None if baseline is None else check_number(baseline, "baseline", _OWNER)
        self.restore_best_weights = check_bool(restore_best_weights, "restore_best_weights", _OWNER)
        self._direction = Direction(mode, monitor, min_delta)
        self.wait = self.stopped_epoch = 0
        self.best = self._direction.worst()
        self.best_weights_param_dict: dict[str, Parameter] | None = None

    def on_train_begin(self, run_context: RunContext) -> None:
        self.wait = self.stopped_epoch = 0
        self.best = self._direction.worst()
        self.best_weights_param_dict = None

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        current = monitor_value(cb_params, self.monitor, _OWNER, "Early stopping")
        if current is None:
            return
        network = cb_params.train_network
        if self.restore_best_weights and self.best_weights_param_dict is None:
            self.best_weights_param_dict = snapshot(network)
        self.wait += 1
        if self._direction.improves(current, self.best):
            self.best = current
            if self.restore_best_weights:
                self.best_weights_param_dict = snapshot(network)
            if self.baseline is None or self._direction.improves(current, self.baseline):
                self.wait = 0
        if self.wait >= self.patience:
            self.stopped_epoch = cb_params.get("cur_epoch_num")
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights_param_dict is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                load_param_into_net(network, self.best_weights_param_dict)

    def on_train_end(self, run_context: RunContext) -> None:
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch:05d}: early stopping")
