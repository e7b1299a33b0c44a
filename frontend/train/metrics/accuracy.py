"""`Accuracy(eval_type='classification')`: the share of samples whose arg-max
prediction is the label ('multilabel': whose 0/1 predictions all match)."""

from __future__ import annotations

import numpy as np

from mindjit.frontend.train.metrics.metric import EvaluationBase, no_samples, rearrange_inputs


class Accuracy(EvaluationBase):
    def __init__(self, eval_type: str = "classification"):
        super().__init__(eval_type)
        self.clear()

    def clear(self) -> None:
        self._correct_num, self._total_num, self._class_num = 0, 0, 0

    @rearrange_inputs
    def update(self, *inputs) -> None:
        y_pred, y = self._prepare("Accuracy", inputs)
        if self._type == "classification":
            result = (np.equal(y_pred.argmax(axis=1), y) * 1).reshape(-1)
        else:
            last = y_pred.ndim - 1
            y_pred = y_pred.swapaxes(1, last).reshape(-1, self._class_num)
            y = y.swapaxes(1, last).reshape(-1, self._class_num)
            result = np.equal(y_pred, y).all(axis=1) * 1
        self._correct_num += result.sum()
        self._total_num += result.shape[0]

    def eval(self) -> float:
        if self._total_num == 0:
            raise no_samples("Accuracy")
        return self._correct_num / self._total_num
