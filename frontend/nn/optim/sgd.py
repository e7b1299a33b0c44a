"""`nn.SGD`: stochastic gradient descent, with optional momentum (MindSpore's formulas).

    v = momentum * v + (1 - dampening) * g        (v = g on the first step)
    p = p - lr * (g + momentum * v)                if nesterov
    p = p - lr * v                                 otherwise (momentum > 0)
    p = p - lr * g                                 momentum == 0

As MindSpore's SGD kernel, the state is `accum.<name>` (v, zeros) and
`stat.<name>` (ones until the first step, then zeros), per element.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.optim.optimizer import Optimizer, non_negative


class SGD(Optimizer):
    def __init__(
        self,
        params: Any,
        learning_rate: Any = 0.1,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        loss_scale: float = 1.0,
    ):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.momentum = non_negative(momentum, "momentum", "SGD")
        self.dampening = non_negative(dampening, "dampening", "SGD")
        if not isinstance(nesterov, bool):
            raise TypeError(f"For 'SGD', 'nesterov' must be a bool, got {nesterov!r}")
        if nesterov and (self.momentum <= 0.0 or self.dampening != 0.0):
            raise ValueError(
                "For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and 'dampening' "
                f"must equal to 0.0, but got 'momentum' is {momentum}, 'dampening' is {dampening}"
            )
        self.nesterov = nesterov
        self.accum = self.clone_state("accum", "zeros")
        self.stat = self.clone_state("stat", "ones")

    def update(self, i: int, grad: Any, lr: float) -> None:
        """Update Parameter `i` (and its state) with its gradient."""
        param = self.parameters[i]
        if self.momentum > 0.0:
            accum, stat = self.accum[i], self.stat[i]
            first = ops.greater(stat, 0.0)
            later = ops.add(ops.mul(accum, self.momentum), ops.mul(grad, 1.0 - self.dampening))
            new_accum = ops.select(first, grad, later)
            ops.assign(accum, new_accum)
            ops.assign(stat, 0.0)
            if self.nesterov:
                grad = ops.add(grad, ops.mul(new_accum, self.momentum))
            else:
                grad = new_accum
        ops.assign(param, ops.sub(param, ops.mul(grad, lr)))

    def extend_repr(self) -> str:
        return (
            f"{super().extend_repr()}, momentum={self.momentum}, dampening={self.dampening}, "
            f"nesterov={self.nesterov}"
        )
