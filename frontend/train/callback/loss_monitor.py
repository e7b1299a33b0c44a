"""`LossMonitor(per_print_times=1)`: prints the loss every `per_print_times`
steps as MindSpore does, `epoch: 1 step: 3, loss is 0.6931...` (the step
counted within its epoch), and stops the training on a NaN or infinite loss.
In `Model.fit` it also prints each evaluation's metrics."""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend.tensor import Tensor
from mindjit.frontend.train.callback.callback import Callback, RunContext


def loss_value(outputs: Any) -> Any:
    """A step's loss as a float (the first output if the network returns several)."""
    if isinstance(outputs, tuple | list) and outputs and isinstance(outputs[0], Tensor):
        outputs = outputs[0]
    if isinstance(outputs, Tensor):
        return float(np.mean(outputs.asnumpy()))
    return outputs


class LossMonitor(Callback):
    def __init__(self, per_print_times: int = 1):
        super().__init__()
        if isinstance(per_print_times, bool) or not isinstance(per_print_times, int):
            raise TypeError(
                "For 'LossMonitor', the argument 'per_print_times' must be int, but got "
                f"{type(per_print_times).__name__}."
            )
        if per_print_times < 0:
            raise ValueError(
                "For 'LossMonitor', the argument 'per_print_times' must be int and >= 0, but got "
                f"{per_print_times}."
            )
        self._per_print_times = per_print_times
        self._last_print_time = 0

    def step_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        epoch = cb_params.get("cur_epoch_num", 1)
        loss = loss_value(cb_params.net_outputs)
        step_in_epoch = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
        if isinstance(loss, float) and (np.isnan(loss) or np.isinf(loss)):
            raise ValueError(
                f"In epoch: {epoch} step: {step_in_epoch}, loss is NAN or INF, training process "
                "cannot continue, terminating training."
            )
        if self._per_print_times != 0 and cb_params.cur_step_num <= self._last_print_time:
            self._last_print_time = 0  # a new run of train or eval counts its steps from 1
        if (
            self._per_print_times != 0
            and cb_params.cur_step_num - self._last_print_time >= self._per_print_times
        ):
            self._last_print_time = cb_params.cur_step_num
            print(f"epoch: {epoch} step: {step_in_epoch}, loss is {loss}", flush=True)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics")
        if metrics:
            print(f"Eval result: epoch {cb_params.cur_epoch_num}, metrics: {metrics}")
