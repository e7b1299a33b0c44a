"""A compiled graph-mode program: the frontend's mindir compiled by the driver, and
running it from Python.

With N data-parallel replicas (`CompileOptions.replicas`) the graph is traced for
one replica's slice of the batch and the executable runs N of them on one call's
whole batch (backend/cpu/replica_run.py).

Parameters live in the executable as globals; before each run each Parameter's
current array is handed to it (PyNative code may have changed it), after the
run the ones the graph assigned take the executor's new buffer (no copy). One
call runs at a time per program, and a call holds its Parameters' locks
(`parameter_locks.py`), so calls from threads sharing a network, or Parameters,
never interleave those steps.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64

from mindjit.dialects.mindir.discardable import MICRO_BATCHES_ATTR
from mindjit.driver.compile import Compiled, compile_graph, replica_batch
from mindjit.driver.report import StageReport
from mindjit.frontend.cell_base import CellBase
from mindjit.frontend.graph import too_deep
from mindjit.frontend.graph.compiler import GraphCompiler, _is_runtime_tensor
from mindjit.frontend.graph.evaluator import FunctionEvaluator
from mindjit.frontend.graph.parameter_locks import holding, locks_of
from mindjit.frontend.graph.raises import user_error_of
from mindjit.frontend.structure import flatten, unflatten
from mindjit.frontend.tensor import Tensor
from mindjit.support import config


def new_compiler(cell_reuse: int | None = None) -> GraphCompiler:
    """A compiler tracing with the evaluator (which imports the compiler's module)."""
    return GraphCompiler(FunctionEvaluator, cell_reuse)


def mark_micro_batches(fn: Any, self_obj: Any) -> None:
    """Record on the entry graph the micro-batches of the `nn.PipelineCell` it runs
    (the devices' pipeline schedule needs Y; the IR does not say it otherwise)."""
    if not isinstance(self_obj, CellBase):
        return
    cells = [self_obj, *(c for _, c in self_obj.cells_and_names())]
    found = [m for c in cells if (m := c.pipeline_micro_batches()) is not None]
    if found:
        fn.attributes[MICRO_BATCHES_ATTR] = IntegerAttr(max(found), i64)


def replica_arguments(args: tuple, kwargs: dict, replicas: int) -> tuple[tuple, dict]:
    """The call's arguments with every input Tensor of rank >= 1 cut to one of N equal
    slices of its batch (axis 0): what each data-parallel replica runs (the runner
    cuts the arrays the same way; a batch N does not divide is a ValueError)."""
    template, leaves = flatten((args, kwargs), _is_runtime_tensor)
    arrays = replica_batch([x.asnumpy() for x in leaves], replicas)
    sliced = [x if x.ndim == 0 else Tensor._wrap(a) for x, a in zip(leaves, arrays)]
    return unflatten(template, sliced)


class CompiledProgram:
    """A graph compiled for the device in the context: traced from Python and
    compiled (`__init__`), or restored from a compile-cache entry (`restored`),
    which skips the frontend, the passes and lowering."""

    def __init__(
        self,
        fn: Any,
        self_obj: Any,
        args: tuple,
        kwargs: dict,
        name: str,
        options: config.CompileOptions,
    ):
        report = StageReport()
        start = time.perf_counter()
        compiler = new_compiler(options.cell_reuse)
        if options.replicas > 1:  # traced for one replica's slice of the batch
            args, kwargs = replica_arguments(args, kwargs, options.replicas)
        graph, _ = compiler.entry(fn, self_obj, args, kwargs, name)
        self.result_template = graph.result_template
        self.entry_name = graph.fn.sym_name.data
        mark_micro_batches(graph.fn, self_obj)
        module = compiler.module.module
        self.parameters = list(compiler.module.parameters.values())  # (symbol, Parameter)
        report.add("frontend", module, time.perf_counter() - start)
        # the graphs the frontend made: (name, lazy_inline key or None)
        self.frontend_graphs = [
            (op.sym_name.data, getattr(op.attributes.get("mindir.lazy_inline"), "data", None))
            for op in module.body.block.ops
            if op.name == "func.func"
        ]
        self.options = options
        self.compiled = compile_graph(module, self.entry_name, options, report)
        self.from_cache = False
        self._lock = threading.Lock()
        self._parameter_locks: list[threading.RLock] | None = None

    @classmethod
    def restored(
        cls,
        compiled: Compiled,
        result_template: Any,
        parameters: list[tuple[str, Any]],
        frontend_graphs: list[tuple[str, str | None]],
        options: config.CompileOptions,
    ) -> CompiledProgram:
        """A program from a cache entry (the driver restored `compiled`)."""
        self = cls.__new__(cls)
        self.compiled = compiled
        self.result_template = result_template
        self.entry_name = compiled.entry
        self.parameters = parameters
        self.frontend_graphs = frontend_graphs
        self.options = options
        self.from_cache = True
        self._lock = threading.Lock()
        self._parameter_locks: list[threading.RLock] | None = None
        return self

    @property
    def report(self) -> StageReport:
        return self.compiled.report

    @property
    def module(self) -> ModuleOp:
        """The lowered module (a cache hit with a captured plan reads it on first use)."""
        return self.compiled.module

    @property
    def _module(self) -> ModuleOp | None:
        """The module if it has been read (a cache hit with a plan reads it lazily)."""
        return self.compiled._module  # noqa: SLF001 - the driver's own cache of it

    @property
    def executable(self) -> Any:
        return self.compiled.executable

    def op_counts(self) -> Counter:
        return self.compiled.op_counts()

    def __call__(self, args: tuple, kwargs: dict) -> Any:
        # one call at a time: Parameters in, run, Parameters out is one step
        with self._lock:
            if self._parameter_locks is None:
                self._parameter_locks = locks_of(param for _, param in self.parameters)
            with holding(self._parameter_locks), too_deep.guarded(None, "run"):
                return self._call(args, kwargs)

    def _call(self, args: tuple, kwargs: dict) -> Any:
        _, leaves = flatten((args, kwargs), _is_runtime_tensor)
        arrays = [x.asnumpy() for x in leaves]
        exe = self.executable
        sent = {}
        for symbol, param in self.parameters:
            sent[symbol] = param.asnumpy()
            exe.set_global(symbol, sent[symbol])
        try:
            outputs = exe.run(self.entry_name, *arrays)
        except Exception as exc:  # a failed check of a user's raise/assert: the user's type
            user = user_error_of(exc)
            if user is None:
                raise
            raise user from exc
        for symbol, param in self.parameters:
            current = exe.get_global(symbol)
            if current is not sent[symbol]:
                param._adopt(current)  # noqa: SLF001 - the executor's fresh buffer, no copy
        results = [Tensor._wrap(o) for o in outputs]
        return unflatten(self.result_template, results)
