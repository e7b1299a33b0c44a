"""Argument checks of the optimizers, learning-rate schedules and loss-scale cells,
with the types MindSpore's validator accepts (a float argument must be a Python
float, an int argument an int and not a bool) and its exception types:
TypeError for a wrong type, ValueError for a value out of range."""

from __future__ import annotations

from typing import Any


def _prefix(owner: str) -> str:
    return f"For '{owner}', the"


def is_float(value: Any, name: str, owner: str) -> float:
    """A Python float (MindSpore's `check_is_float`)."""
    if isinstance(value, bool) or not isinstance(value, float):
        raise TypeError(
            f"{_prefix(owner)} '{name}' must be type of float, but got '{type(value).__name__}'."
        )
    return value


def positive_float(value: Any, name: str, owner: str) -> float:
    v = is_float(value, name, owner)
    if not v > 0.0:
        raise ValueError(f"{_prefix(owner)} '{name}' must be a positive float, but got {value}.")
    return v


def non_negative_float(value: Any, name: str, owner: str) -> float:
    v = is_float(value, name, owner)
    if not v >= 0.0:
        raise ValueError(
            f"{_prefix(owner)} '{name}' must be a non-negative float, but got {value}."
        )
    return v


def positive_int(value: Any, name: str, owner: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"{_prefix(owner)} '{name}' must be type of int, but got '{type(value).__name__}'."
        )
    if value <= 0:
        raise ValueError(f"{_prefix(owner)} '{name}' must be a positive int, but got {value}.")
    return value


def is_bool(value: Any, name: str, owner: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(
            f"{_prefix(owner)} '{name}' must be type of bool, but got '{type(value).__name__}'."
        )
    return value


def open_unit(value: Any, name: str, owner: str) -> float:
    """A float in (0.0, 1.0) (the betas of the Adam family)."""
    v = is_float(value, name, owner)
    if not 0.0 < v < 1.0:
        raise ValueError(f"{_prefix(owner)} '{name}' must be in range (0.0, 1.0), but got {value}.")
    return v
