"""Loss scaling, as MindSpore 2.x writes it: `nn.FixedLossScaleUpdateCell`,
`nn.DynamicLossScaleUpdateCell` and `nn.TrainOneStepWithLossScaleCell`.

One step of `TrainOneStepWithLossScaleCell(network, optimizer, scale_sense)`:
the loss; its gradients with the output gradient `scale_sense` (so they are
scaled by it); each gradient divided by the scale; overflow detection; the
update cell (if `scale_sense` is one) adjusting the scale; the optimizer's
update only when there was no overflow (an `if` on a tensor: `mindir.if` in
graph mode). It returns (loss, overflow, scale used for this step).

Overflow detection follows MindSpore per target. On device_target="Ascend" in
graph mode it reads the device's float status (`npu_alloc_float_status`, a
clear after the loss, a get after the gradients: the simulated device raises
the flag when an f16/f32 result overflows to inf/nan). Elsewhere (the CPU, and
PyNative mode, whose ops run on the host) it checks that every gradient element
is finite, as MindSpore does on the CPU and GPU: finite(x) = |x| < inf (false
for inf and nan), reduced with all().

The dynamic update cell: on overflow the scale is divided by `scale_factor`
(not below 1); after `scale_window` steps without overflow it is multiplied by
`scale_factor`. Its counters `current_iterator_step` and
`last_overflow_iterator_step` are Parameters, and the scale is the train cell's
`scale_sense` Parameter, assigned in place: graph mode and PyNative agree step
by step.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.optim.validate import positive_int
from mindjit.frontend.nn.wrappers import TrainOneStepCell
from mindjit.frontend.tensor import Parameter, Tensor
from mindjit.support.config import device_target


class FixedLossScaleUpdateCell(Cell):
    """A constant loss scale: `construct(loss_scale, overflow)` returns overflow."""

    def __init__(self, loss_scale_value: float):
        super().__init__()
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self) -> float:
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class DynamicLossScaleUpdateCell(Cell):
    """`construct(loss_scale, overflow)`: updates the `loss_scale` Parameter in place
    (MindSpore's rule, see the module doc) and returns overflow."""

    def __init__(self, loss_scale_value: float, scale_factor: float, scale_window: int):
        super().__init__()
        for name, value in (("loss_scale_value", loss_scale_value), ("scale_factor", scale_factor)):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(
                    f"For 'DynamicLossScaleUpdateCell', the '{name}' must be a number, but got "
                    f"'{type(value).__name__}'."
                )
        positive_int(scale_window, "scale_window", "DynamicLossScaleUpdateCell")
        self.loss_scale_value = loss_scale_value
        self.scale_factor = float(scale_factor)
        self.scale_window = scale_window
        self.cur_iter = Parameter(
            Tensor(np.array(1, np.int32)), name="current_iterator_step", requires_grad=False
        )
        self.last_overflow_iter = Parameter(
            Tensor(np.array(0, np.int32)), name="last_overflow_iterator_step", requires_grad=False
        )

    def get_loss_scale(self) -> float:
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        on_overflow = ops.select(
            overflow, ops.maximum(loss_scale * (1.0 / self.scale_factor), 1.0), loss_scale
        )
        should_inc = ops.less_equal(self.scale_window, self.cur_iter - self.last_overflow_iter)
        last_iter_cond = ops.logical_or(overflow, should_inc)
        last_overflow_iter = ops.select(last_iter_cond, self.cur_iter, self.last_overflow_iter)
        last_iter = ops.assign(self.last_overflow_iter, last_overflow_iter)
        update_scale_cond = ops.logical_and(should_inc, ops.logical_not(overflow))
        scaled = ops.select(update_scale_cond, on_overflow * self.scale_factor, on_overflow)
        ops.assign(loss_scale, scaled)
        inc_cur_iter = ops.depend(self.cur_iter + 1, last_iter)
        ops.assign(self.cur_iter, inc_cur_iter)
        return overflow

    def extend_repr(self) -> str:
        return (
            f"loss_scale_value={self.loss_scale_value}, scale_factor={self.scale_factor}, "
            f"scale_window={self.scale_window}"
        )


def _scale_parameter(scale_sense: Any) -> tuple[Parameter, Cell | None]:
    owner = "TrainOneStepWithLossScaleCell"
    if isinstance(scale_sense, Cell):
        value = Tensor(np.array(scale_sense.get_loss_scale(), np.float32))
        return Parameter(value, name="scale_sense", requires_grad=False), scale_sense
    if isinstance(scale_sense, Tensor):
        if tuple(scale_sense.shape) not in ((), (1,)):
            raise ValueError(
                f"For '{owner}', the shape of 'scale_sense' must be (1,) or (), but got "
                f"{tuple(scale_sense.shape)}."
            )
        value = Tensor(scale_sense.asnumpy().astype(np.float32))
        return Parameter(value, name="scale_sense", requires_grad=False), None
    raise TypeError(
        f"For '{owner}', the 'scale_sense' must be Cell or Tensor, but got 'scale_sense' type: "
        f"{type(scale_sense).__name__}."
    )


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """`nn.TrainOneStepWithLossScaleCell(network, optimizer, scale_sense)`: one train
    step with loss scaling; returns (loss, overflow, scale); see the module doc."""

    def __init__(self, network: Cell, optimizer: Cell, scale_sense: Any):
        super().__init__(network, optimizer, sens=None)
        self.scale_sense, manager = _scale_parameter(scale_sense)
        self.loss_scaling_manager = manager

    def construct(self, *inputs):
        weights = self.weights
        loss = self.network(*inputs)
        scaling_sens = self.scale_sense
        status, scaling_sens = self.start_overflow_check(loss, scaling_sens)
        scaling_sens_filled = ops.mul(
            ops.ones_like(loss), ops.reshape(ops.cast(scaling_sens, loss.dtype), ())
        )
        grads = self.grad(self.network, weights)(*inputs, scaling_sens_filled)
        grads = self.unscale(grads, scaling_sens)
        if self.reducer_flag:  # MindSpore's: reduced before the overflow check, so every
            grads = self.grad_reducer(grads)  # replica sees the same overflow
        cond = self.get_overflow_status(status, grads)
        overflow = cond
        if self.loss_scaling_manager is not None:  # process_loss_scale, traced here
            overflow = self.loss_scaling_manager(self.scale_sense, cond)
        if not overflow:
            loss = ops.depend(loss, self.optimizer(grads))
        return loss, cond, scaling_sens

    @staticmethod
    def unscale(grads: Any, scaling_sens: Any) -> tuple[Any, ...]:
        """Each gradient times 1 / scale (MindSpore's `_grad_scale`)."""
        inverse = ops.reshape(ops.reciprocal(scaling_sens), ())
        return tuple(ops.mul(g, ops.cast(inverse, g.dtype)) for g in grads)

    # --- overflow detection, per target ---------------------------------------------------
    @staticmethod
    def _uses_float_status() -> bool:
        """The device's float status: graph mode on the Ascend target."""
        return device_target() == "Ascend" and current_graph() is not None

    def start_overflow_check(self, pre_cond: Any, compute_input: Any) -> tuple[Any, Any]:
        """(the float status, cleared after `pre_cond`; `compute_input` after the clear).
        Off the device: (None, a copy of `compute_input`, the scale this step uses)."""
        if self._uses_float_status():
            status = ops.depend(ops.npu_alloc_float_status(), pre_cond)
            clear = ops.npu_clear_float_status(status)
            return status, ops.depend(ops.add(compute_input, 0.0), clear)
        return None, ops.add(compute_input, 0.0)

    def get_overflow_status(self, status: Any, compute_output: Any) -> Any:
        """A bool tensor: did the gradients (or, on the device, any result since the
        clear) overflow."""
        if status is not None:
            status = ops.depend(status, compute_output)
            flag_sum = ops.reduce_sum(ops.npu_get_float_status(status))
        else:
            flags = [
                ops.sub(1.0, ops.cast(ops.reduce_all(ops.less(ops.abs(g), math.inf)), D.float32))
                for g in compute_output
            ]
            flag_sum = ops.reshape(ops.addn(flags), ())
        return ops.less_equal(1.0, flag_sum)

    def set_sense_scale(self, sens: Any) -> None:
        """Set the scale (a Tensor of the scale's shape)."""
        if not isinstance(sens, Tensor):
            raise TypeError(
                "For 'TrainOneStepWithLossScaleCell', the type of 'sens' must be Tensor, but got "
                f"{type(sens).__name__}."
            )
        ops.assign(self.scale_sense, sens)
