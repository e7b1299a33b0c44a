"""`ops.partial(func, *args)` and the primitive `ops.Partial()`, as MindSpore's.

MindSpore's `Partial()(func, *args)` is `functools.partial(func.__call__, *args)`:
positional arguments only (a keyword is a TypeError), and a `func` that is not
callable is an AttributeError (it has no `__call__`). In graph mode the result is
a Python callable the frontend calls while tracing, so it goes wherever a function
goes: `ops.HyperMap()(ops.partial(f, a), params, grads)`, `ms.grad`, `vmap`.
"""

from __future__ import annotations

import functools
from typing import Any


def partial(func: Any, *args: Any) -> functools.partial:
    """`ops.partial(func, *args)`: `func` with its first arguments bound to `args`."""
    if not callable(func):
        raise AttributeError(
            f"For 'partial', the 'func' must be callable, but got a {type(func).__name__} "
            f"('{type(func).__name__}' object has no attribute '__call__')"
        )
    return functools.partial(func, *args)


class Partial:
    """`ops.Partial()`: the primitive; `Partial()(func, *args)` is `ops.partial(func, *args)`."""

    def __call__(self, *args: Any) -> functools.partial:
        if not args:
            raise TypeError("For 'Partial', the inputs must be a function and its arguments")
        return partial(*args)

    def __repr__(self) -> str:
        return "Prim[Partial]"


__all__ = ["Partial", "partial"]
