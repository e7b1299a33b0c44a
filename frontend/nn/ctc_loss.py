"""`nn.CTCLoss(blank=0, reduction='mean', zero_infinity=False)(log_probs, targets,
input_lengths, target_lengths)`: the loss of ops.ctc_loss (frontend/ops/ctc.py, the
alpha recursion), without its log_alpha. An unbatched (T, C) input with (S,)
targets is the batch of one, as MindSpore's Cell takes it."""

from __future__ import annotations

from typing import Any

from mindjit.frontend import ops
from mindjit.frontend.nn.loss import LossBase
from mindjit.frontend.ops.ctc import ctc_loss


class CTCLoss(LossBase):
    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__()
        if isinstance(blank, bool) or not isinstance(blank, int) or blank < 0:
            raise ValueError(f"For 'CTCLoss', 'blank' must be a non-negative int, got {blank!r}")
        if reduction not in ("none", "sum", "mean"):
            raise ValueError(
                "For 'CTCLoss', the 'reduction' must be str and must be in '['none', 'sum', "
                f"'mean']', but got '{reduction}'."
            )
        if not isinstance(zero_infinity, bool):
            raise TypeError(f"For 'CTCLoss', 'zero_infinity' must be a bool, got {zero_infinity!r}")
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def construct(self, log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any):
        if len(log_probs.shape) == 2:
            log_probs = ops.expand_dims(log_probs, 1)
            targets = ops.expand_dims(targets, 0)
        loss, _ = ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )
        return loss

    def extend_repr(self) -> str:
        return f"blank={self.blank}, reduction={self.reduction}, zero_infinity={self.zero_infinity}"
