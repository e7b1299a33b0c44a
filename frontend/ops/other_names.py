"""MindSpore 2.10's functions that are other names for, or small compositions of,
what mindjit has: `ops.sgn`, `ops.softsign`, `ops.soft_shrink`, `ops.msort`,
`ops.numel`, `ops.is_floating_point`, `ops.eq`, `ops.floordiv`, `ops.floor_mod`,
`ops.truncate_div`, `ops.truncate_mod`, `ops.reverse`, `ops.repeat_elements`,
`ops.adjoint`, `ops.ldexp`, `ops.matrix_power`, `ops.combinations`, and the
constant windows `ops.hann_window` and `ops.hamming_window`.

`matrix_power` with n < 0 raises the inverse (linalg.py) to -n, as MindSpore.
`hann_window` is float64 by default and `hamming_window` float32, as MindSpore 2.10
prints them.

`soft_shrink` keeps MindSpore 2.10's own checks: a negative `lambd` is a
RuntimeError, an int tensor a TypeError.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.activations import softshrink
from mindjit.frontend.ops.array import broadcast_to
from mindjit.frontend.ops.axes import matrix_transpose
from mindjit.frontend.ops.conv import flip
from mindjit.frontend.ops.gather_ops import gather
from mindjit.frontend.ops.linalg import inverse
from mindjit.frontend.ops.math import (
    _trunc_div,
    abs,
    add,
    div,
    equal,
    floor_divide,
    matmul,
    mul,
    pow,
    remainder,
)
from mindjit.frontend.ops.math_extras import fmod
from mindjit.frontend.ops.math_functions import sign
from mindjit.frontend.ops.promotion import constant, is_tensor
from mindjit.frontend.ops.repeat import repeat_interleave
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


# --- other names -------------------------------------------------------------------------


def eq(input: Any, other: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.eq(input, other)`: `ops.equal`."""
    return equal(input, other)


def floordiv(input: Any, other: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.floordiv(input, other)`: `ops.floor_divide`."""
    return floor_divide(input, other)


def floor_mod(x: Any, y: Any) -> Any:
    """`ops.floor_mod(x, y)`: the remainder with the divisor's sign (`ops.remainder`)."""
    return remainder(x, y)


def truncate_div(x: Any, y: Any) -> Any:
    """`ops.truncate_div(x, y)`: x / y rounded toward zero."""
    return _trunc_div(x, y)


def truncate_mod(x: Any, y: Any) -> Any:
    """`ops.truncate_mod(x, y)`: the remainder with the dividend's sign (`ops.fmod`)."""
    return fmod(x, y)


def reverse(x: Any, axis: Any) -> Any:
    """`ops.reverse(x, axis)`: `ops.flip`."""
    return flip(_tensor("reverse", x), axis)


def repeat_elements(x: Any, rep: int, axis: int = 0) -> Any:
    """`ops.repeat_elements(x, rep, axis=0)`: each element repeated `rep` times along
    `axis` (`ops.repeat_interleave`)."""
    return repeat_interleave(_tensor("repeat_elements", x), rep, axis)


def adjoint(x: Any) -> Any:
    """`ops.adjoint(x)`: the last two axes swapped (real tensors: the conjugate
    transpose is the transpose)."""
    return matrix_transpose(_tensor("adjoint", x))


def ldexp(x: Any, other: Any) -> Any:
    """`ops.ldexp(x, other)`: x * 2**other, in float32 for int inputs."""
    _tensor("ldexp", x)
    return mul(x, pow(2.0, other))


def matrix_power(input: Any, n: int) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.matrix_power(input, n)`: the square matrices (..., m, m) raised to the
    int n by repeated squaring (n = 0: the identity; n < 0: the inverse's power)."""
    name = "matrix_power"
    t = _tensor(name, input)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"For '{name}', 'n' must be an int, but got {type(n)}")
    if len(t.shape) < 2 or t.shape[-1] != t.shape[-2]:
        raise ValueError(f"For '{name}', the input must be square matrices, got {tuple(t.shape)}")
    if n < 0:  # the inverse's power (frontend/ops/linalg.py)
        if not t.dtype.is_float:
            raise ValueError("For MatrixPower, integral types are not supported for n < 0.")
        t, n = inverse(t), -n
    result = None
    base = t
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    if result is None:
        eye = constant(np.eye(t.shape[-1]), t.dtype)
        return broadcast_to(eye, tuple(t.shape))
    return result


def combinations(input: Any, r: int = 2, with_replacement: bool = False) -> Any:  # noqa: A002
    """`ops.combinations(input, r=2, with_replacement=False)`: the length-r
    combinations of the 1-D input's elements, one row each (itertools' order)."""
    name = "combinations"
    t = _tensor(name, input)
    if len(t.shape) != 1:
        raise ValueError(f"For '{name}', the input must be 1-D, but got {tuple(t.shape)}")
    if isinstance(r, bool) or not isinstance(r, int) or r < 0:
        raise ValueError(f"For '{name}', 'r' must be a non-negative int, but got {r!r}")
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = np.array(list(pick(range(t.shape[0]), r)), np.int32).reshape(-1, r)
    if rows.size == 0:
        return constant(np.zeros((0, r) if r else (0,)), t.dtype)
    return gather(t, constant(rows, D.int32), 0)


def _window(name: str, length: Any, periodic: Any, dtype: Any) -> tuple[np.ndarray, Any]:
    if isinstance(length, bool) or not isinstance(length, int) or length < 0:
        raise ValueError(
            f"For '{name}', 'window_length' must be a non-negative int, got {length!r}"
        )
    if not isinstance(periodic, bool):
        raise TypeError(f"For '{name}', 'periodic' must be a bool, but got {periodic!r}")
    target = D.to_dtype(dtype)
    if not target.is_float:
        raise TypeError(f"For '{name}', 'dtype' must be a float type, but got {target}")
    span = length if periodic else length - 1
    phase = 2 * np.pi * np.arange(length) / span if span > 0 else np.zeros(length)
    return phase, target


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None) -> Any:
    """`ops.hann_window(window_length, periodic=True, *, dtype=None)`: 0.5 - 0.5 cos
    (2 pi n / N), N the length (periodic) or length - 1; float64 by default."""
    phase, target = _window("hann_window", window_length, periodic, dtype or D.float64)
    values = 0.5 - 0.5 * np.cos(phase) if window_length != 1 else np.ones(1)
    return constant(values, target)


def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    *,
    dtype: Any = None,
) -> Any:
    """`ops.hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *,
    dtype=None)`: alpha - beta cos(2 pi n / N); float32 by default."""
    phase, target = _window("hamming_window", window_length, periodic, dtype or D.float32)
    values = alpha - beta * np.cos(phase) if window_length != 1 else np.ones(1)
    return constant(values, target)
