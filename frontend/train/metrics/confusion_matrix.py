"""`ConfusionMatrix(num_classes, normalize, threshold)`: the class-by-class count
of (true, predicted) pairs, optionally normalized by row, column or total; and
`ConfusionMatrixMetric(skip_channel, metric_name, calculation_method, decrease)`:
one of the 17 rates computed from a binarized segmentation's per-channel TP, FP,
TN, FN (sensitivity, specificity, precision, f1, mcc, ...), either from the
counts summed over every update or (`calculation_method=True`) per sample and
channel, reduced by `decrease`, then averaged over the updates. MindSpore's numpy
computation; its 'mean_batch' reduction (which fails there) computes the mean
over the batch."""

from __future__ import annotations

import numpy as np

from mindjit.frontend.train.metrics.metric import (
    Metric,
    check_choice,
    check_type,
    not_updated,
    rearrange_inputs,
    two_inputs,
)


class ConfusionMatrix(Metric):
    def __init__(self, num_classes, normalize="no_norm", threshold=0.5):
        super().__init__()
        self.num_classes = check_type(num_classes, "num_classes", (int,))
        if normalize not in ["target", "prediction", "all", "no_norm"]:
            raise ValueError(
                "For 'ConfusionMatrix', the argument 'normalize' must be in ['all', 'prediction', "
                f"'label', 'no_norm'(None)], but got {normalize}."
            )
        self.normalize = normalize
        self.threshold = check_type(threshold, "threshold", (float,))
        self.clear()

    def clear(self) -> None:
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs) -> None:
        two_inputs("ConfusionMatrix", inputs)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim not in (y.ndim, y.ndim + 1):
            raise ValueError(
                "For 'ConfusionMatrix.update', predicted value (input[0]) and true value "
                "(input[1]) should have same dimensions, or the dimension of predicted value "
                "equals the dimension of true value add 1, but got predicted value ndim: "
                f"{y_pred.ndim}, true value ndim: {y.ndim}."
            )
        if y_pred.ndim == y.ndim + 1:
            y_pred = np.argmax(y_pred, axis=1)
        if y_pred.ndim == y.ndim and y_pred.dtype in (np.float16, np.float32, np.float64):
            y_pred = (y_pred >= self.threshold).astype(int)
        n = self.num_classes
        pairs = (y.reshape(-1) * n + y_pred.reshape(-1)).astype(int)
        self.confusion_matrix += np.bincount(pairs, minlength=n**2).reshape(n, n)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise not_updated()
        matrix = self.confusion_matrix.astype(float)
        if self.normalize == "no_norm":
            return matrix
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.normalize == "target":
                matrix = matrix / matrix.sum(axis=1, keepdims=True)
            elif self.normalize == "prediction":
                matrix = matrix / matrix.sum(axis=0, keepdims=True)
            else:
                matrix = matrix / matrix.sum()
        matrix[np.isnan(matrix)] = 0
        return matrix


DECREASES = ["none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel"]


class ConfusionMatrixMetric(Metric):
    def __init__(
        self,
        skip_channel=True,
        metric_name="sensitivity",
        calculation_method=False,
        decrease="mean",
    ):
        super().__init__()
        self.skip_channel = check_type(skip_channel, "skip_channel", (bool,))
        self.calculation_method = check_type(calculation_method, "calculation_method", (bool,))
        self.metric_name = check_type(metric_name, "metric_name", (str,))
        self.decrease = check_choice(
            check_type(decrease, "decrease", (str,)), DECREASES, "decrease"
        )
        self.clear()

    def clear(self) -> None:
        self._total_num, self._class_num = 0, 0
        self._total_tp = self._total_fp = self._total_tn = self._total_fn = 0.0

    @rearrange_inputs
    def update(self, *inputs) -> None:
        two_inputs("ConfusionMatrixMetric", inputs)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if not np.all(y.astype(np.uint8) == y):
            raise ValueError(
                "For 'ConfusionMatrix.update', the true value (input[1]) must be a binarized "
                "ndarray."
            )
        if y_pred.ndim < 2:
            raise ValueError(
                "For 'ConfusionMatrix.update', the predicted value (input[0]) must have at least "
                f"2 dimensions, but got {y_pred.ndim}."
            )
        counts = _counts(y_pred, y, self.skip_channel)
        per_sample = self.calculation_method
        if y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1):
            per_sample = False  # no spatial axes: MindSpore's inner matrix drops the flag too
        if per_sample:
            score, not_nans = _decrease(_rate(self.metric_name, counts), self.decrease)
            not_nans = int(not_nans.item())
            self._total_num += score.item() * not_nans
            self._class_num += not_nans
        elif self.calculation_method:
            raise ValueError(
                "For 'ConfusionMatrixMetric.update', 'calculation_method=True' needs predicted "
                f"values with spatial dimensions, but got shape {y_pred.shape}."
            )
        else:
            total, _ = _decrease(counts, "sum")
            self._total_tp += total[0].item()
            self._total_fp += total[1].item()
            self._total_tn += total[2].item()
            self._total_fn += total[3].item()

    def eval(self):
        if self.calculation_method:
            if self._class_num == 0:
                raise RuntimeError(
                    "The 'ConfusionMatrixMetric' can not be calculated, because the number of "
                    "samples is 0, please check whether your inputs(predicted value, true value) "
                    "are empty, or has called update method before calling eval method."
                )
            return self._total_num / self._class_num
        counts = np.array([self._total_tp, self._total_fp, self._total_tn, self._total_fn])
        return _rate(self.metric_name, counts)


def _counts(y_pred: np.ndarray, y: np.ndarray, skip_channel: bool) -> np.ndarray:
    """(batch, channel, 4): TP, FP, TN, FN per sample and channel (without channel 0
    when not skip_channel)."""
    if not skip_channel:
        y = y[:, 1:] if y.shape[1] > 1 else y
        y_pred = y_pred[:, 1:] if y_pred.shape[1] > 1 else y_pred
    y, y_pred = y.astype(float), y_pred.astype(float)
    if y.shape != y_pred.shape:
        raise ValueError(
            f"The 'y_shape' should be = y_pred_shape: {y_pred.shape}, but got {y.shape}."
        )
    batch, channels = y_pred.shape[:2]
    y_pred = y_pred.reshape(batch, channels, -1)
    y = y.reshape(batch, channels, -1)
    tp = (y_pred + y == 2).astype(float).sum(axis=2)
    tn = (y_pred + y == 0).astype(float).sum(axis=2)
    p = y.sum(axis=2)
    n = y.shape[-1] - p
    return np.stack([tp, n - tn, tn, p - tp], axis=-1)


def _decrease(chart: np.ndarray, decrease: str) -> tuple[np.ndarray, np.ndarray]:
    """(reduced chart, count of non-NaN entries behind it)."""
    nans = np.isnan(chart)
    not_nans = (~nans).astype(float)
    chart = np.where(nans, 0.0, chart)

    def mean(axis: int, chart=chart, not_nans=not_nans):
        count = not_nans.sum(axis=axis)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(count > 0, chart.sum(axis=axis) / count, np.zeros(1)), count

    if decrease == "mean":
        chart, count = mean(1)
        not_nans = (count > 0).astype(float).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(not_nans > 0, chart.sum(axis=0) / not_nans, np.zeros(1)), not_nans
    if decrease == "sum":
        return np.sum(chart, axis=(0, 1)), not_nans.sum(axis=(0, 1))
    if decrease == "mean_batch":
        return mean(0)
    if decrease == "sum_batch":
        return chart.sum(axis=0), not_nans.sum(axis=0)
    if decrease == "mean_channel":
        return mean(1)
    if decrease == "sum_channel":
        return chart.sum(axis=1), not_nans.sum(axis=1)
    return chart, not_nans


_ALIASES = {
    "tpr": ("sensitivity", "recall", "hit_rate", "true_positive_rate"),
    "tnr": ("specificity", "selectivity", "true_negative_rate"),
    "ppv": ("precision", "positive_predictive_value"),
    "npv": ("negative_predictive_value",),
    "fnr": ("miss_rate", "false_negative_rate"),
    "fpr": ("fall_out", "false_positive_rate"),
    "fdr": ("false_discovery_rate",),
    "for": ("false_omission_rate",),
    "pt": ("prevalence_threshold",),
    "ts": ("threat_score", "critical_success_index", "csi"),
    "acc": ("accuracy",),
    "ba": ("balanced_accuracy",),
    "f1": ("f1_score",),
    "mcc": ("matthews_correlation_coefficient",),
    "fm": ("fowlkes_mallows_index",),
    "bm": ("informedness", "bookmaker_informedness"),
    "mk": ("markedness", "deltap"),
}
_METRICS = {alias: key for key, aliases in _ALIASES.items() for alias in (key, *aliases)}


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / den, np.nan)


def _rate(metric_name: str, counts: np.ndarray) -> np.ndarray:
    """The rate `metric_name` names, from (..., 4) counts: NaN where its denominator is 0."""
    metric = _METRICS.get(metric_name.replace(" ", "_").lower())
    if metric is None:
        raise NotImplementedError("The metric is not implemented.")
    if counts.ndim == 1:
        counts = counts[None]
    if counts.shape[-1] != 4:
        raise ValueError(
            "For 'ConfusionMatrix', the size of the last dimension of confusion_matrix must be 4, "
            f"but got {counts.shape[-1]}."
        )
    tp, fp, tn, fn = (counts[..., k] for k in range(4))
    p, n = tp + fn, fp + tn
    tpr, tnr = _ratio(tp, p), _ratio(tn, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        fractions = {
            "tpr": (tp, p),
            "tnr": (tn, n),
            "ppv": (tp, tp + fp),
            "npv": (tn, tn + fn),
            "fnr": (fn, p),
            "fpr": (fp, n),
            "fdr": (fp, fp + tp),
            "for": (fn, fn + tn),
            "pt": (np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0),
            "ts": (tp, tp + fn + fp),
            "acc": (tp + tn, p + n),
            "ba": (tpr + tnr, 2.0),
            "f1": (tp * 2.0, tp * 2.0 + fn + fp),
            "mcc": (tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
            "fm": (np.sqrt(_ratio(tp, tp + fp) * tpr), 1.0),
            "bm": (tpr + tnr - 1.0, 1.0),
            "mk": (_ratio(tp, tp + fp) + tn / (tn + fn) - 1.0, 1.0),
        }
        numerator, denominator = fractions[metric]
        if isinstance(denominator, np.ndarray):
            return np.where(denominator != 0, numerator / denominator, np.nan)
        return numerator / denominator
