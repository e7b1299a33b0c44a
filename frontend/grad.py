"""`ms.grad`, `ms.value_and_grad` and `ops.GradOperation`: gradients of a function.

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
    loss, grads = grad_fn(data, label)

All three build a `GradFunction`: which inputs (`grad_position`, GradOperation's
`get_all`) and which Parameters (`weights`, `get_by_list`) to differentiate,
whether the first output alone is differentiated and the rest returned
(`has_aux`), whether the value is returned too, and whether the caller gives
the output's sensitivity (`sens_param`). Results are packed as MindSpore
packs them (see `GradSpec.pack`).

In graph mode a call becomes a `mindir.grad` op around the traced forward,
which `mindir-grad` differentiates (frontend/graph/grad_trace.py). In PyNative
mode the forward runs op by op on a tape and each op's adjoint is that op's
one-op graph differentiated by the same pass (frontend/grad_tape.py): both
modes use the same adjoint rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mindjit.frontend.context import GRAPH_MODE, get_context
from mindjit.frontend.grad_spec import Gradient, GradSpec
from mindjit.frontend.grad_tape import pynative_grad, recording
from mindjit.frontend.graph.api import run_function
from mindjit.frontend.tensor import Parameter


def _positions(grad_position: Any) -> tuple[tuple[int, ...] | None, bool]:
    if grad_position is None:
        return None, False
    if isinstance(grad_position, bool) or not isinstance(grad_position, int | tuple | list):
        raise TypeError(
            f"grad_position must be an int, a tuple of ints or None, got {grad_position!r}"
        )
    if isinstance(grad_position, int):
        return (grad_position,), True
    if not grad_position or not all(
        isinstance(p, int) and not isinstance(p, bool) for p in grad_position
    ):
        raise TypeError(f"grad_position must be a non-empty tuple of ints, got {grad_position!r}")
    return tuple(grad_position), False


def _weights(weights: Any) -> tuple[Any, ...] | None:

    if weights is None:
        return None
    if isinstance(weights, Parameter):
        return (weights,)
    if not isinstance(weights, tuple | list):
        raise TypeError(
            f"weights must be a Parameter, a list or a tuple of Parameters, got "
            f"{type(weights).__name__}"
        )
    for w in weights:
        if not isinstance(w, Parameter):
            raise TypeError(f"weights must be Parameters, got a {type(w).__name__}")
    return tuple(weights)


class GradFunction(Gradient):
    """A function's gradient function; call it like the function."""

    def __call__(self, *args: Any) -> Any:

        if get_context("mode") == GRAPH_MODE and not recording():
            # as MindSpore does in GRAPH_MODE: forward and backward compiled as one graph
            return run_function(call_gradient, (self, *args), {})
        return pynative_grad(self, args)


def call_gradient(gradient_fn, *args):
    """The graph a gradient call at top level in GRAPH_MODE compiles."""
    return gradient_fn(*args)


def _grad_function(
    fn: Callable[..., Any],
    grad_position: Any,
    weights: Any,
    has_aux: bool,
    return_ids: bool,
    return_value: bool,
) -> GradFunction:
    api = "ms.value_and_grad" if return_value else "ms.grad"
    if return_ids:
        raise NotImplementedError(f"{api}(return_ids=True) is not supported")
    positions, single = _positions(grad_position)
    ws = _weights(weights)
    if positions is None and ws is None:
        raise ValueError("'grad_position' and 'weight' can not be None at the same time")
    spec = GradSpec(positions, single, ws, bool(has_aux), return_value, False, "grad")
    return GradFunction(fn, spec)


def grad(
    fn: Callable[..., Any],
    grad_position: Any = 0,
    weights: Any = None,
    has_aux: bool = False,
    return_ids: bool = False,
) -> GradFunction:
    """`ms.grad`: the gradients of `fn`'s (first) output w.r.t. inputs and/or weights."""
    return _grad_function(fn, grad_position, weights, has_aux, return_ids, False)


def value_and_grad(
    fn: Callable[..., Any],
    grad_position: Any = 0,
    weights: Any = None,
    has_aux: bool = False,
    return_ids: bool = False,
) -> GradFunction:
    """`ms.value_and_grad`: `(fn's outputs, gradients)`."""
    return _grad_function(fn, grad_position, weights, has_aux, return_ids, True)


class GradOperation:
    """`ops.GradOperation(get_all=False, get_by_list=False, sens_param=False)`.

    `GradOperation(...)(net)` (or `(net, weights)` with get_by_list) is the
    gradient function: the first input's gradient, every input's (get_all), the
    weights' (get_by_list), or both as a pair.
    """

    def __init__(self, get_all: bool = False, get_by_list: bool = False, sens_param: bool = False):
        self.get_all = bool(get_all)
        self.get_by_list = bool(get_by_list)
        self.sens_param = bool(sens_param)

    def __call__(self, fn: Callable[..., Any], weights: Any = None) -> GradFunction:
        if self.get_by_list and weights is None:
            raise ValueError(
                "GradOperation(get_by_list=True) needs the weights: grad(net, weights)"
            )
        ws = _weights(weights) if self.get_by_list else None
        positions: tuple[int, ...] | None
        if self.get_all:
            positions, single = (), False  # every input, known at the call
        elif self.get_by_list:
            positions, single = None, False
        else:
            positions, single = (0,), True
        spec = GradSpec(positions, single, ws, False, False, self.sens_param, "operation")
        return GradFunction(fn, spec)


__all__ = ["GradFunction", "GradOperation", "grad", "value_and_grad"]
