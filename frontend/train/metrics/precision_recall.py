"""`Precision` and `Recall` per class (`eval(average=True)`: their mean), as
MindSpore counts them: true positives over predicted positives, or over actual
positives; both share the counting and differ only in the denominator."""

from __future__ import annotations

import sys

import numpy as np

from mindjit.frontend.train.metrics.metric import EvaluationBase, rearrange_inputs

EPS = sys.float_info.min


class _PerClass(EvaluationBase):
    _name = ""

    def __init__(self, eval_type: str = "classification"):
        super().__init__(eval_type)
        self.eps = EPS
        self.clear()

    def clear(self) -> None:
        self._class_num = 0
        multi = self._type == "multilabel"
        self._true_positives = np.empty(0) if multi else 0
        self._counted = np.empty(0) if multi else 0
        self._true_positives_average, self._counted_average = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs) -> None:
        y_pred, y = self._prepare(self._name, inputs)
        n = self._class_num
        if self._type == "classification":
            if y.max() + 1 > n:
                raise ValueError(
                    f"For '{self._name}.update', predicted value (input[0]) should have the same "
                    f"classes number as true value (input[1]), but got predicted value classes "
                    f"{n}, true value classes {y.max() + 1}."
                )
            y = np.eye(n)[y.reshape(-1).astype(np.int64)]
            y_pred = np.eye(n)[y_pred.argmax(axis=1).reshape(-1)]
        else:
            y_pred = y_pred.swapaxes(1, 0).reshape(n, -1)
            y = y.swapaxes(1, 0).reshape(n, -1)
        counted = self._denominator(y_pred, y).sum(axis=0)
        true_positives = (y * y_pred).sum(axis=0)
        if self._type == "multilabel":
            self._true_positives_average += np.sum(true_positives / (counted + self.eps))
            self._counted_average += len(counted)
            self._true_positives = np.concatenate((self._true_positives, true_positives))
            self._counted = np.concatenate((self._counted, counted))
        else:
            self._true_positives = self._true_positives + true_positives
            self._counted = self._counted + counted

    def eval(self, average: bool = False):
        if self._class_num == 0:
            raise RuntimeError(
                f"The '{self._name}' can not be calculated, because the number of samples is 0, "
                "please check whether your inputs (predicted value, true value) are empty, or has "
                "called update method before calling eval method."
            )
        if not isinstance(average, bool):
            raise TypeError(
                f"For '{self._name}', the type of 'average' should be bool, but got "
                f"{type(average).__name__}."
            )
        result = self._true_positives / (self._counted + self.eps)
        if average:
            if self._type == "multilabel":
                result = self._true_positives_average / (self._counted_average + self.eps)
            return result.mean()
        return result

    @staticmethod
    def _denominator(y_pred: np.ndarray, y: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class Precision(_PerClass):
    _name = "Precision"

    @staticmethod
    def _denominator(y_pred, y):
        return y_pred


class Recall(_PerClass):
    _name = "Recall"

    @staticmethod
    def _denominator(y_pred, y):
        return y
