"""The rest of MindSpore 2.x's loss Cells, each composed of mindjit's ops (so it runs
in PyNative mode, in a `@jit` graph and as a GRAPH_MODE Cell, and mindir-grad
differentiates it). Names, defaults, formulas and error types are MindSpore 2.10's:

- MAELoss: |x - y|; RMSELoss: sqrt(mean((x - y)^2)) (no reduction argument).
- MarginRankingLoss: max(0, -t (x1 - x2) + margin); margin must be a float.
- SoftMarginLoss: log(1 + exp(-y x)) (stable form), shapes must be equal.
- HingeEmbeddingLoss: x where t > 0, max(0, margin - x) where t < 0 (0 where t = 0).
- MultiLabelSoftMarginLoss: mean over the class axis (the last) of
  w [y log(1 + exp(-x)) + (1 - y) log(1 + exp(x))].
- MultiMarginLoss: per row, sum over i != y of w[y] max(0, margin - x[y] + x[i])^p / C.
- MultilabelMarginLoss: per row, the targets are the indices before the first -1;
  sum over targets j and non-targets i of max(0, 1 - (x[j] - x[i])) / C.
- TripletMarginLoss: max(d(a, p) - d(a, n) + margin, 0), d(u, v) = ||u - v + eps||_p
  over axis 1; with swap, d(a, n) is min(d(a, n), d(p, n)).
- TripletMarginWithDistanceLoss: the same with a distance function (default
  ||u - v||_2 over axis 1, no eps).
- PoissonNLLLoss: exp(x) - t x (log_input) or x - t log(x + eps); `full` adds
  Stirling's term t log t - t + 0.5 log(2 pi t) where t > 1.
- GaussianNLLLoss: 0.5 (log(max(var, eps)) + (x - t)^2 / max(var, eps)) (+ 0.5 log(2 pi)
  if full); var may lack the last axis.
- DiceLoss: 1 - 2 sum(x y) / (sum(x^2) + sum(y^2) + smooth) over all elements.
- MultiClassDiceLoss: the activation over the last axis, then the mean over the
  classes (axis 1) of DiceLoss per class, times weights[i], skipping ignore_indiex.
- FocalLoss: -(1 - p)^gamma log p with p the softmax over axis 1, against class
  indices (labels.shape[1] == 1) or per-class labels; the mean over the spatial
  positions, then the reduction.
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.layers import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from mindjit.frontend.nn.loss import LossBase
from mindjit.frontend.nn.loss_checks import (
    _positive_float,
    _reject_unsigned,
    _tensor,
)
from mindjit.frontend.nn.nonlinear import ReLU6
from mindjit.frontend.ops.losses import reduce_loss
from mindjit.frontend.ops.margin_losses import gaussian_nll_elementwise
from mindjit.frontend.tensor import Tensor

_HALF_LN_2PI = 0.5 * math.log(2 * math.pi)


class MAELoss(LossBase):
    """`nn.MAELoss(reduction='mean')`: |logits - label|, then the reduction."""

    def construct(self, logits, label):
        _tensor(logits, "logits", self.cls_name)
        _tensor(label, "labels", self.cls_name)
        return self.get_loss(ops.abs(ops.sub(logits, label)))


class RMSELoss(LossBase):
    """`nn.RMSELoss()`: sqrt(mean((logits - label)^2))."""

    def __init__(self):
        super().__init__()

    def construct(self, logits, label):
        _reject_unsigned(logits, "RMSELoss")
        _reject_unsigned(label, "RMSELoss")
        return ops.sqrt(self.get_loss(ops.square(ops.sub(logits, label))))


class PoissonNLLLoss(LossBase):
    """`nn.PoissonNLLLoss(log_input=True, full=False, eps=1e-08, reduction='mean')
    (input, target)`."""

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        eps: float = 1e-08,
        reduction: str = "mean",
    ):
        super().__init__(reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def construct(self, input, target):  # noqa: A002 - MindSpore's name
        _tensor(input, "input", self.cls_name)
        _tensor(target, "target", self.cls_name)
        target = ops.cast(target, input.dtype)
        if self.log_input:
            loss = ops.sub(ops.exp(input), ops.mul(target, input))
        else:
            loss = ops.sub(input, ops.mul(target, ops.log(ops.add(input, self.eps))))
        if self.full:
            t = ops.maximum(target, self.eps)
            stirling = ops.add(ops.sub(ops.mul(ops.add(t, 0.5), ops.log(t)), t), _HALF_LN_2PI)
            loss = ops.add(loss, ops.select(ops.greater(t, 1.0), stirling, ops.zeros_like(t)))
        return self.get_loss(loss)

    def extend_repr(self) -> str:
        return (
            f"log_input={self.log_input}, full={self.full}, eps={self.eps}, "
            f"reduction={self.reduction}"
        )


class GaussianNLLLoss(LossBase):
    """`nn.GaussianNLLLoss(*, full=False, eps=1e-06, reduction='mean')(logits, labels,
    var)`."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
        super().__init__()
        name = self.cls_name
        if isinstance(eps, bool) or not isinstance(eps, float):
            raise TypeError(
                f"For '{name}', the 'eps' must be 'float',  but got '{type(eps).__name__}'."
            )
        if not eps > 0:
            raise ValueError(
                f"For '{name}', the 'eps' must be in range of (0, inf), but got {eps} with "
                "type 'float'."
            )
        if not isinstance(full, bool):
            raise TypeError(
                f"For '{name}', the type of 'full' should be 'bool', but got type "
                f"'{type(full).__name__}'."
            )
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(
                "For 'gaussian_nll_loss', the 'reduction' should be in ['none', 'mean', 'sum'], "
                f"but got '{reduction}'."
            )
        self.full = full
        self.eps = eps
        self.reduction = reduction

    def construct(self, logits, labels, var):
        for what, v in (("logits", logits), ("labels", labels), ("var", var)):
            _tensor(v, what, self.cls_name)
        loss = gaussian_nll_elementwise(logits, labels, var, self.full, self.eps)
        return reduce_loss(loss, self.reduction)

    def extend_repr(self) -> str:
        return f"full={self.full}, eps={self.eps}, reduction={self.reduction}"


# --- segmentation and detection ---------------------------------------------------------


def _dice_inputs(logits: Any, label: Any, name: str) -> None:
    """DiceLoss's and MultiClassDiceLoss's checks: two tensors of one shape."""
    _tensor(logits, "logits", name)
    _tensor(label, "labels", name)
    if tuple(logits.shape) != tuple(label.shape):
        raise ValueError(
            f"For '{name}', the 'logits_shape' should be = label_shape: "
            f"{tuple(label.shape)}, but got {tuple(logits.shape)}."
        )


class DiceLoss(LossBase):
    """`nn.DiceLoss(smooth=1e-5)(logits, label)`: 1 - 2 |x y| / (|x|^2 + |y|^2 + smooth)."""

    def __init__(self, smooth: float = 1e-5):
        super().__init__()
        self.smooth = _positive_float(smooth, "smooth")

    def construct(self, logits, label):
        name = self.cls_name
        _dice_inputs(logits, label, name)
        for what, v in (("logits", logits), ("labels", label)):
            if v.dtype == D.uint8:
                raise TypeError(f"For '{name}', the dtype of '{what}' can not be uint8.")
        x, y = ops.reshape(logits, (-1,)), ops.reshape(label, (-1,))
        intersection = ops.reduce_sum(ops.mul(x, y))
        union = ops.add(ops.reduce_sum(ops.mul(x, x)), ops.reduce_sum(ops.mul(y, y)))
        return ops.sub(1, ops.div(ops.mul(intersection, 2), ops.add(union, self.smooth)))


_DICE_ACTIVATIONS = {
    "softmax": Softmax,
    "logsoftmax": LogSoftmax,
    "relu": ReLU,
    "relu6": ReLU6,
    "tanh": Tanh,
    "sigmoid": Sigmoid,
}


class MultiClassDiceLoss(LossBase):
    """`nn.MultiClassDiceLoss(weights=None, ignore_indiex=None, activation='softmax')
    (logits, label)`: logits and label (N, C, ...), label one-hot over axis 1."""

    def __init__(self, weights: Any = None, ignore_indiex: Any = None, activation: Any = "softmax"):
        super().__init__()
        name = self.cls_name
        self.binarydiceloss = DiceLoss(smooth=1e-5)
        if weights is not None:
            if not isinstance(weights, Tensor):
                raise TypeError(
                    f"For '{name}', the type of 'weights' should be 'Tensor', but got type "
                    f"'{type(weights).__name__}'."
                )
            if len(weights.shape) != 2:
                raise ValueError(
                    f"For '{name}', the dimension of 'weights' must be 2, but got "
                    f"{len(weights.shape)}."
                )
        self.weights = weights
        if ignore_indiex is not None and (
            isinstance(ignore_indiex, bool) or not isinstance(ignore_indiex, int)
        ):
            raise TypeError(
                f"For '{name}', the type of 'ignore_indiex' should be 'int', but got type "
                f"'{type(ignore_indiex).__name__}'."
            )
        self.ignore_indiex = ignore_indiex
        if isinstance(activation, str):
            if activation not in _DICE_ACTIVATIONS:
                raise ValueError(
                    f"For '{name}', the 'activation' must be in {list(_DICE_ACTIVATIONS)}, "
                    f"but got {activation}."
                )
            activation = _DICE_ACTIVATIONS[activation]()
        if activation is not None and not isinstance(activation, Cell):
            raise TypeError(
                f"For '{name}', the 'activation' must be str or Cell, but got {type(activation)}."
            )
        self.activation = activation

    def construct(self, logits, label):
        name = self.cls_name
        _dice_inputs(logits, label, name)
        if len(logits.shape) < 2:
            raise ValueError(
                f"For '{name}', the 'logits' dimension must be greater than 1, but got "
                f"{len(logits.shape)}."
            )
        classes = label.shape[1]
        if self.weights is not None and self.weights.shape[0] != classes:
            raise ValueError(
                f"For '{name}', the weight_shape[0] must be equal to label_shape[1], but got "
                f"weight_shape[0]: {self.weights.shape[0]} and label_shape[1]: {classes}."
            )
        if self.activation is not None:
            logits = self.activation(logits)
        total_loss = 0
        for i in range(classes):
            if i != self.ignore_indiex:
                dice_loss = self.binarydiceloss(logits[:, i], label[:, i])
                if self.weights is not None:
                    dice_loss = dice_loss * self.weights[i]
                total_loss = total_loss + dice_loss
        return total_loss / classes


class FocalLoss(LossBase):
    """`nn.FocalLoss(weight=None, gamma=2.0, reduction='mean')(logits, labels)`: logits
    (N, C) or (N, C, H) or (N, C, H, W); labels of the same rank with 1 or C channels."""

    def __init__(self, weight: Any = None, gamma: float = 2.0, reduction: str = "mean"):
        super().__init__(reduction)
        name = self.cls_name
        if isinstance(gamma, bool) or not isinstance(gamma, float):
            raise TypeError(
                f"The type of 'gamma' should be 'float', but got type '{type(gamma).__name__}'."
            )
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(
                f"For '{name}', the type of 'weight' must be a Tensor, but got "
                f"{type(weight).__name__}."
            )
        if isinstance(weight, Tensor) and len(weight.shape) != 1:
            raise ValueError(
                f"For '{name}', the dimension of 'weight' must be 1, but got {len(weight.shape)}."
            )
        self.gamma = gamma
        self.weight = weight

    def _check(self, logits: Any, labels: Any) -> None:
        name = self.cls_name
        for what, v in (("logits", logits), ("labels", labels)):
            if not 2 <= len(v.shape) <= 4:
                raise ValueError(
                    f"For '{name}', the dimensions of '{what}' must be in [2, 4], but got "
                    f"dimension of '{what}' {len(v.shape)}."
                )
        if len(logits.shape) != len(labels.shape):
            raise ValueError(
                f"For '{name}', the dimensions of 'logits' and 'labels' must be equal, but got "
                f"dimension of 'logits' {len(logits.shape)} and dimension of 'labels' "
                f"{len(labels.shape)}."
            )
        channels = logits.shape[1]
        if channels == 1:
            raise ValueError(f"For '{name}', the 'logits'.shape[1] cannot be one, but got 1.")
        if labels.shape[1] not in (1, channels):
            raise ValueError(
                f"For '{name}', the 'labels'.shape[1] must be one or equal to 'logits'.shape[1]: "
                f"{channels}, but got {labels.shape[1]}."
            )
        if labels.dtype not in (D.int32, D.int64, D.float16, D.float32):
            raise TypeError(
                f"For '{name}', the 'labels' should be one of [mindspore.int32, mindspore.int64, "
                f"mindspore.float16, mindspore.float32], but got 'mindspore.{labels.dtype}'."
            )

    def construct(self, logits, labels):
        _tensor(logits, "logits", self.cls_name)
        _tensor(labels, "labels", self.cls_name)
        self._check(logits, labels)
        indices = labels.shape[1] == 1
        if len(logits.shape) > 2:
            logits = ops.reshape(logits, (logits.shape[0], logits.shape[1], -1))
            labels = ops.reshape(labels, (labels.shape[0], labels.shape[1], -1))
        else:
            logits = ops.expand_dims(logits, 2)
            labels = ops.expand_dims(labels, 2)
        log_probability = ops.log_softmax(logits, 1)
        if indices:
            index = ops.cast(labels, D.int32)
            log_probability = ops.squeeze(ops.gather_elements(log_probability, 1, index), 1)
        probability = ops.exp(log_probability)
        if self.weight is not None:
            weight = ops.tile(self.weight[None, :, None], (labels.shape[0], 1, labels.shape[2]))
            if indices:
                weight = ops.squeeze(ops.gather_elements(weight, 1, index), 1)
            log_probability = ops.mul(log_probability, weight)
        modulating = ops.pow(ops.sub(1.0, probability), self.gamma)
        loss = ops.neg(ops.mul(modulating, log_probability))
        if indices:
            loss = ops.reduce_mean(loss, 1)
        else:
            loss = ops.reduce_mean(ops.mul(loss, ops.cast(labels, loss.dtype)), -1)
        return self.get_loss(loss)

    def extend_repr(self) -> str:
        return f"gamma={self.gamma}, reduction={self.reduction}"


__all__ = [
    "DiceLoss",
    "FocalLoss",
    "GaussianNLLLoss",
    "MAELoss",
    "MultiClassDiceLoss",
    "PoissonNLLLoss",
    "RMSELoss",
]
