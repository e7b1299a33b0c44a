"""Argument checks and small helpers the loss Cells share (loss_extra.py, loss_margin.py):
MindSpore 2.10's messages and exception types for a bad margin, reduction,
shape or dtype."""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend import ops


def _tensor(value: Any, what: str, owner: str) -> Any:
    if not ops.is_tensor(value):
        raise TypeError(
            f"For '{owner}', the '{what}' must be a Tensor, but got {type(value).__name__}."
        )
    return value


def _float_value(value: Any, what: str, owner: str, allow_int: bool = False) -> float:
    kinds = (int, float) if allow_int else (float,)
    if isinstance(value, bool) or not isinstance(value, kinds):
        want = "float' or 'int" if allow_int else "float"
        raise TypeError(
            f"For '{owner}', the type of '{what}' should be '{want}', but got type "
            f"'{type(value).__name__}'."
        )
    return float(value)


def _softplus(x: Any) -> Any:
    """log(1 + exp(x)) without overflow: max(x, 0) + log(1 + exp(-|x|))."""
    return ops.add(ops.maximum(x, 0.0), ops.log(ops.add(ops.exp(ops.neg(ops.abs(x))), 1.0)))


def _same_shape(a: Any, b: Any, what: str, owner: str) -> None:
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(
            f"For '{owner}', the shape of '{what}' must be {tuple(a.shape)}, but got "
            f"{tuple(b.shape)}."
        )


def _same_dtype(a: Any, b: Any, names: str, owner: str) -> None:
    if a.dtype != b.dtype:
        raise TypeError(
            f"For '{owner}', the dtypes of {names} must be the same, but got {a.dtype} and "
            f"{b.dtype}."
        )


def _broadcastable(a: Any, b: Any, names: str, owner: str) -> None:
    sa, sb = tuple(a.shape), tuple(b.shape)
    for x, y in zip(reversed(sa), reversed(sb)):
        if x != y and 1 not in (x, y):
            raise ValueError(
                f"For '{owner}', the shapes of {names} must broadcast, but got {sa} and {sb}."
            )


def _reject_unsigned(x: Any, owner: str) -> None:
    if x.dtype in (D.uint8, D.uint16, D.uint32, D.uint64):
        raise TypeError(
            f"For '{owner}', the parameters data type must not be in [UInt8, UInt16, UInt32, "
            f"UInt64], but got mindspore.{str(x.dtype).lower()}."
        )


# --- elementwise distances ---------------------------------------------------------------


def _rows_and_classes(x: Any, name: str) -> None:
    if len(x.shape) != 2:
        raise ValueError(f"For '{name}', 'x' must be 2-D (N, C), but got shape {tuple(x.shape)}.")


def _positive_float(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, float):
        raise TypeError(
            f"The type of '{what}' should be 'float', but got type '{type(value).__name__}'."
        )
    if not value > 0:
        raise ValueError(f"The '{what}' must be a positive float, but got {value}.")
    return value
