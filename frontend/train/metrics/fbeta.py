"""`Fbeta(beta)` and `F1()`: per class, (1 + beta^2) * TP / (beta^2 * actual
positives + predicted positives), counted over the arg-max predictions of every
`update` (one-hot labels are turned into indices); `eval(average=True)` is the
mean over the classes. MindSpore's numpy computation, with its eps."""

from __future__ import annotations

import sys

import numpy as np

from mindjit.frontend.train.metrics.metric import Metric, is_one_hot, rearrange_inputs, two_inputs


class Fbeta(Metric):
    def __init__(self, beta):
        super().__init__()
        self.eps = sys.float_info.min
        if not beta > 0:
            raise ValueError(
                f"For 'Fbeta', the argument 'beta' must be greater than 0, but got {beta}."
            )
        self.beta = beta
        self.clear()

    def clear(self) -> None:
        self._true_positives, self._actual_positives, self._positives = 0, 0, 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs) -> None:
        two_inputs("Fbeta", inputs)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and is_one_hot(y):
            y = y.argmax(axis=1)
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(
                f"For 'Fbeta.update', class number not match, last input predicted data contain "
                f"{self._class_num} classes, but current predicted data contain {y_pred.shape[1]} "
                "classes, please check your predicted value(inputs[0])."
            )
        n = self._class_num
        if y.max() + 1 > n:
            raise ValueError(
                "For 'Fbeta.update', predicted value(inputs[0]) and true value(inputs[1]) should "
                f"contain same classes, but got predicted value contains {n} classes and true "
                f"value contains {y.max() + 1} classes."
            )
        y = np.eye(n)[y.reshape(-1)]
        y_pred = np.eye(n)[y_pred.argmax(axis=1).reshape(-1)]
        self._true_positives += (y * y_pred).sum(axis=0)
        self._positives += y_pred.sum(axis=0)
        self._actual_positives += y.sum(axis=0)

    def eval(self, average: bool = False):
        if not isinstance(average, bool):
            raise TypeError(
                f"For '{type(self).__name__}', the type of 'average' should be 'bool', but got "
                f"type '{type(average).__name__}'."
            )
        if self._class_num == 0:
            raise RuntimeError(
                "The 'Fbeta' can not be calculated, because the number of samples is 0, please "
                "check whether your inputs(predicted value, true value) are empty, or has called "
                "update method before calling eval method."
            )
        b2 = self.beta**2
        fbeta = (
            (1.0 + b2)
            * self._true_positives
            / (b2 * self._actual_positives + self._positives + self.eps)
        )
        return fbeta.mean() if average else fbeta


class F1(Fbeta):
    def __init__(self):
        super().__init__(1.0)
