"""`nn.AdamWeightDecay`: Adam with decoupled weight decay, as MindSpore computes it
(BERT's optimizer in the model zoo).

    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    update = m / (sqrt(v) + eps)
    update = update + weight_decay * p        for Parameters the decay filter selects
    p = p - lr * update

Unlike `nn.Adam` there is no bias correction (no beta powers) and the decay is
not added to the gradient: it is part of the update, scaled by lr only. There
is no `loss_scale` argument. State: `adam_m.<name>` and `adam_v.<name>` (zeros),
the tuples `moments1` and `moments2`.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.optim.optimizer import Optimizer
from mindjit.frontend.nn.optim.validate import open_unit, positive_float


def check_adam_args(owner: str, beta1: Any, beta2: Any, eps: Any) -> None:
    """MindSpore's `_check_param_value` of the Adam family."""
    open_unit(beta1, "beta1", owner)
    open_unit(beta2, "beta2", owner)
    positive_float(eps, "eps", owner)


def init_moments(opt: Optimizer, prefix: str, beta1: Any, beta2: Any, eps: Any) -> None:
    """The Adam family's checked betas and eps, and its two zero moments per
    Parameter (`<prefix>_m`, `<prefix>_v`): AdamWeightDecay's and Lamb's."""
    check_adam_args(opt.cls_name, beta1, beta2, eps)
    opt.beta1 = beta1
    opt.beta2 = beta2
    opt.eps = eps
    opt.moments1 = opt.clone_state(f"{prefix}_m", "zeros")
    opt.moments2 = opt.clone_state(f"{prefix}_v", "zeros")


class AdamWeightDecay(Optimizer):
    def __init__(
        self,
        params: Any,
        learning_rate: Any = 1e-3,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-6,
        weight_decay: float = 0.0,
    ):
        super().__init__(learning_rate, params, weight_decay)
        init_moments(self, "adam", beta1, beta2, eps)

    def prepare_gradients(self, gradients: Any) -> tuple[Any, ...]:
        """Checked only: the decay is applied in the update, not to the gradient."""
        return self.check_gradients(gradients)

    def update(self, i: int, grad: Any, lr: Any) -> None:
        param, m, v = self.parameters[i], self.moments1[i], self.moments2[i]
        b1, b2 = self.beta1, self.beta2
        next_m = ops.add(ops.mul(m, b1), ops.mul(grad, 1.0 - b1))
        next_v = ops.add(ops.mul(v, b2), ops.mul(ops.square(grad), 1.0 - b2))
        step = ops.div(next_m, ops.add(ops.sqrt(next_v), self.eps))
        if self.decay_flags[i] and self.weight_decays[i] != 0.0:
            step = ops.add(step, ops.mul(param, self.weight_decays[i]))
        ops.assign(param, ops.sub(param, ops.mul(step, lr)))
        ops.assign(m, next_m)
        ops.assign(v, next_v)

    def extend_repr(self) -> str:
        return f"{super().extend_repr()}, beta1={self.beta1}, beta2={self.beta2}, eps={self.eps}"
