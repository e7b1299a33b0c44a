"""More activation Cells with MindSpore's names and arguments: ReLU6, HSigmoid, ELU,
Softplus, PReLU (a learnable per-channel slope), Mish, Hardtanh, Softmin, FastGelu.

Their `construct` calls the functional op (frontend/ops/activations.py), so the
same Cell runs in graph mode and PyNative. `ACTIVATION_NAMES` gives the names
`nn.get_activation` (and `nn.Dense(activation=...)`) accepts for them, MindSpore's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.tensor import Parameter, Tensor


def _number(v: Any, cell: str, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise TypeError(f"For '{cell}', '{what}' must be an int or a float, got {v!r}")
    return float(v)


class ReLU6(Cell):
    """`nn.ReLU6()`: min(max(x, 0), 6)."""

    def construct(self, x):
        return ops.relu6(x)


class HSigmoid(Cell):
    """`nn.HSigmoid()`: relu6(x + 3) / 6."""

    def construct(self, input_x):
        return ops.hardsigmoid(input_x)


class ELU(Cell):
    """`nn.ELU(alpha=1.0)`: x where x > 0, alpha * (exp(x) - 1) elsewhere."""

    def __init__(self, alpha: float = 1.0):
        super().__init__()
        self.alpha = _number(alpha, "ELU", "alpha")

    def construct(self, x):
        return ops.elu(x, self.alpha)


class Softplus(Cell):
    """`nn.Softplus(beta=1, threshold=20)`: log(1 + exp(beta x)) / beta."""

    def __init__(self, beta: float = 1, threshold: float = 20):
        super().__init__()
        self.beta = _number(beta, "Softplus", "beta")
        self.threshold = _number(threshold, "Softplus", "threshold")

    def construct(self, input):
        return ops.softplus(input, self.beta, self.threshold)


class PReLU(Cell):
    """`nn.PReLU(channel=1, w=0.25)`: x where x > 0, w * x elsewhere, with `w` a
    Parameter of shape (channel,) (named 'a', as MindSpore's); `w` is a float, a list
    of `channel` floats or a float Tensor of shape (channel,)."""

    def __init__(self, channel: int = 1, w: Any = 0.25):
        super().__init__()
        if isinstance(channel, bool) or not isinstance(channel, int):
            raise TypeError(f"For 'PReLU', 'channel' must be an int, got {channel!r}")
        if channel < 1:
            raise ValueError(f"For 'PReLU', 'channel' must be a positive int, got {channel}")
        if isinstance(w, float | np.floating) or (isinstance(w, int) and not isinstance(w, bool)):
            value = np.full((channel,), w, np.float32)
        elif isinstance(w, list):
            if len(w) != channel:
                raise ValueError(
                    f"For 'PReLU', 'w' must have 'channel' ({channel}) elements, got {len(w)}"
                )
            value = np.asarray(w, np.float32)
        elif isinstance(w, Tensor):
            if w.dtype not in (D.float16, D.float32):
                raise TypeError(f"For 'PReLU', 'w' must be float16 or float32, got {w.dtype}")
            if tuple(w.shape) != (channel,):
                raise ValueError(
                    f"For 'PReLU', 'w' must have shape ({channel},), got {tuple(w.shape)}"
                )
            value = w.asnumpy()
        else:
            raise TypeError(
                f"For 'PReLU', 'w' must be a float, a list or a Tensor, got {type(w).__name__}"
            )
        self.channel = channel
        self.w = Parameter(Tensor(value), name="a")

    def construct(self, x):
        return ops.prelu(x, ops.cast(self.w, x.dtype))


class Mish(Cell):
    """`nn.Mish()`: x * tanh(softplus(x))."""

    def construct(self, x):
        return ops.mish(x)


class Hardtanh(Cell):
    """`nn.Hardtanh(min_val=-1.0, max_val=1.0)`: x clipped to [min_val, max_val]."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0):
        super().__init__()
        self.min_val = _number(min_val, "Hardtanh", "min_val")
        self.max_val = _number(max_val, "Hardtanh", "max_val")
        if self.min_val > self.max_val:
            raise ValueError(
                f"For 'Hardtanh', 'min_val' ({min_val}) must not be greater than 'max_val' "
                f"({max_val})"
            )

    def construct(self, input):
        return ops.hardtanh(input, self.min_val, self.max_val)


class Softmin(Cell):
    """`nn.Softmin(axis=-1)`: softmax(-x) over `axis` (an int or a tuple of ints)."""

    def __init__(self, axis: Any = -1):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int | tuple | list):
            raise TypeError(f"For 'Softmin', 'axis' must be an int or a tuple, got {axis!r}")
        self.axis = tuple(axis) if isinstance(axis, list) else axis

    def construct(self, x):
        return ops.softmin(x, self.axis)


class FastGelu(Cell):
    """`nn.FastGelu()`: x * sigmoid(1.702 x), written as MindSpore's FastGeLU."""

    def construct(self, x):
        return ops.fast_gelu(x)


#: nn.get_activation's names for these Cells (MindSpore's)
ACTIVATION_NAMES: dict[str, type[Cell]] = {
    "relu6": ReLU6,
    "hsigmoid": HSigmoid,
    "elu": ELU,
    "softplus": Softplus,
    "prelu": PReLU,
    "mish": Mish,
    "hardtanh": Hardtanh,
    "softmin": Softmin,
    "fast_gelu": FastGelu,
}


class LogSigmoid(Cell):
    """`nn.LogSigmoid()`: log(sigmoid(x))."""

    def construct(self, input_x):
        return ops.logsigmoid(input_x)


class SeLU(Cell):
    """`nn.SeLU()`: the self-normalizing ELU."""

    def construct(self, input_x):
        return ops.selu(input_x)


class CELU(Cell):
    """`nn.CELU(alpha=1.0)`."""

    def __init__(self, alpha: float = 1.0):
        super().__init__()
        self.alpha = _number(alpha, "CELU", "alpha")
        if self.alpha == 0:
            raise ValueError("For 'CELU', 'alpha' must not be 0")

    def construct(self, x):
        return ops.celu(x, self.alpha)


class _Shrink(Cell):
    _cell = "SoftShrink"

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = _number(lambd, self._cell, "lambd")
        if self.lambd < 0:
            raise ValueError(f"For '{self._cell}', 'lambd' must be >= 0, got {lambd}")


class SoftShrink(_Shrink):
    """`nn.SoftShrink(lambd=0.5)`."""

    def construct(self, input_x):
        return ops.softshrink(input_x, self.lambd)


class HShrink(_Shrink):
    """`nn.HShrink(lambd=0.5)`: x where |x| > lambd, 0 elsewhere."""

    _cell = "HShrink"

    def construct(self, input_x):
        return ops.hardshrink(input_x, self.lambd)


class Tanhshrink(Cell):
    """`nn.Tanhshrink()`: x - tanh(x)."""

    def construct(self, x):
        return ops.tanhshrink(x)


class Threshold(Cell):
    """`nn.Threshold(threshold, value)`: x where x > threshold, `value` elsewhere."""

    def __init__(self, threshold: float, value: float):
        super().__init__()
        self.threshold = _number(threshold, "Threshold", "threshold")
        self.value = _number(value, "Threshold", "value")

    def construct(self, input_x):
        return ops.threshold(input_x, self.threshold, self.value)


ACTIVATION_NAMES.update(
    {
        "logsigmoid": LogSigmoid,
        "softshrink": SoftShrink,
        "hshrink": HShrink,
        "tanhshrink": Tanhshrink,
    }
)
