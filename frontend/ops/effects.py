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

from mindjit.dialects import mindir as M
from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.ops import math
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


def apply_momentum(
    variable: Any, accumulation: Any, learning_rate: Any, gradient: Any, momentum: Any
) -> Any:
    """MindSpore's ApplyMomentum without Nesterov: `accumulation = accumulation *
    momentum + gradient`, then `variable = variable - accumulation * learning_rate`,
    each step rounded to float32; returns the new variable.

    In graph mode one `mindir.apply_momentum` when everything is float32 (the
    learning rate and the momentum numbers or 0-d float32 tensors): one op for what
    is otherwise twelve (two Loads, two Assigns, their states, the arithmetic).
    Otherwise, and in PyNative, the ops written out, which give the same bits."""

    def build(refs: list, values: list, u: Any) -> Any:  # values: gradient, lr, momentum
        return M.ApplyMomentumOp.get(*refs, values[1], values[0], values[2], u)

    params, scalars = (variable, accumulation), (learning_rate, momentum)
    done = _in_place(params, (gradient,), scalars, build)
    if done is not None:
        return done
    accum = math.add(math.mul(accumulation, momentum), gradient)
    assign(accumulation, accum)
    return assign(variable, math.sub(variable, math.mul(accum, learning_rate)))


def apply_adam(
    variable: Any, moment1: Any, moment2: Any, lr: Any, gradient: Any,
    beta1: float, beta2: float, eps: float,
) -> Any:  # fmt: skip
    """Adam's step without Nesterov or AMSGrad, `lr` this step's bias-corrected rate:
    `m = m * beta1 + g * (1 - beta1)`, `v = v * beta2 + (g * g) * (1 - beta2)`, `var =
    var - (m / (sqrt(v) + eps)) * lr`; returns the new variable. In graph mode one
    `mindir.apply_adam` when everything is float32; otherwise the ops written out,
    which give the same bits."""

    def build(refs: list, values: list, u: Any) -> Any:  # values: gradient, lr
        return M.ApplyAdamOp.build(refs, values[1], values[0], u, beta1, beta2, eps)

    done = _in_place((variable, moment1, moment2), (gradient,), (lr,), build)
    if done is not None:
        return done
    m_new = math.add(math.mul(moment1, beta1), math.mul(gradient, 1.0 - beta1))
    v_new = math.add(math.mul(moment2, beta2), math.mul(math.mul(gradient, gradient), 1.0 - beta2))
    assign(moment1, m_new)
    assign(moment2, v_new)
    ratio = math.div(m_new, math.add(math.sqrt(v_new), eps))
    return assign(variable, math.sub(variable, math.mul(ratio, lr)))


def update_moving_stats(
    mean: Any, variance: Any, batch_mean: Any, batch_variance: Any, momentum: float, count: int
) -> bool:
    """In graph mode, a training batch norm's update of its running statistics as one
    `mindir.update_moving_stats` (see its op) when both are float32 Parameters and
    the batch statistics float32 of their shape: True. Otherwise (PyNative, other
    dtypes) False, and the caller writes the update out (the same bits)."""
    if count < 2 or not 0.0 <= momentum <= 1.0:
        return False

    def build(refs: list, values: list, u: Any) -> Any:
        return M.UpdateMovingStatsOp.build(*refs, *values, u, momentum, count)

    return _in_place((mean, variance), (batch_mean, batch_variance), (), build) is not None


def _in_place(params: tuple, tensors: tuple, scalars: tuple, build: Any) -> Any:
    """In graph mode, the op `build(refs, values, state)` writing `params` in place,
    `values` the graph values of `tensors` then `scalars`, when every
    operand is float32 (the written-out ops would promote otherwise): the Parameters
    and tensors of one shape, the scalars numbers or 0-d tensors. Its result, or
    None (PyNative, other dtypes, a ref argument of a reused graph): the caller
    writes the update out."""
    graph = current_graph()
    if graph is None or not _float32_operands(params, tensors, scalars):
        return None
    scalars = tuple(
        x if isinstance(x, Tensor | GraphValue) else Tensor(np.asarray(x, D.float32.numpy))
        for x in scalars
    )
    return graph.write_in_place(params, (*tensors, *scalars), build)


def _float32_operands(params: tuple, tensors: tuple, scalars: tuple) -> bool:
    f32, shape = D.float32, tuple(getattr(params[0], "shape", ()))
    for p in params:
        if not isinstance(p, Parameter) or p.dtype != f32 or tuple(p.shape) != shape:
            return False
    for t in tensors:
        if getattr(t, "dtype", None) != f32 or tuple(getattr(t, "shape", ())) != shape:
            return False
    return all(_scalar_f32(x) for x in scalars)


def _scalar_f32(x: Any) -> bool:
    """A Python number (not a bool) or a 0-d float32 tensor."""
    if isinstance(x, bool):
        return False
    if isinstance(x, int | float):
        return True
    return getattr(x, "dtype", None) == D.float32 and tuple(getattr(x, "shape", (1,))) == ()


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
