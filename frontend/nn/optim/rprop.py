"""`nn.Rprop`: resilient backpropagation, MindSpore's update. Per element, with
s = sign(g * prev):

    eta = etaplus if s > 0, etaminus if s < 0, 1 if s == 0
    step = clip(step * eta, step_size_min, step_size_max)   (step = lr at the first step)
    g' = 0 if s < 0 else g
    w = w - sign(g') * step;  prev = g';  step_size = step

State `prev.<name>` and `step_size.<name>` (zeros). No loss_scale argument, as in
MindSpore."""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.optim.optimizer import Optimizer
from mindjit.frontend.nn.optim.validate import is_float


class Rprop(Optimizer):
    def __init__(
        self,
        params: Any,
        learning_rate: Any = 0.1,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50.0),
        weight_decay: float = 0.0,
    ):
        super().__init__(learning_rate, params, weight_decay)
        if not isinstance(etas, tuple):
            raise TypeError(f"For Rprop, etas must be a tuple, but got {type(etas)}.")
        if len(etas) != 2:
            raise ValueError(
                f"For Rprop, etas must be a tuple with the size of 2, but got {len(etas)}."
            )
        if not isinstance(step_sizes, tuple):
            raise TypeError(f"For Rprop, step_sizes must be a tuple, but got {type(etas)}.")
        if len(step_sizes) != 2:
            raise ValueError(
                f"For Rprop, step_sizes must be a tuple with the size of 2, but got {len(step_sizes)}."
            )
        if step_sizes[0] > step_sizes[1]:
            raise ValueError(
                "For Rprop, maximal step size should not be less than minimal step size, but got "
                f"{step_sizes[0]} > {step_sizes[1]}."
            )
        is_float(etas[0], "etaminus", self.cls_name)
        if not 0.0 < etas[0] < 1.0:
            raise ValueError(
                f"For '{self.cls_name}', the 'etaminus' must be in range of (0.0, 1.0), but got "
                f"{etas[0]}."
            )
        is_float(etas[1], "etaplus", self.cls_name)
        if etas[1] <= 1.0:
            raise ValueError(
                f"For Rprop, etaplus must be greater than 1.0, but got etaplus {etas[1]}."
            )
        is_float(step_sizes[0], "min_step_sizes", self.cls_name)
        is_float(step_sizes[1], "max_step_sizes", self.cls_name)
        self.etaminus, self.etaplus = etas
        self.step_size_min, self.step_size_max = step_sizes
        self.prev = self.clone_state("prev", "zeros")
        self.step_size = self.clone_state("step_size", "zeros")

    def update(self, i: int, grad: Any, lr: Any) -> None:
        w, prev, step_size = self.parameters[i], self.prev[i], self.step_size[i]
        # the first step starts from lr: step_size is still its zeros then
        first = ops.cast(ops.equal(self.global_step, 0), w.dtype)
        step = ops.add(step_size, ops.mul(first, lr))
        product = ops.mul(grad, prev)
        up, down = ops.greater(product, 0.0), ops.less(product, 0.0)
        ones = ops.ones_like(grad)
        eta = ops.select(
            up, ops.mul(ones, self.etaplus), ops.select(down, ops.mul(ones, self.etaminus), ones)
        )
        step = ops.clip_by_value(ops.mul(step, eta), self.step_size_min, self.step_size_max)
        kept = ops.select(down, ops.zeros_like(grad), grad)
        ops.assign(w, ops.sub(w, ops.mul(ops.sign(kept), step)))
        ops.assign(prev, kept)
        ops.assign(step_size, step)

    def extend_repr(self) -> str:
        return (
            f"{super().extend_repr()}, etas={(self.etaminus, self.etaplus)}, "
            f"step_sizes={(self.step_size_min, self.step_size_max)}"
        )
