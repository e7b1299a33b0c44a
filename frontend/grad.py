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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mindjit.frontend.context import GRAPH_MODE, get_context
from mindjit.frontend.grad_tape import pynative_grad, recording
from mindjit.frontend.graph.api import run_function
from mindjit.frontend.graph.structure import flatten
from mindjit.frontend.tensor import Parameter


@dataclass(frozen=True)
class GradSpec:
    """What a gradient function computes and how it packs the results."""

    positions: tuple[int, ...] | None  # the positional arguments differentiated
    single: bool  # one position given as an int: its gradient alone, not a tuple
    weights: tuple[Any, ...] | None  # Parameters differentiated
    has_aux: bool
    return_value: bool
    sens_param: bool
    style: str  # "grad" (ms.grad / value_and_grad) or "operation" (GradOperation)

    def pack(self, value: Any, aux: Any, input_grads: list[Any], weight_grads: list[Any]) -> Any:
        """MindSpore's result structure."""
        if self.style == "operation":
            inputs = input_grads[0] if self.single else tuple(input_grads)
            if self.weights is not None and self.positions is not None:
                return inputs, tuple(weight_grads)
            if self.weights is not None:
                return tuple(weight_grads)
            return inputs
        if self.positions is None:
            grads: Any = tuple(weight_grads)
        else:
            inputs = input_grads[0] if self.single else tuple(input_grads)
            grads = (inputs, tuple(weight_grads)) if self.weights is not None else inputs
        if self.return_value:
            return value, grads
        if self.has_aux:
            return grads, aux
        return grads


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


class GradFunction:
    """A function's gradient function; call it like the function."""

    def __init__(self, fn: Callable[..., Any], spec: GradSpec):
        if not callable(fn):
            raise TypeError(f"the function to differentiate must be callable, got {fn!r}")
        self.fn = fn
        self.spec = spec
        self.__name__ = f"grad_{getattr(fn, '__name__', type(fn).__name__)}"

    def split_args(self, args: tuple) -> tuple[tuple, Any]:
        """(the function's arguments, the sensitivity or None)."""
        if not self.spec.sens_param:
            return args, None
        if not args:
            raise TypeError("GradOperation(sens_param=True) needs the sensitivity as last input")
        return args[:-1], args[-1]

    def positions_for(self, n_args: int) -> tuple[int, ...]:
        spec = self.spec
        if spec.style == "operation" and spec.positions == ():
            return tuple(range(n_args))  # get_all
        positions = spec.positions or ()
        for p in positions:
            if not -n_args <= p < n_args:
                raise ValueError(
                    f"grad_position {p} is out of range for a function of {n_args} inputs"
                )
        return tuple(p % n_args for p in positions)

    def differentiated_args(self, fn_args: tuple) -> list[tuple[int, Any, list[Any]]]:
        """(position, template, tensor leaves) of each argument differentiated."""

        out = []
        for p in self.positions_for(len(fn_args)):
            template, leaves = flatten(fn_args[p])
            if not leaves:
                raise TypeError(
                    f"grad_position {p}: the argument is a {type(fn_args[p]).__name__}, "
                    "not a Tensor"
                )
            out.append((p, template, leaves))
        return out

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


def flat_outputs(spec: GradSpec, out: Any) -> tuple[Any, list[Any], list[Any]]:
    """(template of out, differentiated leaves, aux leaves) of the function's output."""

    template, leaves = flatten(out)
    if spec.has_aux:
        if not isinstance(out, tuple) or len(out) < 2:
            raise TypeError(
                "has_aux=True needs the function to return a tuple of at least two outputs"
            )
        _, first = flatten(out[0])
        return template, leaves[: len(first)], leaves[len(first) :]
    return template, leaves, []


def aux_of(spec: GradSpec, out: Any) -> Any:
    return tuple(out[1:]) if spec.has_aux else None


def check_sens(sens_leaves: Sequence[Any], outs: Sequence[Any]) -> None:
    if len(sens_leaves) != len(outs):
        raise ValueError(
            f"GradOperation(sens_param=True): {len(sens_leaves)} sensitivities for "
            f"{len(outs)} outputs"
        )
    for s, o in zip(sens_leaves, outs):
        if tuple(s.shape) != tuple(o.shape):
            raise ValueError(
                f"GradOperation(sens_param=True): the sensitivity of shape {tuple(s.shape)} "
                f"does not match the output of shape {tuple(o.shape)}"
            )


__all__ = ["GradFunction", "GradOperation", "grad", "value_and_grad"]
