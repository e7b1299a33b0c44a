"""`Dice(smooth)`: the mean over the updates' samples of each update's
2 * <y_pred, y> / (<y_pred, y_pred> + <y, y> + smooth), MindSpore's definition
(one coefficient per `update`, summed, divided by the number of samples)."""

from __future__ import annotations

import numpy as np

from mindjit.frontend.train.metrics.metric import Metric, rearrange_inputs, two_inputs


class Dice(Metric):
    def __init__(self, smooth=1e-5):
        super().__init__()
        if not isinstance(smooth, float) or isinstance(smooth, bool):
            raise TypeError(f"The 'smooth' must be float, but got '{type(smooth).__name__}'")
        if not smooth > 0:
            raise ValueError(
                f"The 'smooth' must be float and must > 0, but got '{smooth}' with type 'float'."
            )
        self.smooth = smooth
        self.clear()

    def clear(self) -> None:
        self._dice_coeff_sum, self._samples_num = 0, 0

    @rearrange_inputs
    def update(self, *inputs) -> None:
        two_inputs("Dice", inputs)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        self._samples_num += y.shape[0]
        if y_pred.shape != y.shape:
            raise ValueError(
                "For 'Dice.update', predicted value (input[0]) and true value (input[1]) should "
                f"have same shape, but got predicted value shape: {y_pred.shape}, true value "
                f"shape: {y.shape}."
            )
        p, t = y_pred.flatten(), y.flatten()
        union = np.dot(p, p) + np.dot(t, t)
        self._dice_coeff_sum += 2 * float(np.dot(p, t)) / float(union + self.smooth)

    def eval(self) -> float:
        if self._samples_num == 0:
            raise RuntimeError(
                "The 'Dice coefficient' can not be calculated, because the number of samples is 0, "
                "please check whether your inputs(predicted value, true value) are empty, or has "
                "called update method before calling eval method."
            )
        return self._dice_coeff_sum / float(self._samples_num)
