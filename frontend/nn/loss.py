"""Loss Cells with MindSpore 2.x's names, signatures and formulas.

`LossBase(reduction)` holds the reduction ('mean' | 'sum' | 'none', anything else
is a ValueError naming it) and `get_loss`, which reduces over every axis as
MindSpore's does (computing in float32, returning the input's dtype).

Each `construct` is made of mindjit's ops only, so the same Cell runs in
PyNative mode, inside `@ms.jit` or as a graph-mode Cell, and reverse-mode AD
over mindir differentiates it. The forms are the numerically stable ones:

- MSELoss: (x - y)^2.
- BCELoss: -w [y log(x) + (1 - y) log(1 - x)], each log clamped at -100 (as
  MindSpore and PyTorch do, so x = 0 or 1 gives a finite loss). Logits outside
  [0, 1] (or NaN) are rejected when the loss runs, in both modes, like
  MindSpore's BinaryCrossEntropy kernel: `mindir.check_range` in graph mode (the
  checked value feeds the loss, so the check is never dead code), the same op
  run eagerly in PyNative mode; both raise `RuntimeCheckError` (a RuntimeError).
- BCEWithLogitsLoss: max(x, 0) - x y + log(1 + exp(-|x|)); with pos_weight p,
  (1 - y) x + ((p - 1) y + 1)(log(1 + exp(-|x|)) + max(-x, 0)); times weight.
- SoftmaxCrossEntropyWithLogits: -sum(y * log_softmax(x), -1), log_softmax
  with the max subtracted; `sparse=True` takes class indices, one-hot encoded
  by comparing them with the class numbers 0 .. C-1.
- CrossEntropyLoss, NLLLoss, L1Loss, SmoothL1Loss: the functional forms of
  mindjit.frontend.ops.losses (class axis 1, weights, ignore_index, label
  smoothing, MindSpore's 'mean' over the weights of the counted targets).
- CosineEmbeddingLoss: 1 - cos(x1, x2) where the label is 1, max(0, cos - margin)
  where it is -1 (0 for any other label), the cosine over axis 1 as MindSpore
  computes it: sum(x1 x2) / (sqrt(sum x1^2) sqrt(sum x2^2)); margin a float in [-1, 1].
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.ops import losses
from mindjit.frontend.ops import pointwise_losses as pointwise
from mindjit.frontend.ops.margin_losses import cosine_embedding_rows
from mindjit.frontend.ops.pointwise_losses import BCE_RANGE_MESSAGE  # noqa: F401 - re-export
from mindjit.frontend.tensor import Tensor

REDUCTIONS = ("mean", "sum", "none")


class LossBase(Cell):
    """Base class of the losses: `reduction` and `get_loss(x, weights=1.0)`."""

    def __init__(self, reduction: str = "mean", dtype: Any = D.float32):
        super().__init__()
        if reduction not in REDUCTIONS:
            raise ValueError(
                f"For '{self.cls_name}', the 'reduction' must be in ['mean', 'sum', 'none'], "
                f"but got {reduction}."
            )
        self.reduction = reduction
        self.average = reduction == "mean"
        self.reduce = reduction != "none"
        self.dtype = D.to_dtype(dtype)

    def get_axis(self, x: Any) -> tuple[int, ...]:
        """Every axis of `x`."""
        return tuple(range(len(x.shape)))

    def get_loss(self, x: Any, weights: Any = 1.0) -> Any:
        """`weights * x` reduced by `reduction` over every axis, computed in float32
        (MindSpore's rule) and returned in `x`'s dtype."""
        input_dtype = x.dtype
        x = ops.cast(x, self.dtype)
        if not (isinstance(weights, int | float) and weights == 1.0):
            x = ops.mul(ops.cast(weights, self.dtype), x)
        if self.reduce and self.average:
            x = ops.reduce_mean(x, self.get_axis(x))
        if self.reduce and not self.average:
            x = ops.reduce_sum(x, self.get_axis(x))
        return ops.cast(x, input_dtype)

    def construct(self, logits, labels):
        raise NotImplementedError

    def extend_repr(self) -> str:
        return f"reduction={self.reduction}"


def _optional_tensor(value: Any, name: str, owner: str) -> Tensor | None:
    """A loss weight: None, or a Tensor (numpy arrays and numbers are converted)."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.ndarray | list | tuple | int | float):
        return Tensor(np.asarray(value, dtype=np.float32))
    raise TypeError(f"For '{owner}', '{name}' must be a Tensor or None, got {type(value).__name__}")


class MSELoss(LossBase):
    """`nn.MSELoss(reduction='mean')`: (logits - labels)^2, then the reduction."""

    def construct(self, logits, labels):
        return self.get_loss(pointwise.mse_elementwise(logits, labels))


class BCELoss(LossBase):
    """`nn.BCELoss(weight=None, reduction='mean')`: binary cross entropy of
    probabilities `logits` (in [0, 1]) against `labels`."""

    def __init__(self, weight: Any = None, reduction: str = "mean"):
        super().__init__(reduction)
        self.weight = _optional_tensor(weight, "weight", "BCELoss")

    def construct(self, logits, labels):
        loss = pointwise.bce_elementwise(logits, labels)
        if self.weight is not None:
            loss = loss * self.weight
        return self.get_loss(loss)


class BCEWithLogitsLoss(LossBase):
    """`nn.BCEWithLogitsLoss(reduction='mean', weight=None, pos_weight=None)`:
    sigmoid and binary cross entropy in one, in the stable form."""

    def __init__(self, reduction: str = "mean", weight: Any = None, pos_weight: Any = None):
        super().__init__(reduction)
        self.weight = _optional_tensor(weight, "weight", "BCEWithLogitsLoss")
        self.pos_weight = _optional_tensor(pos_weight, "pos_weight", "BCEWithLogitsLoss")

    def construct(self, logits, labels):
        loss = pointwise.bce_with_logits_elementwise(logits, labels, self.pos_weight)
        if self.weight is not None:
            loss = loss * self.weight
        return self.get_loss(loss)


def _one_hot(labels: Any, classes: int, dtype: Any) -> Any:
    """Class indices -> one-hot rows of `classes` (an index outside 0..classes-1
    gives a row of zeros, like MindSpore's OneHot)."""
    if labels.dtype.is_float or labels.dtype.is_bool:
        raise TypeError(
            "For 'SoftmaxCrossEntropyWithLogits', with sparse=True the labels must be "
            f"class indices (an int tensor), got {labels.dtype}"
        )
    if labels.dtype not in (D.int32, D.int64):
        labels = ops.cast(labels, D.int32)
    on, off = (Tensor(np.array(v, dtype.numpy)) for v in (1, 0))
    return ops.one_hot(labels, classes, on, off)


def _log_softmax(logits: Any, axis: int) -> Any:
    """log(softmax(x)) = (x - max) - log(sum(exp(x - max)))."""
    shifted = ops.sub(logits, ops.reduce_max(logits, axis, True))
    return ops.sub(shifted, ops.log(ops.reduce_sum(ops.exp(shifted), axis, True)))


class SoftmaxCrossEntropyWithLogits(LossBase):
    """`nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction='none')`: the cross
    entropy of softmax(logits) over the last axis against `labels` (probabilities
    of the same shape, or class indices of shape logits.shape[:-1] if `sparse`)."""

    def __init__(self, sparse: bool = False, reduction: str = "none"):
        super().__init__(reduction)
        if not isinstance(sparse, bool):
            raise TypeError(
                f"For 'SoftmaxCrossEntropyWithLogits', 'sparse' must be a bool, got {sparse!r}"
            )
        self.sparse = sparse

    def construct(self, logits, labels):
        if self.sparse:
            labels = _one_hot(labels, logits.shape[-1], logits.dtype)
        log_probs = _log_softmax(logits, -1)
        x = ops.neg(ops.reduce_sum(labels * log_probs, -1))
        return self.get_loss(x)

    def extend_repr(self) -> str:
        return f"sparse={self.sparse}, reduction={self.reduction}"


class CrossEntropyLoss(LossBase):
    """`nn.CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean',
    label_smoothing=0.0)`: `ops.cross_entropy` of logits (N, C, d1...) or (C,)
    against class indices or class probabilities."""

    def __init__(
        self,
        weight: Any = None,
        ignore_index: int = -100,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ):
        super().__init__(reduction)
        self.weight = _optional_tensor(weight, "weight", "CrossEntropyLoss")
        losses.check_ignore_index(ignore_index, "CrossEntropyLoss")
        self.ignore_index = ignore_index
        self.label_smoothing = losses.check_smoothing(label_smoothing, "CrossEntropyLoss")

    def construct(self, logits, labels):
        return ops.cross_entropy(
            logits, labels, self.weight, self.ignore_index, self.reduction, self.label_smoothing
        )


class NLLLoss(LossBase):
    """`nn.NLLLoss(weight=None, ignore_index=-100, reduction='mean')`: `ops.nll_loss`
    of log-probabilities against class indices."""

    def __init__(self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean"):
        super().__init__(reduction)
        self.weight = _optional_tensor(weight, "weight", "NLLLoss")
        losses.check_ignore_index(ignore_index, "NLLLoss")
        self.ignore_index = ignore_index

    def construct(self, logits, labels):
        return ops.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class L1Loss(LossBase):
    """`nn.L1Loss(reduction='mean')`: |logits - labels|, then the reduction."""

    def construct(self, logits, labels):
        x, y = losses.loss_pair(logits, labels, "L1Loss")
        return self.get_loss(ops.abs(ops.sub(x, y)))


class SmoothL1Loss(LossBase):
    """`nn.SmoothL1Loss(beta=1.0, reduction='none')`: 0.5 d^2 / beta where |d| < beta,
    else |d| - 0.5 beta (d = logits - labels); MindSpore's default keeps every element."""

    def __init__(self, beta: float = 1.0, reduction: str = "none"):
        super().__init__(reduction)
        self.beta = losses.check_beta(beta, "SmoothL1Loss")

    def construct(self, logits, labels):
        return ops.smooth_l1_loss(logits, labels, self.beta, self.reduction)

    def extend_repr(self) -> str:
        return f"beta={self.beta}, reduction={self.reduction}"


class HuberLoss(LossBase):
    """`nn.HuberLoss(reduction='mean', delta=1.0)`: 0.5 d^2 where |d| < delta, else
    delta (|d| - 0.5 delta) (d = logits - labels), then the reduction."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction)
        self.delta = pointwise.check_delta(delta, "HuberLoss")

    def construct(self, logits, labels):
        x, y = losses.loss_pair(logits, labels, "HuberLoss")
        return self.get_loss(pointwise.huber_elementwise(ops.sub(x, y), self.delta))

    def extend_repr(self) -> str:
        return f"reduction={self.reduction}, delta={self.delta}"


class KLDivLoss(Cell):
    """`nn.KLDivLoss(reduction='mean')`: `ops.kl_div` of log-probabilities `logits`
    against probabilities `labels` ('none', 'mean', 'sum' or 'batchmean')."""

    def __init__(self, reduction: str = "mean"):
        super().__init__()
        self.reduction = pointwise.check_kl_reduction(reduction, "KLDivLoss")

    def construct(self, logits, labels):
        return pointwise.kl_div(logits, labels, self.reduction)

    def extend_repr(self) -> str:
        return f"reduction={self.reduction}"


class CosineEmbeddingLoss(LossBase):
    """`nn.CosineEmbeddingLoss(margin=0.0, reduction='mean')(logits_x1, logits_x2, labels)`."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean"):
        super().__init__(reduction)
        if isinstance(margin, bool) or not isinstance(margin, float):
            raise TypeError(
                f"For 'CosineEmbeddingLoss', the type of 'margin' must be float, but got "
                f"{type(margin).__name__}."
            )
        if not -1.0 <= margin <= 1.0:
            raise ValueError(
                f"For 'CosineEmbeddingLoss', the 'margin' must be in range [-1.0, 1.0], but got "
                f"{margin}."
            )
        self.margin = margin

    def construct(self, logits_x1, logits_x2, labels):
        _check_shapes(logits_x1, logits_x2, labels)
        return self.get_loss(cosine_embedding_rows(logits_x1, logits_x2, labels, self.margin))


def _check_shapes(x1: Any, x2: Any, labels: Any) -> None:
    name = "CosineEmbeddingLoss"
    for what, v in (("logits_x1", x1), ("logits_x2", x2), ("labels", labels)):
        if not ops.is_tensor(v):
            raise TypeError(f"For '{name}', '{what}' must be a Tensor, but got {type(v).__name__}")
    if tuple(x1.shape) != tuple(x2.shape) or x1.dtype != x2.dtype:
        raise ValueError(
            f"For '{name}', 'logits_x1' and 'logits_x2' must have one shape and dtype, but got "
            f"{x1.shape} {x1.dtype} and {x2.shape} {x2.dtype}"
        )
    if len(x1.shape) < 2:
        raise ValueError(f"For '{name}', the rank of 'logits_x1' must be >= 2, but got {x1.shape}")
    want = tuple(x1.shape[:1]) + tuple(x1.shape[2:])
    if tuple(labels.shape) != want:
        raise ValueError(
            f"For '{name}', the shape of 'labels' must be {want} (logits_x1's without axis 1), "
            f"but got {labels.shape}"
        )


__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CosineEmbeddingLoss",
    "CrossEntropyLoss",
    "HuberLoss",
    "KLDivLoss",
    "L1Loss",
    "LossBase",
    "NLLLoss",
    "SmoothL1Loss",
    "MSELoss",
    "SoftmaxCrossEntropyWithLogits",
]
