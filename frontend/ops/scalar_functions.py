"""MindSpore's scalar helpers: `ops.scalar_add`, `scalar_sub`, `scalar_mul`,
`scalar_div`, `scalar_floordiv`, `scalar_mod`, `scalar_pow`, the comparisons
`scalar_eq/ne/lt/le/gt/ge`, `scalar_max`, `scalar_min`, `scalar_log`,
`scalar_uadd`, `scalar_usub`, `scalar_cast`, `scalar_to_array`, and the bool and
string ones `bool_and`, `bool_or`, `bool_not`, `bool_eq`, `string_eq`,
`string_concat`.

MindSpore's PyNative runs them as Python's operators on the arguments, so a
Python number gives a Python number (`scalar_div(7, 2)` is 3.5, `scalar_pow(2,
-1)` 0.5) and a Tensor gives what the Tensor operator gives (`scalar_add(Tensor(2),
3)` is an int64 Tensor). mindjit does the same in both modes: Python values are
constants of the graph, folded while it is traced; a Tensor goes through the
Tensor operators, which are ops. A zero divisor is MindSpore's ValueError when
it is known (a number, or a Tensor that is not computed by the graph).

Where MindSpore's graph mode differs from its PyNative (`scalar_pow(2, -1)` is 0
there, `scalar_usub(True)` a TypeError, `scalar_log` a float32 value), mindjit
gives PyNative's value in both modes. `bool_*`, `string_*` and `scalar_ne` have
no PyNative form in MindSpore 2.10 (they exist for its graph compiler); they give
its graph-mode values. `scalar_to_array` is deprecated and fails in both modes
in MindSpore 2.10; mindjit keeps its documented meaning, a 0-d Tensor of the
scalar (`Tensor(x)`'s dtype).
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.gather_ops import known
from mindjit.frontend.tensor import Tensor

_ZERO_DIV = "The divisor could not be zero. But the divisor is zero now."


def _is_zero(y: Any) -> bool:
    if isinstance(y, bool | int | float | np.number):
        return y == 0
    value = known(y)
    return value is not None and value.size == 1 and value.reshape(-1)[0] == 0


def scalar_add(x: Any, y: Any) -> Any:
    """`ops.scalar_add(x, y)`: x + y."""
    return x + y


def scalar_sub(x: Any, y: Any) -> Any:
    """`ops.scalar_sub(x, y)`: x - y."""
    return x - y


def scalar_mul(x: Any, y: Any) -> Any:
    """`ops.scalar_mul(x, y)`: x * y."""
    return x * y


def scalar_div(x: Any, y: Any) -> Any:
    """`ops.scalar_div(x, y)`: x / y (a float for numbers); a zero y is a ValueError."""
    if _is_zero(y):
        raise ValueError(_ZERO_DIV)
    return x / y


def scalar_floordiv(x: Any, y: Any) -> Any:
    """`ops.scalar_floordiv(x, y)`: x // y; a zero y is a ValueError."""
    if _is_zero(y):
        raise ValueError(_ZERO_DIV)
    return x // y


def scalar_mod(x: Any, y: Any) -> Any:
    """`ops.scalar_mod(x, y)`: x % y (Python's sign rule); a zero y is a ValueError."""
    if _is_zero(y):
        raise ValueError("Cannot perform modulo operation on zero.")
    return x % y


def scalar_pow(x: Any, y: Any) -> Any:
    """`ops.scalar_pow(x, y)`: x ** y."""
    return x**y


def scalar_eq(x: Any, y: Any) -> Any:
    """`ops.scalar_eq(x, y)`: x == y."""
    return x == y


def scalar_ne(x: Any, y: Any) -> Any:
    """`ops.scalar_ne(x, y)`: x != y."""
    return x != y


def scalar_lt(x: Any, y: Any) -> Any:
    """`ops.scalar_lt(x, y)`: x < y."""
    return x < y


def scalar_le(x: Any, y: Any) -> Any:
    """`ops.scalar_le(x, y)`: x <= y."""
    return x <= y


def scalar_gt(x: Any, y: Any) -> Any:
    """`ops.scalar_gt(x, y)`: x > y."""
    return x > y


def scalar_ge(x: Any, y: Any) -> Any:
    """`ops.scalar_ge(x, y)`: x >= y."""
    return x >= y


def scalar_max(x: Any, y: Any) -> Any:
    """`ops.scalar_max(x, y)`: Python's max(x, y) (the first of equals)."""
    return builtins.max(x, y)


def scalar_min(x: Any, y: Any) -> Any:
    """`ops.scalar_min(x, y)`: Python's min(x, y) (the first of equals)."""
    return builtins.min(x, y)


def scalar_log(x: Any) -> float:
    """`ops.scalar_log(x)`: the natural log as a Python float (a 0-d Tensor is read);
    x <= 0 is a ValueError (math domain error)."""
    return math.log(x)


def scalar_uadd(x: Any) -> Any:
    """`ops.scalar_uadd(x)`: x itself (unary plus; True stays True, as in MindSpore)."""
    return x


def scalar_usub(x: Any) -> Any:
    """`ops.scalar_usub(x)`: -x."""
    return -x


_CASTS = {D.int64: int, D.float64: float, D.bool_: bool}


def scalar_cast(input_x: Any, input_y: Any) -> Any:
    """`ops.scalar_cast(input_x, input_y)`: the number as int (truncated), float or
    bool, for `input_y` mindspore.int64, float64 or bool_."""
    name = "ScalarCast"
    if isinstance(input_x, Tensor) or not isinstance(input_x, bool | int | float | np.number):
        what = "Tensor" if isinstance(input_x, Tensor) else type(input_x).__name__
        raise TypeError(
            f"For '{name}', the type of 'x' should be one of '['bool', 'Number']', but got "
            f"type '{what}'."
        )
    cast = _CASTS.get(input_y) if isinstance(input_y, D.DType) else None
    if cast is None:
        raise ValueError(
            f"For '{name}', the supported type is in the list: [mindspore.int64, "
            f"mindspore.float64, mindspore.bool], but got {input_y}"
        )
    return cast(input_x)


def scalar_to_array(input_x: Any) -> Tensor:
    """`ops.scalar_to_array(input_x)`: a 0-d Tensor of the number (int64, float32 or
    bool, as `Tensor(input_x)`)."""
    if isinstance(input_x, Tensor) or not isinstance(input_x, bool | int | float | np.number):
        raise TypeError(
            "For 'ScalarToArray', the 'input_x' must be a bool, int or float, but got "
            f"{'Tensor' if isinstance(input_x, Tensor) else type(input_x).__name__}"
        )
    return Tensor(input_x)


def _booleans(name: str, *values: Any) -> None:
    if not all(isinstance(v, bool | np.bool_) for v in values):
        got = ", ".join(f"param{i}: {v}" for i, v in enumerate(values))
        raise RuntimeError(f"The inputs of {name} operator should be two booleans, but got {got}.")


def bool_and(x: Any, y: Any) -> bool:
    """`ops.bool_and(x, y)`: x and y, for two Python bools."""
    _booleans("BoolAnd", x, y)
    return bool(x and y)


def bool_or(x: Any, y: Any) -> bool:
    """`ops.bool_or(x, y)`: x or y, for two Python bools."""
    _booleans("BoolOr", x, y)
    return bool(x or y)


def bool_eq(x: Any, y: Any) -> bool:
    """`ops.bool_eq(x, y)`: x == y, for two Python bools."""
    _booleans("BoolEq", x, y)
    return bool(x == y)


def bool_not(x: Any) -> bool:
    """`ops.bool_not(x)`: not x, for a Python bool."""
    if not isinstance(x, bool | np.bool_):
        raise TypeError(f"For 'BoolNot', the input should be a bool, but got {type(x).__name__}.")
    return not x


def _strings(name: str, x: Any, y: Any) -> None:
    for v in (x, y):
        if not isinstance(v, str):
            raise TypeError(
                f"For '{name}', the inputs should be two strings, but got {type(v).__name__}."
            )


def string_eq(x: Any, y: Any) -> bool:
    """`ops.string_eq(x, y)`: whether the two strings are equal."""
    _strings("string_eq", x, y)
    return x == y


def string_concat(x: Any, y: Any) -> str:
    """`ops.string_concat(x, y)`: x + y, for two strings."""
    _strings("string_concat", x, y)
    return x + y


__all__ = [
    "bool_and",
    "bool_eq",
    "bool_not",
    "bool_or",
    "scalar_add",
    "scalar_cast",
    "scalar_div",
    "scalar_eq",
    "scalar_floordiv",
    "scalar_ge",
    "scalar_gt",
    "scalar_le",
    "scalar_log",
    "scalar_lt",
    "scalar_max",
    "scalar_min",
    "scalar_mod",
    "scalar_mul",
    "scalar_ne",
    "scalar_pow",
    "scalar_sub",
    "scalar_to_array",
    "scalar_uadd",
    "scalar_usub",
    "string_concat",
    "string_eq",
]
