"""`nn.LazyAdam` and `nn.AdamOffload`, MindSpore's deprecated Adam variants. On
dense gradients both are Adam (MindSpore 2.10 on CPU gives Adam's values to the
last bit): LazyAdam differs only on sparse (RowTensor) gradients, which mindjit
does not have; AdamOffload only in where the update runs (the host)."""

from __future__ import annotations

from typing import Any

from mindjit.frontend.nn.optim.adam import Adam


class LazyAdam(Adam):
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
    ):
        super().__init__(
            params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
            loss_scale,
        )  # fmt: skip


class AdamOffload(LazyAdam):
    pass
