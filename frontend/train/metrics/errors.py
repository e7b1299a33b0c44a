"""`MAE`, `MSE` (summed over each sample's elements, averaged over samples)
and `Loss` (the mean of the losses given to `update`), as MindSpore defines them."""

from __future__ import annotations

import numpy as np

from mindjit.frontend.train.metrics.metric import Metric, no_samples, rearrange_inputs, two_inputs


class _Error(Metric):
    _name = ""

    def __init__(self) -> None:
        super().__init__()
        self.clear()

    def clear(self) -> None:
        self._error_sum, self._samples_num = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs) -> None:
        two_inputs(self._name, inputs)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y.size != y_pred.size:
            raise ValueError(
                f"For '{self._name}.update', y (true value) of shape {y.shape} can not be "
                f"reshaped to y_pred's (predicted value) shape {y_pred.shape}."
            )
        self._error_sum += self._error(y.reshape(y_pred.shape) - y_pred).sum()
        self._samples_num += y.shape[0]

    def eval(self) -> float:
        if self._samples_num == 0:
            raise no_samples(self._name)
        return self._error_sum / self._samples_num

    @staticmethod
    def _error(diff: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class MAE(_Error):
    _name = "MAE"

    @staticmethod
    def _error(diff):
        return np.abs(diff)


class MSE(_Error):
    _name = "MSE"

    @staticmethod
    def _error(diff):
        return np.power(diff, 2)


class Loss(Metric):
    def __init__(self) -> None:
        super().__init__()
        self.clear()

    def clear(self) -> None:
        self._sum_loss, self._total_num = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs) -> None:
        if len(inputs) != 1:
            raise ValueError(f"For 'Loss.update', it needs 1 input (loss), but got {len(inputs)}")
        loss = self._convert_data(inputs[0])
        if loss.ndim == 0:
            loss = loss.reshape(1)
        if loss.ndim != 1:
            raise ValueError(
                f"For 'Loss.update', the dimension of your input (loss) must be 1, but got "
                f"{loss.ndim}."
            )
        self._sum_loss += loss.mean(-1)
        self._total_num += 1

    def eval(self) -> float:
        if self._total_num == 0:
            raise RuntimeError(
                "The 'Loss' can not be calculated, because the number of samples is 0, please "
                "check whether has called update method before calling eval method."
            )
        return self._sum_loss / self._total_num
