"""MindSpore's dynamic learning-rate lists: `nn.piecewise_constant_lr`,
`nn.exponential_decay_lr`, `nn.natural_exp_decay_lr`, `nn.inverse_decay_lr`,
`nn.cosine_decay_lr`, `nn.polynomial_decay_lr`, `nn.warmup_lr`.

Each returns a Python list with one learning rate per step, computed on the host
with MindSpore's formulas (current_epoch = floor(i / step_per_epoch)) and its
argument checks; an optimizer given such a list indexes it with its
`global_step` (see optim/optimizer.py).
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend.nn.optim.validate import (
    is_bool,
    is_float,
    non_negative_float,
    positive_float,
    positive_int,
)


def piecewise_constant_lr(milestone: Any, learning_rates: Any) -> list[float]:
    """learning_rates[t] for steps in [milestone[t-1], milestone[t])."""
    owner = "piecewise_constant_lr"
    for name, value in (("milestone", milestone), ("learning_rates", learning_rates)):
        if not isinstance(value, tuple | list):
            raise TypeError(
                f"For '{owner}', the '{name}' must be a tuple or list, but got "
                f"'{type(value).__name__}'."
            )
    if len(milestone) != len(learning_rates):
        raise ValueError(
            f"For '{owner}', the size of 'milestone' must be same with the size of "
            f"'learning_rates', but got 'milestone' size: {len(milestone)}, 'learning_rates' "
            f"size: {len(learning_rates)}."
        )
    lr: list[float] = []
    last = 0
    for i, item in enumerate(milestone):
        positive_int(item, f"milestone[{i}]", owner)
        is_float(learning_rates[i], f"learning_rates[{i}]", owner)
        if item < last:
            raise ValueError(
                f"For '{owner}', the value of milestone[{i}] must be greater than "
                f"milestone[{i - 1}], but got milestone[{i}]: {item}, milestone[{i - 1}]: {last}."
            )
        lr += [learning_rates[i]] * (item - last)
        last = item
    return lr


def _check_decay(
    owner: str,
    learning_rate: Any,
    decay_rate: Any,
    total_step: Any,
    step_per_epoch: Any,
    decay_epoch: Any,
    is_stair: Any,
) -> None:
    positive_int(total_step, "total_step", owner)
    positive_int(step_per_epoch, "step_per_epoch", owner)
    positive_int(decay_epoch, "decay_epoch", owner)
    positive_float(learning_rate, "learning_rate", owner)
    positive_float(decay_rate, "decay_rate", owner)
    is_bool(is_stair, "is_stair", owner)


def exponential_decay_lr(
    learning_rate: float,
    decay_rate: float,
    total_step: int,
    step_per_epoch: int,
    decay_epoch: int,
    is_stair: bool = False,
) -> list[float]:
    """lr * decay_rate ** (epoch / decay_epoch) (the exponent floored if is_stair)."""
    _check_decay(
        "exponential_decay_lr",
        learning_rate,
        decay_rate,
        total_step,
        step_per_epoch,
        decay_epoch,
        is_stair,
    )
    lr = []
    for i in range(total_step):
        p = math.floor(i / step_per_epoch) / decay_epoch
        lr.append(learning_rate * decay_rate ** (math.floor(p) if is_stair else p))
    return lr


def natural_exp_decay_lr(
    learning_rate: float,
    decay_rate: float,
    total_step: int,
    step_per_epoch: int,
    decay_epoch: int,
    is_stair: bool = False,
) -> list[float]:
    """lr * e ** (-decay_rate * epoch); with is_stair the epoch is rounded down to a
    multiple of decay_epoch (MindSpore's code: the exponent is not divided by
    decay_epoch)."""
    _check_decay(
        "natural_exp_decay_lr",
        learning_rate,
        decay_rate,
        total_step,
        step_per_epoch,
        decay_epoch,
        is_stair,
    )
    lr = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if is_stair:
            epoch = math.floor(epoch / decay_epoch) * decay_epoch
        lr.append(learning_rate * math.e ** (-decay_rate * epoch))
    return lr


def inverse_decay_lr(
    learning_rate: float,
    decay_rate: float,
    total_step: int,
    step_per_epoch: int,
    decay_epoch: int,
    is_stair: bool = False,
) -> list[float]:
    """lr / (1 + decay_rate * epoch / decay_epoch) (the ratio floored if is_stair)."""
    _check_decay(
        "inverse_decay_lr",
        learning_rate,
        decay_rate,
        total_step,
        step_per_epoch,
        decay_epoch,
        is_stair,
    )
    lr = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if is_stair:
            lr.append(learning_rate / (1 + decay_rate * math.floor(epoch / decay_epoch)))
        else:
            lr.append(learning_rate / (1 + decay_rate * epoch / decay_epoch))
    return lr


def cosine_decay_lr(
    min_lr: float, max_lr: float, total_step: int, step_per_epoch: int, decay_epoch: int
) -> list[float]:
    """min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * min(epoch, decay_epoch) / decay_epoch))."""
    owner = "cosine_decay_lr"
    non_negative_float(min_lr, "min_lr", owner)
    positive_float(max_lr, "max_lr", owner)
    positive_int(total_step, "total_step", owner)
    positive_int(step_per_epoch, "step_per_epoch", owner)
    positive_int(decay_epoch, "decay_epoch", owner)
    if min_lr >= max_lr:
        raise ValueError(
            f"For '{owner}', the 'max_lr' must be greater than the 'min_lr', but got 'max_lr' "
            f"value: {max_lr}, 'min_lr' value: {min_lr}."
        )
    delta = 0.5 * (max_lr - min_lr)
    lr = []
    for i in range(total_step):
        epoch = min(math.floor(i / step_per_epoch), decay_epoch)
        lr.append(min_lr + delta * (1 + math.cos(math.pi * epoch / decay_epoch)))
    return lr


def polynomial_decay_lr(
    learning_rate: float,
    end_learning_rate: float,
    total_step: int,
    step_per_epoch: int,
    decay_epoch: int,
    power: float,
    update_decay_epoch: bool = False,
) -> list[float]:
    """(lr - end) * (1 - epoch / decay_epoch) ** power + end, the epoch capped at
    decay_epoch; with update_decay_epoch, decay_epoch grows to the next multiple
    of itself past the epoch instead."""
    owner = "polynomial_decay_lr"
    positive_float(learning_rate, "learning_rate", owner)
    non_negative_float(end_learning_rate, "end_learning_rate", owner)
    positive_float(power, "power", owner)
    positive_int(total_step, "total_step", owner)
    positive_int(step_per_epoch, "step_per_epoch", owner)
    positive_int(decay_epoch, "decay_epoch", owner)
    is_bool(update_decay_epoch, "update_decay_epoch", owner)
    delta = learning_rate - end_learning_rate
    lr = []
    for i in range(total_step):
        epoch = math.floor(i / step_per_epoch)
        if update_decay_epoch:
            decay = decay_epoch * max(math.ceil(epoch / decay_epoch), 1)
        else:
            decay, epoch = decay_epoch, min(epoch, decay_epoch)
        lr.append(delta * (1 - epoch / decay) ** power + end_learning_rate)
    return lr


def warmup_lr(
    learning_rate: float, total_step: int, step_per_epoch: int, warmup_epoch: int
) -> list[float]:
    """lr * min(epoch, warmup_epoch) / warmup_epoch."""
    owner = "warmup_lr"
    non_negative_float(learning_rate, "learning_rate", owner)
    positive_int(warmup_epoch, "warmup_epoch", owner)
    positive_int(total_step, "total_step", owner)
    positive_int(step_per_epoch, "step_per_epoch", owner)
    return [
        learning_rate * min(math.floor(i / step_per_epoch), warmup_epoch) / warmup_epoch
        for i in range(total_step)
    ]


__all__ = [
    "cosine_decay_lr",
    "exponential_decay_lr",
    "inverse_decay_lr",
    "natural_exp_decay_lr",
    "piecewise_constant_lr",
    "polynomial_decay_lr",
    "warmup_lr",
]
