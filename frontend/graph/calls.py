"""What a call in graph mode means, by what is called.

- mindjit's own ops, primitives, Tensor methods: called as they are; with
  tensors of the graph they emit mindir (dispatch.apply_op).
- a user's function, a sub-Cell, a method of a Cell or jit_class object: its
  own graph, specialized on the arguments, reached by `func.call`.
- a jit_class: instantiated now (its arguments must be constants, as in
  MindSpore); calling an instance runs its `__call__` as a graph.
- `print`: a `mindir.print`; other builtins and library functions run now, on
  the compile-time values (constant folding).
"""

from __future__ import annotations

import ast
import builtins
import types
from typing import Any

from mindjit.frontend.cell_base import CellBase
from mindjit.frontend.grad_spec import Gradient
from mindjit.frontend.graph import functional, switch_layer
from mindjit.frontend.graph.errors import FrontendError, builtin_error_type, public_message
from mindjit.frontend.graph.fallback import check_fallback, is_fallback
from mindjit.frontend.graph.grad_trace import trace_grad
from mindjit.frontend.graph.hyper_map import trace_hyper_map
from mindjit.frontend.graph.source import unwrap
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.ops.hyper_map import HyperMap, MultitypeFuncGraph
from mindjit.frontend.structure import flatten
from mindjit.frontend.tensor import Tensor
from mindjit.frontend.vmap import VmapFunction, trace_vmap


def is_jit_class(obj: Any) -> bool:
    return isinstance(obj, type) and getattr(obj, "__ms_class__", False)


def _is_cell(obj: Any) -> bool:

    return isinstance(obj, CellBase)


def _is_library(fn: Any) -> bool:
    if getattr(fn, "__ms_graph_source__", False):
        return False  # library code a graph compiles from its source (grad_functional's)
    module = getattr(fn, "__module__", None) or ""
    return module == "mindjit" or module.startswith("mindjit.")


def _is_user_function(fn: Any) -> bool:
    return isinstance(fn, types.FunctionType) and not _is_library(fn)


def _has_graph_values(args: Any) -> bool:
    _, leaves = flatten(args, lambda v: isinstance(v, GraphValue))
    return bool(leaves)


def _graph_name(fn: Any, owner: Any) -> str:
    name = getattr(fn, "__name__", "graph")
    if owner is not None:
        return f"{type(owner).__name__}_{name}"
    return name


def call_value(ev: Any, node: ast.Call, callee: Any, args: list, kwargs: dict) -> Any:
    compiler, graph = ev.compiler, ev.graph
    try:
        check_fallback(ev, node, callee, args, kwargs)  # numpy/math: constants only
        if is_fallback(callee):
            return callee(*args, **kwargs)  # JIT Fallback: runs now, its result a constant
        if callee is builtins.print:
            if kwargs:
                raise ev.error(node, "print() keyword arguments are not supported in graph mode")
            graph.print(list(args))
            return None
        if isinstance(callee, switch_layer.Switched):
            return switch_layer.call(
                ev, node, callee, lambda item: call_value(ev, node, item, list(args), kwargs)
            )
        if callee is builtins.super:
            return _super(ev, node, args, kwargs)
        if callee is builtins.isinstance and args and isinstance(args[0], GraphValue):
            return _isinstance_tensor(args[1], Tensor)
        if _is_cell(callee):
            construct = type(callee).construct
            return compiler.call(
                graph, construct, callee, tuple(args), kwargs, _graph_name(construct, callee)
            )
        if is_jit_class(callee):
            return _instantiate(ev, node, callee, args, kwargs)
        if isinstance(callee, MultitypeFuncGraph | HyperMap):
            return _call_multitype(ev, node, callee, args, kwargs)
        if isinstance(callee, Gradient):
            if kwargs:
                raise ev.error(node, "a gradient function takes no keyword arguments")
            return trace_grad(ev, lambda fn, xs: call_value(ev, node, fn, xs, {}), callee, args)
        if isinstance(callee, VmapFunction):
            if kwargs:
                raise ev.error(node, "a vmap function takes no keyword arguments")
            return trace_vmap(ev, lambda fn, xs: call_value(ev, node, fn, xs, {}), callee, args)
        if isinstance(callee, type):
            return callee(*args, **kwargs)  # Tensor(...), tuple(...), a library class
        if _is_jit_class_instance(callee):
            call = next(
                (
                    c.__dict__["__call__"]
                    for c in type(callee).__mro__
                    if c is not object and "__call__" in c.__dict__
                ),
                None,
            )
            if call is None:
                raise ValueError(
                    f"MsClassObject: '{type(callee).__name__}' has no __call__ function, "
                    "please check the code."
                )
            return compiler.call(
                graph, call, callee, tuple(args), kwargs, _graph_name(call, callee)
            )
        if _is_user_callable(callee) and functional.passes_functions((args, kwargs)):
            return functional.inline_call(ev, *_function_and_owner(callee), args, kwargs)
        if isinstance(callee, types.MethodType):
            owner, fn = callee.__self__, callee.__func__
            if _is_user_function(fn) and not isinstance(owner, type):
                return compiler.call(graph, fn, owner, tuple(args), kwargs, _graph_name(fn, owner))
            return callee(*args, **kwargs)
        if _is_user_function(callee):
            return compiler.call(graph, unwrap(callee), None, tuple(args), kwargs, callee.__name__)
        return callee(*args, **kwargs)
    except FrontendError as exc:  # out of a called graph: this call joins its chain
        exc.add_call_site(ev.source.file, getattr(node, "lineno", None), node, (id(ev), id(node)))
        raise
    except Exception as exc:
        if _is_ms_error(exc):
            raise
        # the library's ValueError / TypeError ..., located, as in PyNative mode
        raise ev.error(node, public_message(exc), builtin_error_type(exc)) from None


def _super(ev: Any, node: ast.Call, args: list, kwargs: dict) -> Any:
    """`super()` in a method: the class from the method's `__class__` cell (which
    Python makes for a method that names `super`) and the method's `self`, as the
    interpreter does; `super(Sub, self)` as given. Its methods then compile as any
    method of the object (`super().construct(x)` is the parent's construct)."""
    if kwargs:
        raise ev.error(node, "super() takes no keyword arguments")
    if args:
        return super(*args)
    fn = unwrap(ev.fn)
    code = getattr(fn, "__code__", None)
    names = code.co_freevars if code is not None else ()
    if "__class__" not in names or ev.self_obj is None:
        raise ev.error(node, "super() without arguments is only supported in a method")
    cls = fn.__closure__[names.index("__class__")].cell_contents
    return super(cls, ev.self_obj)


def _is_user_callable(callee: Any) -> bool:
    if isinstance(callee, types.MethodType):
        return _is_user_function(callee.__func__) and not isinstance(callee.__self__, type)
    return _is_user_function(callee)


def _function_and_owner(callee: Any) -> tuple[Any, Any]:
    if isinstance(callee, types.MethodType):
        return callee.__func__, callee.__self__
    return callee, None


def _call_multitype(
    ev: Any, node: ast.Call, callee: MultitypeFuncGraph | HyperMap, args: list, kwargs: dict
) -> Any:
    """A MultitypeFuncGraph call becomes a call of the function registered for the
    arguments' types (a user function: its own graph, like any other); a HyperMap
    calls its function per element, elements of one kind as one vmap (hyper_map)."""
    if kwargs:
        raise ev.error(node, f"{type(callee).__name__} takes no keyword arguments")
    if isinstance(callee, HyperMap):
        return trace_hyper_map(
            ev, callee, args, lambda fn, leaves: call_value(ev, node, fn, list(leaves), {})
        )
    fn = callee.resolve(args)
    if _is_user_function(fn):
        return ev.compiler.call(
            ev.graph, unwrap(fn), None, tuple(args), {}, f"{callee.name}_{fn.__name__}"
        )
    return call_value(ev, node, fn, args, {})


def _isinstance_tensor(classes: Any, tensor_cls: type) -> bool:
    classes = classes if isinstance(classes, tuple) else (classes,)
    return any(isinstance(c, type) and issubclass(tensor_cls, c) for c in classes)


def _is_ms_error(exc: Exception) -> bool:
    """MindSpore's own messages (jit_class errors) reach the user unchanged."""
    return str(exc).startswith(("MsClassObject:", "Decorator jit_class"))


def _is_jit_class_instance(obj: Any) -> bool:
    return getattr(type(obj), "__ms_class__", False) and not isinstance(obj, type)


def _instantiate(ev: Any, node: ast.Call, cls: type, args: list, kwargs: dict) -> Any:
    """A jit_class object created inside a graph: `__init__` runs now, on constants."""
    if _has_graph_values((tuple(args), kwargs)):
        raise ev.error(
            node,
            f"the arguments that create a '{cls.__name__}' object inside a graph must be "
            "constants, not tensors computed by the graph",
        )
    return cls(*args, **kwargs)


__all__ = ["call_value", "is_jit_class"]
