"""Connectionist temporal classification loss (`ops.ctc_loss`; nn.CTCLoss calls it).

The standard alpha recursion in log space over the extended label sequence
l' = (blank, l1, blank, l2, ..., blank) of length L = 2 S + 1:

    alpha_0(0) = y_0(blank), alpha_0(1) = y_0(l1), -inf elsewhere
    alpha_t(s) = y_t(l'_s) + logsumexp(alpha_{t-1}(s), alpha_{t-1}(s - 1),
                                       alpha_{t-1}(s - 2) if l'_s != blank and != l'_{s-2})
    loss = -logsumexp(alpha_{T_n - 1}(2 S_n), alpha_{T_n - 1}(2 S_n - 1))

with T_n, S_n the sample's input and target lengths. The time loop is unrolled
(T is static), each step a handful of tensor ops over (N, L), so the lengths
and targets are run-time values and graph mode, gradients (the recursion's
own, no hand-written rule) and the devices come for free. A logsumexp whose
terms are all -inf stays -inf without NaN gradients (shift by a
stop_gradient'd finite maximum, log of 1 where nothing is finite). As
MindSpore's CTCLossV2, `ops.ctc_loss` returns (loss, log_alpha) with
log_alpha (N, T, L), -inf past each sample's input and extended target
length; reduction 'mean' divides each loss by its target length (at least 1)
and averages. `zero_infinity=True` zeroes infinite losses (and so their
gradients), as MindSpore documents; MindSpore 2.10's CPU kernel returns inf
there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import (
    broadcast_to,
    cast,
    concat,
    expand_dims,
    reshape,
    stack,
    transpose,
    zeros_like,
)
from mindjit.frontend.ops.gather_ops import gather_elements
from mindjit.frontend.ops.gradient_ops import stop_gradient
from mindjit.frontend.ops.indexing import getitem
from mindjit.frontend.ops.math import (
    add,
    div,
    equal,
    exp,
    greater,
    less,
    log,
    logical_and,
    maximum,
    mul,
    neg,
    not_equal,
    select,
    sub,
)
from mindjit.frontend.ops.math_functions import isinf
from mindjit.frontend.ops.promotion import constant, is_tensor
from mindjit.frontend.ops.reduce import reduce_mean, reduce_sum

_INT = (D.int32, D.int64)


def _logsumexp(terms: list[Any]) -> Any:
    """log(sum(exp(t))) elementwise; -inf (with zero gradients) where every term is -inf."""
    m = terms[0]
    for t in terms[1:]:
        m = maximum(m, t)
    finite = greater(m, -np.inf)
    shift = stop_gradient(select(finite, m, zeros_like(m)))
    total = exp(sub(terms[0], shift))
    for t in terms[1:]:
        total = add(total, exp(sub(t, shift)))
    ninf = add(zeros_like(m), -np.inf)
    return select(finite, add(shift, log(select(finite, total, add(zeros_like(m), 1.0)))), ninf)


def _check(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any, blank: Any,
           reduction: Any) -> None:  # fmt: skip
    name = "ctc_loss"
    for what, v in (("log_probs", log_probs), ("targets", targets),
                    ("input_lengths", input_lengths), ("target_lengths", target_lengths)):  # fmt: skip
        if not is_tensor(v):
            raise TypeError(f"For '{name}', '{what}' must be a Tensor, got {type(v).__name__}")
    if reduction not in ("none", "sum", "mean"):
        raise ValueError(
            f"For '{name}', the 'reduction' must be str and must be in '['none', 'sum', "
            f"'mean']', but got '{reduction}'."
        )
    if len(log_probs.shape) != 3:
        raise ValueError(
            "For primitive[CTCLossV2], the dim of log_probs must be equal to 3 , but got "
            f"{len(log_probs.shape)}."
        )
    if log_probs.dtype not in (D.float32, D.float64):
        raise TypeError(
            f"For '{name}', 'log_probs' must be float32 or float64, got {log_probs.dtype}"
        )
    for what, v in (("targets", targets), ("input_lengths", input_lengths),
                    ("target_lengths", target_lengths)):  # fmt: skip
        if v.dtype not in _INT:
            raise TypeError(f"For '{name}', '{what}' must be int32 or int64, got {v.dtype}")
    t, n, c = log_probs.shape
    if len(targets.shape) != 2 or targets.shape[0] != n:
        raise ValueError(f"For '{name}', 'targets' must be (N, S) = ({n}, S), got {targets.shape}")
    for what, v in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if tuple(v.shape) != (n,):
            raise ValueError(f"For '{name}', '{what}' must have shape ({n},), got {v.shape}")
    if isinstance(blank, bool) or not isinstance(blank, int) or not 0 <= blank < c:
        raise ValueError(f"For '{name}', 'blank' must be an int in [0, {c}), got {blank!r}")


def ctc_alpha(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any,
              blank: int) -> tuple[Any, Any]:  # fmt: skip
    """(log-likelihood (N,), log_alpha (N, T, 2 S + 1)) of the targets."""
    steps, n, _ = log_probs.shape
    s = targets.shape[1]
    length = 2 * s + 1
    dtype = log_probs.dtype
    tgt = cast(targets, D.int32)
    blanks = add(zeros_like(tgt), blank)
    ext = concat((reshape(stack((blanks, tgt), 2), (n, 2 * s)), getitem(blanks, (slice(None), slice(0, 1)))), 1)  # fmt: skip
    # emissions y_t(l'_s) for every t: (N, T, L)
    lp = transpose(log_probs, (1, 0, 2))
    emit = gather_elements(lp, 2, broadcast_to(expand_dims(ext, 1), (n, steps, length)))
    # the s - 2 transition: l'_s is a label different from l'_{s-2}
    odd = constant((np.arange(length) % 2 == 1) & (np.arange(length) >= 2), D.bool_)
    differs = concat(
        (constant(np.zeros((n, 2), bool), D.bool_),
         not_equal(getitem(ext, (slice(None), slice(2, None))), getitem(ext, (slice(None), slice(0, -2))))),
        1,
    )  # fmt: skip
    skip = logical_and(differs, odd)
    tl = expand_dims(cast(target_lengths, D.int32), 1)
    il = expand_dims(cast(input_lengths, D.int32), 1)
    positions = constant(np.arange(length)[None, :], D.int32)
    valid = less(positions, add(mul(tl, 2), 1))  # (N, L)
    ninf = add(zeros_like(getitem(emit, (slice(None), 0))), -np.inf)
    first = constant(np.arange(length)[None, :] < 2, D.bool_)
    alpha = select(logical_and(first, valid), getitem(emit, (slice(None), 0)), ninf)
    alpha = select(greater(il, 0), alpha, ninf)
    rows = [alpha]
    end = cast(add(mul(tl, 2), -1), D.int32)  # 2 S_n - 1 (the last label); 2 S_n the last blank
    last_label = gather_elements(alpha, 1, maximum(end, 0))
    pick = select(greater(tl, 0), last_label, add(zeros_like(last_label), -np.inf))
    final = _logsumexp([gather_elements(alpha, 1, add(end, 1)), pick])
    for step in range(1, steps):
        one = concat((getitem(ninf, (slice(None), slice(0, 1))), getitem(alpha, (slice(None), slice(0, -1)))), 1)  # fmt: skip
        two = concat((getitem(ninf, (slice(None), slice(0, 2))), getitem(alpha, (slice(None), slice(0, -2)))), 1)  # fmt: skip
        two = select(skip, two, ninf)
        new = add(_logsumexp([alpha, one, two]), getitem(emit, (slice(None), step)))
        alpha = select(logical_and(valid, greater(il, step)), new, ninf)
        rows.append(alpha)
        last_label = gather_elements(alpha, 1, maximum(end, 0))
        pick = select(greater(tl, 0), last_label, add(zeros_like(last_label), -np.inf))
        here = _logsumexp([gather_elements(alpha, 1, add(end, 1)), pick])
        final = select(equal(il, step + 1), here, final)
    log_alpha = stack(rows, 1)
    return reshape(final, (n,)), cast(log_alpha, dtype)


def ctc_loss(
    log_probs: Any,
    targets: Any,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> tuple[Any, Any]:
    """`ops.ctc_loss`: (loss, log_alpha); log_probs (T, N, C), targets (N, S)."""
    _check(log_probs, targets, input_lengths, target_lengths, blank, reduction)
    likelihood, log_alpha = ctc_alpha(log_probs, targets, input_lengths, target_lengths, blank)
    loss = neg(likelihood)
    if zero_infinity:
        loss = select(isinf(loss), zeros_like(loss), loss)
    if reduction == "sum":
        loss = reduce_sum(loss)
    elif reduction == "mean":
        lengths = maximum(cast(target_lengths, log_probs.dtype), 1.0)
        loss = reduce_mean(div(loss, lengths))
    return loss, log_alpha
