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
from mindjit.frontend.nn.loss import REDUCTIONS, LossBase
from mindjit.frontend.nn.nonlinear import ReLU6
from mindjit.frontend.tensor import Tensor

_HALF_LN_2PI = 0.5 * math.log(2 * math.pi)


def _tensor(value: Any, what: str, owner: str) -> Any:
    if not ops.is_tensor(value):
        raise TypeError(
            f"For '{owner}', the '{what}' must be a Tensor, but got {type(value).__name__}."
        )
    return value


def _float_value(value: Any, what: str, owner: str, allow_int: bool = False) -> float:
    kinds = (int, float) if allow_int else (float,)
    if isinstance(value, bool) or not isinstance(value, kinds):
        want = "float' or 'int" if allow_int else "float"
        raise TypeError(
            f"For '{owner}', the type of '{what}' should be '{want}', but got type "
            f"'{type(value).__name__}'."
        )
    return float(value)


def _check_reduction(reduction: Any, owner: str) -> str:
    if reduction not in REDUCTIONS:
        raise ValueError(
            f"For '{owner}', the 'reduction' must be in ['mean', 'sum', 'none'], but got "
            f"{reduction}."
        )
    return reduction


def _reduce(x: Any, reduction: str) -> Any:
    if reduction == "none":
        return x
    axes = tuple(range(len(x.shape)))
    return ops.reduce_mean(x, axes) if reduction == "mean" else ops.reduce_sum(x, axes)


def _softplus(x: Any) -> Any:
    """log(1 + exp(x)) without overflow: max(x, 0) + log(1 + exp(-|x|))."""
    return ops.add(ops.maximum(x, 0.0), ops.log(ops.add(ops.exp(ops.neg(ops.abs(x))), 1.0)))


def _same_shape(a: Any, b: Any, what: str, owner: str) -> None:
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(
            f"For '{owner}', the shape of '{what}' must be {tuple(a.shape)}, but got "
            f"{tuple(b.shape)}."
        )


def _same_dtype(a: Any, b: Any, names: str, owner: str) -> None:
    if a.dtype != b.dtype:
        raise TypeError(
            f"For '{owner}', the dtypes of {names} must be the same, but got {a.dtype} and "
            f"{b.dtype}."
        )


def _broadcastable(a: Any, b: Any, names: str, owner: str) -> None:
    sa, sb = tuple(a.shape), tuple(b.shape)
    for x, y in zip(reversed(sa), reversed(sb)):
        if x != y and 1 not in (x, y):
            raise ValueError(
                f"For '{owner}', the shapes of {names} must broadcast, but got {sa} and {sb}."
            )


def _reject_unsigned(x: Any, owner: str) -> None:
    if x.dtype in (D.uint8, D.uint16, D.uint32, D.uint64):
        raise TypeError(
            f"For '{owner}', the parameters data type must not be in [UInt8, UInt16, UInt32, "
            f"UInt64], but got mindspore.{str(x.dtype).lower()}."
        )


# --- elementwise distances ---------------------------------------------------------------


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


class MarginRankingLoss(LossBase):
    """`nn.MarginRankingLoss(margin=0.0, reduction='mean')(input1, input2, target)`:
    max(0, -target (input1 - input2) + margin)."""

    def __init__(self, margin: float = 0.0, reduction: str = "mean"):
        super().__init__(reduction)
        self.margin = margin

    def construct(self, input1, input2, target):
        name = "margin_ranking_loss"
        margin = _float_value(self.margin, "margin", name)
        for what, v in (("input1", input1), ("input2", input2), ("target", target)):
            _tensor(v, what, name)
        _same_dtype(input1, input2, "'input1' and 'input2'", name)
        _same_dtype(target, input1, "'target' and 'input1'", name)
        _broadcastable(input1, input2, "'input1' and 'input2'", name)
        x = ops.maximum(ops.add(ops.neg(ops.mul(target, ops.sub(input1, input2))), margin), 0.0)
        return _reduce(x, self.reduction)

    def extend_repr(self) -> str:
        return f"margin={self.margin}, reduction={self.reduction}"


class SoftMarginLoss(LossBase):
    """`nn.SoftMarginLoss(reduction='mean')`: log(1 + exp(-labels * logits))."""

    def __init__(self, reduction: str = "mean"):
        super().__init__(_check_reduction(reduction, "SoftMarginLoss"))

    def construct(self, logits, labels):
        name = "SoftMarginLoss"
        _tensor(logits, "logits", name)
        _tensor(labels, "labels", name)
        _same_shape(logits, labels, "labels", name)
        _same_dtype(logits, labels, "'logits' and 'labels'", name)
        return _reduce(_softplus(ops.neg(ops.mul(labels, logits))), self.reduction)


class HingeEmbeddingLoss(LossBase):
    """`nn.HingeEmbeddingLoss(margin=1.0, reduction='mean')`: logits where labels > 0,
    max(0, margin - logits) where labels < 0."""

    def __init__(self, margin: float = 1.0, reduction: str = "mean"):
        name = "HingeEmbeddingLoss"
        if isinstance(margin, bool) or not isinstance(margin, int | float):
            raise TypeError(
                f"For '{name}', the type of 'margin' should be one of '['float', 'int']', but "
                f"got type '{type(margin).__name__}'."
            )
        super().__init__(_check_reduction(reduction, name))
        self.margin = margin

    def construct(self, logits, labels):
        name = "HingeEmbeddingLoss"
        _tensor(logits, "first input", name)
        _tensor(labels, "second input", name)
        for what, v in (("first", logits), ("second", labels)):
            if not v.dtype.is_float:
                raise TypeError(
                    f"For '{name}', the dtype of the {what} input must be float, but got {v.dtype}."
                )
        pos = ops.cast(ops.greater(labels, 0), logits.dtype)
        neg = ops.cast(ops.less(labels, 0), logits.dtype)
        hinge = ops.maximum(ops.mul(ops.sub(float(self.margin), logits), neg), 0.0)
        return _reduce(ops.add(ops.mul(pos, logits), hinge), self.reduction)

    def extend_repr(self) -> str:
        return f"margin={self.margin}, reduction={self.reduction}"


# --- multi-class margins ------------------------------------------------------------------


class MultiLabelSoftMarginLoss(LossBase):
    """`nn.MultiLabelSoftMarginLoss(weight=None, reduction='mean')(x, target)`."""

    def __init__(self, weight: Any = None, reduction: str = "mean"):
        super().__init__(_check_reduction(reduction, "MultiLabelSoftMarginLoss"))
        self.weight = weight

    def construct(self, x, target):
        name = "multilabel_soft_margin_loss"
        _tensor(x, "input", name)
        _tensor(target, "target", name)
        t = ops.cast(target, x.dtype)
        loss = ops.add(ops.mul(t, _softplus(ops.neg(x))), ops.mul(ops.sub(1.0, t), _softplus(x)))
        if self.weight is not None:
            loss = ops.mul(loss, self.weight)
        class_dim = len(x.shape) - 1
        loss = ops.div(ops.reduce_sum(loss, class_dim), float(x.shape[class_dim]))
        return _reduce(loss, self.reduction)


def _rows_and_classes(x: Any, name: str) -> None:
    if len(x.shape) != 2:
        raise ValueError(f"For '{name}', 'x' must be 2-D (N, C), but got shape {tuple(x.shape)}.")


class MultiMarginLoss(LossBase):
    """`nn.MultiMarginLoss(p=1, margin=1.0, reduction='mean', weight=None)(x, target,
    weight=None)`: x (N, C), target (N,) int64 class indices."""

    def __init__(
        self, p: int = 1, margin: float = 1.0, reduction: str = "mean", weight: Any = None
    ):
        name = "MultiMarginLoss"
        if isinstance(p, bool) or not isinstance(p, int):
            raise TypeError(f"For '{name}', the type of 'p' should be 'int', but got {p!r}.")
        if p not in (1, 2):
            raise ValueError(f"For '{name}', 'p' should be 1 or 2, but got {p}.")
        super().__init__(_check_reduction(reduction, name))
        self.p = p
        self.margin = _float_value(margin, "margin", name, allow_int=True)
        self.weight = weight

    def construct(self, x, target, weight=None):
        name = "MultiMarginLoss"
        _tensor(x, "x", name)
        _tensor(target, "target", name)
        if target.dtype != D.int64:
            raise TypeError(
                f"For primitive[{name}], the input argument[target] must be a type of "
                f"{{Tensor[Int64]}}, but got Tensor[{target.dtype}]."
            )
        _rows_and_classes(x, name)
        if tuple(target.shape) != tuple(x.shape[:1]):
            raise ValueError(
                f"For '{name}', the shape of 'target' must be {tuple(x.shape[:1])}, but got "
                f"{tuple(target.shape)}."
            )
        if self.weight is not None:
            weight = self.weight
        classes = x.shape[1]
        index = ops.expand_dims(ops.cast(target, D.int32), 1)
        x_y = ops.gather_elements(x, 1, index)  # (N, 1)
        margins = ops.maximum(ops.add(ops.sub(x, x_y), self.margin), 0.0)
        if self.p == 2:
            margins = ops.square(margins)
        if weight is not None:
            margins = ops.mul(margins, ops.gather(weight, ops.cast(target, D.int32), 0)[:, None])
        others = ops.not_equal(ops.arange(0, classes, 1, dtype=D.int32)[None, :], index)
        loss = ops.reduce_sum(ops.select(others, margins, ops.zeros_like(margins)), 1)
        return _reduce(ops.div(loss, float(classes)), self.reduction)

    def extend_repr(self) -> str:
        return f"p={self.p}, margin={self.margin}, reduction={self.reduction}"


class MultilabelMarginLoss(LossBase):
    """`nn.MultilabelMarginLoss(reduction='mean')(x, target)`: x (C,) or (N, C), target
    int32 of the same shape holding class indices, ended by the first -1."""

    def __init__(self, reduction: str = "mean"):
        super().__init__(_check_reduction(reduction, "MultilabelMarginLoss"))

    def construct(self, x, target):
        name = "MultilabelMarginLoss"
        _tensor(x, "x", name)
        _tensor(target, "target", name)
        if target.dtype != D.int32:
            raise TypeError(
                f"For primitive[{name}], the input argument[target] must be a type of "
                f"{{Tensor[Int32]}}, but got Tensor[{target.dtype}]."
            )
        _same_shape(x, target, "target", name)
        if len(x.shape) not in (1, 2):
            raise ValueError(f"For '{name}', 'x' must be 1-D or 2-D, but got {tuple(x.shape)}.")
        one_row = len(x.shape) == 1
        if one_row:
            x, target = ops.expand_dims(x, 0), ops.expand_dims(target, 0)
        classes = x.shape[1]
        # the targets before the first -1 (a 0/1 prefix mask), one-hot by class
        valid = ops.cumprod(ops.cast(ops.greater_equal(target, 0), D.int32), 1)
        hot = ops.one_hot(ops.maximum(target, 0), classes, Tensor(1.0), Tensor(0.0))
        counts = ops.reduce_sum(ops.mul(hot, ops.cast(valid, D.float32)[:, :, None]), 1)
        counts = ops.cast(counts, x.dtype)  # how often each class is a target (N, C)
        others = ops.cast(ops.equal(counts, 0.0), x.dtype)
        # hinge[n, j, i] = max(0, 1 - x[n, j] + x[n, i]), j a target, i not one
        hinge = ops.maximum(ops.add(ops.sub(x[:, None, :], x[:, :, None]), 1.0), 0.0)
        pair = ops.mul(counts[:, :, None], others[:, None, :])
        loss = ops.div(ops.reduce_sum(ops.mul(hinge, pair), (1, 2)), float(classes))
        if one_row and self.reduction == "none":
            loss = loss[0]
        return _reduce(loss, self.reduction)


# --- triplets --------------------------------------------------------------------------


def _lp_distance(u: Any, v: Any, p: float, eps: float) -> Any:
    d = ops.sub(u, v)
    if eps:
        d = ops.add(d, eps)
    d = ops.abs(d)
    if p == 1:
        return ops.reduce_sum(d, 1)
    if p == 2:
        return ops.sqrt(ops.reduce_sum(ops.square(d), 1))
    return ops.pow(ops.reduce_sum(ops.pow(d, float(p)), 1), 1.0 / p)


class TripletMarginLoss(LossBase):
    """`nn.TripletMarginLoss(p=2, swap=False, eps=1e-06, reduction='mean', margin=1.0)
    (x, positive, negative, margin=1.0)`: the margin given to the Cell wins unless it
    is 1.0, as in MindSpore."""

    def __init__(
        self,
        p: int = 2,
        swap: bool = False,
        eps: float = 1e-06,
        reduction: str = "mean",
        margin: float = 1.0,
    ):
        name = "TripletMarginLoss"
        if isinstance(p, bool) or not isinstance(p, int):
            raise TypeError(f"For '{name}', the type of 'p' should be 'int', but got {p!r}.")
        if not isinstance(swap, bool):
            raise TypeError(f"For '{name}', the type of 'swap' should be 'bool', but got {swap!r}.")
        super().__init__(_check_reduction(reduction, name))
        self.p = p
        self.swap = swap
        self.eps = _float_value(eps, "eps", name)
        self.margin = _float_value(margin, "margin", name, allow_int=True)

    def construct(self, x, positive, negative, margin=1.0):
        name = "TripletMarginLoss"
        for what, v in (("x", x), ("positive", positive), ("negative", negative)):
            _tensor(v, what, name)
            if len(v.shape) < 2:
                raise ValueError(
                    f"For '{name}', the rank of '{what}' must be at least 2, but got "
                    f"{tuple(v.shape)}."
                )
        _same_dtype(x, positive, "'x' and 'positive'", name)
        _same_dtype(x, negative, "'x' and 'negative'", name)
        if self.margin != 1.0:
            margin = self.margin
        d_pos = _lp_distance(x, positive, self.p, self.eps)
        d_neg = _lp_distance(x, negative, self.p, self.eps)
        if self.swap:
            d_neg = ops.minimum(d_neg, _lp_distance(positive, negative, self.p, self.eps))
        loss = ops.maximum(ops.add(ops.sub(d_pos, d_neg), margin), 0.0)
        return _reduce(loss, self.reduction)

    def extend_repr(self) -> str:
        return (
            f"p={self.p}, swap={self.swap}, eps={self.eps}, reduction={self.reduction}, "
            f"margin={self.margin}"
        )


def _pairwise_distance(x: Any, y: Any) -> Any:
    """TripletMarginWithDistanceLoss's default: ||x - y||_2 over axis 1."""
    if not x.shape and not y.shape:
        raise ValueError(
            "For 'pairwise_distance' in 'TripletMarginWithDistanceLoss', 'ndim' of the input "
            "must be positive, but got 0"
        )
    return _lp_distance(x, y, 2, 0.0)


class TripletMarginWithDistanceLoss(LossBase):
    """`nn.TripletMarginWithDistanceLoss(distance_function=None, swap=False,
    reduction='mean', margin=1.0)(x, positive, negative)`."""

    def __init__(
        self,
        distance_function: Any = None,
        swap: bool = False,
        reduction: str = "mean",
        margin: float = 1.0,
    ):
        super().__init__(reduction)
        name = self.cls_name
        if isinstance(margin, bool) or not isinstance(margin, float):
            raise TypeError(
                f"For '{name}', the type of 'margin' must be 'float', but got "
                f"'{type(margin).__name__}'."
            )
        if not isinstance(swap, bool):
            raise TypeError(
                f"For '{name}', the type of 'swap' must be 'bool', but got '{type(swap).__name__}'."
            )
        self.distance_function = distance_function or _pairwise_distance
        self.swap = swap
        self.margin = margin

    def construct(self, x, positive, negative):
        for what, v in (("x", x), ("positive", positive), ("negative", negative)):
            _tensor(v, what, self.cls_name)
        d1 = self.distance_function(x, positive)
        d2 = self.distance_function(x, negative)
        if self.swap:
            d2 = ops.minimum(d2, self.distance_function(positive, negative))
        return self.get_loss(ops.maximum(ops.add(ops.sub(d1, d2), self.margin), 0.0))


# --- likelihoods ------------------------------------------------------------------------


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
        if tuple(logits.shape) != tuple(var.shape) and tuple(logits.shape[:-1]) == tuple(var.shape):
            var = ops.expand_dims(var, -1)
        var = ops.maximum(var, self.eps)
        loss = ops.mul(
            ops.add(ops.log(var), ops.div(ops.square(ops.sub(logits, labels)), var)), 0.5
        )
        if self.full:
            loss = ops.add(loss, _HALF_LN_2PI)
        return _reduce(loss, self.reduction)

    def extend_repr(self) -> str:
        return f"full={self.full}, eps={self.eps}, reduction={self.reduction}"


# --- segmentation and detection ---------------------------------------------------------


def _positive_float(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, float):
        raise TypeError(
            f"The type of '{what}' should be 'float', but got type '{type(value).__name__}'."
        )
    if not value > 0:
        raise ValueError(f"The '{what}' must be a positive float, but got {value}.")
    return value


class DiceLoss(LossBase):
    """`nn.DiceLoss(smooth=1e-5)(logits, label)`: 1 - 2 |x y| / (|x|^2 + |y|^2 + smooth)."""

    def __init__(self, smooth: float = 1e-5):
        super().__init__()
        self.smooth = _positive_float(smooth, "smooth")

    def construct(self, logits, label):
        name = self.cls_name
        _tensor(logits, "logits", name)
        _tensor(label, "labels", name)
        if tuple(logits.shape) != tuple(label.shape):
            raise ValueError(
                f"For '{name}', the 'logits_shape' should be = label_shape: "
                f"{tuple(label.shape)}, but got {tuple(logits.shape)}."
            )
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
        _tensor(logits, "logits", name)
        _tensor(label, "labels", name)
        if tuple(logits.shape) != tuple(label.shape):
            raise ValueError(
                f"For '{name}', the 'logits_shape' should be = label_shape: "
                f"{tuple(label.shape)}, but got {tuple(logits.shape)}."
            )
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
    "HingeEmbeddingLoss",
    "MAELoss",
    "MarginRankingLoss",
    "MultiClassDiceLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "MultilabelMarginLoss",
    "PoissonNLLLoss",
    "RMSELoss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
]
