"""JIT Fallback in graph mode: numpy, math and other Python libraries run at compile
time, on constants (MindSpore's JIT Fallback of constant calls); their results are the
graph's constants (a numpy array becomes a Tensor where an op takes it). A call of such
a library on a tensor the graph computes has no value to run on at compile time: it is
refused, with the user's line, as a TypeError (MindSpore's type for an unsupported
fallback), never by running the library on compiler objects.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from mindjit.frontend.graph.errors import located_class
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.structure import flatten

#: the libraries whose calls are JIT Fallback (run by Python on constants)
_FALLBACK_MODULES = ("numpy", "math", "cmath", "scipy", "random", "statistics", "decimal")


#: a library call (numpy, math) on a tensor computed by the graph
FallbackTypeError = located_class(TypeError)


def _library_of(callee: Any) -> str | None:
    """The fallback library `callee` belongs to (a function, a ufunc, a method of a
    numpy array), else None."""
    if isinstance(callee, np.ufunc) or isinstance(getattr(callee, "__self__", None), np.ndarray):
        return "numpy"
    module = getattr(callee, "__module__", None) or ""
    top = module.split(".")[0]
    return top if top in _FALLBACK_MODULES else None


#: Python conversions that need a value now: on a graph's tensor they are refused
_CONVERSIONS = {int: "int", float: "float", complex: "complex", str: "str"}


def is_fallback(callee: Any) -> bool:
    """A library call graph mode runs in Python (on constants: `check_fallback` has
    refused any other), never one it compiles: numpy's functions are Python
    functions, but graph mode does not trace them."""
    return _library_of(callee) is not None


def check_fallback(ev: Any, node: ast.Call, callee: Any, args: Any, kwargs: Any) -> None:
    """Refuse a fallback call whose arguments hold a tensor the graph computes."""
    if callee in _CONVERSIONS and args and isinstance(args[0], GraphValue):
        raise FallbackTypeError(
            f"{_CONVERSIONS[callee]}() of a Tensor computed by the graph: its value is only "
            "known when the graph runs (use ops.cast or Tensor.astype for another dtype, "
            "and return the tensor to read its value)",
            ev.source.file,
            getattr(node, "lineno", None),
        )
    library = _library_of(callee)
    if library is None:
        return
    _, leaves = flatten((tuple(args), tuple(kwargs.values())), lambda v: isinstance(v, GraphValue))
    if not leaves:
        return
    name = getattr(callee, "__qualname__", None) or getattr(callee, "__name__", "function")
    raise FallbackTypeError(
        f"JIT Fallback: '{library}.{name}' runs in Python at compile time, on constants "
        "only, but an argument is a Tensor computed by the graph; use mindjit.ops on "
        "tensors (or run the function in PyNative mode)",
        ev.source.file,
        getattr(node, "lineno", None),
    )


__all__ = ["FallbackTypeError", "check_fallback", "is_fallback"]
