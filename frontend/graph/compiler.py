"""Compiling Python callables into one mindir module, one func.func per graph.

`GraphCompiler.entry(...)` traces the top-level function; every user function,
sub-Cell `construct` or jit_class method it calls becomes its own graph
(specialized on its constant arguments and its tensors' types, cached, so a
Cell called twice with the same types is one graph) reached by `func.call`.

Recursion is unrolled on constants, as MindSpore does (`construct(x, n - 1)`
down to `n == 0`): a call of a graph already being traced with the same
arguments is refused at once; one whose constants never reach a base case
runs into Python's recursion limit, refused as a recursive call at its line.
A top-level graph that is mindjit's own code (a gradient called outside any
graph in GRAPH_MODE) stands for the Python line that called it: its errors
and its ops' locations name that line.
"""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, IntegerAttr, StringAttr, TensorType, i64
from xdsl.ir import SSAValue

from mindjit.dialects.mindir.discardable import PIPELINE_STAGE_ATTR
from mindjit.dialects.mindir.types import ref_type
from mindjit.frontend import mixed_precision as amp
from mindjit.frontend.cell_base import CellBase
from mindjit.frontend.dispatch import tracing
from mindjit.frontend.graph.errors import (
    Frame,
    FrontendError,
    is_library_file,
    python_caller,
)
from mindjit.frontend.graph.functional import GraphFunction
from mindjit.frontend.graph.module_builder import GraphBuilder, ModuleBuilder
from mindjit.frontend.graph.source import function_source, unwrap
from mindjit.frontend.graph.stacked_returns import erase_unused_unstacks, stack_returned_pieces
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.lazy_inline import reuse_key
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.structure import ConstantTensor, flatten, signature_of, unflatten
from mindjit.frontend.tensor import Parameter, Tensor
from mindjit.ir import interned
from mindjit.ir.calls import call_op
from mindjit.support import config


@dataclass
class CompiledGraphFn:
    """A finished graph: its func.func and how to rebuild its Python result."""

    fn: func.FuncOp
    result_template: Any
    has_memory_state: bool
    has_io_state: bool


def tensor_type_of(x: Any) -> TensorType:
    """Interned: call sites and the callee's signature then share their type objects,
    which the verifier compares by identity first."""
    return interned.tensor_type(x.dtype.mlir, tuple(x.shape))


def _is_runtime_tensor(x: Any) -> bool:
    """A value that is a graph input: a GraphValue or a Tensor that is not a Parameter
    nor a constant the program is specialized on (structure.ConstantTensor)."""

    return isinstance(x, GraphValue) or (
        isinstance(x, Tensor) and not isinstance(x, Parameter | ConstantTensor)
    )


class GraphCompiler:
    def __init__(self, evaluator: type, cell_reuse: int | None = None) -> None:
        """`evaluator`: the class that traces a function's statements
        (evaluator.FunctionEvaluator, which imports this module: given here, not
        imported); `cell_reuse`: MS_DEV_CELL_REUSE's level (None: the one in force);
        at 0 no graph is shared by lazy inline."""
        self.evaluator = evaluator
        self.module = ModuleBuilder()
        self._in_progress: set[Any] = set()
        self._tracing: Counter[Any] = Counter()  # functions being traced, by code object
        self.cell_reuse = config.cell_reuse_level() if cell_reuse is None else cell_reuse

    # --- graphs ------------------------------------------------------------------------
    def entry(
        self, fn: Any, self_obj: Any, args: tuple, kwargs: dict, name: str
    ) -> tuple[CompiledGraphFn, Any]:
        """Trace the top-level graph; returns it and the template of its inputs."""
        template, leaves = flatten((args, kwargs), _is_runtime_tensor)
        code = getattr(unwrap(fn), "__code__", None)
        caller = python_caller() if code and is_library_file(code.co_filename) else None
        try:
            graph = self._trace(fn, self_obj, template, leaves, name, entry=True)
        except FrontendError as exc:
            if caller is not None:
                exc.add_frame(caller)
            raise
        if caller is not None:
            _relocate(graph.fn, code.co_filename, caller)
        return graph, template

    def call(
        self, caller: GraphBuilder, fn: Any, self_obj: Any, args: tuple, kwargs: dict, name: str
    ) -> Any:
        """Emit a func.call to the graph of `fn` specialized for these arguments.

        A lazy-inline Cell's graph is shared by every instance with the same
        `cell_init_args`: it takes the instance's Parameters as `!mindir.ref`
        arguments, and each call site passes its own.
        """
        template, leaves = flatten((args, kwargs), _is_runtime_tensor)
        shapes = tuple((tuple(x.shape), x.dtype.name) for x in leaves)
        code = getattr(unwrap(fn), "__code__", fn)
        reuse = _lazy_reuse_key(fn, self_obj) if self.cell_reuse else None
        # Inside a shared graph every sub-Cell gets its Parameters as refs too: the
        # shared graph is traced for one instance and must not bake its Parameters in.
        pass_refs = reuse is not None or (bool(caller.ref_args) and _is_cell(self_obj))
        params: list[Any] = list(self_obj.get_parameters()) if pass_refs else []
        if reuse is not None:
            owner: Any = ("lazy", reuse)
        else:
            owner = ("refs", id(self_obj)) if pass_refs else id(self_obj)
        precision = (amp.key()[1], _construct_precision(fn, self_obj))  # to_float
        # two closures of one code (one factory called twice) capture different values
        captured = _captured(fn)
        held: list[Any] = []  # the arguments the key names by id
        signature = signature_of(template, held)
        key = (code, owner, signature, shapes, precision, tuple(map(id, captured)))
        graph = self.module.graphs.get(key)
        if graph is None:
            if key in self._in_progress:
                raise FrontendError(f"recursive call of '{name}' is not supported in graph mode")
            self._in_progress.add(key)
            try:
                graph = self._trace(fn, self_obj, template, leaves, name, params)
            except RecursionError:
                if not self._tracing[code]:
                    raise  # deep, not recursive
                raise FrontendError(
                    f"recursive call of '{name}' is not supported in graph mode: graph mode "
                    "unrolls a recursion on constants, and this one reached no base case "
                    f"after {self._tracing[code]} nested calls"
                ) from None
            finally:
                self._in_progress.discard(key)
            if reuse is not None:
                graph.fn.attributes["mindir.lazy_inline"] = StringAttr(self_obj.cell_init_args)
            self.module.graphs[key] = graph
            self.module.key_owners.append((self_obj, captured, held))  # the ids stay theirs
        operands: list[SSAValue] = [caller.as_value(x) for x in leaves]
        operands += [caller.ref(p) for p in params]
        if graph.has_memory_state:
            operands.append(caller.u())
        if graph.has_io_state:
            operands.append(caller.io())
        callee = interned.symbol_ref(graph.fn.sym_name.data)
        call = caller.insert(call_op(callee, operands, graph.fn.function_type.outputs.data))
        stage = getattr(self_obj, "pipeline_stage", -1) if _is_cell(self_obj) else -1
        if stage >= 0:  # mindir-inline gives it to every op it inlines from this call
            call.attributes[PIPELINE_STAGE_ATTR] = IntegerAttr(stage, i64)
        results = [GraphValue(r) for r in call.results]
        output = unflatten(graph.result_template, results)
        if (
            _is_cell(self_obj)
            and getattr(self_obj, "requires_grad", False)
            and fn is type(self_obj).construct
            and all(isinstance(x, GraphValue) for x in leaves)
        ):
            caller.record_forward(self_obj, signature_of(template), operands[: len(leaves)], output)
        return output

    def reusable_forward(self, caller: GraphBuilder, cell: Any, args: tuple) -> Any:
        """The output of `cell(*args)` traced earlier in `caller`'s current block, which
        a gradient of `cell` on the same values reuses (GraphBuilder.record_forward),
        or None."""
        if not (_is_cell(cell) and getattr(cell, "requires_grad", False)):
            return None
        template, leaves = flatten((tuple(args), {}), _is_runtime_tensor)
        if not all(isinstance(x, GraphValue) for x in leaves):
            return None
        return caller.recorded_forward(cell, signature_of(template), [x.ssa for x in leaves])

    def _trace(
        self,
        fn: Any,
        self_obj: Any,
        template: Any,
        leaves: list,
        name: str,
        params: list[Any] = (),  # type: ignore[assignment]
        entry: bool = False,
    ) -> CompiledGraphFn:
        user_fn = unwrap(fn)
        if not inspect.isfunction(user_fn):
            raise FrontendError(f"'{name}' is not a Python function graph mode can compile")
        source = function_source(user_fn)
        ref_types = [ref_type(tensor_type_of(p)) for p in params]
        graph = GraphBuilder(
            self.module,
            self.module.unique_name(name),
            [tensor_type_of(x) for x in leaves] + ref_types,
            bind_parameters=entry,
        )
        for p, arg in zip(params, graph.block.args[len(leaves) :]):
            graph.ref_args[id(p)] = arg
        graph.location = interned.file_line_col(
            source.file, source.tree.lineno, source.tree.col_offset + 1
        )
        inputs = [GraphValue(a) for a in graph.block.args[: len(leaves)]]
        args, kwargs = unflatten(template, inputs)
        self._tracing[user_fn.__code__] += 1
        try:
            with tracing(graph), _precision_of(fn, self_obj) as precision:
                if precision is not None:  # a to_float Cell's construct: its inputs cast
                    args, kwargs = amp.cast_floats((args, kwargs), precision, cast_to)
                evaluator = self.evaluator(self, graph, user_fn, source, self_obj)
                result = evaluator.run(args, kwargs)
                if entry:  # a returned Parameter reaches Python as its value, as in MindSpore
                    result = _parameters_read(graph, result)
        finally:
            self._tracing[user_fn.__code__] -= 1
        result_template, result_leaves = flatten(result, lambda v: isinstance(v, GraphValue))
        returned = [v.ssa for v in result_leaves]
        if entry:  # the caller is Python: it can take pieces of one returned tensor
            result_template, returned = stack_returned_pieces(result_template, returned)
        fn_op = graph.finish(returned)
        if entry:
            erase_unused_unstacks(returned)
        fn_op.location = interned.file_line_col(
            source.file, source.tree.lineno, source.tree.col_offset + 1
        )
        self.module.add_function(fn_op)
        return CompiledGraphFn(
            fn_op, result_template, graph.memory_state is not None, graph.io_state is not None
        )


def _relocate(fn_op: func.FuncOp, file: str, site: Frame) -> None:
    """Ops located in `file` (mindjit's code at the top of the graph) take the
    location of the Python line that called the graph."""
    loc = interned.file_line_col(site.file, site.line, (site.col or 0) + 1)
    for op in fn_op.walk():
        if isinstance(op.location, FileLineColLoc) and op.location.filename.data == file:
            op.location = loc


def _parameters_read(graph: GraphBuilder, value: Any) -> Any:
    if isinstance(value, GraphFunction):
        raise FrontendError(
            f"a graph cannot return a function ('{value.__name__}'); return tensors or constants",
            value.ev.source.file,
            value.node.lineno,
        )
    if isinstance(value, Parameter):
        return GraphValue(graph.as_value(value))
    if isinstance(value, tuple | list):
        return type(value)(_parameters_read(graph, v) for v in value)
    if type(value) is dict:
        return {k: _parameters_read(graph, v) for k, v in value.items()}
    return value


def _construct_precision(fn: Any, self_obj: Any) -> Any:
    """The Cell's `to_float` dtype when `fn` is its construct; False for any other
    function (it runs in the precision in force)."""
    if not isinstance(self_obj, CellBase) or unwrap(fn) is not unwrap(type(self_obj).construct):
        return False
    return amp.cell_precision(self_obj)


@contextmanager
def _precision_of(fn: Any, self_obj: Any) -> Iterator[Any]:
    """A Cell's construct runs in the Cell's precision (frontend/mixed_precision.py);
    yields it (None: no casts)."""
    precision = _construct_precision(fn, self_obj)
    if precision is False:
        yield None
        return
    with amp.running(precision):
        yield precision


def _is_cell(obj: Any) -> bool:

    return isinstance(obj, CellBase)


def _lazy_reuse_key(fn: Any, self_obj: Any) -> Any | None:
    """The lazy-inline key when `fn` is a decorated Cell's construct."""

    if not isinstance(self_obj, CellBase) or unwrap(fn) is not unwrap(type(self_obj).construct):
        return None
    return reuse_key(self_obj)


__all__ = ["CompiledGraphFn", "GraphCompiler", "tensor_type_of"]


def _captured(fn: Any) -> list[Any]:
    """The values a closure captured (a graph traced for one closure of a code is not
    the graph of another that captured other values: they are told apart by id)."""
    cells = getattr(unwrap(fn), "__closure__", None) or ()
    out = []
    for cell in cells:
        try:
            out.append(cell.cell_contents)
        except ValueError:  # a cell not filled yet
            out.append(None)
    return out
