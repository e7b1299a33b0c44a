"""Composite neural-network functions (`ops.softmax`, `ops.gelu`, `ops.layer_norm`).

They are built from the primitive ops, so graph mode emits their mindir ops
inline (MindSpore expands these composites the same way before its backend),
and PyNative runs the same sequence, keeping the two modes bit-for-bit equal.
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend.ops.array import cast
from mindjit.frontend.ops.core import float_input, normalize_axes
from mindjit.frontend.ops.math import _tensor, add, div, exp, mul, rsqrt, sub, tanh
from mindjit.frontend.ops.reduce import reduce_max, reduce_mean, reduce_sum


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


_GELU_C = math.sqrt(2.0 / math.pi)


def gelu(input_x: Any, approximate: str = "none") -> Any:
    """`ops.gelu(input_x, approximate)`; only 'tanh' is available.

    0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))). The exact form
    needs erf, which the mindir dialect does not have yet.
    """
    if approximate != "tanh":
        raise ValueError(
            f"For 'gelu', approximate={approximate!r} is not supported: mindjit has no erf op; "
            "use approximate='tanh' (nn.GELU() uses it by default)"
        )
    x = float_input(_tensor(input_x, "gelu"))
    cube = mul(mul(x, x), x)
    inner = mul(add(x, mul(cube, 0.044715)), _GELU_C)
    return mul(mul(x, 0.5), add(tanh(inner), 1.0))


def layer_norm(input: Any, axes: Any, gamma: Any, beta: Any, epsilon: float) -> Any:
    """Normalize over `axes` (mean 0, variance 1, biased), then scale and shift."""
    x = float_input(_tensor(input, "layer_norm"))
    dims = normalize_axes(axes, len(x.shape), "layer_norm")
    centered = sub(x, reduce_mean(x, dims, True))
    variance = reduce_mean(mul(centered, centered), dims, True)
    normed = mul(centered, rsqrt(add(variance, float(epsilon))))
    return add(mul(normed, gamma), beta)
