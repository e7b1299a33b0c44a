"""`TimeMonitor(data_size=None, data_time=False)`: prints each epoch's time and
the time per step, `Train epoch time: 12.345 ms, per step time: 1.234 ms`
(`Eval ...` during evaluation), as MindSpore does."""

from __future__ import annotations

import time

from mindjit.frontend.train.callback.callback import Callback, RunContext


class TimeMonitor(Callback):
    def __init__(self, data_size: int | None = None, data_time: bool = False):
        super().__init__()
        if not isinstance(data_time, bool):
            raise TypeError(
                "For 'TimeMonitor', the type of 'data_time' should be bool, but got "
                f"{type(data_time).__name__}."
            )
        self.data_size, self.data_time = data_size, data_time
        self.epoch_time = time.time()
        self._data_sum, self._data_start = 0.0, 0.0

    def on_train_step_begin(self, run_context: RunContext) -> None:
        if self.data_time:
            self._data_sum += time.time() - self._data_start

    def on_train_step_end(self, run_context: RunContext) -> None:
        if self.data_time:
            self._data_start = time.time()

    def epoch_begin(self, run_context: RunContext) -> None:
        self.epoch_time = time.time()
        self._data_sum, self._data_start = 0.0, time.time()

    def epoch_end(self, run_context: RunContext) -> None:
        epoch_ms = (time.time() - self.epoch_time) * 1000
        cb_params = run_context.original_args()
        steps = self.data_size
        batch_num = cb_params.get("batch_num")
        if isinstance(batch_num, int) and batch_num > 0:
            steps = batch_num
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
            raise ValueError(
                f"For 'TimeMonitor', the step count must be a positive int, but got {steps!r}."
            )
        line = (
            f"{cb_params.get('mode', '').title()} epoch time: {epoch_ms:5.3f} ms, "
            f"per step time: {epoch_ms / steps:5.3f} ms"
        )
        if self.data_time:
            line += f" (data time: {self._data_sum * 1000 / steps:5.3f} ms)"
        print(line, flush=True)
