"""What a gradient computes, below the modes that compute it.

`ms.grad`, `ms.value_and_grad` and `GradOperation` (grad.py) build a gradient
function; graph mode traces it (graph/grad_trace.py) and PyNative runs it on the
tape (grad_tape.py). Both read the same description, kept here below both of
them: the spec (which inputs and Parameters, aux, sensitivity, packing), the
argument checks, and how outputs split into differentiated and aux leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mindjit.frontend.structure import flatten


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


class Gradient:
    """A function's gradient function, as the compiler and the tape read it: the
    function, its `GradSpec` and the checks of the arguments (grad.GradFunction
    adds the call)."""

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
