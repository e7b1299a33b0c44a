"""`ops.constexpr`: a function graph mode evaluates while it compiles.

    @constexpr
    def _check_axis(axis, rank):
        if not -rank <= axis < rank:
            raise ValueError(f"axis {axis} is out of range for rank {rank}")
        return axis % rank

    def construct(self, x):
        return ops.reduce_sum(x, _check_axis(self.axis, F.rank(x)))

As in MindSpore (`constexpr(fn=None, get_instance=True, name=None,
reuse_result=True, check=True)`), the function becomes a primitive (an
instance, or the class with `get_instance=False`). In PyNative mode a call is a
plain call. In a graph it runs in Python on the arguments' compile-time values
and its result is a constant of the graph: mindjit's graph evaluator calls a
library primitive as it is (graph/calls.py), so the arguments arrive as traced;
a leaf that is not a constant (a tensor the graph computes, a Parameter) is
passed as None, with a RuntimeWarning when `check` (MindSpore passes None and
logs a warning). The function runs under `dispatch.eager()`, so the ops it calls
compute on the constants instead of emitting into the graph. With
`reuse_result` a result is kept per (hashable, tensor-free) arguments, so the
function runs once for them, as MindSpore reuses an inferred value.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from mindjit.frontend.dispatch import current_graph, eager
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.ops.primitives import Primitive
from mindjit.frontend.tensor import Parameter, Tensor


def _constants(value: Any) -> tuple[Any, bool]:
    """(value with its non-constant leaves replaced by None, whether there were any)."""
    if isinstance(value, GraphValue | Parameter):
        return None, True
    if isinstance(value, tuple | list):
        items = [_constants(v) for v in value]
        found = any(f for _, f in items)
        return type(value)(v for v, _ in items) if found else value, found
    if type(value) is dict:
        items_d = {k: _constants(v) for k, v in value.items()}
        found = any(f for _, f in items_d.values())
        return ({k: v for k, (v, _) in items_d.items()} if found else value), found
    return value, False


def _reuse_key(args: tuple, kwargs: dict) -> Any:
    """A key for the arguments, or None when they hold a tensor or are not hashable."""

    def holds_tensor(v: Any) -> bool:
        if isinstance(v, Tensor):
            return True
        if isinstance(v, tuple | list):
            return any(holds_tensor(x) for x in v)
        return isinstance(v, dict)

    key = (args, tuple(sorted(kwargs.items())))
    if holds_tensor(args) or holds_tensor(tuple(kwargs.values())):
        return None
    try:
        hash(key)
    except TypeError:
        return None
    return key


class ConstexprPrimitive(Primitive):
    """The primitive `constexpr` makes of a function (one subclass per function)."""

    fn: Callable[..., Any]
    op_name: str
    reuse_result: bool
    check: bool

    def __init__(self) -> None:
        super().__init__(self.op_name)
        self.add_prim_attr("constexpr_prim", True)
        self.__name__ = self.__qualname__ = self.op_name
        self.__doc__ = self.fn.__doc__
        self._results: dict[Any, Any] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if current_graph() is None:
            return self.fn(*args, **kwargs)
        (args, kwargs), variable = _constants((args, kwargs))
        if variable and self.check:
            warnings.warn(
                f'The "{self.name}" is a constexpr function. The input arguments must be all '
                "constant value: an argument computed by the graph is passed as None.",
                RuntimeWarning,
                stacklevel=2,
            )
        key = _reuse_key(args, kwargs) if self.reuse_result else None
        if key is not None and key in self._results:
            return self._results[key]
        with eager():
            result = self.fn(*args, **kwargs)
        if key is not None:
            self._results[key] = result
        return result


def constexpr(
    fn: Callable[..., Any] | None = None,
    get_instance: bool = True,
    name: str | None = None,
    reuse_result: bool = True,
    check: bool = True,
) -> Any:
    """`@constexpr` / `@constexpr(get_instance=False, name="TupleLen")` (see the module doc)."""

    def deco(function: Callable[..., Any]) -> Any:
        if not callable(function):
            raise TypeError(f"constexpr expects a function, got {type(function).__name__}")
        attrs = {
            "fn": staticmethod(function),
            "op_name": name or function.__name__,
            "reuse_result": bool(reuse_result),
            "check": bool(check),
            "__doc__": function.__doc__,
        }
        cls = type("CompileOp", (ConstexprPrimitive,), attrs)
        return cls() if get_instance else cls

    if fn is not None:
        return deco(fn)
    return deco


__all__ = ["ConstexprPrimitive", "constexpr"]
