"""`Perplexity(ignore_label)`: exp of the mean negative log-probability the
predictions give their labels (probabilities clipped at 1e-10), over every
updated token but those labelled `ignore_label`. MindSpore's numpy computation."""

from __future__ import annotations

import math

import numpy as np

from mindjit.frontend.train.metrics.metric import Metric, check_type, rearrange_inputs


class Perplexity(Metric):
    def __init__(self, ignore_label=None):
        super().__init__()
        self.ignore_label = (
            None if ignore_label is None else check_type(ignore_label, "ignore_label", (int,))
        )
        self.clear()

    def clear(self) -> None:
        self._sum_metric, self._num_inst = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs) -> None:
        if len(inputs) != 2:
            raise ValueError(
                "For 'Perplexity.update', it needs 2 inputs (predicted value, label), but got "
                f"{len(inputs)}."
            )
        pred, label = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if label.size != pred.size / pred.shape[-1]:
            raise RuntimeError(
                "For 'Perplexity.update', predicted value (input[0]) and label (input[1]) should "
                f"have the same shape, but got predicted value shape {pred.shape}, label shape "
                f"{label.shape}."
            )
        label = label.reshape((label.size,))
        rows = np.arange(label.size)[:, None]
        pred = np.squeeze(pred[rows, label.astype(int)[:, None]])
        num = 0
        if self.ignore_label is not None:
            ignore = (label == self.ignore_label).astype(pred.dtype)
            num -= np.sum(ignore)
            pred = pred * (1 - ignore) + ignore
        self._sum_metric -= np.sum(np.log(np.maximum(1e-10, pred)))
        self._num_inst += num + pred.size

    def eval(self) -> float:
        if self._num_inst == 0:
            raise RuntimeError(
                "The 'Perplexity' can not be calculated, because the number of samples is 0, "
                "please check whether the update method has been called before calling eval "
                "method."
            )
        return math.exp(self._sum_metric / self._num_inst)
