"""What EarlyStopping and ReduceLROnPlateau share: the argument checks, the
monitored value at an epoch's end, and which way is better.

The value is the training loss (`monitor="loss"`: the step's first output,
averaged) or an entry of the evaluation `Model.fit` runs after the epoch
(`"eval_loss"` or a metric's name). "auto" mode takes smaller as better for
the losses and error metrics MindSpore lists, larger for the rest. A value the
epoch did not produce (no evaluation ran) is skipped with a warning naming the
choices, as MindSpore logs. Unlike MindSpore, a value of exactly 0 counts (its
`if monitor_value` dropped it).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from mindjit.frontend.train.callback.loss_monitor import loss_value

SMALLER_IS_BETTER = (
    "hausdorff_distance",
    "mae",
    "mse",
    "loss",
    "perplexity",
    "mean_surface_distance",
    "root_mean_square_distance",
    "eval_loss",
)


def check_int(value: Any, name: str, owner: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be int, but got {type(value).__name__}."
        )
    if value < 0:
        raise ValueError(f"For '{owner}', the argument '{name}' must be >= 0, but got {value}.")
    return value


def check_number(value: Any, name: str, owner: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be float or int, but got "
            f"{type(value).__name__}."
        )
    return value


def check_bool(value: Any, name: str, owner: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be bool, but got {type(value).__name__}."
        )
    return value


def check_str(value: Any, name: str, owner: str) -> str:
    if not isinstance(value, str):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be str, but got {type(value).__name__}."
        )
    return value


class Direction:
    """Which way `monitor` improves, by more than `min_delta`."""

    def __init__(self, mode: str, monitor: str, min_delta: float):
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"mode should be 'auto', 'min' or 'max', but got {mode}.")
        self.smaller = mode == "min" or (mode == "auto" and monitor in SMALLER_IS_BETTER)
        self.min_delta = abs(min_delta)

    def worst(self) -> float:
        return np.inf if self.smaller else -np.inf

    def improves(self, value: float, best: float) -> bool:
        if self.smaller:
            return bool(np.less(value, best - self.min_delta))
        return bool(np.greater(value, best + self.min_delta))


def monitor_value(cb_params: Any, monitor: str, owner: str, what: str) -> float | None:
    """The epoch's value of `monitor`, or None (with a warning) if it has none."""
    candidates: dict = {}
    if monitor == "loss":
        value = loss_value(cb_params.get("net_outputs"))
    else:
        candidates = cb_params.get("eval_results", {}) or {}
        value = candidates.get(monitor)
    if value is None:
        warnings.warn(
            f"{owner}: {what} is conditioned on {monitor!r}, which is not available. Available "
            f"choices are: {sorted({'loss', *candidates})}",
            stacklevel=3,
        )
        return None
    value = np.asarray(value)
    if value.shape != ():
        raise ValueError(f"{owner} only supports scalar monitor now.")
    return float(value)
