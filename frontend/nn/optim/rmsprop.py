"""`nn.RMSProp` (MindSpore's ApplyRMSProp / ApplyCenteredRMSProp).

    ms = decay * ms + (1 - decay) * g * g
    mom = momentum * mom + lr * g / sqrt(ms + epsilon)
    p = p - mom
centered:
    mg = decay * mg + (1 - decay) * g
    ms = decay * ms + (1 - decay) * g * g
    mom = momentum * mom + lr * g / sqrt(ms - mg * mg + epsilon)
    p = p - mom

State as MindSpore's: `mean_square.<name>` (ones: MindSpore 2.x starts the mean
square at one), `moment.<name>` (zeros) and, centered, `mean_grad.<name>`
(zeros); the tuples `ms`, `moment`, `mg`.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.optim.optimizer import Optimizer
from mindjit.frontend.nn.optim.validate import is_bool, non_negative_float, positive_float


class RMSProp(Optimizer):
    def __init__(
        self,
        params: Any,
        learning_rate: Any = 0.1,
        decay: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-10,
        use_locking: bool = False,
        centered: bool = False,
        loss_scale: float = 1.0,
        weight_decay: float = 0.0,
    ):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = self.cls_name
        self.decay = non_negative_float(decay, "decay", owner)
        self.momentum = non_negative_float(momentum, "momentum", owner)
        self.epsilon = positive_float(epsilon, "epsilon", owner)
        self.use_locking = is_bool(use_locking, "use_locking", owner)  # never concurrent here
        self.centered = is_bool(centered, "centered", owner)
        if centered:
            self.mg = self.clone_state("mean_grad", "zeros")
        self.ms = self.clone_state("mean_square", "ones")
        self.moment = self.clone_state("moment", "zeros")

    def update(self, i: int, grad: Any, lr: Any) -> None:
        param, ms, mom = self.parameters[i], self.ms[i], self.moment[i]
        d = self.decay
        next_ms = ops.add(ops.mul(ms, d), ops.mul(ops.square(grad), 1.0 - d))
        ops.assign(ms, next_ms)
        denom = next_ms
        if self.centered:
            mg = self.mg[i]
            next_mg = ops.add(ops.mul(mg, d), ops.mul(grad, 1.0 - d))
            ops.assign(mg, next_mg)
            denom = ops.sub(next_ms, ops.square(next_mg))
        step = ops.div(ops.mul(grad, lr), ops.sqrt(ops.add(denom, self.epsilon)))
        next_mom = ops.add(ops.mul(mom, self.momentum), step)
        ops.assign(mom, next_mom)
        ops.assign(param, ops.sub(param, next_mom))

    def extend_repr(self) -> str:
        return (
            f"{super().extend_repr()}, decay={self.decay}, momentum={self.momentum}, "
            f"epsilon={self.epsilon}, centered={self.centered}"
        )
