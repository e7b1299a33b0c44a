"""`ROC(class_num, pos_label)`: the receiver operating characteristic curve
(false and true positive rates at each distinct score, thresholds descending,
the first one the top score + 1) of the last `update`'s binary scores, or one
curve per class for (N, C) scores; and `auc(x, y, reorder)`: the area under a
curve by the trapezoidal rule. MindSpore's numpy computation."""

from __future__ import annotations

import numpy as np

from mindjit.frontend.train.metrics.metric import (
    Metric,
    check_type,
    not_updated,
    rearrange_inputs,
    two_inputs,
)


class ROC(Metric):
    def __init__(self, class_num=None, pos_label=None):
        super().__init__()
        self.class_num = (
            class_num if class_num is None else check_type(class_num, "class_num", (int,))
        )
        self.pos_label = (
            pos_label if pos_label is None else check_type(pos_label, "pos_label", (int,))
        )
        self.clear()

    def clear(self) -> None:
        self.y_pred, self.y, self.sample_weights = 0, 0, None
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs) -> None:
        if len(inputs) != 2:
            two_inputs("ROC", inputs)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        self.y_pred, self.y, self.class_num, self.pos_label = _curve_inputs(
            y_pred, y, self.class_num, self.pos_label
        )
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise not_updated()
        return _roc(np.squeeze(self.y_pred), np.squeeze(self.y), self.class_num, self.pos_label)


def _roc(y_pred: np.ndarray, y: np.ndarray, class_num: int, pos_label: int):
    if class_num != 1:
        curves = [_roc(*_curve_inputs(y_pred[:, c], y, 1, c)[:2], 1, c) for c in range(class_num)]
        return tuple(list(part) for part in zip(*curves))
    fps, tps, thresholds = _binary_clf_curve(y_pred, y, pos_label)
    tps = np.squeeze(np.hstack([np.zeros(1, dtype=tps.dtype), tps]))
    fps = np.squeeze(np.hstack([np.zeros(1, dtype=fps.dtype), fps]))
    thresholds = np.hstack([thresholds[0][None] + 1, thresholds])
    if fps[-1] <= 0:
        raise ValueError(
            "For 'ROC.eval', there is no negative samples in true value, false positive value is "
            "meaningless."
        )
    if tps[-1] <= 0:
        raise ValueError(
            "For 'ROC.eval', there is no positive samples in true value, true positive value is "
            "meaningless."
        )
    return fps / fps[-1], tps / tps[-1], thresholds


def _binary_clf_curve(preds: np.ndarray, target: np.ndarray, pos_label: int):
    """(false positives, true positives, threshold) at each distinct score, descending."""
    if preds.ndim > target.ndim:
        preds = preds[:, 0]
    order = np.argsort(-preds)
    preds, target = preds[order], target[order]
    distinct = np.where(preds[1:] - preds[:-1])[0]
    threshold_idxs = np.pad(distinct, (0, 1), constant_values=target.shape[0] - 1)
    target = np.array(target == pos_label).astype(np.int64)
    tps = np.cumsum(target, axis=0)[threshold_idxs]
    fps = 1 + threshold_idxs - tps
    return fps, tps, preds[threshold_idxs]


def _curve_inputs(y_pred: np.ndarray, y: np.ndarray, class_num, pos_label):
    if y_pred.ndim == y.ndim:
        if class_num is not None and class_num != 1:
            raise ValueError(
                "For 'ROC', when predicted value (input[0]) and true value (input[1]) have the "
                f"same shape, the 'class_num' must be 1, but got {class_num}."
            )
        return y_pred.flatten(), y.flatten(), 1, 1 if pos_label is None else pos_label
    if y_pred.ndim == y.ndim + 1:
        if pos_label is not None:
            raise ValueError(
                "For 'ROC', when the dimension of predicted value (input[0]) equals the dimension "
                "of true value (input[1]) add 1, the 'pos_label' must be None, but got "
                f"{pos_label}."
            )
        if class_num != y_pred.shape[1]:
            raise ValueError(
                "For 'ROC', the 'class_num' must equal the number of classes from predicted value "
                f"(input[0]), but got 'class_num' {class_num}, the number of classes from "
                f"predicted value {y_pred.shape[1]}."
            )
        y_pred = y_pred.transpose(0, 1).reshape(class_num, -1).transpose(0, 1)
        return y_pred, y.flatten(), class_num, pos_label
    raise ValueError(
        "For 'ROC', predicted value (input[0]) and true value (input[1]) must have same "
        "dimensions, or the dimension of predicted value equal the dimension of true value add "
        f"1, but got predicted value ndim: {y_pred.ndim}, true value ndim: {y.ndim}."
    )


def _column_or_1d(a: np.ndarray) -> np.ndarray:
    shape = np.shape(a)
    if len(shape) == 1 or (len(shape) == 2 and shape[1] == 1):
        return np.ravel(a)
    raise ValueError(
        "For 'auc', the input must be a 1-dimensional array, or a 2-dimensional array with the "
        f"second dimension of 1, but got shape {shape}."
    )


def auc(x, y, reorder=False):
    """The area under the curve through the points (x, y), by the trapezoidal rule;
    `x` increasing or decreasing (or sorted first with `reorder=True`)."""
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(
            "For 'auc', the argument 'x' and 'y' must all be np.ndarray, but got "
            f"{type(x)}, {type(y)}"
        )
    for a in (x, y):
        if a.ndim == 0:
            raise TypeError(f"Singleton array {a} cannot be considered as a valid collection.")
    if x.shape[0] != y.shape[0]:
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"{[int(x.shape[0]), int(y.shape[0])]}."
        )
    x, y = _column_or_1d(x), _column_or_1d(y)
    if x.shape[0] < 2:
        raise ValueError(
            "For 'auc', the shape of the argument 'x' in axis 0 must be greater than 2, but got "
            f"{x.shape[0]}."
        )
    direction = 1
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        dx = np.diff(x)
        if np.any(dx < 0):
            if not np.all(dx <= 0):
                raise ValueError(
                    "For 'auc', if the argument is False, the argument 'x' array must be "
                    f"increasing or decreasing, but got 'x': {x}"
                )
            direction = -1
    trapezoid = getattr(np, "trapezoid", None) or np.trapz
    return direction * trapezoid(y, x)
