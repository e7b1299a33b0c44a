"""The margin, embedding and Gaussian losses as ops functions (`ops.margin_ranking_loss`,
`multi_margin_loss`, `multilabel_soft_margin_loss`, `hinge_embedding_loss`,
`gaussian_nll_loss`, `cosine_embedding_loss`).

Each formula is written once here (the `*_elementwise` / per-sample helpers);
the nn Cells of the same names keep their own argument checks (MindSpore's
Cells and functions word their errors differently) and call these. The ops
functions check as MindSpore 2.10's functions do, then reduce with
ops.losses.reduce_loss.
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import cast, expand_dims, zeros_like
from mindjit.frontend.ops.creation import arange
from mindjit.frontend.ops.gather_ops import gather, gather_elements
from mindjit.frontend.ops.losses import check_reduction, reduce_loss
from mindjit.frontend.ops.math import (
    abs,
    add,
    div,
    equal,
    exp,
    greater,
    less,
    log,
    maximum,
    mul,
    neg,
    not_equal,
    select,
    sqrt,
    square,
    sub,
)
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.reduce import reduce_sum

HALF_LN_2PI = 0.5 * math.log(2 * math.pi)


def softplus_stable(x: Any) -> Any:
    """log(1 + exp(x)) without overflow: max(x, 0) + log(1 + exp(-|x|))."""
    return add(maximum(x, 0.0), log(add(exp(neg(abs(x))), 1.0)))


def _tensors(name: str, **values: Any) -> None:
    for what, v in values.items():
        if not is_tensor(v):
            raise TypeError(f"For '{name}', '{what}' must be a Tensor, but got {type(v).__name__}")


# --- the formulas ----------------------------------------------------------------------


def margin_ranking_elementwise(input1: Any, input2: Any, target: Any, margin: float) -> Any:
    """max(0, -target * (input1 - input2) + margin)."""
    return maximum(add(neg(mul(target, sub(input1, input2))), margin), 0.0)


def hinge_embedding_elementwise(logits: Any, labels: Any, margin: float) -> Any:
    """logits where labels > 0, max(0, margin - logits) where labels < 0."""
    pos = cast(greater(labels, 0), logits.dtype)
    neg_ = cast(less(labels, 0), logits.dtype)
    hinge = maximum(mul(sub(float(margin), logits), neg_), 0.0)
    return add(mul(pos, logits), hinge)


def multilabel_soft_margin_rows(x: Any, target: Any, weight: Any) -> Any:
    """Per sample: the mean over classes (last axis) of the two-sided logistic loss."""
    t = cast(target, x.dtype)
    loss = add(mul(t, softplus_stable(neg(x))), mul(sub(1.0, t), softplus_stable(x)))
    if weight is not None:
        loss = mul(loss, weight)
    axis = len(x.shape) - 1
    return div(reduce_sum(loss, axis), float(x.shape[axis]))


def multi_margin_rows(x: Any, target: Any, p: int, margin: float, weight: Any) -> Any:
    """Per sample n: sum over classes i != y of max(0, margin - x[y] + x[i]) ** p
    (times weight[y]) / C; x (N, C), target (N,) class indices."""
    classes = x.shape[1]
    index = expand_dims(cast(target, D.int32), 1)
    x_y = gather_elements(x, 1, index)  # (N, 1)
    margins = maximum(add(sub(x, x_y), margin), 0.0)
    if p == 2:
        margins = square(margins)
    if weight is not None:
        margins = mul(margins, expand_dims(gather(weight, cast(target, D.int32), 0), 1))
    others = not_equal(expand_dims(arange(0, classes, 1, dtype=D.int32), 0), index)
    loss = reduce_sum(select(others, margins, zeros_like(margins)), 1)
    return div(loss, float(classes))


def gaussian_nll_elementwise(x: Any, target: Any, var: Any, full: bool, eps: float) -> Any:
    """(log(max(var, eps)) + (x - target)^2 / max(var, eps)) / 2 (+ log(2 pi) / 2); a
    var missing x's last axis gets it back."""
    if tuple(x.shape) != tuple(var.shape) and tuple(x.shape[:-1]) == tuple(var.shape):
        var = expand_dims(var, -1)
    var = maximum(var, eps)
    loss = mul(add(log(var), div(square(sub(x, target)), var)), 0.5)
    return add(loss, HALF_LN_2PI) if full else loss


def cosine_embedding_rows(x1: Any, x2: Any, labels: Any, margin: float) -> Any:
    """1 - cos(x1, x2) where labels == 1, max(0, cos - margin) where labels == -1; the
    cosine along axis 1."""
    prod = reduce_sum(mul(x1, x2), (1,))
    norm = mul(sqrt(reduce_sum(square(x1), (1,))), sqrt(reduce_sum(square(x2), (1,))))
    cosine = div(prod, norm)
    zeros = zeros_like(cosine)
    pos = select(equal(labels, 1), sub(1.0, cosine), zeros)
    neg_ = select(equal(labels, -1), maximum(sub(cosine, margin), 0.0), zeros)
    return add(pos, neg_)


# --- the ops functions -----------------------------------------------------------------


def margin_ranking_loss(
    input1: Any, input2: Any, target: Any, margin: float = 0.0, reduction: str = "mean"
) -> Any:
    """`ops.margin_ranking_loss`."""
    name = "margin_ranking_loss"
    if isinstance(margin, bool) or not isinstance(margin, float):
        raise TypeError(
            f"For '{name}', the type of 'margin' should be 'float', but got type "
            f"'{type(margin).__name__}'."
        )
    check_reduction(reduction, name)
    _tensors(name, input1=input1, input2=input2, target=target)
    for what, v in (("input2", input2), ("target", target)):
        if v.dtype != input1.dtype:
            raise TypeError(
                f"For {name}, the input1 dtype should be equal to {what} dtype, but got input1 "
                f"dtype:{input1.dtype}, {what} dtype:{v.dtype}."
            )
    return reduce_loss(margin_ranking_elementwise(input1, input2, target, margin), reduction)


def multi_margin_loss(
    input: Any,
    target: Any,
    p: int = 1,
    margin: int = 1,
    weight: Any = None,
    reduction: str = "mean",
) -> Any:
    """`ops.multi_margin_loss`: input (N, C), target (N,) int64."""
    name = "multi_margin_loss"
    if isinstance(p, bool) or not isinstance(p, int) or p not in (1, 2):
        raise ValueError(
            f"For 'MultiMarginLoss', the 'p' must be int and must in {{1, 2}}, but got '{p}' "
            f"with type '{type(p).__name__}'."
        )
    if isinstance(margin, bool) or not isinstance(margin, int):
        raise TypeError(f"For '{name}', the type of 'margin' must be int, but got {type(margin)}.")
    check_reduction(reduction, name)
    _tensors(name, input=input, target=target)
    if target.dtype != D.int64:
        raise TypeError(
            "For primitive[MultiMarginLoss], the input argument[target] must be a type of "
            f"{{Tensor[Int64]}}, but got Tensor[{target.dtype}]."
        )
    if len(input.shape) != 2 or tuple(target.shape) != tuple(input.shape[:1]):
        raise ValueError(
            f"For '{name}', 'input' must be (N, C) and 'target' (N,), but got "
            f"{tuple(input.shape)} and {tuple(target.shape)}."
        )
    if weight is not None:
        _tensors(name, weight=weight)
    rows = multi_margin_rows(input, target, p, float(margin), weight)
    return reduce_loss(rows, reduction)


def multilabel_soft_margin_loss(
    input: Any, target: Any, weight: Any = None, reduction: str = "mean"
) -> Any:
    """`ops.multilabel_soft_margin_loss`: input (N, C), target 0/1 of the same shape."""
    name = "multilabel_soft_margin_loss"
    check_reduction(reduction, name)
    _tensors(name, input=input, target=target)
    return reduce_loss(multilabel_soft_margin_rows(input, target, weight), reduction)


def hinge_embedding_loss(
    inputs: Any, targets: Any, margin: float = 1.0, reduction: str = "mean"
) -> Any:
    """`ops.hinge_embedding_loss`: targets 1 or -1 (broadcast against inputs)."""
    name = "HingeEmbeddingLoss"
    if isinstance(margin, bool) or not isinstance(margin, float | int):
        raise TypeError(f"For '{name}', 'margin' must be a float or int, but got {type(margin)}.")
    check_reduction(reduction, name)
    _tensors(name, inputs=inputs, targets=targets)
    if not inputs.dtype.is_float:
        raise TypeError(f"For '{name}', the dtype of 'inputs' must be float, got {inputs.dtype}.")
    return reduce_loss(hinge_embedding_elementwise(inputs, targets, margin), reduction)


def gaussian_nll_loss(
    x: Any,
    target: Any,
    var: Any,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Any:
    """`ops.gaussian_nll_loss`: var of x's shape, or missing its last axis, or broadcast."""
    name = "gaussian_nll_loss"
    _tensors(name, x=x, target=target, var=var)
    if not isinstance(full, bool):
        raise TypeError(f"For '{name}', 'full' must be a bool, but got {type(full).__name__}.")
    if isinstance(eps, bool) or not isinstance(eps, float) or eps <= 0:
        raise ValueError(f"For '{name}', 'eps' must be a positive float, but got {eps}.")
    check_reduction(reduction, name)
    return reduce_loss(gaussian_nll_elementwise(x, target, var, full, eps), reduction)


def cosine_embedding_loss(
    input1: Any, input2: Any, target: Any, margin: float = 0.0, reduction: str = "mean"
) -> Any:
    """`ops.cosine_embedding_loss`: the cosine along axis 1; target 1 or -1."""
    name = "cosine_embedding_loss"
    _tensors(name, input1=input1, input2=input2, target=target)
    if isinstance(margin, bool) or not isinstance(margin, float | int):
        raise TypeError(f"For '{name}', 'margin' must be a float, but got {type(margin)}.")
    if not -1.0 <= margin <= 1.0:
        raise ValueError(
            f"For ops.cosine_embedding_loss, the value of 'margin' should be in [-1, 1],but got "
            f"{margin}."
        )
    check_reduction(reduction, name)
    if tuple(input1.shape) != tuple(input2.shape):
        raise ValueError(
            f"For '{name}', 'input1' and 'input2' must have one shape, but got "
            f"{tuple(input1.shape)} and {tuple(input2.shape)}."
        )
    if len(input1.shape) < 2:
        raise ValueError(f"For '{name}', the rank of 'input1' must be >= 2, got {input1.shape}")
    return reduce_loss(cosine_embedding_rows(input1, input2, target, float(margin)), reduction)
