"""MindSpore 2.10's other names for arithmetic, and its constant windows:
`ops.inv` (the elementwise reciprocal, not the matrix inverse), `ops.floormod`,
`ops.pows`, the `ops.tensor_*` primitive instances (`tensor_mul` is `Mul()` as in
MindSpore), `ops.tensor_muls` (`ops.tensor_dot` is in legacy_names.py), `ops.approximate_equal`, and `ops.bartlett_window`,
`ops.blackman_window`, `ops.kaiser_window`.

What differs from the obvious composition is MindSpore's own checking, kept:
`inv` of an int tensor stays int (1/x truncated: 1, -1 or 0, as MindSpore's Inv
kernel prints); `approximate_equal` takes float tensors of one shape (no
broadcast: a RuntimeError) and compares |x - y| < tolerance in the wider float;
`tensor_muls` takes a Python number as `other`; the bartlett and blackman windows
take their length as a 0-d int Tensor (a Python int is MindSpore's TypeError)
while kaiser takes a Python int; the window values are numpy's, computed when
the program is built, so they are constants in a graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.ops.activation_primitives import Expm1
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.math import abs, div, greater, less, mul, sub
from mindjit.frontend.ops.other_names import _tensor as _require_tensor
from mindjit.frontend.ops.primitives import (
    Exp,
    FloorDiv,
    GreaterEqual,
    LessEqual,
    Mul,
    Pow,
    RealDiv,
    Sub,
)
from mindjit.frontend.ops.primitives_zoo import FloorMod
from mindjit.frontend.ops.promotion import constant, is_tensor
from mindjit.frontend.tensor import Parameter, Tensor

# MindSpore 2.10 binds these names to primitive instances
tensor_mul = Mul()
tensor_sub = Sub()
tensor_div = RealDiv()
tensor_pow = Pow()
tensor_mod = FloorMod()
tensor_exp = Exp()
tensor_expm1 = Expm1()
tensor_floordiv = FloorDiv()
tensor_ge = GreaterEqual()
tensor_le = LessEqual()
floormod = FloorMod()
pows = Pow()


def tensor_gt(input: Any, other: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.tensor_gt(input, other)`: input > other, elementwise."""
    return greater(input, other)


def tensor_lt(input: Any, other: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.tensor_lt(input, other)`: input < other, elementwise."""
    return less(input, other)


def tensor_muls(input: Any, other: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.tensor_muls(input, other)`: a tensor times a Python number (an int
    tensor times a float is float32)."""
    _require_tensor("tensor_muls", input)
    if is_tensor(other) or isinstance(other, bool) or not isinstance(other, (int, float)):
        raise TypeError(f"For 'Muls', 'other' must be a number, but got {type(other)}")
    return mul(input, other)


def inv(x: Any) -> Any:
    """`ops.inv(x)`: 1 / x elementwise, in x's dtype (int: truncated toward zero)."""
    t = _require_tensor("inv", x)
    if t.dtype.is_bool:
        raise TypeError(f"For 'Inv', the input must be a number tensor, but got {t.dtype}")
    if t.dtype.is_float:
        return div(1.0, t)
    # 1 / x truncated: 1 for 1, -1 for -1, 0 otherwise (MindSpore's int kernel; 1/0 is 0 here)
    one = constant(1, t.dtype)
    return mul(cast_to(less(abs(sub(abs(t), one)), one), t.dtype), t)


def approximate_equal(x: Any, y: Any, tolerance: float = 1e-5) -> Any:
    """`ops.approximate_equal(x, y, tolerance=1e-5)`: |x - y| < tolerance, for float
    tensors of the same shape."""
    name = "ApproximateEqual"
    for arg, t in (("x1", x), ("x2", y)):
        if not is_tensor(t):
            raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(t)}")
        if not t.dtype.is_float:
            raise TypeError(
                f"For primitive[{name}], the input argument[{arg}] must be a type of "
                f"{{Tensor[Float16], Tensor[Float32], Tensor[Float64]}}, but got {t.dtype}"
            )
    if tuple(x.shape) != tuple(y.shape):
        raise RuntimeError(
            f"For '{name}', arg 'x1' must have the same shape as 'x2'. But got 'x1' "
            f"shape: {tuple(x.shape)}, 'x2' shape: {tuple(y.shape)}."
        )
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)):
        raise TypeError(f"For '{name}', 'tolerance' must be a float, but got {type(tolerance)}")
    return less(abs(sub(x, y)), float(tolerance))


# --- windows ---------------------------------------------------------------------------


def _length_tensor(name: str, window_length: Any) -> int:
    """bartlett/blackman's window_length: a 0-d int32/int64 Tensor in [0, 1e6]."""
    if not is_tensor(window_length):
        raise TypeError(
            f"For Primitive[{name}], the type of input argument[window_length] must be "
            f"Tensor but got {type(window_length).__name__}."
        )
    if window_length.dtype not in (D.int32, D.int64):
        raise TypeError(
            f"For primitive[{name}], the input argument[window_length] must be a type of "
            f"{{Tensor[Int32], Tensor[Int64]}}, but got {window_length.dtype}."
        )
    if len(window_length.shape) != 0:
        raise ValueError(
            f"For '{name}', the dim of window_length must be 0, but got: "
            f"{len(window_length.shape)}."
        )
    if current_graph() is not None and (
        not isinstance(window_length, Tensor) or isinstance(window_length, Parameter)
    ):
        raise ValueError(
            f"For '{name}', the window's length sets the result's shape: in GRAPH_MODE it "
            "must be a constant (a Tensor written in the program)"
        )
    n = int(window_length.asnumpy())
    if not 0 <= n <= 1000000:
        raise ValueError(
            f"For '{name}', the value range of window_length must be [0, 1000000], but got: {n}."
        )
    return n


def _window_dtype(name: str, periodic: Any, dtype: Any) -> Any:
    if not isinstance(periodic, bool):
        raise TypeError(
            f"For '{name}', the type of 'periodic' should be 'bool', but got type "
            f"'{type(periodic).__name__}'."
        )
    target = D.to_dtype(dtype) if dtype is not None else D.float32
    if target not in (D.float16, D.float32, D.float64):
        raise TypeError(
            f"For '{name}', the 'dtype' should be one of [mindspore.float16, "
            f"mindspore.float32, mindspore.float64], but got '{target}'."
        )
    return target


def _phase(n: int, periodic: bool) -> np.ndarray:
    """2 pi k / N for k < n, N = n (periodic) or n - 1."""
    span = n if periodic else n - 1
    return 2 * np.pi * np.arange(n) / span if span > 0 else np.zeros(n)


def bartlett_window(window_length: Any, periodic: bool = True, *, dtype: Any = None) -> Any:
    """`ops.bartlett_window(window_length, periodic=True, *, dtype=None)`: the
    triangular window 1 - |2k/N - 1| (float32 by default)."""
    n = _length_tensor("BartlettWindow", window_length)
    target = _window_dtype("BartlettWindow", periodic, dtype)
    values = 1.0 - np.abs(_phase(n, periodic) / np.pi - 1.0) if n != 1 else np.ones(1)
    return constant(values, target)


def blackman_window(window_length: Any, periodic: bool = True, *, dtype: Any = None) -> Any:
    """`ops.blackman_window(window_length, periodic=True, *, dtype=None)`: 0.42 -
    0.5 cos(2 pi k / N) + 0.08 cos(4 pi k / N) (float32 by default)."""
    n = _length_tensor("BlackmanWindow", window_length)
    target = _window_dtype("BlackmanWindow", periodic, dtype)
    phase = _phase(n, periodic)
    values = 0.08 * np.cos(2 * phase) - 0.5 * np.cos(phase) + 0.42 if n != 1 else np.ones(1)
    return constant(values, target)


def kaiser_window(
    window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype: Any = None
) -> Any:
    """`ops.kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None)`:
    I0(beta sqrt(1 - (2k/N - 1)^2)) / I0(beta) (float64 by default)."""
    name = "kaiser_window"
    if isinstance(window_length, bool) or not isinstance(window_length, int):
        raise TypeError(
            f"For '{name}', 'window_length' must be a non-negative integer, but got "
            f"{type(window_length)}"
        )
    if window_length < 0:
        raise ValueError(
            f"For '{name}', 'window_length' must be a non-negative integer, but got {window_length}"
        )
    if not isinstance(periodic, bool):
        raise TypeError(
            f"For '{name}', 'periodic' must be a variable of Boolean type, but got {type(periodic)}"
        )
    target = D.to_dtype(dtype) if dtype is not None else D.float64
    if not target.is_float:
        raise TypeError(f"For '{name}', 'dtype' must be floating point dtypes, but got {target}.")
    n = window_length
    if n <= 1:
        return constant(np.ones(n), target)
    span = n + 1 if periodic else n  # periodic: the symmetric window of n + 1, first n
    values = np.kaiser(span, float(beta))[:n]
    return constant(values, target)


__all__ = [
    "approximate_equal",
    "bartlett_window",
    "blackman_window",
    "floormod",
    "inv",
    "kaiser_window",
    "pows",
    "tensor_div",
    "tensor_exp",
    "tensor_expm1",
    "tensor_floordiv",
    "tensor_ge",
    "tensor_gt",
    "tensor_le",
    "tensor_lt",
    "tensor_mod",
    "tensor_mul",
    "tensor_muls",
    "tensor_pow",
    "tensor_sub",
]
