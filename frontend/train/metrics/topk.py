"""`TopKCategoricalAccuracy(k)` and its `Top1` / `Top5` forms: the share of
samples whose label is among the k highest predictions (ties broken as
MindSpore's argsort does)."""

from __future__ import annotations

import numpy as np

from mindjit.frontend.train.metrics.metric import (
    Metric,
    is_one_hot,
    no_samples,
    rearrange_inputs,
    two_inputs,
)


class TopKCategoricalAccuracy(Metric):
    def __init__(self, k: int):
        super().__init__()
        if isinstance(k, bool) or not isinstance(k, int):
            raise TypeError(
                f"For 'TopKCategoricalAccuracy', the argument 'k' must be int, got {k!r}"
            )
        if k < 1:
            raise ValueError(
                f"For 'TopKCategoricalAccuracy', the argument 'k' must be at least 1, but got {k}"
            )
        self.k = k
        self.clear()

    def clear(self) -> None:
        self._correct_num, self._samples_num = 0, 0

    @rearrange_inputs
    def update(self, *inputs) -> None:
        two_inputs("TopKCategoricalAccuracy", inputs)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and is_one_hot(y):
            y = y.argmax(axis=1)
        indices = np.argsort(-y_pred, axis=1)[:, : self.k]
        self._correct_num += int((indices == y.reshape(-1, 1)).any(axis=1).sum())
        self._samples_num += y.shape[0]

    def eval(self) -> float:
        if self._samples_num == 0:
            raise no_samples("TopKCategoricalAccuracy")
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self) -> None:
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    def __init__(self) -> None:
        super().__init__(5)
