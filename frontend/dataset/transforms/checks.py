"""Argument checks of the transforms, in the words and exception types of
MindSpore's validators (dataset/core/validator_helpers.py, transforms/ and
vision/validators.py): a wrong type is a TypeError "Argument x with value v is
not of type [...]", a value out of range a ValueError "Input x is not within
the required interval of [lo, hi]." (an open end written with a parenthesis).
The type check itself is the pipeline's (`validate.type_check`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mindjit.frontend.dataset.validate import INT32_MAX, type_check

FLOAT_MAX_INTEGER = 16777216
INT64_MAX = 9223372036854775807

__all__ = ["INT32_MAX", "type_check"]


def check_value(
    value: float, lo: float, hi: float, name: str = "", open_lo: bool = False, open_hi: bool = False
) -> None:
    below = value <= lo if open_lo else value < lo
    above = value >= hi if open_hi else value > hi
    if below or above:
        left, right = "(" if open_lo else "[", ")" if open_hi else "]"
        label = f"{name} " if name else ""
        raise ValueError(
            f"Input {label}is not within the required interval of {left}{lo}, {hi}{right}."
        )


def check_positive(value: float, name: str = "") -> None:
    if value <= 0:
        raise ValueError(f"Input {f'{name} ' if name else ''}must be greater than 0.")


def typed_in_range(value: Any, types: tuple[type, ...], lo: float, hi: float, name: str) -> None:
    type_check(value, types, name)
    check_value(value, lo, hi, name)


def check_prob(prob: Any, name: str = "prob") -> None:
    typed_in_range(prob, (float, int), 0.0, 1.0, name)


def check_uint8(value: Any, name: str) -> None:
    typed_in_range(value, (int,), 0, 255, name)


def check_pos_float32(value: Any, name: str = "") -> None:
    type_check(value, (float, int), name)
    check_value(value, 0, FLOAT_MAX_INTEGER, name, open_lo=True)


def check_ops(ops: Any, name: str = "op_list") -> list[Callable[..., Any]]:
    """Compose's, RandomApply's ... list of transforms: a non-empty list of callables."""
    type_check(ops, (list,), name)
    if not ops:
        raise ValueError(f"{name} can not be empty.")
    for i, op in enumerate(ops):
        if not callable(op):
            raise TypeError(
                f"{name}[{i}] is neither a transforms op (TensorOperation) nor a callable pyfunc."
            )
    return list(ops)
