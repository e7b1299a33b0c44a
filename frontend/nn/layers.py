"""Layers: `Dense` and the activation Cells.

Their `construct` methods use only what graph mode compiles (ops calls, `if`
on constant attributes), so the same classes run in both modes.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops
from mindjit.frontend.nn.cell import Cell
from mindjit.frontend.nn.init import initializer
from mindjit.frontend.nn.nonlinear import ACTIVATION_NAMES
from mindjit.frontend.tensor import Parameter


class Flatten(Cell):
    """`nn.Flatten(start_dim=1, end_dim=-1)`: merge those axes into one."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        for what, v in (("start_dim", start_dim), ("end_dim", end_dim)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'Flatten', '{what}' must be an int, got {v!r}")
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x):
        return ops.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


class ReLU(Cell):
    def construct(self, x):
        return ops.relu(x)


class Tanh(Cell):
    def construct(self, x):
        return ops.tanh(x)


class Sigmoid(Cell):
    def construct(self, x):
        return ops.sigmoid(x)


class HSwish(Cell):
    def construct(self, x):
        return ops.hswish(x)


class GELU(Cell):
    """`nn.GELU(approximate=True)`: the tanh approximation, or with approximate=False
    the exact x * (1 + erf(x / sqrt 2)) / 2."""

    def __init__(self, approximate: bool = True):
        super().__init__()
        self.approximate = bool(approximate)

    def construct(self, x):
        if self.approximate:
            return ops.gelu(x, approximate="tanh")
        return ops.gelu(x, approximate="none")


class Softmax(Cell):
    """`nn.Softmax(axis=-1)`: over an int axis or a tuple of axes."""

    def __init__(self, axis: Any = -1):
        super().__init__()
        self.axis = axis
        self.softmax = ops.Softmax(axis)

    def construct(self, x):
        return self.softmax(x)


class LogSoftmax(Cell):
    """`nn.LogSoftmax(axis=-1)`."""

    def __init__(self, axis: int = -1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.log_softmax(x, self.axis)


class LeakyReLU(Cell):
    """`nn.LeakyReLU(alpha=0.2)`: x where x >= 0, alpha * x elsewhere."""

    def __init__(self, alpha: float = 0.2):
        super().__init__()
        if isinstance(alpha, bool) or not isinstance(alpha, int | float):
            raise TypeError(f"For 'LeakyReLU', 'alpha' must be a number, got {alpha!r}")
        self.alpha = float(alpha)

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)


class SiLU(Cell):
    """`nn.SiLU()`: x * sigmoid(x)."""

    def construct(self, x):
        return ops.silu(x)


class Identity(Cell):
    """`nn.Identity()`: returns its input."""

    def construct(self, x):
        return x


_ACTIVATIONS: dict[str, type[Cell]] = {
    "relu": ReLU,
    "tanh": Tanh,
    "sigmoid": Sigmoid,
    "hswish": HSwish,
    "gelu": GELU,
    "softmax": Softmax,
    "logsoftmax": LogSoftmax,
    "leakyrelu": LeakyReLU,
    "silu": SiLU,
    **ACTIVATION_NAMES,
}


def get_activation(name: str | None) -> Cell | None:
    """The activation Cell MindSpore names `name` ('relu', 'relu6', 'prelu' ...), None
    for None."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"For 'get_activation', 'name' must be a str, got {name!r}")
    cls = _ACTIVATIONS.get(name.lower())
    if cls is None:
        raise KeyError(f"unknown activation '{name}'; known: {', '.join(sorted(_ACTIVATIONS))}")
    return cls()


class Dense(Cell):
    """y = activation(x @ weight^T + bias), weight of shape (out_channels, in_channels).

    `weight_init` defaults to 'normal' (N(0, 0.01)) and `bias_init` to 'zeros';
    either may also be a Tensor, numpy array, number or initializer name.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        weight_init: Any = "normal",
        bias_init: Any = "zeros",
        has_bias: bool = True,
        activation: Any = None,
        dtype: Any = D.float32,
    ):
        super().__init__()
        self.in_channels = int(in_channels)
        self.out_channels = int(out_channels)
        self.has_bias = bool(has_bias)
        self.weight = Parameter(
            initializer(
                "normal" if weight_init is None else weight_init,
                (self.out_channels, self.in_channels),
                dtype,
            ),
            name="weight",
        )
        if self.has_bias:
            self.bias = Parameter(
                initializer(
                    "zeros" if bias_init is None else bias_init, (self.out_channels,), dtype
                ),
                name="bias",
            )
        if isinstance(activation, str):
            activation = get_activation(activation)
        if activation is not None and not isinstance(activation, Cell | ops.Primitive):
            raise TypeError(
                f"Dense activation must be a str, a Cell or a Primitive, got {activation!r}"
            )
        self.activation = activation
        self.activation_flag = activation is not None
        self.matmul = ops.MatMul(transpose_b=True)

    def construct(self, x):
        x = self.matmul(x, self.weight)
        if self.has_bias:
            x = x + self.bias
        if self.activation_flag:
            x = self.activation(x)
        return x

    def extend_repr(self) -> str:
        s = (
            f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
            f"has_bias={self.has_bias}"
        )
        if self.activation_flag:
            s += f", activation={self.activation!r}"
        return s
