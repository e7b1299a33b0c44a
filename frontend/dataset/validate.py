"""Argument checks of `mindjit.dataset`, in the words and exception types of
MindSpore's dataset validators (mindspore/dataset/core/validator_helpers.py):
a wrong type is a TypeError "Argument x with value v is not of type [...]", a
value out of range a ValueError "Input x is not within the required interval
of [lo, hi]." An int argument is never a bool, as there."""

from __future__ import annotations

from typing import Any

INT32_MAX = 2147483647
UINT32_MAX = 4294967295


def type_check(value: Any, types: tuple[type, ...], name: str) -> None:
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        raise TypeError(
            f"Argument {name} with value {value!r} is not of type {list(types)}, "
            f"but got {type(value)}."
        )


def check_value(value: int, lo: int, hi: int, name: str) -> None:
    if not lo <= value <= hi:
        raise ValueError(f"Input {name} is not within the required interval of [{lo}, {hi}].")


def pos_int32(value: Any, name: str) -> int:
    type_check(value, (int,), name)
    check_value(value, 1, INT32_MAX, name)
    return value


def non_negative_int32(value: Any, name: str) -> int:
    type_check(value, (int,), name)
    check_value(value, 0, INT32_MAX, name)
    return value


def count_or_all(value: Any, name: str) -> int:
    """-1 (all) or a positive int32: take's and repeat's `count`."""
    type_check(value, (int,), name)
    if value != -1 and not 1 <= value <= INT32_MAX:
        raise ValueError(
            f"Input {name} is not within the required interval of [1, {INT32_MAX}], or -1."
        )
    return value


def optional_bool(value: Any, name: str) -> bool | None:
    if value is not None:
        type_check(value, (bool,), name)
    return value


def columns(value: Any, name: str) -> list[str]:
    """A column name or a non-empty list of distinct, non-empty names."""
    type_check(value, (list, tuple, str), name)
    names = [value] if isinstance(value, str) else list(value)
    if not names:
        raise ValueError(f"{name} should not be empty.")
    for i, column in enumerate(names):
        type_check(column, (str,), f"{name}[{i}]")
        if not column:
            raise ValueError(f"{name}[{i}] should not be empty.")
    if len(set(names)) != len(names):
        raise ValueError(f"Every column name should not be same with others in {name}: {names}.")
    return names


def workers(value: Any, name: str = "num_parallel_workers") -> int | None:
    """Accepted and checked; the pipeline runs in the calling thread (package docstring)."""
    if value is not None:
        pos_int32(value, name)
    return value
