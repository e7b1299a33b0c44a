"""`nn.Adagrad` (MindSpore's ApplyAdagrad).

    accum = accum + g * g          if update_slots
    p = p - lr * g / sqrt(accum)

The accumulators `accum.<name>` start at `accum` (0.1 by default); there is no
epsilon, as in MindSpore (accum = 0 with a zero gradient divides 0 by 0).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.optim.optimizer import Optimizer
from mindjit.frontend.nn.optim.validate import is_bool, non_negative_float


class Adagrad(Optimizer):
    def __init__(
        self,
        params: Any,
        accum: float = 0.1,
        learning_rate: Any = 0.001,
        update_slots: bool = True,
        loss_scale: float = 1.0,
        weight_decay: float = 0.0,
    ):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.initial_accum = non_negative_float(accum, "accum", self.cls_name)
        self.update_slots = is_bool(update_slots, "update_slots", self.cls_name)
        self.accum = self.clone_state("accum", self.initial_accum)

    def update(self, i: int, grad: Any, lr: Any) -> None:
        param, accum = self.parameters[i], self.accum[i]
        if self.update_slots:
            accum = ops.add(accum, ops.square(grad))
            ops.assign(self.accum[i], accum)
        step = ops.div(ops.mul(grad, lr), ops.sqrt(accum))
        ops.assign(param, ops.sub(param, step))

    def extend_repr(self) -> str:
        return (
            f"{super().extend_repr()}, accum={self.initial_accum}, update_slots={self.update_slots}"
        )
