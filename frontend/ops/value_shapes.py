"""Ops whose result's shape depends on the input's values: `ops.unique(input)` and
`ops.nonzero(input, *, as_tuple=False)` (and `ops.Unique`).

mindjit's graphs have static shapes (every mindir value has one), so:

- PyNative mode runs them, the way MindSpore's kernels do, in two steps: the
  static-shape part with mindir ops (sort, compare, cumsum), then the count
  (how many unique values, how many nonzeros) read back to the host, then the
  result of that size gathered with `unsorted_segment_sum`. The ops on the tape
  give the gradient of `unique`'s values (to the first element of each group).
- In GRAPH_MODE an input the program holds as a constant (a Tensor written in
  it) is folded while the graph is traced: the same steps run eagerly
  (`dispatch.eager`) and the result becomes a constant, equal to PyNative's. An
  input the graph computes (an argument, an op's result, a Parameter) is
  refused with a ValueError at the user's line: MindSpore compiles these with
  dynamic shapes, which mindjit's graphs do not have.

`unique` gives the values sorted ascending (MindSpore's examples; numpy's
order) and, for each input element, the int32 index of its value, in the
input's shape; NaNs are each their own value. `nonzero` gives the int64
coordinates of the nonzero elements in row-major order, shape (count, rank), or
with as_tuple=True one 1-D tensor per axis (MindSpore documents that form for
Ascend only; here it is on every engine). A 0-d input is a ValueError, as on
MindSpore's CPU.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph, eager
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.gather_ops import unsorted_segment_sum
from mindjit.frontend.ops.scan import cumsum
from mindjit.frontend.ops.sort import sort
from mindjit.frontend.ops.split import require_tensor
from mindjit.frontend.tensor import Parameter, Tensor


def _check_constant(x: Any, name: str) -> None:
    """While a graph is traced, the input must be a constant."""
    if current_graph() is None or (isinstance(x, Tensor) and not isinstance(x, Parameter)):
        return
    raise ValueError(
        f"For '{name}', the shape of the result depends on the input's values, and in "
        "GRAPH_MODE mindjit compiles static shapes only: the input must be a constant "
        "here (a Tensor written in the program); call it in PyNative mode, outside the "
        "compiled function, for a computed input"
    )


def _count(t: Any) -> int:
    """A 0-d or 1-element int tensor's value, read back to the host."""
    return int(t.asnumpy().reshape(-1)[0])


def unique(input: Any) -> tuple[Any, Any]:
    """`ops.unique(input)`: (the sorted unique values, the int32 index of each input
    element's value, in the input's shape)."""
    name = "unique"
    x = require_tensor(input, name)
    _check_constant(x, name)
    with eager():
        return _unique(x)


def _unique(x: Any) -> tuple[Any, Any]:
    n = x.size
    if n == 0:
        return array.reshape(x, (0,)), Tensor(np.zeros(x.shape, np.int32))
    is_bool = x.dtype.is_bool
    flat = array.reshape(array.cast(x, D.int32) if is_bool else x, (n,))
    values, order = sort(flat)
    first = fmath.not_equal(values[1:], values[:-1])  # where a new value starts
    first = array.concat((Tensor(np.ones((1,), np.bool_)), first), 0)
    group = fmath.sub(cumsum(array.cast(first, D.int32), 0), 1)
    k = _count(group[-1]) + 1
    ys = unsorted_segment_sum(fmath.select(first, values, 0), group, k)
    idx = unsorted_segment_sum(group, order, n)  # idx[order[i]] = group[i]: a permutation
    return (array.cast(ys, D.bool_) if is_bool else ys), array.reshape(idx, tuple(x.shape))


def nonzero(input: Any, *, as_tuple: bool = False) -> Any:
    """`ops.nonzero(input, *, as_tuple=False)`: the int64 coordinates of the nonzero
    elements, shape (count, rank); with as_tuple, one 1-D tensor per axis."""
    name = "nonzero"
    x = require_tensor(input, name)
    if not isinstance(as_tuple, bool):
        raise TypeError(f"For '{name}', 'as_tuple' must be a bool, but got {as_tuple!r}")
    shape = tuple(x.shape)
    if not shape:
        raise ValueError(f"For '{name}', the rank of 'input' must be >= 1, but got 0")
    _check_constant(x, name)
    with eager():
        coords = _nonzero(x, shape)
        if as_tuple:
            count = coords.shape[0]
            return tuple(array.reshape(coords[:, d : d + 1], (count,)) for d in range(len(shape)))
        return coords


def _nonzero(x: Any, shape: tuple[int, ...]) -> Any:
    n = math.prod(shape)
    flat = array.reshape(x, (n,))
    mask = fmath.not_equal(flat, array.zeros_like(flat)) if not x.dtype.is_bool else flat
    position = fmath.sub(cumsum(array.cast(mask, D.int32), 0), 1)
    count = _count(position[-1]) + 1 if n else 0
    if count == 0:
        return Tensor(np.zeros((0, len(shape)), np.int64))
    slot = fmath.select(mask, position, -1)  # dropped: outside [0, count)
    iota = Tensor(np.arange(n, dtype=np.int64))
    linear = unsorted_segment_sum(iota, slot, count)
    strides = Tensor(np.array([math.prod(shape[d + 1 :]) for d in range(len(shape))], np.int64))
    sizes = Tensor(np.array(shape, np.int64))
    return fmath.remainder(fmath.floor_divide(array.expand_dims(linear, 1), strides), sizes)


__all__ = ["nonzero", "unique"]
