"""`nn.Lamb` (MindSpore's LAMB on the CPU and GPU: layer-wise adaptive moments).

With t = global_step + 1 (the step being taken):

    m = beta1 * m + (1 - beta1) * g;        v = beta2 * v + (1 - beta2) * g * g
    m_hat = m / (1 - beta1 ** t);           v_hat = v / (1 - beta2 ** t)
    w_norm = ||p||;  g_norm = ||g||;  r_norm = ||m_hat * rsqrt(v_hat + eps) + weight_decay * p||
    ratio = w_norm / r_norm if w_norm > 0 and g_norm > 0 else 1, clipped to [0, 10]
    update = m_hat / (sqrt(v_hat) + eps) (+ weight_decay * p for the decayed Parameters)
    p = p - ratio * lr * update

(||x|| is the 2-norm over all elements.) As in MindSpore, the weight decay is part
of the update, not of the gradient, and `r_norm` always includes it. MindSpore
advances `global_step` inside `get_lr()` with a dynamic learning rate, so there
its bias correction runs one step ahead; mindjit uses t = step + 1 in both cases.
State: `lamb_m.<name>`, `lamb_v.<name>` (zeros), the tuples `moments1`, `moments2`.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.optim.adam_weight_decay import init_moments
from mindjit.frontend.nn.optim.optimizer import Optimizer


def _norm(x: Any) -> Any:
    return ops.sqrt(ops.reduce_sum(ops.square(x)))


class Lamb(Optimizer):
    def __init__(
        self,
        params: Any,
        learning_rate: Any,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-6,
        weight_decay: float = 0.0,
    ):
        super().__init__(learning_rate, params, weight_decay)
        init_moments(self, "lamb", beta1, beta2, eps)

    def prepare_gradients(self, gradients: Any) -> tuple[Any, ...]:
        """Checked only: the decay is applied in the update, not to the gradient."""
        return self.check_gradients(gradients)

    def begin_step(self) -> Any:
        """(1 - beta1 ** t, 1 - beta2 ** t) of this step, t = global_step + 1."""
        t = ops.reshape(ops.cast(ops.add(self.global_step, 1), D.float32), ())
        return ops.sub(1.0, ops.pow(self.beta1, t)), ops.sub(1.0, ops.pow(self.beta2, t))

    def step_lr(self, lr: Any, state: Any) -> Any:
        return (super().step_lr(lr, state), *state)

    def update(self, i: int, grad: Any, lr: Any) -> None:
        lr, correction1, correction2 = lr
        param, m, v = self.parameters[i], self.moments1[i], self.moments2[i]
        b1, b2, wd = self.beta1, self.beta2, self.weight_decays[i]
        next_m = ops.add(ops.mul(m, b1), ops.mul(grad, 1.0 - b1))
        next_v = ops.add(ops.mul(v, b2), ops.mul(ops.square(grad), 1.0 - b2))
        m_hat = ops.div(next_m, correction1)
        v_hat = ops.div(next_v, correction2)
        w_norm = _norm(param)
        g_norm = _norm(grad)
        r = ops.add(ops.mul(m_hat, ops.rsqrt(ops.add(v_hat, self.eps))), ops.mul(param, wd))
        ratio = ops.select(
            ops.greater(w_norm, 0.0),
            ops.select(ops.greater(g_norm, 0.0), ops.div(w_norm, _norm(r)), 1.0),
            1.0,
        )
        ratio = ops.minimum(ops.maximum(ratio, 0.0), 10.0)
        step = ops.div(m_hat, ops.add(ops.sqrt(v_hat), self.eps))
        if self.decay_flags[i] and wd != 0.0:
            step = ops.add(step, ops.mul(param, wd))
        ops.assign(param, ops.sub(param, ops.mul(step, ops.mul(ratio, lr))))
        ops.assign(m, next_m)
        ops.assign(v, next_v)

    def extend_repr(self) -> str:
        return f"{super().extend_repr()}, beta1={self.beta1}, beta2={self.beta2}, eps={self.eps}"
