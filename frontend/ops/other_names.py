"""MindSpore 2.10's functions that are other names for, or small compositions of,
what mindjit has: `ops.sgn`, `ops.softsign`, `ops.soft_shrink`, `ops.msort`,
`ops.numel`, `ops.is_floating_point`.

`soft_shrink` keeps MindSpore 2.10's own checks: a negative `lambd` is a
RuntimeError, an int tensor a TypeError.
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.frontend.ops.activations import softshrink
from mindjit.frontend.ops.math import abs, add, div
from mindjit.frontend.ops.math_functions import sign
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.sort import sort


def _tensor(name: str, x: Any) -> Any:
    if not is_tensor(x):
        raise TypeError(f"For '{name}', the input must be a Tensor, but got {type(x)}")
    return x


def sgn(input: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.sgn(input)`: the sign (-1, 0, 1) of a real tensor, in its dtype."""
    return sign(_tensor("sgn", input))


def softsign(x: Any) -> Any:
    """`ops.softsign(x)`: x / (1 + |x|), float tensors only."""
    t = _tensor("Softsign", x)
    if not t.dtype.is_float:
        raise TypeError(
            "For primitive[Softsign], the input argument[input_x] must be a type of "
            f"{{Tensor[Float16], Tensor[Float32], Tensor[Float64]}}, but got {t.dtype}."
        )
    return div(t, add(abs(t), 1))


def soft_shrink(input: Any, lambd: float = 0.5) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.soft_shrink(input, lambd=0.5)`: `ops.softshrink` with MindSpore's checks."""
    t = _tensor("SoftShrink", input)
    if not t.dtype.is_float:
        raise TypeError(
            "For primitive[SoftShrink], the input argument[input_x] must be a type of "
            f"{{BFloat16, Float16, Float32}}, but got {t.dtype}."
        )
    if isinstance(lambd, int | float) and not isinstance(lambd, bool) and lambd < 0:
        raise RuntimeError(
            f"For 'SoftShrink', the values for lambd should be greater or equal to 0, , but "
            f"found to be [{lambd}]."
        )
    return softshrink(t, lambd)


def msort(input: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.msort(input)`: the values sorted ascending along axis 0."""
    return sort(_tensor("msort", input), 0)[0]


def numel(input: Any) -> int:  # noqa: A002 - MindSpore's name
    """`ops.numel(input)`: the number of elements, a Python int."""
    return math.prod(_tensor("numel", input).shape)


def is_floating_point(input: Any) -> bool:  # noqa: A002 - MindSpore's name
    """`ops.is_floating_point(input)`: whether the dtype is a float type."""
    return bool(_tensor("is_floating_point", input).dtype.is_float)
