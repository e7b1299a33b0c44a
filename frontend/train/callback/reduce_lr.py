"""`ReduceLROnPlateau(monitor='eval_loss', factor=0.1, patience=10, verbose=False,
mode='auto', min_delta=1e-4, cooldown=0, min_lr=0)`: multiply the optimizer's
learning rate by `factor` when `monitor` (monitor.py) has not improved for
`patience` epochs, then wait `cooldown` epochs; never below `min_lr`.

MindSpore assigns the optimizer's `learning_rate` Parameter. mindjit's
optimizers keep a fixed learning rate as a float folded into the compiled step
(frontend/nn/optim/optimizer.py), so a float is replaced on the optimizer and,
in graph mode, the compiled programs are dropped: the next step compiles once
more with the new rate (one compile per reduction; PyNative reads the float at
every step). A learning rate that is a Parameter is assigned, as in MindSpore.
A dynamic or per-group learning rate is MindSpore's ValueError.
"""

from __future__ import annotations

import numpy as np

from mindjit.frontend.graph.api import clear_cache
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

_OWNER = "ReduceLROnPlateau"


class ReduceLROnPlateau(Callback):
    def __init__(
        self,
        monitor: str = "eval_loss",
        factor: float = 0.1,
        patience: int = 10,
        verbose: bool = False,
        mode: str = "auto",
        min_delta: float = 1e-4,
        cooldown: int = 0,
        min_lr: float = 0,
    ):
        super().__init__()
        self.monitor = check_str(monitor, "monitor", _OWNER)
        if isinstance(factor, bool) or not isinstance(factor, float):
            raise TypeError(
                f"For '{_OWNER}', the argument 'factor' must be float, but got "
                f"{type(factor).__name__}."
            )
        if not 0.0 < factor < 1.0:
            raise ValueError(
                f"For '{_OWNER}', the argument 'factor' must be in range of (0.0, 1.0), but got "
                f"{factor}."
            )
        self.factor = factor
        self.patience = check_int(patience, "patience", _OWNER)
        self.verbose = check_bool(verbose, "verbose", _OWNER)
        self.mode = check_str(mode, "mode", _OWNER)
        self.min_delta = abs(check_number(min_delta, "min_delta", _OWNER))
        self.cooldown = check_int(cooldown, "cooldown", _OWNER)
        self.min_lr = check_number(min_lr, "min_lr", _OWNER)
        self._direction = Direction(mode, monitor, min_delta)
        self.cooldown_counter = self.wait = 0
        self.best = self._direction.worst()

    def on_train_begin(self, run_context: RunContext) -> None:
        self.cooldown_counter = self.wait = 0
        self.best = self._direction.worst()

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        optimizer = cb_params.optimizer
        lr = getattr(optimizer, "learning_rate", None)
        fixed = isinstance(lr, float) and not getattr(optimizer, "is_group_lr", False)
        if not (isinstance(lr, Parameter) or fixed):
            raise ValueError(
                "ReduceLROnPlateau does not support dynamic learning rate and group learning "
                "rate now."
            )
        current = monitor_value(cb_params, self.monitor, _OWNER, "Learning rate reduction")
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._direction.improves(current, self.best):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(lr) if fixed else float(lr.asnumpy())
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    _set_lr(optimizer, new)
                    if self.verbose:
                        print(
                            f"Epoch {cb_params.cur_epoch_num:05d}: ReduceLROnPlateau reducing "
                            f"learning rate to {new}."
                        )
                self.cooldown_counter, self.wait = self.cooldown, 0


def _set_lr(optimizer: object, new: float) -> None:
    lr = optimizer.learning_rate
    if isinstance(lr, Parameter):
        lr.set_data(Tensor(np.array(new, dtype=lr.asnumpy().dtype).reshape(lr.shape)))
        return
    optimizer.learning_rate = float(new)
    clear_cache()  # the old rate is a constant of the compiled steps
