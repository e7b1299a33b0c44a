"""Functional losses with MindSpore 2.x's signatures: `ops.cross_entropy`,
`ops.nll_loss`, `ops.l1_loss`, `ops.smooth_l1_loss`.

They are compositions of existing mindir ops (no new op), so graph mode,
PyNative, grad and the device all follow:

- class indices are one-hot encoded by comparing them with a constant iota of the
  class numbers laid along the class axis (axis 1, or 0 for an unbatched (C,)
  input): the picked log-probability is `sum_c(onehot * logp)`, the picked
  weight `sum_c(onehot * w)`, and `ignore_index` a 0/1 factor;
- 'mean' with class indices divides by the sum of the weights of the targets
  that are not ignored (MindSpore's and PyTorch's rule), 'mean' with class
  probabilities by the number of samples (elements / C);
- `label_smoothing` eps mixes in the uniform distribution: with indices
  (1 - eps) * nll + eps / C * sum_c(-w_c logp_c) (same denominators), with
  probabilities target * (1 - eps) + eps / C;
- a class index outside [0, C) that is not `ignore_index` fails when the loss
  runs (`mindir.check_range`, RuntimeCheckError in both modes, as MindSpore's
  NLLLoss kernel rejects it) instead of silently contributing zero.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import cast, expand_dims, reshape
from mindjit.frontend.ops.checks import check_range
from mindjit.frontend.ops.math import (
    abs,
    add,
    div,
    equal,
    less,
    mul,
    neg,
    not_equal,
    select,
    sub,
)
from mindjit.frontend.ops.nn_functional import log_softmax
from mindjit.frontend.ops.promotion import as_operand, is_tensor
from mindjit.frontend.ops.reduce import reduce_mean, reduce_sum
from mindjit.frontend.tensor import Tensor

REDUCTIONS = ("mean", "sum", "none")
_FLOATS = (D.float16, D.float32, D.float64)


def check_reduction(reduction: Any, name: str) -> str:
    if reduction not in REDUCTIONS:
        raise ValueError(
            f"For '{name}', the 'reduction' must be in ['mean', 'sum', 'none'], "
            f"but got {reduction}."
        )
    return reduction


def reduce_loss(x: Any, reduction: str) -> Any:
    """'none': x; 'sum' / 'mean' over every axis."""
    if reduction == "none":
        return x
    axes = tuple(range(len(x.shape)))
    return reduce_sum(x, axes) if reduction == "sum" else reduce_mean(x, axes)


def _float_tensor(x: Any, what: str, name: str) -> Any:
    if not is_tensor(x):
        raise TypeError(f"For '{name}', the '{what}' must be a Tensor, but got {type(x).__name__}")
    if x.dtype not in _FLOATS:
        raise TypeError(
            f"For '{name}', the dtype of '{what}' must be float16, float32 or float64, "
            f"but got {x.dtype}"
        )
    return x


def _weight(weight: Any, classes: int, name: str) -> Any:
    if weight is None:
        return None
    w = as_operand(weight, f"'{name}' weight")
    if not is_tensor(w) or w.dtype.is_bool or not w.dtype.is_float:
        raise TypeError(f"For '{name}', the 'weight' must be a float Tensor or None, got {w!r}")
    if tuple(w.shape) != (classes,):
        raise ValueError(
            f"For '{name}', the 'weight' must have shape ({classes},), but got {tuple(w.shape)}"
        )
    return w


def check_smoothing(label_smoothing: Any, name: str) -> float:
    if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, float | int):
        raise TypeError(
            f"For '{name}', the 'label_smoothing' must be a float, but got "
            f"{type(label_smoothing).__name__}"
        )
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(
            f"For '{name}', the 'label_smoothing' must be in [0.0, 1.0], but got {label_smoothing}"
        )
    return float(label_smoothing)


def _along_class_axis(values: Any, rank: int, axis: int) -> Any:
    """A (C,) tensor shaped to broadcast along `axis` of a rank-`rank` tensor."""
    return reshape(values, tuple(values.shape[0] if d == axis else 1 for d in range(rank)))


def _class_indices(target: Any, x: Any, ignore_index: int, name: str) -> tuple[Any, Any]:
    """(one-hot of the targets along the class axis, 1.0 where not ignored), both
    in x's dtype; the targets checked to be in [0, C) or `ignore_index` at run time."""
    rank = len(x.shape)
    axis = 0 if rank == 1 else 1
    classes = x.shape[axis]
    want = () if rank == 1 else (x.shape[0], *x.shape[2:])
    if tuple(target.shape) != want:
        raise ValueError(
            f"For '{name}', with input of shape {tuple(x.shape)} the class-index 'target' must "
            f"have shape {want}, but got {tuple(target.shape)}"
        )
    ignored = equal(target, ignore_index)
    checked = check_range(
        select(ignored, 0.0, cast(target, D.float32)),
        0.0,
        float(classes - 1),
        f"For '{name}', the 'target' must be class indices in [0, {classes}) "
        f"or ignore_index ({ignore_index}), but got a value outside this range",
    )
    ids = Tensor(np.arange(classes, dtype=np.float32))
    hit = equal(expand_dims(checked, axis), _along_class_axis(ids, rank, axis))
    keep = cast(not_equal(target, ignore_index), x.dtype)
    return cast(hit, x.dtype), keep


def _indexed_loss(
    logp: Any,
    target: Any,
    weight: Any,
    ignore_index: int,
    reduction: str,
    label_smoothing: float,
    name: str,
) -> Any:
    """The negative log-likelihood of class indices (the shared core of nll_loss and
    cross_entropy), with weights, ignore_index and label smoothing."""
    rank = len(logp.shape)
    axis = 0 if rank == 1 else 1
    classes = logp.shape[axis]
    onehot, keep = _class_indices(target, logp, ignore_index, name)
    weighted = logp if weight is None else mul(logp, _along_class_axis(weight, rank, axis))
    loss = mul(neg(reduce_sum(mul(onehot, weighted), axis)), keep)
    if weight is None:
        picked_weight = keep
    else:
        w = cast(_along_class_axis(weight, rank, axis), logp.dtype)
        picked_weight = mul(reduce_sum(mul(onehot, w), axis), keep)
    smooth = None
    if label_smoothing > 0.0:
        smooth = mul(neg(reduce_sum(weighted, axis)), keep)
    axes = tuple(range(len(loss.shape)))
    if reduction != "none":
        loss = reduce_sum(loss, axes)
        smooth = None if smooth is None else reduce_sum(smooth, axes)
        if reduction == "mean":
            total = reduce_sum(picked_weight, axes)
            loss = div(loss, total)
            smooth = None if smooth is None else div(smooth, total)
    if smooth is None:
        return loss
    return add(mul(loss, 1.0 - label_smoothing), mul(smooth, label_smoothing / classes))


def _check_index_target(target: Any, name: str) -> Any:
    if not is_tensor(target):
        raise TypeError(
            f"For '{name}', the 'target' must be a Tensor, but got {type(target).__name__}"
        )
    if target.dtype.is_float or target.dtype.is_bool:
        raise TypeError(
            f"For '{name}', the dtype of class-index 'target' must be int32 or int64, "
            f"but got {target.dtype}"
        )
    return target


def check_ignore_index(ignore_index: Any, name: str) -> int:
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
        raise TypeError(
            f"For '{name}', the 'ignore_index' must be an int, but got "
            f"{type(ignore_index).__name__}"
        )
    return ignore_index


def _check_input_rank(x: Any, name: str) -> None:
    if len(x.shape) < 1:
        raise ValueError(f"For '{name}', the 'input' must have rank >= 1, but got a scalar")


def nll_loss(
    inputs: Any,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Any:
    """`ops.nll_loss(inputs, target, weight=None, ignore_index=-100, reduction='mean',
    label_smoothing=0.0)`: -inputs[n, target[n]] (inputs are log-probabilities of
    shape (N, C, d1...) or (C,), target class indices of shape (N, d1...) or ())."""
    name = "nll_loss"
    x = _float_tensor(inputs, "inputs", name)
    _check_input_rank(x, name)
    target = _check_index_target(target, name)
    check_reduction(reduction, name)
    eps = check_smoothing(label_smoothing, name)
    ignore = check_ignore_index(ignore_index, name)
    classes = x.shape[0 if len(x.shape) == 1 else 1]
    w = _weight(weight, classes, name)
    w = None if w is None else cast(w, x.dtype)  # the loss keeps the input's dtype
    return _indexed_loss(x, target, w, ignore, reduction, eps, name)


def cross_entropy(
    input: Any,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Any:
    """`ops.cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean',
    label_smoothing=0.0)`: log_softmax over the class axis (1, or 0 for a (C,)
    input), then the NLL of class indices (int target) or the cross entropy with
    class probabilities (float target of input's shape)."""
    name = "cross_entropy"
    x = _float_tensor(input, "input", name)
    _check_input_rank(x, name)
    if not is_tensor(target):
        raise TypeError(
            f"For '{name}', the 'target' must be a Tensor, but got {type(target).__name__}"
        )
    check_reduction(reduction, name)
    eps = check_smoothing(label_smoothing, name)
    ignore = check_ignore_index(ignore_index, name)
    rank = len(x.shape)
    axis = 0 if rank == 1 else 1
    classes = x.shape[axis]
    w = _weight(weight, classes, name)
    w = None if w is None else cast(w, x.dtype)  # the loss keeps the input's dtype
    logp = log_softmax(x, axis)
    if not target.dtype.is_float:
        _check_index_target(target, name)
        return _indexed_loss(logp, target, w, ignore, reduction, eps, name)
    if tuple(target.shape) != tuple(x.shape):
        raise ValueError(
            f"For '{name}', class-probability 'target' must have the shape of 'input' "
            f"{tuple(x.shape)}, but got {tuple(target.shape)}"
        )
    probs = cast(target, x.dtype)
    if eps > 0.0:
        probs = add(mul(probs, 1.0 - eps), eps / classes)
    terms = mul(logp, probs)
    if w is not None:
        terms = mul(terms, _along_class_axis(w, rank, axis))
    if reduction == "none":
        return neg(reduce_sum(terms, axis))
    total = neg(reduce_sum(terms, tuple(range(rank))))
    if reduction == "sum":
        return total
    samples = int(np.prod(x.shape)) // classes
    return div(total, float(samples))


def loss_pair(input: Any, target: Any, name: str) -> tuple[Any, Any]:
    x = _float_tensor(input, "input", name)
    t = _float_tensor(target, "target", name)
    try:
        np.broadcast_shapes(tuple(x.shape), tuple(t.shape))
    except ValueError:
        raise ValueError(
            f"For '{name}', the shapes of 'input' {tuple(x.shape)} and 'target' "
            f"{tuple(t.shape)} must be broadcastable"
        ) from None
    return x, t


def l1_loss(input: Any, target: Any, reduction: str = "mean") -> Any:
    """`ops.l1_loss(input, target, reduction='mean')`: |input - target|, reduced."""
    x, t = loss_pair(input, target, "l1_loss")
    check_reduction(reduction, "l1_loss")
    return reduce_loss(abs(sub(x, t)), reduction)


def smooth_l1_elementwise(diff: Any, beta: float) -> Any:
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta."""
    a = abs(diff)
    return select(less(a, beta), mul(mul(diff, diff), 0.5 / beta), sub(a, 0.5 * beta))


def check_beta(beta: Any, name: str) -> float:
    if isinstance(beta, bool) or not isinstance(beta, float | int):
        raise TypeError(f"For '{name}', the 'beta' must be a float, but got {type(beta).__name__}")
    if beta <= 0:
        raise ValueError(f"For '{name}', the 'beta' must be greater than 0, but got {beta}")
    return float(beta)


def smooth_l1_loss(input: Any, target: Any, beta: float = 1.0, reduction: str = "none") -> Any:
    """`ops.smooth_l1_loss(input, target, beta=1.0, reduction='none')`."""
    name = "smooth_l1_loss"
    x, t = loss_pair(input, target, name)
    if tuple(x.shape) != tuple(t.shape):
        raise ValueError(
            f"For '{name}', 'input' and 'target' must have the same shape, but got "
            f"{tuple(x.shape)} and {tuple(t.shape)}"
        )
    b = check_beta(beta, name)
    check_reduction(reduction, name)
    return reduce_loss(smooth_l1_elementwise(sub(x, t), b), reduction)


__all__ = ["cross_entropy", "l1_loss", "nll_loss", "smooth_l1_loss"]
