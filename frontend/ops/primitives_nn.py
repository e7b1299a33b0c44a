"""MindSpore's neural-network primitive classes that older model-zoo code calls
directly: `ops.Conv2D`, `ops.MaxPool`, `ops.AvgPool`, `ops.BiasAdd`,
`ops.LayerNorm`, `ops.BatchNorm`, `ops.SoftmaxCrossEntropyWithLogits`,
`ops.SparseSoftmaxCrossEntropyWithLogits`, `ops.Identity`, `ops.L2Normalize`,
`ops.AssignAdd`, `ops.ApplyMomentum`.

Each holds MindSpore's `__init__` attributes, checked as MindSpore checks them,
and calls the functional ops (conv.py, nn_functional.py ...), so a primitive
runs eagerly and traces into a graph alike and differentiates through them.
Only NCHW is supported (data_format='NHWC' is a ValueError that says so).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import conv, nn_functional
from mindjit.frontend.ops.array import cast, expand_dims, reshape
from mindjit.frontend.ops.cast import snapshot
from mindjit.frontend.ops.checks import check_range
from mindjit.frontend.ops.core import normalize_axes
from mindjit.frontend.ops.effects import apply_momentum, assign
from mindjit.frontend.ops.math import _tensor, add, div, equal, maximum, mul, neg, rsqrt, sub
from mindjit.frontend.ops.primitives import Primitive
from mindjit.frontend.ops.promotion import as_operand, is_tensor
from mindjit.frontend.ops.reduce import reduce_mean, reduce_sum
from mindjit.frontend.tensor import Parameter, Tensor

_FLOATS = (D.float16, D.float32, D.float64)


def _nchw_only(data_format: Any, name: str) -> str:
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(
            f"For '{name}', the 'data_format' must be 'NCHW' or 'NHWC', but got {data_format!r}"
        )
    if data_format != "NCHW":
        raise ValueError(f"For '{name}', only data_format='NCHW' is supported by mindjit")
    return data_format


def _pool_pad_mode(pad_mode: Any, name: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(pad_mode, str):
        raise TypeError(f"For '{name}', the 'pad_mode' must be a str, but got {pad_mode!r}")
    mode = pad_mode.lower()
    if mode not in allowed:
        raise ValueError(
            f"For '{name}', the 'pad_mode' must be one of {list(allowed)}, but got {pad_mode!r}"
        )
    return mode


class Conv2D(Primitive):
    """`Conv2D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1,
    dilation=1, group=1, data_format='NCHW')(x, weight)`; `pad` is an int or
    (top, bottom, left, right), used with pad_mode 'pad'."""

    def __init__(
        self,
        out_channel: int,
        kernel_size: Any,
        mode: int = 1,
        pad_mode: str = "valid",
        pad: Any = 0,
        stride: Any = 1,
        dilation: Any = 1,
        group: int = 1,
        data_format: str = "NCHW",
    ):
        super().__init__()
        name = "Conv2D"
        if isinstance(out_channel, bool) or not isinstance(out_channel, int) or out_channel < 1:
            raise ValueError(
                f"For '{name}', the 'out_channel' must be a positive int, but got {out_channel!r}"
            )
        if mode != 1:
            raise ValueError(f"For '{name}', the 'mode' must be 1, but got {mode!r}")
        self.out_channel = out_channel
        self.kernel_size = conv.pair(kernel_size, name, "kernel_size")
        self.pad_mode = _pool_pad_mode(pad_mode, name, conv.PAD_MODES)
        self.pad = conv.four_pads(pad, name)
        if self.pad_mode != "pad" and self.pad != (0, 0, 0, 0):
            raise ValueError(
                f"For '{name}', the 'pad' must be zero when 'pad_mode' is not 'pad', "
                f"but got pad_mode '{pad_mode}' and pad {pad!r}"
            )
        self.stride = conv.pair(stride, name, "stride")
        self.dilation = conv.pair(dilation, name, "dilation")
        if isinstance(group, bool) or not isinstance(group, int) or group < 1:
            raise ValueError(f"For '{name}', the 'group' must be a positive int, but got {group!r}")
        self.group = group
        self.data_format = _nchw_only(data_format, name)

    def __call__(self, x: Any, weight: Any) -> Any:
        name = "Conv2D"
        w = _tensor(weight, name)
        if len(w.shape) == 4 and (
            w.shape[0] != self.out_channel or tuple(w.shape[2:]) != self.kernel_size
        ):
            raise ValueError(
                f"For '{name}', the weight of shape {tuple(w.shape)} does not match "
                f"out_channel {self.out_channel} and kernel_size {self.kernel_size}"
            )
        x = _tensor(x, name)
        if len(x.shape) != 4:
            raise ValueError(f"For '{name}', the input must be 4-D, got shape {tuple(x.shape)}")
        pads = conv.resolve_pads(
            name, self.pad_mode, self.pad, x.shape[2:], self.kernel_size, self.stride, self.dilation
        )
        return conv.conv2d_padded(x, w, self.stride, self.dilation, pads, self.group, name)


class _Pool(Primitive):
    _kind = "max"

    def __init__(
        self,
        kernel_size: Any = 1,
        strides: Any = 1,
        pad_mode: str = "valid",
        data_format: str = "NCHW",
    ):
        super().__init__()
        name = self.name
        self.kernel_size = conv.pair(kernel_size, name, "kernel_size")
        self.strides = conv.pair(strides, name, "strides")
        self.pad_mode = _pool_pad_mode(pad_mode, name, ("same", "valid"))
        self.data_format = _nchw_only(data_format, name)

    def __call__(self, x: Any) -> Any:
        t = _tensor(x, self.name)
        if len(t.shape) != 4:
            raise ValueError(f"For '{self.name}', the input must be 4-D, got {tuple(t.shape)}")
        pads = conv.resolve_pads(
            self.name, self.pad_mode, 0, t.shape[2:], self.kernel_size, self.strides, (1, 1)
        )
        # "same" average pooling divides by the elements inside the input (MindSpore's CPU AvgPool)
        return conv.pool2d(
            self._kind,
            t,
            self.kernel_size,
            self.strides,
            pads,
            count_include_pad=False,
            name=self.name,
        )


class MaxPool(_Pool):
    """`MaxPool(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(x)`."""

    _kind = "max"


class AvgPool(_Pool):
    """`AvgPool(kernel_size=1, strides=1, pad_mode='valid', data_format='NCHW')(x)`."""

    _kind = "avg"


class BiasAdd(Primitive):
    """`BiasAdd(data_format='NCHW')(input_x, bias)`: bias (C,) added along axis 1 (the
    channel axis of NCHW / NCDHW, the last axis of a 2-D input)."""

    def __init__(self, data_format: str = "NCHW"):
        super().__init__()
        if data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(
                "For 'BiasAdd', the 'data_format' must be 'NCHW', 'NHWC' or 'NCDHW', "
                f"but got {data_format!r}"
            )
        if data_format == "NHWC":
            raise ValueError("For 'BiasAdd', only channel-first data formats are supported")
        self.data_format = data_format

    def __call__(self, input_x: Any, bias: Any) -> Any:
        x, b = _tensor(input_x, "BiasAdd"), _tensor(bias, "BiasAdd")
        rank = len(x.shape)
        if rank < 2:
            raise ValueError(f"For 'BiasAdd', the input must have rank >= 2, got {tuple(x.shape)}")
        if tuple(b.shape) != (x.shape[1],):
            raise ValueError(
                f"For 'BiasAdd', the 'bias' must have shape ({x.shape[1]},) for input of shape "
                f"{tuple(x.shape)}, but got {tuple(b.shape)}"
            )
        return add(x, reshape(b, (x.shape[1],) + (1,) * (rank - 2)))


def _float_attr(value: Any, what: str, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"For '{name}', the '{what}' must be a float, but got {value!r}")
    return float(value)


class LayerNorm(Primitive):
    """`LayerNorm(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7)(input_x, gamma,
    beta) -> (output, mean, variance)`: normalize axes begin_norm_axis..; gamma and
    beta have the shape of axes begin_params_axis..; mean and variance keep the
    normalized axes with size 1."""

    def __init__(self, begin_norm_axis: int = 1, begin_params_axis: int = 1, epsilon: float = 1e-7):
        super().__init__()
        for what, v in (
            ("begin_norm_axis", begin_norm_axis),
            ("begin_params_axis", begin_params_axis),
        ):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'LayerNorm', the '{what}' must be an int, but got {v!r}")
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = _float_attr(epsilon, "epsilon", "LayerNorm")

    def __call__(self, input_x: Any, gamma: Any, beta: Any) -> Any:
        x = _tensor(input_x, "LayerNorm")
        rank = len(x.shape)
        norm_axis = normalize_axes(self.begin_norm_axis, rank, "LayerNorm")[0]
        params_axis = normalize_axes(self.begin_params_axis, rank, "LayerNorm")[0]
        want = tuple(x.shape[params_axis:])
        for what, t in (("gamma", gamma), ("beta", beta)):
            if tuple(getattr(t, "shape", ())) != want:
                raise ValueError(
                    f"For 'LayerNorm', the '{what}' must have shape {want}, but got "
                    f"{tuple(getattr(t, 'shape', ()))}"
                )
        axes = tuple(range(norm_axis, rank))
        return nn_functional.layer_norm_with_stats(x, axes, gamma, beta, self.epsilon)


class BatchNorm(Primitive):
    """`BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1, data_format='NCHW')(
    input_x, scale, bias, mean, variance) -> (y, batch_mean, batch_variance,
    reserve_space_1, reserve_space_2)`. Training normalizes with the batch's mean
    and (biased) variance and assigns `(1 - momentum) * running + momentum * batch`
    to `mean` / `variance` when they are Parameters; otherwise it uses them. The
    reserve spaces repeat the statistics used (MindSpore's CPU kernel's are
    internal buffers of the same shape)."""

    def __init__(
        self,
        is_training: bool = False,
        epsilon: float = 1e-5,
        momentum: float = 0.1,
        data_format: str = "NCHW",
    ):
        super().__init__()
        if not isinstance(is_training, bool):
            raise TypeError(
                f"For 'BatchNorm', the 'is_training' must be a bool, got {is_training!r}"
            )
        self.is_training = is_training
        self.epsilon = _float_attr(epsilon, "epsilon", "BatchNorm")
        if not 0.0 < self.epsilon <= 1.0:
            raise ValueError(f"For 'BatchNorm', the 'epsilon' must be in (0, 1], got {epsilon}")
        self.momentum = _float_attr(momentum, "momentum", "BatchNorm")
        if not 0.0 <= self.momentum <= 1.0:
            raise ValueError(f"For 'BatchNorm', the 'momentum' must be in [0, 1], got {momentum}")
        self.data_format = _nchw_only(data_format, "BatchNorm")

    def __call__(self, input_x: Any, scale: Any, bias: Any, mean: Any, variance: Any) -> Any:
        y, m, v = nn_functional.batch_norm_with_stats(
            input_x, mean, variance, scale, bias, self.is_training, self.momentum, self.epsilon
        )
        return y, m, v, m, v


def _logits(x: Any, name: str) -> Any:
    if not is_tensor(x):
        raise TypeError(f"For '{name}', the 'logits' must be a Tensor, but got {type(x).__name__}")
    if x.dtype not in _FLOATS:
        raise TypeError(
            f"For '{name}', the dtype of 'logits' must be float16, float32 or float64, "
            f"but got {x.dtype}"
        )
    return x


class SoftmaxCrossEntropyWithLogits(Primitive):
    """`SoftmaxCrossEntropyWithLogits()(logits, labels) -> (loss, dlogits)`: logits and
    labels (probabilities) of shape (N, C); loss (N,) = -sum(labels * log_softmax),
    dlogits = softmax(logits) - labels (its gradient)."""

    def __call__(self, logits: Any, labels: Any) -> Any:
        name = "SoftmaxCrossEntropyWithLogits"
        x = _logits(logits, name)
        y = _tensor(labels, name)
        if len(x.shape) != 2 or tuple(y.shape) != tuple(x.shape):
            raise ValueError(
                f"For '{name}', 'logits' and 'labels' must have the same 2-D shape (N, C), "
                f"but got {tuple(x.shape)} and {tuple(y.shape)}"
            )
        y = cast(y, x.dtype)
        logp = nn_functional.log_softmax(x, -1)
        loss = neg(reduce_sum(mul(y, logp), -1))
        return loss, sub(nn_functional.softmax(x, -1), y)


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """`SparseSoftmaxCrossEntropyWithLogits(is_grad=False)(logits, labels)`: logits (N, C),
    labels class indices (N,); the mean cross entropy over the batch (a scalar), or
    with is_grad=True its gradient (softmax - onehot) / N."""

    def __init__(self, is_grad: bool = False):
        super().__init__()
        if not isinstance(is_grad, bool):
            raise TypeError(
                f"For 'SparseSoftmaxCrossEntropyWithLogits', the 'is_grad' must be a bool, "
                f"but got {is_grad!r}"
            )
        self.is_grad = is_grad

    def __call__(self, logits: Any, labels: Any) -> Any:
        name = "SparseSoftmaxCrossEntropyWithLogits"
        x = _logits(logits, name)
        t = _tensor(labels, name)
        if t.dtype not in (D.int32, D.int64):
            raise TypeError(
                f"For '{name}', the dtype of 'labels' must be int32 or int64, but got {t.dtype}"
            )
        if len(x.shape) < 1 or tuple(t.shape) != tuple(x.shape[:-1]):
            raise ValueError(
                f"For '{name}', the 'labels' must have shape {tuple(x.shape[:-1])} for logits "
                f"of shape {tuple(x.shape)}, but got {tuple(t.shape)}"
            )
        classes = x.shape[-1]
        checked = check_range(
            cast(t, D.float32),
            0.0,
            float(classes - 1),
            f"For '{name}', the 'labels' must be class indices in [0, {classes}), "
            "but got a value outside this range",
        )
        ids = Tensor._wrap(np.arange(classes, dtype=np.float32))
        hot = cast(equal(expand_dims(checked, -1), ids), x.dtype)
        batch = 1
        for d in x.shape[:-1]:
            batch *= d
        if self.is_grad:
            return div(sub(nn_functional.softmax(x, -1), hot), float(batch))
        loss = neg(reduce_sum(mul(hot, nn_functional.log_softmax(x, -1)), -1))
        return reduce_mean(loss, tuple(range(len(loss.shape))))


class Identity(Primitive):
    """`Identity()(x)`: a tensor equal to x (an eager Parameter gives its current value)."""

    def __call__(self, x: Any) -> Any:
        t = as_operand(x, "'Identity' input")
        if not is_tensor(t):
            raise TypeError(
                f"For 'Identity', the input must be a Tensor, but got {type(x).__name__}"
            )
        return snapshot(t)


class L2Normalize(Primitive):
    """`L2Normalize(axis=0, epsilon=1e-4)(x)`: x / sqrt(max(sum(x^2, axis), epsilon))."""

    def __init__(self, axis: Any = 0, epsilon: float = 1e-4):
        super().__init__()
        if isinstance(axis, int) and not isinstance(axis, bool):
            axis = (axis,)
        if not isinstance(axis, tuple | list) or not all(
            isinstance(a, int) and not isinstance(a, bool) for a in axis
        ):
            raise TypeError(f"For 'L2Normalize', the 'axis' must be an int or tuple, got {axis!r}")
        self.axis = tuple(axis)
        self.epsilon = _float_attr(epsilon, "epsilon", "L2Normalize")

    def __call__(self, x: Any) -> Any:
        t = _tensor(x, "L2Normalize")
        if t.dtype not in _FLOATS:
            raise TypeError(f"For 'L2Normalize', the input must be a float tensor, got {t.dtype}")
        if not t.shape:
            raise ValueError("For 'L2Normalize', the input must have rank > 0, got a scalar")
        axes = normalize_axes(self.axis, len(t.shape), "L2Normalize")
        sq = reduce_sum(mul(t, t), axes, True)
        return mul(t, rsqrt(maximum(sq, self.epsilon)))


def assign_add(variable: Any, value: Any) -> Any:
    """`ops.assign_add(variable, value)`: variable = variable + value (a Parameter's
    update, ordered like `ops.assign`); returns the updated value."""
    if not isinstance(variable, Parameter):
        raise TypeError(
            f"For 'AssignAdd', the 'variable' must be a Parameter, but got {type(variable).__name__}"
        )
    return assign(variable, add(variable, value))


class AssignAdd(Primitive):
    """`AssignAdd()(variable, value)`."""

    def __call__(self, variable: Any, value: Any) -> Any:
        return assign_add(variable, value)


class ApplyMomentum(Primitive):
    """`ApplyMomentum(use_nesterov=False, use_locking=False, gradient_scale=1.0)(variable,
    accumulation, learning_rate, gradient, momentum)`: `accumulation = accumulation *
    momentum + gradient * gradient_scale`, then `variable -= accumulation *
    learning_rate` (Nesterov: `variable -= gradient * learning_rate + accumulation *
    momentum * learning_rate`); both Parameters written, the updated variable
    returned. In graph mode one `mindir.apply_momentum` when every operand is
    float32 and Nesterov is off (ops/effects.py)."""

    def __init__(
        self, use_nesterov: bool = False, use_locking: bool = False, gradient_scale: float = 1.0
    ):
        super().__init__("ApplyMomentum")
        for name, flag in (("use_nesterov", use_nesterov), ("use_locking", use_locking)):
            if not isinstance(flag, bool):
                raise TypeError(f"For 'ApplyMomentum', '{name}' must be a bool, got {flag!r}")
        if isinstance(gradient_scale, bool) or not isinstance(gradient_scale, float):
            raise TypeError(
                f"For 'ApplyMomentum', 'gradient_scale' must be a float, got {gradient_scale!r}"
            )
        self.add_prim_attr("use_nesterov", use_nesterov)
        self.add_prim_attr("use_locking", use_locking)
        self.add_prim_attr("gradient_scale", gradient_scale)

    def __call__(
        self, variable: Any, accumulation: Any, learning_rate: Any, gradient: Any, momentum: Any
    ) -> Any:
        for name, p in (("variable", variable), ("accumulation", accumulation)):
            if not isinstance(p, Parameter):
                raise TypeError(
                    f"For 'ApplyMomentum', '{name}' must be a Parameter, got {type(p).__name__}"
                )
        if self.gradient_scale != 1.0:
            gradient = mul(gradient, self.gradient_scale)
        if not self.use_nesterov:
            return apply_momentum(variable, accumulation, learning_rate, gradient, momentum)
        accum = add(mul(accumulation, momentum), gradient)
        assign(accumulation, accum)
        step = add(mul(gradient, learning_rate), mul(mul(accum, momentum), learning_rate))
        return assign(variable, sub(variable, step))


__all__ = [
    "ApplyMomentum",
    "AssignAdd",
    "AvgPool",
    "BatchNorm",
    "BiasAdd",
    "Conv2D",
    "Identity",
    "L2Normalize",
    "LayerNorm",
    "MaxPool",
    "SoftmaxCrossEntropyWithLogits",
    "SparseSoftmaxCrossEntropyWithLogits",
    "assign_add",
]
