"""MindSpore's learning-rate schedules: Cells computing the learning rate of a step.

`LearningRateSchedule` is the base; `ExponentialDecayLR`, `NaturalExpDecayLR`,
`InverseDecayLR`, `CosineDecayLR`, `PolynomialDecayLR`, `WarmUpLR` implement
`construct(global_step) -> lr` with MindSpore's formulas, as tensor ops on the
step (int32, cast to float32), so an optimizer given a schedule evaluates it on
its `global_step` Parameter inside the compiled step (graph mode) or eagerly
(PyNative), with the same results. Called directly, a schedule takes a step
Tensor (shape () or (1,)) and returns a float32 Tensor of that shape.

NaturalExpDecayLR follows MindSpore's code, which differs from its docs'
formula: p is the step itself (not step / decay_steps), and with `is_stair` the
step is rounded down to a multiple of decay_steps (as `nn.natural_exp_decay_lr`).
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.optim.validate import (
    is_bool,
    non_negative_float,
    positive_float,
    positive_int,
)


class LearningRateSchedule(Cell):
    """Base class: subclasses define `construct(global_step)` returning the lr."""

    def __init__(self) -> None:
        super().__init__()

    def construct(self, global_step):
        raise NotImplementedError(
            f"For '{self.cls_name}', a LearningRateSchedule must define construct(global_step)"
        )


def _step(global_step: Any) -> Any:
    return ops.cast(global_step, D.float32)


def _check_decay(owner: str, learning_rate: Any, decay_rate: Any, decay_steps: Any, is_stair: Any):
    positive_int(decay_steps, "decay_steps", owner)
    positive_float(learning_rate, "learning_rate", owner)
    positive_float(decay_rate, "decay_rate", owner)
    is_bool(is_stair, "is_stair", owner)


class _DecayLR(LearningRateSchedule):
    """The arguments shared by the exponential, natural-exp and inverse decays."""

    def __init__(
        self, learning_rate: float, decay_rate: float, decay_steps: int, is_stair: bool = False
    ):
        super().__init__()
        _check_decay(self.cls_name, learning_rate, decay_rate, decay_steps, is_stair)
        self.learning_rate = learning_rate
        self.decay_rate = decay_rate
        self.decay_steps = decay_steps
        self.is_stair = is_stair

    def extend_repr(self) -> str:
        return (
            f"learning_rate={self.learning_rate}, decay_rate={self.decay_rate}, "
            f"decay_steps={self.decay_steps}, is_stair={self.is_stair}"
        )


class ExponentialDecayLR(_DecayLR):
    """lr * decay_rate ** p, p = step / decay_steps (floored if is_stair)."""

    def construct(self, global_step):
        p = _step(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate * ops.pow(self.decay_rate, p)


class NaturalExpDecayLR(_DecayLR):
    """lr * e ** (-decay_rate * p), p = step (floor(step / decay_steps) * decay_steps
    if is_stair), as MindSpore's code computes it."""

    def construct(self, global_step):
        p = _step(global_step)
        if self.is_stair:
            p = ops.floor(p / self.decay_steps) * self.decay_steps
        return self.learning_rate * ops.pow(math.e, -self.decay_rate * p)


class InverseDecayLR(_DecayLR):
    """lr / (1 + decay_rate * p), p = step / decay_steps (floored if is_stair)."""

    def construct(self, global_step):
        p = _step(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate / (1 + self.decay_rate * p)


class CosineDecayLR(LearningRateSchedule):
    """min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * min(step, decay_steps) / decay_steps))."""

    def __init__(self, min_lr: float, max_lr: float, decay_steps: int):
        super().__init__()
        owner = self.cls_name
        non_negative_float(min_lr, "min_lr", owner)
        positive_float(max_lr, "max_lr", owner)
        positive_int(decay_steps, "decay_steps", owner)
        if min_lr >= max_lr:
            raise ValueError(
                f"For '{owner}', the 'max_lr' must be greater than the 'min_lr', but got "
                f"'max_lr' value: {max_lr}, 'min_lr' value: {min_lr}."
            )
        self.min_lr = min_lr
        self.max_lr = max_lr
        self.decay_steps = decay_steps
        self.delta = 0.5 * (max_lr - min_lr)

    def construct(self, global_step):
        p = _step(ops.minimum(global_step, self.decay_steps))
        return self.min_lr + self.delta * (1.0 + ops.cos(math.pi * p / self.decay_steps))

    def extend_repr(self) -> str:
        return f"min_lr={self.min_lr}, max_lr={self.max_lr}, decay_steps={self.decay_steps}"


class PolynomialDecayLR(LearningRateSchedule):
    """(lr - end) * (1 - step / decay) ** power + end: the step capped at decay_steps,
    or with update_decay_steps decay = decay_steps * max(ceil(step / decay_steps), 1)."""

    def __init__(
        self,
        learning_rate: float,
        end_learning_rate: float,
        decay_steps: int,
        power: float,
        update_decay_steps: bool = False,
    ):
        super().__init__()
        owner = self.cls_name
        positive_float(learning_rate, "learning_rate", owner)
        non_negative_float(end_learning_rate, "end_learning_rate", owner)
        positive_int(decay_steps, "decay_steps", owner)
        is_bool(update_decay_steps, "update_decay_steps", owner)
        positive_float(power, "power", owner)
        self.decay_steps = decay_steps
        self.start_learning_rate = learning_rate
        self.end_learning_rate = end_learning_rate
        self.diff_learning_rate = learning_rate - end_learning_rate
        self.power = power
        self.update_decay_steps = update_decay_steps

    def construct(self, global_step):
        step = _step(global_step)
        decay = self.decay_steps
        if self.update_decay_steps:
            decay = decay * ops.maximum(ops.ceil(step / decay), 1.0)
        else:
            step = ops.minimum(step, float(decay))
        p = step / decay
        return self.diff_learning_rate * ops.pow(1.0 - p, self.power) + self.end_learning_rate

    def extend_repr(self) -> str:
        return (
            f"learning_rate={self.start_learning_rate}, end_learning_rate="
            f"{self.end_learning_rate}, decay_steps={self.decay_steps}, power={self.power}"
        )


class WarmUpLR(LearningRateSchedule):
    """lr * min(step, warmup_steps) / warmup_steps."""

    def __init__(self, learning_rate: float, warmup_steps: int):
        super().__init__()
        non_negative_float(learning_rate, "learning_rate", self.cls_name)
        positive_int(warmup_steps, "warmup_steps", self.cls_name)
        self.warmup_steps = warmup_steps
        self.learning_rate = learning_rate

    def construct(self, global_step):
        percent = _step(ops.minimum(global_step, self.warmup_steps)) / self.warmup_steps
        return self.learning_rate * percent

    def extend_repr(self) -> str:
        return f"learning_rate={self.learning_rate}, warmup_steps={self.warmup_steps}"


__all__ = [
    "CosineDecayLR",
    "ExponentialDecayLR",
    "InverseDecayLR",
    "LearningRateSchedule",
    "NaturalExpDecayLR",
    "PolynomialDecayLR",
    "WarmUpLR",
]
