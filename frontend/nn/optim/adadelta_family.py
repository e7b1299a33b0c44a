"""`nn.Adadelta`, `nn.AdaMax` and `nn.ASGD` (MindSpore 2.10's ApplyAdadelta,
ApplyAdaMax and its ASGD Cell).

Adadelta (state `accum.<name>`, `accum_update.<name>`, zeros):
    accum = rho accum + (1 - rho) g^2
    update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * g
    accum_update = rho accum_update + (1 - rho) update^2
    p = p - lr update

AdaMax (state `moment1.<name>`, `moment2.<name>`, zeros; `beta1_power` (1,), ones):
    beta1_power = beta1_power * beta1          (once per step, before the updates)
    m = beta1 m + (1 - beta1) g
    v = max(beta2 v, |g|)
    p = p - lr / (1 - beta1_power) * m / (v + eps)

ASGD (state `mu_<name>` = 1.0, `eta_<name>` = 0.0 (0-d), `ax_.<name>` zeros), t the
step counted from 1:
    eta = lr                                   (at t = 1)
    p = p (1 - lambd eta) - eta g
    ax = ax + (p - ax) mu if mu != 1 else p
    eta = lr / (1 + lambd lr t)^alpha
    mu = 1 / max(1, t - t0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.optim.optimizer import Optimizer
from mindjit.frontend.nn.optim.validate import open_unit, positive_float
from mindjit.frontend.parameter_tuple import ParameterTuple


def _float(value: Any, name: str, owner: str) -> float:
    if isinstance(value, bool) or not isinstance(value, float):
        raise TypeError(
            f"For '{owner}', the type of '{name}' should be 'float', but got type "
            f"'{type(value).__name__}'."
        )
    return value


class Adadelta(Optimizer):
    def __init__(
        self,
        params: Any,
        learning_rate: Any = 1.0,
        rho: float = 0.9,
        epsilon: float = 1e-6,
        loss_scale: float = 1.0,
        weight_decay: float = 0.0,
    ):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = self.cls_name
        self.rho = _float(rho, "rho", owner)
        self.epsilon = _float(epsilon, "epsilon", owner)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(
                f"For '{owner}', the 'rho' must be in range of [0.0, 1.0], but got {rho} with "
                "type 'float'."
            )
        if epsilon < 0.0:
            raise ValueError(
                f"For '{owner}', the 'epsilon' must be a non-negative float, but got {epsilon}."
            )
        self.accum = self.clone_state("accum", "zeros")
        self.accum_update = self.clone_state("accum_update", "zeros")

    def update(self, i: int, grad: Any, lr: Any) -> None:
        param, accum, accum_update = self.parameters[i], self.accum[i], self.accum_update[i]
        rho, eps = self.rho, self.epsilon
        next_accum = ops.add(ops.mul(accum, rho), ops.mul(ops.square(grad), 1.0 - rho))
        ops.assign(accum, next_accum)
        step = ops.mul(
            ops.div(ops.sqrt(ops.add(accum_update, eps)), ops.sqrt(ops.add(next_accum, eps))), grad
        )
        next_update = ops.add(ops.mul(accum_update, rho), ops.mul(ops.square(step), 1.0 - rho))
        ops.assign(accum_update, next_update)
        ops.assign(param, ops.sub(param, ops.mul(step, lr)))

    def extend_repr(self) -> str:
        return f"{super().extend_repr()}, rho={self.rho}, epsilon={self.epsilon}"


class AdaMax(Optimizer):
    def __init__(
        self,
        params: Any,
        learning_rate: Any = 0.001,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-08,
        weight_decay: float = 0.0,
        loss_scale: float = 1.0,
    ):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = self.cls_name
        for name, value in (("beta1", beta1), ("beta2", beta2), ("eps", eps)):
            _float(value, name, owner)
        for name, value in (("beta1", beta1), ("beta2", beta2)):
            if not 0.0 < value < 1.0:
                raise ValueError(
                    f"For '{owner}', the '{name}' must be in range of (0.0, 1.0), but got "
                    f"{value} with type 'float'."
                )
        self.beta1 = open_unit(beta1, "beta1", owner)
        self.beta2 = open_unit(beta2, "beta2", owner)
        self.eps = positive_float(eps, "eps", owner)
        self.beta1_power = self._state_parameter(np.ones((1,), np.float32), "beta1_power")
        self.moment1 = self.clone_state("moment1", "zeros")
        self.moment2 = self.clone_state("moment2", "zeros")

    def begin_step(self) -> Any:
        beta1_power = ops.mul(self.beta1_power, self.beta1)
        ops.assign(self.beta1_power, beta1_power)
        return beta1_power

    def step_lr(self, lr: Any, beta1_power: Any) -> Any:
        """lr / (1 - beta1^t), a 0-d tensor."""
        return ops.reshape(ops.div(super().step_lr(lr, beta1_power), ops.sub(1.0, beta1_power)), ())

    def update(self, i: int, grad: Any, lr_t: Any) -> None:
        param, m, v = self.parameters[i], self.moment1[i], self.moment2[i]
        next_m = ops.add(ops.mul(m, self.beta1), ops.mul(grad, 1.0 - self.beta1))
        next_v = ops.maximum(ops.mul(v, self.beta2), ops.abs(grad))
        ops.assign(m, next_m)
        ops.assign(v, next_v)
        step = ops.mul(ops.div(next_m, ops.add(next_v, self.eps)), lr_t)
        ops.assign(param, ops.sub(param, step))

    def extend_repr(self) -> str:
        return f"{super().extend_repr()}, beta1={self.beta1}, beta2={self.beta2}, eps={self.eps}"


class ASGD(Optimizer):
    def __init__(
        self,
        params: Any,
        learning_rate: Any = 0.1,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0.0,
    ):
        super().__init__(learning_rate, params, weight_decay)
        owner = self.cls_name
        self.lambd = _float(lambd, "lambd", owner)
        self.alpha = _float(alpha, "alpha", owner)
        self.t0 = _float(t0, "t0", owner)
        self.mu = ParameterTuple(
            self._state_parameter(np.array(1.0, np.float32), f"mu_{p.name}")
            for p in self.parameters
        )
        self.eta = ParameterTuple(
            self._state_parameter(np.array(0.0, np.float32), f"eta_{p.name}")
            for p in self.parameters
        )
        self.ax = self.clone_state("ax_", "zeros")

    def begin_step(self) -> Any:
        """t, this step's number from 1 (global_step counts the steps done)."""
        return ops.cast(ops.reshape(ops.add(self.global_step, 1), ()), D.float32)

    def step_lr(self, lr: Any, t: Any) -> Any:
        return (super().step_lr(lr, t), t)

    def update(self, i: int, grad: Any, lr_and_t: Any) -> None:
        lr, t = lr_and_t
        param, mu, eta, ax = self.parameters[i], self.mu[i], self.eta[i], self.ax[i]
        eta_now = ops.select(ops.equal(t, 1.0), ops.add(ops.zeros_like(eta), lr), eta)
        p32 = ops.cast(param, D.float32)
        p32 = ops.sub(
            ops.mul(p32, ops.sub(1.0, ops.mul(eta_now, self.lambd))),
            ops.mul(eta_now, ops.cast(grad, D.float32)),
        )
        ops.assign(param, ops.cast(p32, param.dtype))
        averaged = ops.add(
            ax, ops.cast(ops.mul(ops.sub(p32, ops.cast(ax, D.float32)), mu), ax.dtype)
        )
        ops.assign(ax, ops.select(ops.not_equal(mu, 1.0), averaged, ops.cast(p32, ax.dtype)))
        decay = ops.pow(ops.add(ops.mul(t, self.lambd * 1.0) * lr, 1.0), self.alpha)
        ops.assign(eta, ops.div(ops.add(ops.zeros_like(eta), lr), decay))
        ops.assign(mu, ops.div(1.0, ops.maximum(ops.sub(t, self.t0), 1.0)))

    def extend_repr(self) -> str:
        return f"{super().extend_repr()}, lambd={self.lambd}, alpha={self.alpha}, t0={self.t0}"


__all__ = ["ASGD", "AdaMax", "Adadelta"]
