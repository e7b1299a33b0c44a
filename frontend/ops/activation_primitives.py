"""MindSpore's primitive classes for activations and the elementwise math of
math_functions.py (`ops.ReLU6()`, `ops.Softmax(axis=-1)`, `ops.Elu(alpha=1.0)`,
`ops.ReduceProd(keep_dims=False)`, `ops.Einsum(equation)` ...): each holds its
attributes and calls the functional op."""

from __future__ import annotations

from typing import Any

from mindjit.frontend.ops import activations as A
from mindjit.frontend.ops import contract as C
from mindjit.frontend.ops import math_functions as F
from mindjit.frontend.ops import nn_functional, reduce
from mindjit.frontend.ops.primitives import Primitive, _Reduce, _simple

ReLU6 = _simple("ReLU6", A.relu6, "min(max(x, 0), 6)")
HSigmoid = _simple("HSigmoid", A.hardsigmoid, "relu6(x + 3) / 6")
Mish = _simple("Mish", A.mish, "x * tanh(softplus(x))")
Softplus = _simple("Softplus", A.softplus, "log(1 + exp(x))")
PReLU = _simple("PReLU", A.prelu, "PReLU()(x, weight): x > 0 ? x : weight * x")
FastGeLU = _simple("FastGeLU", A.fast_gelu, "x * sigmoid(1.702 x)")
GeLU = _simple(
    "GeLU", lambda x: nn_functional.gelu(x, approximate="tanh"), "the tanh approximation of GELU"
)
Log1p = _simple("Log1p", F.log1p, "log(1 + x)")
Expm1 = _simple("Expm1", F.expm1, "exp(x) - 1")
Log2 = _simple("Log2", F.log2, "log2(x)")
Exp2 = _simple("Exp2", F.exp2, "2 ** x")
Tan = _simple("Tan", F.tan, "tan")
Atan = _simple("Atan", F.atan, "arctan")
Atan2 = _simple("Atan2", F.atan2, "Atan2()(y, x)")
Asin = _simple("Asin", F.asin, "arcsin")
ACos = _simple("ACos", F.acos, "arccos")
Sinh = _simple("Sinh", F.sinh, "sinh")
Cosh = _simple("Cosh", F.cosh, "cosh")
Sign = _simple("Sign", F.sign, "-1, 0 or 1")
IsNan = _simple("IsNan", F.isnan, "x is NaN")
IsInf = _simple("IsInf", F.isinf, "x is +-inf")
IsFinite = _simple("IsFinite", F.isfinite, "x is neither NaN nor infinite")


class _AxisActivation(Primitive):
    def __init__(self, axis: Any = -1):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int | tuple | list):
            raise TypeError(f"For '{self.name}', 'axis' must be an int or a tuple, got {axis!r}")
        self.axis = axis


class Softmax(_AxisActivation):
    """`Softmax(axis=-1)(logits)`: over an int axis or a tuple of axes."""

    def __call__(self, logits: Any) -> Any:
        return A.softmax_axes(logits, self.axis, self.name)


class LogSoftmax(_AxisActivation):
    """`LogSoftmax(axis=-1)(logits)`."""

    def __init__(self, axis: int = -1):
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"For 'LogSoftmax', 'axis' must be an int, got {axis!r}")
        super().__init__(axis)

    def __call__(self, logits: Any) -> Any:
        return nn_functional.log_softmax(logits, self.axis)


class Elu(Primitive):
    """`Elu(alpha=1.0)(input_x)`."""

    def __init__(self, alpha: float = 1.0):
        super().__init__()
        if isinstance(alpha, bool) or not isinstance(alpha, int | float):
            raise TypeError(f"For 'Elu', 'alpha' must be a float, got {alpha!r}")
        self.alpha = float(alpha)

    def __call__(self, input_x: Any) -> Any:
        return A.elu(input_x, self.alpha)


class ReduceProd(_Reduce):
    """`ReduceProd(keep_dims=False)(x, axis=())`."""

    _fn = staticmethod(lambda x, axis, keep: C.prod(x, axis, keep))


class ReduceAll(_Reduce):
    """`ReduceAll(keep_dims=False)(x, axis=())`."""

    _fn = staticmethod(reduce.reduce_all)


class ReduceAny(_Reduce):
    """`ReduceAny(keep_dims=False)(x, axis=())`."""

    _fn = staticmethod(reduce.reduce_any)


class Einsum(Primitive):
    """`Einsum(equation)(operands)`: operands a tuple of tensors."""

    def __init__(self, equation: str):
        super().__init__()
        if not isinstance(equation, str):
            raise TypeError(f"For 'Einsum', 'equation' must be a str, got {equation!r}")
        self.equation = equation

    def __call__(self, operands: Any) -> Any:
        return C.einsum(self.equation, *operands)
