"""Comprehensions, lambdas and nested functions in graph mode.

Comprehensions and generator expressions are unrolled while tracing, like a
`for` (a tensor is iterated along its first axis), with one `for` clause and
any number of `if`s on constants, as MindSpore's parser allows (two `for`s
are its TypeError): a list comprehension gives
a list of graph values, a dict comprehension a dict, a generator expression an
iterator over the values it made, so `tuple(...)`, `sum(...)`, `any(...)`,
`max(...)` take it as they take a tuple. Their variables do not leak out.

A `lambda` or nested `def` becomes a `GraphFunction`: calling it traces its
body into the graph being built, like an inlined call, with its parameters in
a fresh scope chained to the enclosing function's live variables (Python's
late binding: a closure sees a variable's value at call time). Default values
are evaluated where the function is defined, as in Python. Because it is a
Python callable, library code can take it too: `functools.partial`, HyperMap,
`ops.grad`, `vmap`, `map`, `sorted(key=...)`.
"""

from __future__ import annotations

import ast
import collections
import inspect
from typing import Any

from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.graph.errors import FrontendError, located_class, type_name
from mindjit.frontend.graph.evaluation import Env, Return
from mindjit.frontend.graph.source import FunctionSource, function_source, unwrap
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.structure import flatten

_MAX_NESTED_DEPTH = 64


#: a TypeError MindSpore's parser raises, located at the user's line
FrontendTypeError = located_class(TypeError)


def comprehension(ev: Any, node: ast.expr, env: dict) -> Any:
    """Evaluate a list/set/dict comprehension or a generator expression."""
    if isinstance(node, ast.SetComp):
        raise ev.error(node, "a set comprehension is not supported in graph mode (sets are not)")
    generators = node.generators  # type: ignore[attr-defined]
    if len(generators) != 1:  # as MindSpore's parser (ParseListComp/ParseDictComp)
        kind = "DictComp" if isinstance(node, ast.DictComp) else "ListComp/GeneratorExp"
        raise FrontendTypeError(
            f"The 'generators' supports 1 'comprehension' in {kind}, but got "
            f"{len(generators)} comprehensions.",
            ev.source.file,
            node.lineno,
        )
    scope = type(env)(env)  # the comprehension's own scope: its targets do not leak
    results: list[Any] = []

    def produce() -> None:
        if isinstance(node, ast.DictComp):
            results.append((ev.eval(node.key, scope), ev.eval(node.value, scope)))
        else:
            results.append(ev.eval(node.elt, scope))  # type: ignore[attr-defined]

    _unroll(ev, node, generators, scope, produce)
    if isinstance(node, ast.DictComp):
        out: dict = {}
        for k, v in results:
            if isinstance(k, GraphValue):
                raise ev.error(node, "a dict key must be a constant in graph mode, not a tensor")
            out[k] = v
        return out
    if isinstance(node, ast.GeneratorExp):
        return iter(results)
    return results


def _unroll(ev: Any, node: ast.AST, generators: list, scope: dict, produce: Any) -> None:
    if not generators:
        produce()
        return
    gen, rest = generators[0], generators[1:]
    if gen.is_async:
        raise ev.error(node, "'async for' is not supported in graph mode")
    for item in iterate(ev, gen.iter, ev.eval(gen.iter, scope)):
        ev.assign(gen.target, item, scope)
        if all(_condition(ev, cond, ev.eval(cond, scope)) for cond in gen.ifs):
            _unroll(ev, node, rest, scope, produce)


def _condition(ev: Any, node: ast.AST, value: Any) -> bool:
    if isinstance(value, GraphValue):
        raise ev.error(
            node,
            "the 'if' of a comprehension must be a constant in graph mode, not a tensor "
            "(the number of elements must be known while compiling)",
        )
    return ev.truth(node, value)


def iterate(ev: Any, node: ast.AST, iterable: Any) -> Any:
    """What `for` walks: a tensor along its first axis, anything else as Python does."""
    if isinstance(iterable, GraphValue):
        if not iterable.shape:
            raise ev.error(node, "cannot iterate over a 0-d tensor")
        return [iterable[i] for i in range(iterable.shape[0])]
    try:
        return iter(iterable)
    except TypeError:
        raise ev.error(node, f"cannot iterate over {type_name(iterable)}", TypeError) from None


# --- unpacking ------------------------------------------------------------------------------


def assign_starred(ev: Any, target: ast.Tuple | ast.List, value: Any, env: dict) -> None:
    """`a, *rest = value`: the starred name gets a list, as in Python (a tensor is
    split along its first axis)."""
    elts = target.elts
    star = next(i for i, e in enumerate(elts) if isinstance(e, ast.Starred))
    if sum(isinstance(e, ast.Starred) for e in elts) > 1:
        raise ev.error(target, "multiple starred expressions in assignment")
    items = list(iterate(ev, target, value))
    after = len(elts) - star - 1
    if len(items) < len(elts) - 1:
        raise ev.error(
            target,
            f"not enough values to unpack (expected at least {len(elts) - 1}, got {len(items)})",
        )
    for t, v in zip(elts[:star], items[:star]):
        ev.assign(t, v, env)
    ev.assign(elts[star].value, items[star : len(items) - after], env)  # type: ignore[attr-defined]
    for t, v in zip(elts[star + 1 :], items[len(items) - after :]):
        ev.assign(t, v, env)


def display_items(ev: Any, elts: list[ast.expr], env: dict) -> list:
    """The elements of a tuple or list display, `*x` spread in place."""
    out: list[Any] = []
    for e in elts:
        if isinstance(e, ast.Starred):
            out.extend(iterate(ev, e, ev.eval(e.value, env)))
        else:
            out.append(ev.eval(e, env))
    return out


def dict_display(ev: Any, node: ast.Dict, env: dict) -> dict:
    out: dict = {}
    for k, v in zip(node.keys, node.values):
        if k is None:  # `**other`
            other = ev.eval(v, env)
            if not isinstance(other, dict):
                raise ev.error(node, f"'{type(other).__name__}' object is not a mapping")
            out.update(other)
            continue
        key = ev.eval(k, env)
        if isinstance(key, GraphValue):
            raise ev.error(node, "a dict key must be a constant in graph mode, not a tensor")
        out[key] = ev.eval(v, env)
    return out


# --- lambda and nested def -------------------------------------------------------------------


class GraphFunction:
    """A `lambda` or nested `def` met while tracing; calling it traces its body."""

    def __init__(self, ev: Any, node: ast.Lambda | ast.FunctionDef, env: dict):
        self.ev = ev  # the defining function's evaluator: its graph, file and globals
        self.node = node
        self.env = env  # the enclosing scope, live
        self.__name__ = node.name if isinstance(node, ast.FunctionDef) else "<lambda>"
        self.__qualname__ = self.__name__
        self.signature = _signature(ev, node, env)
        self.depth = 0

    def __repr__(self) -> str:
        return f"<function {self.__name__} (graph mode)>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        outer = self.ev
        if current_graph() is not outer.graph:
            raise outer.error(
                self.node,
                f"'{self.__name__}' is called from another graph than the one that defines it "
                "(a Cell given it as an argument); graph mode calls a nested function only "
                "inside the function that defines it or the user functions it passes it to",
            )
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise outer.error(self.node, f"cannot call '{self.__name__}': {exc}") from None
        bound.apply_defaults()
        if self.depth >= _MAX_NESTED_DEPTH:
            raise outer.error(
                self.node, f"recursive call of '{self.__name__}' is not supported in graph mode"
            )
        inner = type(outer).__new__(type(outer))  # the evaluator running this graph
        inner.compiler, inner.graph, inner.fn = outer.compiler, outer.graph, outer.fn
        inner.source = FunctionSource(self.node, outer.source.file)  # type: ignore[arg-type]
        inner.self_obj = None
        inner.loop_depth = inner.tensor_branch_depth = 0
        inner.active_envs = []
        inner.closure = collections.ChainMap(_live_scope(outer, self.env), outer.closure)
        env = Env(bound.arguments)
        self.depth += 1
        try:
            if isinstance(self.node, ast.Lambda):
                return inner.eval(self.node.body, env)
            signal = inner.exec_block(self.node.body, env, tail=True)
        finally:
            self.depth -= 1
        if isinstance(signal, Return):
            return signal.value
        if signal is not None:
            raise inner.error(self.node, f"'{signal.name}' outside a loop")  # type: ignore[union-attr]
        return None


def _live_scope(ev: Any, env: dict) -> dict:
    """The defining scope as it is now: inside a branch of a tensor `if` or the body
    of a tensor `while`, the branch's copy of it (late binding sees what the
    branch assigned)."""
    for active in reversed(ev.active_envs):
        scope = active
        while scope is not None:
            if scope is env:
                return active
            scope = getattr(scope, "parent", None)
    return env


def passes_functions(args: Any) -> bool:
    """Whether a call hands a nested function on: the callee is then traced inline,
    in the graph that defines the function (its closure lives there)."""
    _, found = flatten(args, lambda v: isinstance(v, GraphFunction))
    return bool(found)


_inline_depth = [0]


def inline_call(ev: Any, fn: Any, self_obj: Any, args: list, kwargs: dict) -> Any:
    """Trace a user function (or method) into the caller's graph."""
    fn = unwrap(fn)
    if _inline_depth[0] >= _MAX_NESTED_DEPTH:
        raise FrontendError(f"recursive call of '{fn.__name__}' is not supported in graph mode")
    _inline_depth[0] += 1
    try:
        inner = type(ev)(ev.compiler, ev.graph, fn, function_source(fn), self_obj)
        return inner.run(tuple(args), kwargs)
    finally:
        _inline_depth[0] -= 1


def _signature(ev: Any, node: ast.Lambda | ast.FunctionDef, env: dict) -> inspect.Signature:
    a = node.args
    P = inspect.Parameter
    positional = [(x, P.POSITIONAL_ONLY) for x in a.posonlyargs]
    positional += [(x, P.POSITIONAL_OR_KEYWORD) for x in a.args]
    defaults = [ev.eval(d, env) for d in a.defaults]  # evaluated once, where defined
    params: list[inspect.Parameter] = []
    first_default = len(positional) - len(defaults)
    for i, (arg, kind) in enumerate(positional):
        default = defaults[i - first_default] if i >= first_default else P.empty
        params.append(P(arg.arg, kind, default=default))
    if a.vararg is not None:
        params.append(P(a.vararg.arg, P.VAR_POSITIONAL))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        default = P.empty if d is None else ev.eval(d, env)
        params.append(P(arg.arg, P.KEYWORD_ONLY, default=default))
    if a.kwarg is not None:
        params.append(P(a.kwarg.arg, P.VAR_KEYWORD))
    return inspect.Signature(params)


def define(ev: Any, node: ast.FunctionDef, env: dict) -> None:
    """A nested `def`: the name is bound to a GraphFunction (decorators applied)."""
    fn: Any = GraphFunction(ev, node, env)
    for decorator in reversed(node.decorator_list):
        wrapped = ev.eval(decorator, env)(fn)
        # a wrapper of it (`@ms.jit`, functools.wraps): inside a graph the function is
        # part of the graph, as MindSpore inlines a jit function a graph calls
        fn = fn if unwrap(wrapped) is fn else wrapped
    env[node.name] = fn


__all__ = [
    "GraphFunction",
    "assign_starred",
    "comprehension",
    "define",
    "dict_display",
    "display_items",
    "inline_call",
    "iterate",
    "passes_functions",
]
