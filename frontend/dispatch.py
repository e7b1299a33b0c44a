"""One path for every op, in both modes: an op is a *builder* of mindir ops.

    def add(x, y):
        return apply_op(("add",), lambda e, v: e.insert(AddOp.get(*v)).result, x, y)

- In graph mode (while the frontend traces a graph) `apply_op` inserts the
  builder's ops into the graph being built and returns `GraphValue`s.
- In PyNative mode it builds a one-op mindir function for the inputs' types,
  lowers it with the default pipeline and runs it on the CPU executor; the
  compiled function is cached per (key, input types), so later calls only run
  the plan. Both modes therefore use the same lowering and the same kernels,
  and agree bit for bit.

`key` must capture everything the builder folds in (attributes, constants).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from contextlib import contextmanager
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from mindjit.driver.eager import compile_op
from mindjit.frontend.emitter import Emitter
from mindjit.frontend.grad_tape import active_tape
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.tensor import Tensor

Built = SSAValue | Sequence[SSAValue]
BuildFn = Callable[["Emitter", list[SSAValue]], Built]


# --- graph mode ------------------------------------------------------------------


class GraphState:
    """The graph (func.func body) the frontend is tracing into.

    The frontend's compiler subclasses this to resolve Parameters and Tensor
    constants (`as_value`); ops only use `emitter` and `as_value`.
    """

    def __init__(self, builder: Builder):
        self.emitter = Emitter(builder)

    def as_value(self, x: Any) -> SSAValue:

        if isinstance(x, GraphValue):
            return x.ssa
        if isinstance(x, Tensor):
            return self.emitter.constant(x.asnumpy(), x.dtype)
        raise TypeError(f"expected a Tensor in graph mode, got {type(x).__name__}")

    def wrap(self, value: SSAValue) -> Any:

        return GraphValue(value)


_state = threading.local()


def current_graph() -> GraphState | None:
    stack = getattr(_state, "stack", None)
    return stack[-1] if stack else None


@contextmanager
def tracing(graph: GraphState):
    """Ops called inside this block emit into `graph` instead of running."""
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    stack.append(graph)
    try:
        yield graph
    finally:
        stack.pop()


@contextmanager
def eager():
    """Run ops eagerly even while a graph is being traced (constant folding)."""
    stack = getattr(_state, "stack", None)
    saved = list(stack) if stack else []
    if stack:
        stack.clear()
    try:
        yield
    finally:
        if stack is not None:
            stack.extend(saved)


# --- the one entry point -------------------------------------------------------------


def apply_op(key: Hashable, build: BuildFn, *inputs: Any) -> Any:
    """Run or trace one op built by `build(emitter, input_values)`."""
    graph = current_graph()
    if graph is not None:
        values = [graph.as_value(x) for x in inputs]
        return _wrap_results(build(graph.emitter, values), graph.wrap)
    return _run_eagerly(key, build, inputs)


def _wrap_results(built: Built, wrap: Callable[[SSAValue], Any]) -> Any:
    if isinstance(built, SSAValue):
        return wrap(built)
    return tuple(wrap(v) for v in built)


_EAGER_CACHE: dict[Hashable, tuple[Any, bool]] = {}


def _run_eagerly(key: Hashable, build: BuildFn, inputs: Sequence[Any]) -> Any:

    arrays = []
    for x in inputs:
        if not isinstance(x, Tensor):
            raise TypeError(f"expected a Tensor, got {type(x).__name__}")
        arrays.append(x.asnumpy())
    signature = tuple((a.shape, a.dtype.str) for a in arrays)
    cache_key = (key, signature)
    entry = _EAGER_CACHE.get(cache_key)
    if entry is None:
        entry = _EAGER_CACHE[cache_key] = _compile_one_op(build, inputs)
    exe, single = entry
    outs = exe.run("op", *arrays)
    wrapped = tuple(Tensor._wrap(o) for o in outs)
    tape = active_tape()
    if tape is not None:
        tape.record(cache_key, build, list(inputs), arrays, list(wrapped))
    return wrapped[0] if single else wrapped


def _compile_one_op(build: BuildFn, inputs: Sequence[Any]) -> tuple[Any, bool]:
    arg_types = [TensorType(x.dtype.mlir, list(x.shape)) for x in inputs]
    block = Block(arg_types=arg_types)
    emitter = Emitter(Builder(InsertPoint.at_end(block)))
    built = build(emitter, list(block.args))
    single = isinstance(built, SSAValue)
    results = [built] if single else list(built)
    emitter.insert(func.ReturnOp(*results))
    fn = func.FuncOp("op", (arg_types, [r.type for r in results]), Region(block))
    return compile_op(ModuleOp([fn])), single


def eager_cache_size() -> int:
    return len(_EAGER_CACHE)
