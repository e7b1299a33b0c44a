"""`nn.Adam` (MindSpore's Adam / ApplyAdam kernel, AMSGrad optional).

    beta1_power *= beta1;  beta2_power *= beta2
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
    p = p - lr_t * m / (sqrt(v) + eps)
    p = p - lr_t * (beta1 * m + (1 - beta1) * g) / (sqrt(v) + eps)    if use_nesterov
    vhat = max(vhat, v); p = p - lr_t * m / (sqrt(vhat) + eps)        if use_amsgrad

State: `moment1.<name>`, `moment2.<name>` (and `vhat.<name>` with AMSGrad),
zeros; `beta1_power`, `beta2_power` (shape (1,), start at 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import ops
from mindjit.frontend.nn.optim.optimizer import Optimizer, non_negative
from mindjit.frontend.ops.effects import apply_adam


def _open_unit(value: Any, name: str) -> float:
    v = non_negative(value, name, "Adam")
    if not 0.0 < v < 1.0:
        raise ValueError(f"For 'Adam', '{name}' must be in range (0.0, 1.0), but got {value}.")
    return v


class Adam(Optimizer):
    def __init__(
        self,
        params: Any,
        learning_rate: Any = 1e-3,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
        use_locking: bool = False,
        use_nesterov: bool = False,
        weight_decay: float = 0.0,
        loss_scale: float = 1.0,
        use_amsgrad: bool = False,
        **kwargs: Any,
    ):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if kwargs:
            raise TypeError(f"For 'Adam', unexpected arguments: {', '.join(sorted(kwargs))}")
        self.beta1 = _open_unit(beta1, "beta1")
        self.beta2 = _open_unit(beta2, "beta2")
        self.eps = non_negative(eps, "eps", "Adam")
        if not self.eps > 0.0:
            raise ValueError(f"For 'Adam', 'eps' must be greater than 0.0, but got {eps}.")
        for name, flag in (
            ("use_locking", use_locking),
            ("use_nesterov", use_nesterov),
            ("use_amsgrad", use_amsgrad),
        ):
            if not isinstance(flag, bool):
                raise TypeError(f"For 'Adam', '{name}' must be a bool, got {flag!r}")
        if use_amsgrad and use_nesterov:
            raise ValueError("For 'Adam', 'use_amsgrad' and 'use_nesterov' cannot both be True")
        self.use_locking = use_locking  # updates are never concurrent here
        self.use_nesterov = use_nesterov
        self.use_amsgrad = use_amsgrad
        self.beta1_power = self._state_parameter(np.ones((1,), np.float32), "beta1_power")
        self.beta2_power = self._state_parameter(np.ones((1,), np.float32), "beta2_power")
        self.moment1 = self.clone_state("moment1", "zeros")
        self.moment2 = self.clone_state("moment2", "zeros")
        self.vhat = self.clone_state("vhat", "zeros") if use_amsgrad else ()

    def begin_step(self) -> Any:
        """Advance the beta powers; (beta1_power, beta2_power) of this step."""
        beta1_power = self.beta1_power * self.beta1
        ops.assign(self.beta1_power, beta1_power)
        beta2_power = self.beta2_power * self.beta2
        ops.assign(self.beta2_power, beta2_power)
        return beta1_power, beta2_power

    def step_lr(self, lr: Any, state: Any) -> Any:
        """The bias-corrected learning rate of this step."""
        return self.corrected_lr(super().step_lr(lr, state), *state)

    def corrected_lr(self, lr: float, beta1_power: Any, beta2_power: Any) -> Any:
        """lr * sqrt(1 - beta2^t) / (1 - beta1^t), as a 0-d tensor."""
        lr_t = ops.div(ops.mul(ops.sqrt(ops.sub(1.0, beta2_power)), lr), ops.sub(1.0, beta1_power))
        return ops.reshape(lr_t, ())

    def update(self, i: int, grad: Any, lr_t: Any) -> None:
        param, m, v = self.parameters[i], self.moment1[i], self.moment2[i]
        b1, b2 = self.beta1, self.beta2
        if not (self.use_amsgrad or self.use_nesterov):  # graph mode: one mindir.apply_adam
            apply_adam(param, m, v, lr_t, grad, b1, b2, self.eps)
            return
        m_new = ops.add(ops.mul(m, b1), ops.mul(grad, 1.0 - b1))
        v_new = ops.add(ops.mul(v, b2), ops.mul(ops.mul(grad, grad), 1.0 - b2))
        ops.assign(m, m_new)
        ops.assign(v, v_new)
        if self.use_amsgrad:
            vhat = ops.maximum(self.vhat[i], v_new)
            ops.assign(self.vhat[i], vhat)
            denom = ops.add(ops.sqrt(vhat), self.eps)
        else:
            denom = ops.add(ops.sqrt(v_new), self.eps)
        if self.use_nesterov:
            numer = ops.add(ops.mul(m_new, b1), ops.mul(grad, 1.0 - b1))
        else:
            numer = m_new
        ops.assign(param, ops.sub(param, ops.mul(ops.div(numer, denom), lr_t)))

    def extend_repr(self) -> str:
        return (
            f"{super().extend_repr()}, beta1={self.beta1}, beta2={self.beta2}, eps={self.eps}, "
            f"use_nesterov={self.use_nesterov}, use_amsgrad={self.use_amsgrad}"
        )
