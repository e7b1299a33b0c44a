"""Loss scaling for `mindjit.amp` (MindSpore 2.10's `mindspore.amp` scalers and the
`mindspore.train` loss scale managers).

`StaticLossScaler` / `DynamicLossScaler` hold `scale_value` (and `counter`) as
Parameters and `scale`, `unscale`, `adjust` as MindSpore writes them, usable in
PyNative code and inside graph-mode functions; `all_finite` checks gradients;
`FixedLossScaleManager` / `DynamicLossScaleManager` are what `Model` and
`amp.build_train_network` take.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend import nn, ops
from mindjit.frontend.jit import jit_class
from mindjit.frontend.tensor import Parameter, Tensor


# --- loss scalers (mindspore/amp.py) ----------------------------------------------------------
def _check_scale_value(scale_value: Any) -> Any:
    if isinstance(scale_value, bool) or not isinstance(scale_value, float | int):
        raise TypeError(
            "The type of 'scale_value' should be one of '['float', 'int']', but got type "
            f"'{type(scale_value).__name__}'."
        )
    if scale_value < 1.0:
        raise ValueError(f"The argument 'scale_value' must be > 1, but got {scale_value}")
    return scale_value


def _check_positive_int(value: Any, name: str, owner: str = "") -> int:
    prefix = f"For '{owner}', the" if owner else "The"
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{prefix} '{name}' must be int, but got '{type(value).__name__}'")
    if value <= 0:
        raise ValueError(
            f"{prefix} '{name}' must be int and must > 0, but got '{value}' with type "
            f"'{type(value).__name__}'."
        )
    return value


def _scale_one(scale: Any, x: Any) -> Any:
    return ops.mul(x, ops.cast(scale, x.dtype))


def _unscale_one(scale: Any, x: Any) -> Any:
    return ops.mul(x, ops.cast(ops.reciprocal(scale), x.dtype))


def _map(fn: Any, scale: Any, inputs: Any) -> Any:
    """MindSpore's `HyperMap(Partial(fn, scale), inputs)`: a tensor, or each of a tuple."""
    if isinstance(inputs, tuple | list):
        return tuple(_map(fn, scale, x) for x in inputs)
    return fn(scale, inputs)


@jit_class
class LossScaler(ABC):
    """The loss scaler interface: `scale`, `unscale`, `adjust`."""

    @abstractmethod
    def scale(self, inputs: Any) -> Any:
        raise NotImplementedError

    @abstractmethod
    def unscale(self, inputs: Any) -> Any:
        raise NotImplementedError

    @abstractmethod
    def adjust(self, grads_finite: Any) -> Any:
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    """Scales and unscales by a fixed `scale_value` (a float32 Parameter)."""

    def __init__(self, scale_value: Any):
        scale_value = _check_scale_value(scale_value)
        self.scale_value = Parameter(Tensor(np.array(scale_value, np.float32)), name="scale_value")

    def scale(self, inputs):
        return _map(_scale_one, self.scale_value, inputs)

    def unscale(self, inputs):
        return _map(_unscale_one, self.scale_value, inputs)

    def adjust(self, grads_finite):
        return False


class DynamicLossScaler(LossScaler):
    """`scale_value` times `scale_factor` after `scale_window` finite steps in a row,
    divided by it (not below 1) on a step that is not finite; `counter` counts."""

    def __init__(self, scale_value: Any, scale_factor: Any, scale_window: Any):
        scale_value = _check_scale_value(scale_value)
        self.scale_value = Parameter(Tensor(np.array(scale_value, np.float32)), name="scale_value")
        self.scale_window = _check_positive_int(scale_window, "scale_window")
        self.scale_factor = _check_positive_int(scale_factor, "scale_factor")
        self.counter = Parameter(Tensor(np.array(0, np.int32)), name="counter")

    def scale(self, inputs):
        return _map(_scale_one, self.scale_value, inputs)

    def unscale(self, inputs):
        return _map(_unscale_one, self.scale_value, inputs)

    def adjust(self, grads_finite):
        one = ops.ones((), self.scale_value.dtype)
        scale_mul_factor = self.scale_value * self.scale_factor
        scale_value = ops.select(
            grads_finite,
            ops.select(
                self.counter == (self.scale_window - 1),
                ops.select(ops.isfinite(scale_mul_factor), scale_mul_factor, self.scale_value),
                self.scale_value,
            ),
            ops.maximum(one, self.scale_value / self.scale_factor),
        )
        ops.assign(self.scale_value, scale_value)
        counter = ((self.counter + 1) % self.scale_window) * ops.cast(grads_finite, D.int32)
        ops.assign(self.counter, counter)
        return True


def all_finite(inputs: Any) -> Any:
    """A bool scalar tensor: every element of every tensor in `inputs` is finite."""
    items = inputs if isinstance(inputs, tuple | list) else (inputs,)
    flags = [ops.sub(1, ops.cast(ops.reduce_all(ops.isfinite(x)), D.int32)) for x in items]
    return ops.less(ops.reshape(ops.addn(flags), ()), 1)


# --- loss scale managers (mindspore/train/loss_scale_manager.py) ------------------------------
class LossScaleManager:
    """The manager interface Model and `build_train_network` use."""

    def get_loss_scale(self) -> Any:
        """The loss scale."""

    def update_loss_scale(self, overflow: Any) -> None:
        """Update the loss scale from `overflow`."""

    def get_update_cell(self) -> Any:
        """The Cell `nn.TrainOneStepWithLossScaleCell` calls to update the scale."""


class FixedLossScaleManager(LossScaleManager):
    """A fixed loss scale; with `drop_overflow_update` an overflowing step skips the
    update (`nn.FixedLossScaleUpdateCell`), without it there is no update cell."""

    def __init__(self, loss_scale: Any = 128.0, drop_overflow_update: bool = True):
        if loss_scale < 1:
            raise ValueError(f"The argument 'loss_scale' must be >= 1, but got {loss_scale}")
        self._loss_scale = loss_scale
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self) -> Any:
        return self._loss_scale

    def get_drop_overflow_update(self) -> bool:
        return self._drop_overflow_update

    def update_loss_scale(self, overflow: Any) -> None:
        """Nothing: the scale is fixed."""

    def get_update_cell(self) -> Any:
        if not self._drop_overflow_update:
            return None
        return nn.FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """A loss scale divided by `scale_factor` on overflow and multiplied by it after
    `scale_window` steps without (`nn.DynamicLossScaleUpdateCell` in the train cell)."""

    def __init__(
        self, init_loss_scale: Any = 2**24, scale_factor: Any = 2, scale_window: Any = 2000
    ):
        if init_loss_scale < 1.0:
            raise ValueError(
                f"The argument 'init_loss_scale' must be > 1, but got {init_loss_scale}"
            )
        self.loss_scale = init_loss_scale
        _check_positive_int(scale_window, "scale_window", type(self).__name__)
        self.scale_window = scale_window
        if scale_factor <= 0:
            raise ValueError(f"The argument 'scale_factor' must be > 0, but got {scale_factor}")
        self.scale_factor = scale_factor
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self) -> Any:
        return self.loss_scale

    def update_loss_scale(self, overflow: Any) -> None:
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(
                "Dynamic loss scale Continuous overflow ",
                self.bad_step,
                " times, has exceeded maximum threshold.",
            )
        self.cur_iter += 1

    def get_drop_overflow_update(self) -> bool:
        return True

    def get_update_cell(self) -> Any:
        return nn.DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)
