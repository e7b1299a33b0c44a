"""`nn.FTRL` and `nn.ProximalAdagrad`, the proximal (l1/l2-regularized) updates
of MindSpore's ApplyFtrl and ApplyProximalAdagrad kernels on dense gradients.

FTRL (per element; lr_power <= 0, `p = -lr_power`):

    accum' = accum + g * g
    linear = linear + g - (accum'^p - accum^p) / lr * w
    w = |linear| > l1 ? (l1 - linear) / (accum'^p / lr + 2 * l2) : 0

That is MindSpore 2.10's CPU kernel: its `sign(linear) * l1` is `linear ? l1 : -l1`,
so +l1 whenever |linear| > l1 (the documented formula, and other backends, take
-l1 for a negative linear); mindjit gives the CPU kernel's values.
State `moments.<name>` (initial_accum) and `linear.<name>` (zeros). As in
MindSpore the learning rate must be a fixed float and, ungrouped, every Parameter
takes the weight decay (no beta/gamma filter).

ProximalAdagrad:

    accum = accum + g * g;  a = lr / sqrt(accum);  v = w - a * g
    w = sign(v) * max(|v| - a * l1, 0) / (1 + a * l2)

State `accum.<name>` (accum, 0.1 by default)."""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.optim.optimizer import Optimizer
from mindjit.frontend.nn.optim.validate import is_bool, is_float, non_negative_float


def _float_at_least_zero(value: Any, name: str, owner: str) -> float:
    if isinstance(value, bool) or not isinstance(value, float):
        raise TypeError(
            f"For '{owner}', the type of '{name}' should be 'float', but got type "
            f"'{type(value).__name__}'."
        )
    if not value >= 0.0:
        raise ValueError(f"For '{owner}', the '{name}' must be >= 0.0, but got {value}.")
    return value


class FTRL(Optimizer):
    def __init__(
        self,
        params: Any,
        initial_accum: float = 0.1,
        learning_rate: float = 0.001,
        lr_power: float = -0.5,
        l1: float = 0.0,
        l2: float = 0.0,
        use_locking: bool = False,
        loss_scale: float = 1.0,
        weight_decay: float = 0.0,
    ):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = self.cls_name
        if self.dynamic_lr or self.is_group_lr:
            raise ValueError(
                "For 'FTRL', dynamic learning rate and group learning rate are currently not "
                "supported in FTRL, they should all be false, but got dynamic learning rate "
                f"{self.dynamic_lr} and group learning rate {self.is_group_lr}."
            )
        _float_at_least_zero(initial_accum, "initial_accum", owner)
        is_float(learning_rate, "learning_rate", owner)
        if not learning_rate > 0.0:
            raise ValueError(
                f"For '{owner}', the 'learning_rate' must be a positive float, but got "
                f"{learning_rate}."
            )
        is_float(lr_power, "lr_power", owner)
        if not lr_power <= 0.0:
            raise ValueError(f"For '{owner}', the 'lr_power' must be <= 0.0, but got {lr_power}.")
        self.l1 = _float_at_least_zero(l1, "l1", owner)
        self.l2 = _float_at_least_zero(l2, "l2", owner)
        self.use_locking = is_bool(use_locking, "use_locking", owner)
        self.lr = learning_rate
        self.lr_power = lr_power
        if not self.is_group:
            self.decay_flags = (True,) * len(self.parameters)
        self.moments = self.clone_state("moments", initial_accum)
        self.linear = self.clone_state("linear", "zeros")

    def _power(self, accum: Any) -> Any:
        p = -self.lr_power
        return ops.sqrt(accum) if p == 0.5 else ops.pow(accum, p)

    def update(self, i: int, grad: Any, lr: Any) -> None:
        w, accum, linear = self.parameters[i], self.moments[i], self.linear[i]
        new_accum = ops.add(accum, ops.square(grad))
        accum_pow, new_pow = self._power(accum), self._power(new_accum)
        sigma = ops.div(ops.sub(new_pow, accum_pow), lr)
        new_linear = ops.sub(ops.add(linear, grad), ops.mul(sigma, w))
        quadratic = ops.add(ops.div(new_pow, lr), 2.0 * self.l2)
        shrunk = ops.div(ops.sub(self.l1, new_linear), quadratic)
        keep = ops.greater(ops.abs(new_linear), self.l1)
        ops.assign(accum, new_accum)
        ops.assign(linear, new_linear)
        ops.assign(w, ops.select(keep, shrunk, ops.zeros_like(shrunk)))

    def extend_repr(self) -> str:
        return f"{super().extend_repr()}, lr_power={self.lr_power}, l1={self.l1}, l2={self.l2}"


class ProximalAdagrad(Optimizer):
    def __init__(
        self,
        params: Any,
        accum: float = 0.1,
        learning_rate: Any = 0.001,
        l1: float = 0.0,
        l2: float = 0.0,
        use_locking: bool = False,
        loss_scale: float = 1.0,
        weight_decay: float = 0.0,
    ):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        owner = self.cls_name
        self.initial_accum = non_negative_float(accum, "accum", owner)
        self.l1 = non_negative_float(l1, "l1", owner)
        self.l2 = non_negative_float(l2, "l2", owner)
        self.use_locking = is_bool(use_locking, "use_locking", owner)
        self.accum = self.clone_state("accum", self.initial_accum)

    def update(self, i: int, grad: Any, lr: Any) -> None:
        w = self.parameters[i]
        accum = ops.add(self.accum[i], ops.square(grad))
        ops.assign(self.accum[i], accum)
        a = ops.div(lr, ops.sqrt(accum))
        v = ops.sub(w, ops.mul(a, grad))
        if self.l1 > 0.0:
            shrunk = ops.maximum(ops.sub(ops.abs(v), ops.mul(a, self.l1)), 0.0)
            v = ops.mul(ops.sign(v), shrunk)
        ops.assign(w, ops.div(v, ops.add(ops.mul(a, self.l2), 1.0)))

    def extend_repr(self) -> str:
        return f"{super().extend_repr()}, accum={self.initial_accum}, l1={self.l1}, l2={self.l2}"
