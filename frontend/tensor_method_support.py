"""What Tensor's operators and methods share (tensor_operators.py, tensor_methods.py,
tensor_methods_more.py): the ops they call, looked up when called, because the
ops compute on Tensors (the few function-level imports of that inversion are
here and in the methods, each with its reason), and the argument forms
MindSpore's methods take.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D


def ops_module() -> Any:
    from mindjit.frontend import ops  # function-level: ops import Tensor, which has these operators

    return ops


def is_operand(x: Any) -> bool:
    """What `==`/`!=` compare elementwise; anything else is simply unequal."""
    from mindjit.frontend.ops.promotion import is_tensor  # function-level: ops import Tensor

    return is_tensor(x) or isinstance(x, numbers.Number | np.bool_ | np.ndarray | list | tuple)


def axes_of(args: tuple[Any, ...]) -> Any:
    """`f(1, 2)`, `f((1, 2))` and `f([1, 2])` alike."""
    if len(args) == 1 and isinstance(args[0], tuple | list):
        return tuple(args[0])
    return tuple(args)


def no_extras(name: str, kwargs: dict[str, Any]) -> None:
    extra = {k: v for k, v in kwargs.items() if v not in (None, False)}
    if extra:
        raise NotImplementedError(f"Tensor.{name}: {', '.join(extra)} are not supported")


def size_of(size: Any, name: str) -> tuple[int, ...]:
    """`new_ones(3)` or `new_ones((2, 3))`, as MindSpore takes the size."""
    if isinstance(size, int) and not isinstance(size, bool):
        return (size,)
    if isinstance(size, tuple | list) and all(
        isinstance(d, int) and not isinstance(d, bool) for d in size
    ):
        return tuple(size)
    raise TypeError(
        f"{name}(): argument 'size' (position 1) must be tuple of int, not {type(size).__name__}."
    )


def cast_target(dtype: Any) -> Any:
    """What `Tensor.type(dtype)` casts to: a dtype or its name; anything else is the
    TypeError MindSpore's astype raises."""
    try:
        return D.to_dtype(dtype)
    except (TypeError, ValueError, KeyError):
        raise TypeError(
            "For Tensor.astype, the input type must be one of [mindspore.int8, mindspore.int16, "
            "mindspore.int32, mindspore.int64, mindspore.uint8, mindspore.uint16, mindspore.uint32, "
            f"mindspore.uint64, mindspore.float16, mindspore.float32, mindspore.float64, "
            f"mindspore.bool_], but got {dtype!r}."
        ) from None
