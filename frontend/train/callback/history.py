"""`History()`: what each training epoch ended with. `history.epoch` is
`{"epoch": [1, 2, ...]}`, `history.history` `{"net_output": [...], <metric>: [...]}`:
the last step's output (its mean; the first output if several) and, under
`Model.fit`, the evaluation's metrics. MindSpore's History hooks the 1.x names
`begin` / `epoch_end`, which fit's evaluations call too (restarting the epoch
list mid-training); this one records training epochs only."""

from __future__ import annotations

from typing import Any

from mindjit.frontend.train.callback.callback import Callback, RunContext
from mindjit.frontend.train.callback.loss_monitor import loss_value


class History(Callback):
    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[Any]] = {}
        self.epoch: dict[str, list[int]] = {"epoch": []}

    def on_train_begin(self, run_context: RunContext) -> None:
        self.epoch = {"epoch": []}

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        self.epoch["epoch"].append(cb_params.get("cur_epoch_num", 1))
        record = {"net_output": loss_value(cb_params.get("net_outputs"))}
        record.update(cb_params.get("metrics") or {})
        for key, value in record.items():
            self.history.setdefault(key, []).append(value)
