"""Tensor creation with MindSpore 2.x's rules: `ops.arange`, `ops.linspace`, `ops.eye`,
and the triangle masks `ops.tril` / `ops.triu`.

Shapes are static, so every sequence these ops make is known when the program is
traced: `arange`, `linspace` and `eye` return Tensors in both modes, which a graph
holds as `mindir.constant`s (as MindSpore folds them at compile time). Their
bounds must therefore be known too: numbers, or Tensors with a value; a graph's
run-time value as a bound is a TypeError that says so.

`tril` / `triu` keep a triangle of a tensor: a `select` between the tensor and
zeros under a constant boolean mask of the last two axes' shape, so the gradient
flows through the kept elements only and no new mindir op is needed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.math import select
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.tensor import Tensor


def _scalar(value: Any, what: str, name: str) -> int | float:
    """A bound as a Python int or float: numbers, or 0-d Tensors with a known value."""
    if is_tensor(value):
        if tuple(value.shape) != ():
            raise ValueError(
                f"For '{name}', a Tensor '{what}' must have shape (), but got {tuple(value.shape)}"
            )
        if not isinstance(value, Tensor):
            raise TypeError(
                f"For '{name}', '{what}' must be known when the graph is compiled (a number "
                "or a constant Tensor), but got a value computed in the graph"
            )
        value = value.asnumpy().item()
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.number):
        raise TypeError(
            f"For '{name}', the '{what}' must be an int, a float or a scalar Tensor, "
            f"but got {type(value).__name__}"
        )
    return value.item() if isinstance(value, np.number) else value


def arange(start: Any = 0, end: Any = None, step: Any = 1, *, dtype: Any = None) -> Tensor:
    """`ops.arange(start=0, end=None, step=1, *, dtype=None)`: start, start + step, ...
    up to `end` (excluded); `arange(n)` is 0 .. n-1. Without `dtype`: int64 when the
    three are ints, else float32."""
    name = "arange"
    if end is None:
        start, end = 0, start
    a = _scalar(start, "start", name)
    b = _scalar(end, "end", name)
    s = _scalar(step, "step", name)
    if s == 0:
        raise ValueError(f"For '{name}', the 'step' must not be 0")
    if s > 0 and a >= b:
        raise ValueError(
            f"For '{name}', when 'step' > 0, 'start' must be less than 'end', but got "
            f"start={a}, end={b}"
        )
    if s < 0 and a <= b:
        raise ValueError(
            f"For '{name}', when 'step' < 0, 'start' must be greater than 'end', but got "
            f"start={a}, end={b}"
        )
    if dtype is None:
        floats = any(isinstance(v, float) for v in (a, b, s))
        target = D.float32 if floats else D.int64
    else:
        target = D.to_dtype(dtype)
    count = math.ceil((b - a) / s)
    values = a + np.arange(count, dtype=np.float64 if target.is_float else np.int64) * s
    return Tensor._wrap(np.asarray(values).astype(target.numpy))


def range_(start: Any, limit: Any, delta: Any) -> Tensor:
    """`ops.Range()(start, limit, delta)`: arange of three scalar Tensors of one dtype,
    the result in that dtype."""
    name = "Range"
    dtypes = {t.dtype for t in (start, limit, delta) if is_tensor(t)}
    if len(dtypes) > 1:
        raise TypeError(
            f"For '{name}', 'start', 'limit' and 'delta' must have the same dtype, "
            f"but got {sorted(d.name for d in dtypes)}"
        )
    dtype = dtypes.pop() if dtypes else None
    return arange(start, limit, delta, dtype=dtype)


def linspace(start: Any, end: Any, steps: Any) -> Tensor:
    """`ops.linspace(start, end, steps)`: `steps` evenly spaced values from `start` to
    `end`, both included; float32 (or the dtype of a float Tensor `start`)."""
    name = "linspace"
    a = float(_scalar(start, "start", name))
    b = float(_scalar(end, "end", name))
    if is_tensor(steps):
        steps = _scalar(steps, "steps", name)
    if isinstance(steps, bool) or not isinstance(steps, int | np.integer):
        raise TypeError(f"For '{name}', the 'steps' must be an int, but got {type(steps).__name__}")
    if steps <= 0:
        raise ValueError(f"For '{name}', the 'steps' must be positive, but got {steps}")
    target = start.dtype if is_tensor(start) and start.dtype.is_float else D.float32
    return Tensor._wrap(np.linspace(a, b, int(steps)).astype(target.numpy))


def _dim(value: Any, what: str, name: str) -> int:
    if is_tensor(value):
        value = _scalar(value, what, name)
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(
            f"For '{name}', the '{what}' must be an int, but got {type(value).__name__}"
        )
    if value < 0:
        raise ValueError(f"For '{name}', the '{what}' must be non-negative, but got {value}")
    return int(value)


def eye(n: Any, m: Any = None, dtype: Any = None) -> Tensor:
    """`ops.eye(n, m=None, dtype=None)`: an n x m (n x n) identity; float32 by default."""
    rows = _dim(n, "n", "eye")
    cols = rows if m is None else _dim(m, "m", "eye")
    target = D.float32 if dtype is None else D.to_dtype(dtype)
    return Tensor._wrap(np.eye(rows, cols, dtype=target.numpy))


def _triangle(input: Any, diagonal: Any, name: str, lower: bool) -> Any:
    if not is_tensor(input):
        raise TypeError(
            f"For '{name}', the 'input' must be a Tensor, but got {type(input).__name__}"
        )
    if isinstance(diagonal, bool) or not isinstance(diagonal, int | np.integer):
        raise TypeError(
            f"For '{name}', the 'diagonal' must be an int, but got {type(diagonal).__name__}"
        )
    shape = tuple(input.shape)
    if len(shape) < 2:
        raise ValueError(f"For '{name}', the rank of 'input' must be at least 2, but got {shape}")
    rows, cols = shape[-2:]
    make = np.tril if lower else np.triu
    mask = make(np.ones((rows, cols), dtype=np.bool_), int(diagonal))
    zero = Tensor._wrap(np.zeros((), dtype=input.dtype.numpy))
    return select(Tensor._wrap(mask), input, zero)


def tril(input: Any, diagonal: int = 0) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.tril(input, diagonal=0)`: the elements on and below the `diagonal`-th
    diagonal of the last two axes, zeros elsewhere."""
    return _triangle(input, diagonal, "tril", True)


def triu(input: Any, diagonal: int = 0) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.triu(input, diagonal=0)`: the elements on and above the `diagonal`-th
    diagonal of the last two axes, zeros elsewhere."""
    return _triangle(input, diagonal, "triu", False)


__all__ = ["arange", "eye", "linspace", "range_", "tril", "triu"]
