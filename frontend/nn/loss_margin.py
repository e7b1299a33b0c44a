"""MindSpore 2.x's margin and ranking losses, composed of mindjit's ops (formulas
in loss_extra.py's docstring): MarginRankingLoss, SoftMarginLoss,
HingeEmbeddingLoss, MultiLabelSoftMarginLoss, MultiMarginLoss,
MultilabelMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss."""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.loss import LossBase
from mindjit.frontend.nn.loss_checks import (
    _broadcastable,
    _float_value,
    _rows_and_classes,
    _same_dtype,
    _same_shape,
    _softplus,
    _tensor,
)
from mindjit.frontend.ops.losses import check_reduction, reduce_loss
from mindjit.frontend.ops.margin_losses import (
    hinge_embedding_elementwise,
    margin_ranking_elementwise,
    multi_margin_rows,
    multilabel_soft_margin_rows,
)
from mindjit.frontend.tensor import Tensor


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
        x = margin_ranking_elementwise(input1, input2, target, margin)
        return reduce_loss(x, self.reduction)

    def extend_repr(self) -> str:
        return f"margin={self.margin}, reduction={self.reduction}"


class SoftMarginLoss(LossBase):
    """`nn.SoftMarginLoss(reduction='mean')`: log(1 + exp(-labels * logits))."""

    def __init__(self, reduction: str = "mean"):
        super().__init__(check_reduction(reduction, "SoftMarginLoss"))

    def construct(self, logits, labels):
        name = "SoftMarginLoss"
        _tensor(logits, "logits", name)
        _tensor(labels, "labels", name)
        _same_shape(logits, labels, "labels", name)
        _same_dtype(logits, labels, "'logits' and 'labels'", name)
        return reduce_loss(_softplus(ops.neg(ops.mul(labels, logits))), self.reduction)


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
        super().__init__(check_reduction(reduction, name))
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
        loss = hinge_embedding_elementwise(logits, labels, self.margin)
        return reduce_loss(loss, self.reduction)

    def extend_repr(self) -> str:
        return f"margin={self.margin}, reduction={self.reduction}"


# --- multi-class margins ------------------------------------------------------------------


class MultiLabelSoftMarginLoss(LossBase):
    """`nn.MultiLabelSoftMarginLoss(weight=None, reduction='mean')(x, target)`."""

    def __init__(self, weight: Any = None, reduction: str = "mean"):
        super().__init__(check_reduction(reduction, "MultiLabelSoftMarginLoss"))
        self.weight = weight

    def construct(self, x, target):
        name = "multilabel_soft_margin_loss"
        _tensor(x, "input", name)
        _tensor(target, "target", name)
        loss = multilabel_soft_margin_rows(x, target, self.weight)
        return reduce_loss(loss, self.reduction)


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
        super().__init__(check_reduction(reduction, name))
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
        loss = multi_margin_rows(x, target, self.p, self.margin, weight)
        return reduce_loss(loss, self.reduction)

    def extend_repr(self) -> str:
        return f"p={self.p}, margin={self.margin}, reduction={self.reduction}"


class MultilabelMarginLoss(LossBase):
    """`nn.MultilabelMarginLoss(reduction='mean')(x, target)`: x (C,) or (N, C), target
    int32 of the same shape holding class indices, ended by the first -1."""

    def __init__(self, reduction: str = "mean"):
        super().__init__(check_reduction(reduction, "MultilabelMarginLoss"))

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
        return reduce_loss(loss, self.reduction)


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
        super().__init__(check_reduction(reduction, name))
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
        return reduce_loss(loss, self.reduction)

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


__all__ = [
    "HingeEmbeddingLoss",
    "MarginRankingLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "MultilabelMarginLoss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
]
