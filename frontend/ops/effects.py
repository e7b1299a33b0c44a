"""Ops with side effects or ordering meaning: assign, depend, print, float status.

In graph mode they are handed to the graph being traced (its `assign`, `depend`,
`print`, `npu_status` methods emit the mindir side-effect ops, which auto-monad
orders later). In PyNative mode they act at once:

- `assign(param, value)` writes `value` into the Parameter's array in place and
  returns the Parameter;
- `depend(value, expr)` returns `value` (eager code already runs in order);
- `print(...)` prints each argument on its own line in graph mode's format;
- the NPU float-status ops return an 8-element float32 status that is always
  zero: the CPU records no overflow (the simulated Ascend device does, in graph mode).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.ops.array import broadcast_to
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.promotion import as_operand, is_tensor
from mindjit.frontend.printing import print_items
from mindjit.frontend.tensor import Parameter, Tensor


def _check_parameter(variable: Any) -> None:

    if not isinstance(variable, Parameter):
        raise TypeError(
            f"For 'Assign', the first input must be a Parameter, got {type(variable).__name__}"
        )


def assign(variable: Any, value: Any) -> Any:
    """`ops.assign(param, value)`: param = value (cast and broadcast to the Parameter)."""
    _check_parameter(variable)
    value = as_operand(value, "'Assign' value")
    graph = current_graph()
    if graph is not None:
        v = cast_to(value, variable.dtype)
        if tuple(v.shape) != tuple(variable.shape):
            v = broadcast_to(v, tuple(variable.shape))
        return graph.assign(variable, v)
    arr = np.asarray(value.asnumpy() if is_tensor(value) else value)
    try:
        new = np.broadcast_to(arr, variable.shape)
    except ValueError:
        raise ValueError(
            f"For 'Assign', the value of shape {arr.shape} cannot be assigned to "
            f"Parameter '{variable.name}' of shape {tuple(variable.shape)}"
        ) from None
    variable._assign_array(new.astype(variable.dtype.numpy, copy=True))
    return variable


def depend(value: Any, expr: Any) -> Any:
    """`ops.depend(value, expr)`: `value`, computed after `expr`."""
    graph = current_graph()
    if graph is not None:
        return graph.depend(value, expr)
    return value


def _print_items(args: Sequence[Any]) -> list[Any]:
    items: list[Any] = []
    for a in args:
        if isinstance(a, tuple | list):
            items.extend(_print_items(a))
        elif isinstance(a, str) or is_tensor(a):
            items.append(a)
        elif isinstance(a, np.ndarray):
            items.append(Tensor(a))
        else:
            items.append(str(a))
    return items


def print_(*input_x: Any) -> None:
    """`ops.print(...)`: strings and tensors, one per line, tensors as `Tensor(shape=...)`."""
    items = _print_items(input_x)
    graph = current_graph()
    if graph is not None:
        return graph.print(items)

    print_items(items)
    return None


# --- Ascend float status -------------------------------------------------------------


def _status() -> Any:

    return Tensor._wrap(np.zeros(8, dtype=np.float32))


def _check_status(x: Any, name: str) -> Any:
    if not is_tensor(x) or tuple(x.shape) != (8,):
        raise TypeError(f"For '{name}', the input must be the 8-element float32 status tensor")
    return cast_to(x, D.float32)


def npu_alloc_float_status() -> Any:
    graph = current_graph()
    if graph is not None:
        return graph.npu_status("alloc", None)
    return _status()


def npu_clear_float_status(x: Any) -> Any:
    x = _check_status(x, "NPUClearFloatStatus")
    graph = current_graph()
    if graph is not None:
        return graph.npu_status("clear", x)
    return _status()


def npu_get_float_status(x: Any) -> Any:
    x = _check_status(x, "NPUGetFloatStatus")
    graph = current_graph()
    if graph is not None:
        return graph.npu_status("get", x)
    return _status()
