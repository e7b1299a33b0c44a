"""Composite neural-network functions (`ops.softmax`, `ops.gelu`, `ops.layer_norm`,
`ops.batch_norm`).

They are built from the primitive ops, so graph mode emits their mindir ops
inline (MindSpore expands these composites the same way before its backend),
and PyNative runs the same sequence, keeping the two modes bit-for-bit equal.
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.dialects import mindir as M
from mindjit.frontend.ops.array import cast, reshape, squeeze
from mindjit.frontend.ops.cast import float_input
from mindjit.frontend.ops.core import normalize_axes, run
from mindjit.frontend.ops.effects import assign, update_moving_stats
from mindjit.frontend.ops.math import (
    _tensor,
    add,
    div,
    erf,
    exp,
    greater_equal,
    log,
    mul,
    rsqrt,
    select,
    sigmoid,
    sub,
    tanh,
)
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.reduce import reduce_max, reduce_mean, reduce_sum
from mindjit.frontend.tensor import Parameter


def softmax(input: Any, axis: int = -1, *, dtype: Any = None) -> Any:
    """`ops.softmax(input, axis=-1)`: exp(x - max) / sum(exp(x - max)) along `axis`."""

    x = float_input(_tensor(input, "softmax"))
    if dtype is not None:
        x = cast(x, dtype)
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"For 'softmax', 'axis' must be an int, got {axis!r}")
    shifted = sub(x, reduce_max(x, axis, True))
    e = exp(shifted)
    return div(e, reduce_sum(e, axis, True))


def log_softmax(logits: Any, axis: int = -1) -> Any:
    """`ops.log_softmax(logits, axis=-1)`: x - max - log(sum(exp(x - max)))."""
    x = float_input(_tensor(logits, "log_softmax"))
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"For 'log_softmax', 'axis' must be an int, got {axis!r}")
    shifted = sub(x, reduce_max(x, axis, True))
    return sub(shifted, log(reduce_sum(exp(shifted), axis, True)))


def logsumexp(input: Any, dim: Any, keepdim: bool = False) -> Any:
    """`ops.logsumexp(input, dim, keepdim=False)`: log(sum(exp(x))) over `dim`, stably."""
    x = float_input(_tensor(input, "logsumexp"))
    dims = normalize_axes(dim, len(x.shape), "logsumexp")
    top = reduce_max(x, dims, True)
    out = add(log(reduce_sum(exp(sub(x, top)), dims, True)), top)
    return out if keepdim else squeeze(out, dims or tuple(range(len(x.shape))))


def leaky_relu(input: Any, alpha: float = 0.2) -> Any:
    """`ops.leaky_relu(input, alpha=0.2)`: x where x >= 0, alpha * x elsewhere."""
    x = float_input(_tensor(input, "leaky_relu"))
    return select(greater_equal(x, 0.0), x, mul(x, float(alpha)))


def silu(input: Any) -> Any:
    """`ops.silu(input)`: x * sigmoid(x)."""
    x = float_input(_tensor(input, "silu"))
    return mul(x, sigmoid(x))


_GELU_C = math.sqrt(2.0 / math.pi)
_SQRT_HALF = math.sqrt(0.5)


def gelu(input_x: Any, approximate: str = "none") -> Any:
    """`ops.gelu(input_x, approximate='none')`: x * (1 + erf(x / sqrt 2)) / 2, or with
    approximate='tanh' 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"For 'gelu', 'approximate' must be 'none' or 'tanh', got {approximate!r}")
    x = float_input(_tensor(input_x, "gelu"))
    if approximate == "none":
        return mul(mul(x, 0.5), add(erf(mul(x, _SQRT_HALF)), 1.0))
    cube = mul(mul(x, x), x)
    inner = mul(add(x, mul(cube, 0.044715)), _GELU_C)
    return mul(mul(x, 0.5), add(tanh(inner), 1.0))


def layer_norm(input: Any, axes: Any, gamma: Any, beta: Any, epsilon: float) -> Any:
    """Normalize over `axes` (mean 0, variance 1, biased), then scale and shift."""
    return layer_norm_with_stats(input, axes, gamma, beta, epsilon)[0]


def layer_norm_with_stats(
    input: Any, axes: Any, gamma: Any, beta: Any, epsilon: float
) -> tuple[Any, Any, Any]:
    """(output, mean, variance) of `layer_norm`, the statistics kept with size-1 `axes`
    (the `ops.LayerNorm` primitive returns all three)."""
    x = float_input(_tensor(input, "layer_norm"))
    dims = normalize_axes(axes, len(x.shape), "layer_norm")
    mean = reduce_mean(x, dims, True)
    centered = sub(x, mean)
    variance = reduce_mean(mul(centered, centered), dims, True)
    normed = mul(centered, rsqrt(add(variance, float(epsilon))))
    return add(mul(normed, gamma), beta), mean, variance


def _same_float(x: Any, *others: Any) -> bool:
    """Tensors of x's float dtype (the one-op batch norm's operands; another dtype,
    mixed precision, takes the written-out form and its type promotion)."""
    return all(is_tensor(t) and t.dtype == x.dtype for t in others)


def _batch_norm_op(eps: float) -> Any:
    def build(e: Any, v: list[Any]) -> Any:
        return tuple(e.insert(M.BatchNormOp.get(v[0], v[1], v[2], eps)).results)

    return build


def _update_running(
    running_mean: Any, running_var: Any, mean: Any, var: Any, momentum: float, x: Any
) -> None:
    """`(1 - momentum) * running + momentum * batch` assigned to the running statistics
    that are Parameters, the variance's batch value unbiased (times n / (n - 1))."""
    m = float(momentum)
    count = math.prod(x.shape) // x.shape[1]
    if update_moving_stats(running_mean, running_var, mean, var, m, count):
        return
    unbiased = mul(var, count / (count - 1)) if count > 1 else var
    for stat, batch in ((running_mean, mean), (running_var, unbiased)):
        if isinstance(stat, Parameter):
            assign(stat, add(mul(stat, 1.0 - m), mul(batch, m)))


def batch_norm(
    input_x: Any,
    running_mean: Any,
    running_var: Any,
    weight: Any,
    bias: Any,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Any:
    """`ops.batch_norm(input_x, running_mean, running_var, weight, bias, training=False,
    momentum=0.1, eps=1e-5)`: normalize per channel (axis 1).

    Training normalizes with the batch's mean and biased variance and, when the
    running statistics are Parameters, assigns `(1 - momentum) * running +
    momentum * batch` to them, the variance's batch value unbiased (times
    n / (n - 1), n the elements per channel), as MindSpore's kernels do. The assigns are ordinary `Assign`s: auto-monad orders them after
    every earlier read, so a network reading `moving_mean` before this layer
    sees the old value, in graph mode as in PyNative. Not training uses the
    running statistics.
    """
    return batch_norm_with_stats(
        input_x, running_mean, running_var, weight, bias, training, momentum, eps
    )[0]


def batch_norm_with_stats(
    input_x: Any,
    running_mean: Any,
    running_var: Any,
    weight: Any,
    bias: Any,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> tuple[Any, Any, Any]:
    """(output, mean, variance) of `batch_norm`: the (C,) statistics it normalized with
    (the batch's in training, the running ones otherwise; `ops.BatchNorm` returns them)."""
    x = float_input(_tensor(input_x, "batch_norm"))
    rank = len(x.shape)
    if rank < 2:
        raise ValueError(f"For 'batch_norm', input_x must have rank >= 2, got shape {x.shape}")
    channels = x.shape[1]
    for what, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if tuple(getattr(t, "shape", ())) != (channels,):
            raise ValueError(
                f"For 'batch_norm', '{what}' must have shape ({channels},) for input of shape "
                f"{tuple(x.shape)}, got {tuple(getattr(t, 'shape', ()))}"
            )
    if not isinstance(momentum, int | float) or isinstance(momentum, bool):
        raise TypeError(f"For 'batch_norm', 'momentum' must be a float, got {momentum!r}")
    if training and _same_float(x, weight, bias):
        out, mean, var = run(
            ("batch_norm", float(eps)), _batch_norm_op(float(eps)), x, weight, bias
        )
        _update_running(running_mean, running_var, mean, var, momentum, x)
        return out, mean, var
    per_channel = (1, channels) + (1,) * (rank - 2)
    axes = (0, *range(2, rank))
    if training:
        mean = reduce_mean(x, axes, True)
        centered = sub(x, mean)
        var = reduce_mean(mul(centered, centered), axes, True)
        # the running variance takes the unbiased batch variance (MindSpore's kernels,
        # like PyTorch's); the batch is normalized with the biased one
        flat_mean, flat_var = reshape(mean, (channels,)), reshape(var, (channels,))
        _update_running(running_mean, running_var, flat_mean, flat_var, momentum, x)
    else:
        centered = sub(x, reshape(running_mean, per_channel))
        var = reshape(running_var, per_channel)
    normed = mul(centered, rsqrt(add(var, float(eps))))
    out = add(mul(normed, reshape(weight, per_channel)), reshape(bias, per_channel))
    if training:
        return out, reshape(mean, (channels,)), reshape(var, (channels,))
    return out, running_mean, running_var
