"""A Cell's compute precision (`Cell.to_float`), below both nn and the graph compiler.

`cell.to_float(ms.float16)` marks the Cell and its sub-Cells (MindSpore's
`fp16` flag). While a marked Cell's `construct` runs, in PyNative mode
(`nn.Cell.__call__`) and while graph mode traces it (`GraphCompiler._trace`),
this module's stack holds its precision. As MindSpore's MixedPrecisionCast
does in graph mode, two things are cast to it, the same way in both modes:

- the float inputs of the Cell's `construct` (nested tuples, lists and dicts too),
- the float Parameters the Cell's code reads (`self.weight` in `construct` is a
  cast of the Parameter; `nn.Cell.__getattr__`). Parameters that do not take
  gradients (BatchNorm's moving statistics) are left as they are: their ops
  assign to them, and MindSpore keeps them in their own dtype too.

A Cell without a mark runs without casts, even inside a marked one (MindSpore's
graph-mode rule: the flag is the graph's own). Every `to_float` bumps a
generation number that is part of each compiled program's key, and the
precision in force is part of each graph's key inside a compile, so a graph
traced under one precision is never reused for another.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from mindjit.frontend import dtype as D

_ATTR = "_mixed_precision"
_state = threading.local()
_changes = itertools.count(1)
_generation = [0]


def cell_precision(cell: Any) -> D.DType | None:
    """The dtype `cell.to_float` gave, or None."""
    return getattr(cell, "__dict__", {}).get(_ATTR)


def set_cell_precision(cell: Any, dtype: D.DType) -> None:
    object.__setattr__(cell, _ATTR, dtype)
    _generation[0] = next(_changes)


def generation() -> int:
    """Changes whenever a Cell's precision does (part of every program's key)."""
    return _generation[0]


def current() -> D.DType | None:
    """The precision of the Cell whose construct is running (None: no casts)."""
    stack = getattr(_state, "stack", None)
    return stack[-1] if stack else None


def key() -> tuple[int, str | None]:
    """What the precision contributes to a program's or a graph's key."""
    now = current()
    return _generation[0], None if now is None else now.name


@contextmanager
def running(dtype: D.DType | None) -> Iterator[None]:
    """`dtype` is the precision in force inside this block."""
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    stack.append(dtype)
    try:
        yield
    finally:
        stack.pop()


def needs_cast(x: Any, dtype: D.DType) -> bool:
    """A float tensor (Tensor, Parameter or graph value) of another float dtype."""
    found = getattr(x, "dtype", None)
    return isinstance(found, D.DType) and found.is_float and found != dtype and hasattr(x, "shape")


def cast_floats(value: Any, dtype: D.DType, cast: Callable[[Any, D.DType], Any]) -> Any:
    """`value` with every float tensor in it cast to `dtype` by `cast` (MindSpore's
    `mixed_precision_cast`: tuples, lists and dicts are walked; the rest is kept)."""
    if isinstance(value, tuple | list):
        return type(value)(cast_floats(v, dtype, cast) for v in value)
    if type(value) is dict:
        return {k: cast_floats(v, dtype, cast) for k, v in value.items()}
    return cast(value, dtype) if needs_cast(value, dtype) else value


__all__ = [
    "cast_floats",
    "cell_precision",
    "current",
    "generation",
    "key",
    "needs_cast",
    "running",
    "set_cell_precision",
]
