"""Activation functions with MindSpore 2.x's signatures, as compositions of mindir ops:
relu6, hardsigmoid, elu, softplus, prelu, mish, hardtanh, softmin, fast_gelu.

Each is the formula MindSpore documents, written so its gradient is MindSpore's
bprop and stays finite:

- relu6 is select(x < 6, relu(x), 6): slope 1 strictly inside (0, 6), 0 at both
  ends (ReLU6Grad's), where a max/min pair would hand the ties to x;
- hardsigmoid is relu6(x + 3) / 6 (HSigmoid);
- elu and softplus evaluate their exponential on min(x, 0) / min(beta x,
  threshold): the branch select discards must not overflow, or its zero gradient
  times inf would be NaN. elu uses expm1 and softplus log1p, exact for tiny x;
- prelu's weight is one per channel (axis 1; a rank < 2 input has one channel),
  or a single value for all;
- fast_gelu is x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|)) (FastGeLU).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.ops.array import cast, reshape
from mindjit.frontend.ops.cast import cast_to, float_input
from mindjit.frontend.ops.core import normalize_axes
from mindjit.frontend.ops.math import (
    abs,
    add,
    div,
    exp,
    greater,
    less,
    maximum,
    minimum,
    mul,
    neg,
    relu,
    select,
    sub,
    tanh,
)
from mindjit.frontend.ops.math_functions import expm1, log1p
from mindjit.frontend.ops.nn_functional import softmax
from mindjit.frontend.ops.reduce import reduce_max, reduce_sum
from mindjit.frontend.ops.split import require_tensor


def _float_tensor(input: Any, name: str) -> Any:
    x = require_tensor(input, name)
    if not x.dtype.is_float:
        raise TypeError(f"For '{name}', the input must be a float tensor, got {x.dtype}")
    return x


def _number(v: Any, name: str, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise TypeError(f"For '{name}', '{what}' must be an int or a float, got {v!r}")
    return float(v)


def relu6(x: Any) -> Any:
    """`ops.relu6(x)`: min(max(x, 0), 6)."""
    t = require_tensor(x, "relu6")
    if t.dtype.is_bool:
        raise TypeError(f"For 'relu6', the input must be a number tensor, got {t.dtype}")
    return select(less(t, 6), relu(t), 6)


def hardsigmoid(input: Any) -> Any:
    """`ops.hardsigmoid(input)`: max(0, min(1, (x + 3) / 6))."""
    x = _float_tensor(input, "hardsigmoid")
    return div(relu6(add(x, 3.0)), 6.0)


def elu(input_x: Any, alpha: float = 1.0) -> Any:
    """`ops.elu(input_x, alpha=1.0)`: x where x > 0, alpha * (exp(x) - 1) elsewhere."""
    x = _float_tensor(input_x, "elu")
    a = _number(alpha, "elu", "alpha")
    return select(greater(x, 0.0), x, mul(expm1(minimum(x, 0.0)), a))


def softplus(input: Any, beta: float = 1, threshold: float = 20) -> Any:
    """`ops.softplus(input, beta=1, threshold=20)`: log(1 + exp(beta x)) / beta, and x
    itself where beta * x > threshold."""
    x = _float_tensor(input, "softplus")
    b = _number(beta, "softplus", "beta")
    limit = _number(threshold, "softplus", "threshold")
    if b == 0:
        raise ValueError("For 'softplus', 'beta' must not be 0")
    bx = mul(x, b)
    smooth = div(log1p(exp(minimum(bx, limit))), b)
    return select(greater(bx, limit), x, smooth)


def prelu(x: Any, weight: Any) -> Any:
    """`ops.prelu(x, weight)`: x where x > 0, w * x elsewhere, w per channel (axis 1)."""
    t = _float_tensor(x, "prelu")
    w = require_tensor(weight, "prelu", "weight")
    if not w.dtype.is_float:
        raise TypeError(f"For 'prelu', the weight must be a float tensor, got {w.dtype}")
    if len(w.shape) > 1:
        raise ValueError(f"For 'prelu', the weight must be 0-D or 1-D, got shape {w.shape}")
    rank = len(t.shape)
    channels = t.shape[1] if rank >= 2 else 1
    size = w.shape[0] if w.shape else 1
    if size not in (1, channels):
        raise ValueError(
            f"For 'prelu', the weight must have 1 or {channels} (the channels of input "
            f"shape {tuple(t.shape)}) elements, got {size}"
        )
    if size > 1:
        w = reshape(w, (channels,) + (1,) * (rank - 2))
    elif w.shape:
        w = reshape(w, ())
    return select(greater(t, 0.0), t, mul(t, w))


def mish(x: Any) -> Any:
    """`ops.mish(x)`: x * tanh(softplus(x))."""
    t = _float_tensor(x, "mish")
    return mul(t, tanh(softplus(t)))


def hardtanh(input: Any, min_val: float = -1.0, max_val: float = 1.0) -> Any:
    """`ops.hardtanh(input, min_val=-1.0, max_val=1.0)`: x clipped to [min_val, max_val]."""
    x = require_tensor(input, "hardtanh")
    if x.dtype.is_bool:
        raise TypeError(f"For 'hardtanh', the input must be a number tensor, got {x.dtype}")
    lo = _number(min_val, "hardtanh", "min_val")
    hi = _number(max_val, "hardtanh", "max_val")
    # the result keeps x's dtype (an integer tensor is clipped to integer bounds)
    return minimum(maximum(x, cast_to(lo, x.dtype)), cast_to(hi, x.dtype))


def softmax_axes(x: Any, axis: Any, name: str) -> Any:
    """softmax over an int axis or a tuple of axes (the `ops.Softmax` primitive's)."""
    t = float_input(require_tensor(x, name))
    if isinstance(axis, int) and not isinstance(axis, bool):
        return softmax(t, axis)
    if not isinstance(axis, tuple | list) or not axis:
        raise TypeError(f"For '{name}', 'axis' must be an int or a tuple of ints, got {axis!r}")
    axes = normalize_axes(tuple(axis), len(t.shape), name)
    e = exp(sub(t, reduce_max(t, axes, True)))
    return div(e, reduce_sum(e, axes, True))


def softmin(x: Any, axis: Any = -1, *, dtype: Any = None) -> Any:
    """`ops.softmin(x, axis=-1, *, dtype=None)`: softmax(-x) over `axis` (an int or a
    tuple of ints)."""
    t = require_tensor(x, "softmin")
    if dtype is not None:
        t = cast(t, dtype)
    return softmax_axes(neg(float_input(t)), axis, "softmin")


def fast_gelu(x: Any) -> Any:
    """`ops.fast_gelu(x)`: x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))."""
    t = _float_tensor(x, "fast_gelu")
    a = abs(t)
    return mul(div(t, add(exp(mul(a, -1.702)), 1.0)), exp(mul(sub(t, a), 0.851)))


# --- the rest of MindSpore's activation family ---------------------------------------------

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def logsigmoid(x: Any) -> Any:
    """`ops.logsigmoid(x)`: log(sigmoid(x)) = -softplus(-x), finite for large |x|."""
    t = _float_tensor(x, "logsigmoid")
    return neg(softplus(neg(t)))


def selu(input_x: Any) -> Any:
    """`ops.selu(input_x)`: scale * elu(x, alpha) with SELU's fixed alpha and scale."""
    x = _float_tensor(input_x, "selu")
    return mul(elu(x, _SELU_ALPHA), _SELU_SCALE)


def celu(x: Any, alpha: float = 1.0) -> Any:
    """`ops.celu(x, alpha=1.0)`: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    t = _float_tensor(x, "celu")
    a = _number(alpha, "celu", "alpha")
    if a == 0:
        raise ValueError("For 'celu', 'alpha' must not be 0")
    return select(greater(t, 0.0), t, mul(expm1(minimum(div(t, a), 0.0)), a))


def _lambd(lambd: Any, name: str) -> float:
    v = _number(lambd, name, "lambd")
    if v < 0:
        raise ValueError(f"For '{name}', 'lambd' must be >= 0, got {lambd}")
    return v


def softshrink(x: Any, lambd: float = 0.5) -> Any:
    """`ops.softshrink(x, lambd=0.5)`: x - lambd above lambd, x + lambd below -lambd,
    0 between."""
    t = _float_tensor(x, "softshrink")
    v = _lambd(lambd, "softshrink")
    inside = select(less(t, -v), add(t, v), 0.0)
    return select(greater(t, v), sub(t, v), inside)


def hardshrink(x: Any, lambd: float = 0.5) -> Any:
    """`ops.hardshrink(x, lambd=0.5)`: x where |x| > lambd, 0 elsewhere."""
    t = _float_tensor(x, "hardshrink")
    v = _lambd(lambd, "hardshrink")
    return select(greater(abs(t), v), t, 0.0)


def tanhshrink(input: Any) -> Any:
    """`ops.tanhshrink(input)`: x - tanh(x)."""
    t = _float_tensor(input, "tanhshrink")
    return sub(t, tanh(t))


def threshold(input: Any, thr: float, value: float) -> Any:
    """`ops.threshold(input, thr, value)`: x where x > thr, `value` elsewhere."""
    x = require_tensor(input, "threshold")
    if x.dtype.is_bool:
        raise TypeError(f"For 'threshold', the input must be a number tensor, got {x.dtype}")
    lo = _number(thr, "threshold", "thr")
    v = _number(value, "threshold", "value")
    return select(greater(x, lo), x, v)
