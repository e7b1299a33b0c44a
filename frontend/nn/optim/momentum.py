"""`nn.Momentum`: gradient descent with momentum (MindSpore's ApplyMomentum).

    v = momentum * v + g
    p = p - (g * lr + v * momentum * lr)     if use_nesterov
    p = p - lr * v                           otherwise

The accumulators are `moments.<name>` (zeros), as in MindSpore.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.optim.optimizer import Optimizer, non_negative
from mindjit.frontend.ops.effects import apply_momentum


class Momentum(Optimizer):
    def __init__(
        self,
        params: Any,
        learning_rate: Any,
        momentum: float,
        weight_decay: float = 0.0,
        loss_scale: float = 1.0,
        use_nesterov: bool = False,
    ):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = non_negative(momentum, "momentum", "Momentum")
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"For 'Momentum', 'use_nesterov' must be a bool, got {use_nesterov!r}")
        self.use_nesterov = use_nesterov
        self.moments = self.clone_state("moments", "zeros")

    def update(self, i: int, grad: Any, lr: float) -> None:
        param, moment = self.parameters[i], self.moments[i]
        if not self.use_nesterov:  # graph mode: one mindir.apply_momentum (ops/effects.py)
            apply_momentum(param, moment, lr, grad, self.momentum)
            return
        accum = ops.add(ops.mul(moment, self.momentum), grad)
        ops.assign(moment, accum)
        step = ops.add(ops.mul(grad, lr), ops.mul(accum, self.momentum * lr))
        ops.assign(param, ops.sub(param, step))

    def extend_repr(self) -> str:
        return (
            f"{super().extend_repr()}, momentum={self.momentum}, use_nesterov={self.use_nesterov}"
        )
