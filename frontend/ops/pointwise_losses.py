"""Elementwise losses, one formula each, shared by the functional ops and the nn
loss Cells: `ops.mse_loss`, `ops.binary_cross_entropy`,
`ops.binary_cross_entropy_with_logits`, `ops.kl_div`, `ops.huber_loss`
(nn.MSELoss, BCELoss, BCEWithLogitsLoss, KLDivLoss and HuberLoss call the
`*_elementwise` forms and reduce them their own way).

- MSE: (x - y)^2.
- BCE: -[y log(x) + (1 - y) log(1 - x)], each log clamped at -100 (MindSpore's
  and PyTorch's rule: x = 0 or 1 gives a finite loss); logits outside [0, 1]
  (or NaN) fail when the loss runs (`mindir.check_range`, RuntimeCheckError in
  both modes), as MindSpore's BinaryCrossEntropy kernel rejects them.
- BCE with logits, stably: max(x, 0) - x y + log(1 + exp(-|x|)); with pos_weight
  p: (1 - y) x + ((p - 1) y + 1)(log(1 + exp(-|x|)) + max(-x, 0)).
- KL divergence of log-probabilities x from y: y (log y - x), 0 where y = 0
  (y log y -> 0); with log_target: exp(y) (y - x).
- Huber: 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta), which is
  delta * smooth_l1(d, beta=delta).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.ops.checks import check_range
from mindjit.frontend.ops.losses import (
    check_reduction,
    loss_pair,
    reduce_loss,
    smooth_l1_elementwise,
)
from mindjit.frontend.ops.math import (
    abs,
    add,
    div,
    exp,
    greater,
    log,
    maximum,
    mul,
    neg,
    select,
    square,
    sub,
)
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.reduce import reduce_sum

#: What MindSpore's BinaryCrossEntropy kernel says about logits outside [0, 1].
BCE_RANGE_MESSAGE = (
    "For 'BinaryCrossEntropy', the elements of 'logits' must be in [0, 1], "
    "but got a value outside this range (or NaN)"
)


def mse_elementwise(x: Any, y: Any) -> Any:
    return square(sub(x, y))


def bce_elementwise(logits: Any, labels: Any) -> Any:
    """-[y log(x) + (1 - y) log(1 - x)], logs clamped at -100, x checked in [0, 1]."""
    x = check_range(logits, 0.0, 1.0, BCE_RANGE_MESSAGE)
    log_p = maximum(log(x), -100.0)
    log_q = maximum(log(sub(1.0, x)), -100.0)
    return neg(add(mul(labels, log_p), mul(sub(1.0, labels), log_q)))


def bce_with_logits_elementwise(logits: Any, labels: Any, pos_weight: Any = None) -> Any:
    log_term = log(add(exp(neg(abs(logits))), 1.0))  # log(1 + exp(-|x|))
    if pos_weight is None:
        return add(sub(maximum(logits, 0.0), mul(logits, labels)), log_term)
    log_weight = add(mul(sub(pos_weight, 1.0), labels), 1.0)
    softplus_neg = add(log_term, maximum(neg(logits), 0.0))  # -log(sigmoid(x))
    return add(mul(sub(1.0, labels), logits), mul(log_weight, softplus_neg))


def kl_div_elementwise(logits: Any, labels: Any, log_target: bool = False) -> Any:
    if log_target:
        return mul(exp(labels), sub(labels, logits))
    positive = greater(labels, 0.0)
    safe = select(positive, labels, 1.0)  # log(1) = 0 where y = 0: no NaN in value or grad
    return select(positive, mul(labels, sub(log(safe), logits)), 0.0)


def huber_elementwise(diff: Any, delta: float) -> Any:
    return mul(smooth_l1_elementwise(diff, delta), delta)


def _optional(value: Any, what: str, name: str) -> Any:
    if value is not None and not is_tensor(value):
        raise TypeError(
            f"For '{name}', the '{what}' must be a Tensor or None, but got {type(value).__name__}"
        )
    return value


def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Any:  # noqa: A002
    """`ops.mse_loss(input, target, reduction='mean')`: (input - target)^2, reduced."""
    x, t = loss_pair(input, target, "mse_loss")
    check_reduction(reduction, "mse_loss")
    return reduce_loss(mse_elementwise(x, t), reduction)


def binary_cross_entropy(
    logits: Any, labels: Any, weight: Any = None, reduction: str = "mean"
) -> Any:
    """`ops.binary_cross_entropy(logits, labels, weight=None, reduction='mean')` of
    probabilities `logits` in [0, 1]."""
    name = "binary_cross_entropy"
    x, t = loss_pair(logits, labels, name)
    check_reduction(reduction, name)
    loss = bce_elementwise(x, t)
    if _optional(weight, "weight", name) is not None:
        loss = mul(loss, weight)
    return reduce_loss(loss, reduction)


def binary_cross_entropy_with_logits(
    logits: Any,
    label: Any,
    weight: Any = None,
    pos_weight: Any = None,
    reduction: str = "mean",
) -> Any:
    """`ops.binary_cross_entropy_with_logits(logits, label, weight=None, pos_weight=None,
    reduction='mean')`: sigmoid and binary cross entropy in one, stably."""
    name = "binary_cross_entropy_with_logits"
    x, t = loss_pair(logits, label, name)
    check_reduction(reduction, name)
    loss = bce_with_logits_elementwise(x, t, _optional(pos_weight, "pos_weight", name))
    if _optional(weight, "weight", name) is not None:
        loss = mul(loss, weight)
    return reduce_loss(loss, reduction)


KL_REDUCTIONS = ("none", "mean", "sum", "batchmean")


def check_kl_reduction(reduction: Any, name: str) -> str:
    if reduction not in KL_REDUCTIONS:
        raise ValueError(
            f"For '{name}', the 'reduction' must be in {list(KL_REDUCTIONS)}, but got {reduction}."
        )
    return reduction


def kl_div(logits: Any, labels: Any, reduction: str = "mean", log_target: bool = False) -> Any:
    """`ops.kl_div(logits, labels, reduction='mean', log_target=False)`: the KL divergence
    of `labels` (probabilities, or log-probabilities with log_target) from the
    log-probabilities `logits`; 'batchmean' divides the sum by the batch size."""
    name = "kl_div"
    x, t = loss_pair(logits, labels, name)
    check_kl_reduction(reduction, name)
    if not isinstance(log_target, bool):
        raise TypeError(f"For '{name}', the 'log_target' must be a bool, but got {log_target!r}")
    loss = kl_div_elementwise(x, t, log_target)
    if reduction == "batchmean":
        total = reduce_sum(loss, tuple(range(len(loss.shape))))
        return div(total, float(loss.shape[0])) if loss.shape else total
    return reduce_loss(loss, reduction)


def check_delta(delta: Any, name: str) -> float:
    if isinstance(delta, bool) or not isinstance(delta, int | float):
        raise TypeError(f"For '{name}', the 'delta' must be a float, but got {delta!r}")
    if delta <= 0:
        raise ValueError(f"For '{name}', the 'delta' must be greater than 0, but got {delta}")
    return float(delta)


def huber_loss(input: Any, target: Any, reduction: str = "mean", delta: float = 1.0) -> Any:  # noqa: A002
    """`ops.huber_loss(input, target, reduction='mean', delta=1.0)`."""
    name = "huber_loss"
    x, t = loss_pair(input, target, name)
    check_reduction(reduction, name)
    return reduce_loss(huber_elementwise(sub(x, t), check_delta(delta, name)), reduction)


__all__ = [
    "BCE_RANGE_MESSAGE",
    "bce_elementwise",
    "bce_with_logits_elementwise",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "check_delta",
    "check_kl_reduction",
    "huber_elementwise",
    "huber_loss",
    "kl_div",
    "kl_div_elementwise",
    "mse_elementwise",
    "mse_loss",
]
