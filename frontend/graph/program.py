"""A compiled graph-mode program: passes, lowering, CPU executable, and running it.

Parameters live in the executable as globals; before each run their current
values are copied in (PyNative code may have changed them), after the run the
ones the graph assigned are written back to the Parameter objects.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from xdsl.dialects.builtin import ModuleOp

from mindjit.dialects.context import make_context
from mindjit.frontend.graph.compiler import GraphCompiler, _is_runtime_tensor
from mindjit.frontend.graph.structure import flatten, unflatten
from mindjit.passes.analysis.graph_nodes import count_ops_and_nodes
from mindjit.passes.pipelines import LOWER_TO_TENSOR, jit_level_pipeline, parse_pipeline, run_passes
from mindjit.support import config

MINDIR_END = "verify-mindir"  # the stage that closes the mindir pipeline


class Stage(NamedTuple):
    name: str
    ops: int  # every op in the module after the stage
    seconds: float
    nodes: int  # graph nodes as MindSpore counts them (passes/analysis/graph_nodes.py)


def load_compiler() -> None:
    """Import what every compile uses (the frontend's evaluator, the passes, the CPU
    executor) and parse the default pipelines. `import mindjit` calls this, so that
    a process's first compile reports compile work in its stages, not module
    loading (MindSpore likewise loads its compiler at import)."""
    import xdsl.transforms.canonicalization_patterns.arith  # noqa: F401 - tensor-level canonicalize

    from mindjit.backend import cpu  # noqa: F401
    from mindjit.backend.cache import module_codec, plan_codec, store  # noqa: F401
    from mindjit.dialects import fast_verify, verify  # noqa: F401
    from mindjit.frontend.graph import api, evaluator, program_cache  # noqa: F401
    from mindjit.support.errors import MindjitError

    make_context()  # loads the dialects' universe
    try:
        for spec in (jit_level_pipeline("O1"), LOWER_TO_TENSOR):
            parse_pipeline(spec)
    except MindjitError:
        pass  # a bad environment variable: the first compile reports it, located


@dataclass
class StageReport:
    """What each stage did: op and node counts and times, for the demo and for users."""

    stages: list[Stage] = field(default_factory=list)

    def add(self, name: str, module: ModuleOp | None, seconds: float) -> None:
        if module is None:
            self.stages.append(Stage(name, 0, seconds, 0))
            return
        ops, nodes = count_ops_and_nodes(module)
        self.stages.append(Stage(name, ops, seconds, nodes))

    @property
    def compile_seconds(self) -> float:
        return sum(s.seconds for s in self.stages)

    @property
    def mindir_peak_nodes(self) -> int:
        """The most graph nodes any mindir pass saw (frontend output to verify-mindir)."""
        names = [s.name for s in self.stages]
        end = names.index(MINDIR_END) if MINDIR_END in names else len(names)
        return max((s.nodes for s in self.stages[: end + 1]), default=0)


def _save_graphs_dir() -> str | None:
    return config.save_graphs_path() if config.save_graphs_enabled() else None


def _dump(directory: str | None, index: int, stage: str, module: ModuleOp) -> None:
    if directory is None:
        return
    from mindjit.support.files import write_atomic

    os.makedirs(directory, exist_ok=True)
    name = stage.replace("-", "_")
    write_atomic(os.path.join(directory, f"{index:02d}_{name}.mlir"), str(module) + "\n")


def _verify_stage(module: ModuleOp, pipeline: str) -> None:
    """Verify after a stage's passes; the error says how to find the pass at fault."""
    from mindjit.dialects.verify import verify_located
    from mindjit.support.errors import MindjitError

    try:
        verify_located(module)
    except MindjitError as err:
        raise MindjitError(
            f"{err.message} (after the pipeline '{pipeline}'; set {config.VERIFY_EACH_ENV}=1 "
            "to verify after every pass)",
            err.loc,
        ) from None


class CompiledProgram:
    """A graph compiled for the device in the context: compiled from Python, or
    restored from a compile-cache entry (`restored`), which skips the frontend,
    the passes and lowering and only runs the backend (the executor's plan)."""

    def __init__(
        self,
        fn: Any,
        self_obj: Any,
        args: tuple,
        kwargs: dict,
        name: str,
        options: config.CompileOptions,
    ):
        self.report = StageReport()
        start = time.perf_counter()
        compiler = GraphCompiler(options.cell_reuse)
        graph, _ = compiler.entry(fn, self_obj, args, kwargs, name)
        self.result_template = graph.result_template
        self.entry_name = graph.fn.sym_name.data
        module = compiler.module.module
        self.parameters = list(compiler.module.parameters.values())  # (symbol, Parameter)
        self.report.add("frontend", module, time.perf_counter() - start)
        # the graphs the frontend made: (name, lazy_inline key or None)
        self.frontend_graphs = [
            (op.sym_name.data, getattr(op.attributes.get("mindir.lazy_inline"), "data", None))
            for op in module.body.block.ops
            if op.name == "func.func"
        ]
        directory = _save_graphs_dir()
        _dump(directory, 0, "frontend", module)
        ctx = make_context()
        index = 1
        verify_each = config.verify_each_enabled()
        self.options = options
        mindir_pipeline = jit_level_pipeline(options.jit_level, options)
        for stage, spec in (("mindir", mindir_pipeline), ("tensor", LOWER_TO_TENSOR)):
            for p in parse_pipeline(spec) if spec else []:
                start = time.perf_counter()
                run_passes([p], module, ctx, verify_each=verify_each)
                self.report.add(p.name, module, time.perf_counter() - start)
                _dump(directory, index, p.name, module)
                index += 1
            start = time.perf_counter()
            _verify_stage(module, spec)
            self.report.add(f"verify-{stage}", module, time.perf_counter() - start)
        self._module = module
        self.from_cache = False
        self._build_backend(directory)

    @classmethod
    def restored(
        cls,
        load_module: Callable[[], ModuleOp],
        entry_name: str,
        result_template: Any,
        parameters: list[tuple[str, Any]],
        frontend_graphs: list[tuple[str, str | None]],
        load_seconds: float,
        planned: Callable[[Callable[[], ModuleOp]], Any] | None,
        where: str,
    ) -> CompiledProgram:
        """A program from a cache entry: only the backend runs. `planned` makes the
        CPU executable from a captured plan (given how to load the module, which is
        then read only if something asks for it); without it, the module is loaded
        and planned."""
        self = cls.__new__(cls)
        self.report = StageReport()
        self.report.add("cache-load", None, load_seconds)
        self.result_template = result_template
        self.entry_name = entry_name
        self.parameters = parameters
        self.frontend_graphs = frontend_graphs
        self._module = None
        self._load_module = load_module
        self._entry_path = where
        self.from_cache = True
        if planned is None:
            self._build_backend(None)
        else:
            start = time.perf_counter()
            self.executable = planned(lambda: self.module)
            self.executable.plan_for(entry_name)  # rebuilt, or planned from the module
            self.report.add("cpu-plan", None, time.perf_counter() - start)
        return self

    @property
    def module(self) -> ModuleOp:
        """The lowered module (a cache hit with a captured plan reads it on first use)."""
        if self._module is None:
            from mindjit.support.errors import MindjitError

            try:
                self._module = self._load_module()
            except Exception as exc:  # noqa: BLE001 - a crafted entry may fail anywhere
                message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
                raise MindjitError(
                    f"the compilation cache entry {self._entry_path} holds an unreadable "
                    f"module ({message}); delete it to compile again"
                ) from None
        return self._module

    def _build_backend(self, directory: str | None) -> None:
        from mindjit.backend.cpu import CpuExecutable

        start = time.perf_counter()
        if config.device_target() == "Ascend":
            from mindjit.backend.ascend.executable import AscendExecutable

            self.executable = AscendExecutable(self.module, self.entry_name, directory)
            self.report.add("ascend-compile", None, time.perf_counter() - start)
        else:
            self.executable = CpuExecutable(self.module)
            self.executable.plan_for(self.entry_name)
            self.report.add("cpu-plan", None, time.perf_counter() - start)

    def op_counts(self) -> Counter:
        return Counter(op.name for op in self.module.walk() if op is not self.module)

    def __call__(self, args: tuple, kwargs: dict) -> Any:
        from mindjit.frontend.tensor import Tensor

        _, leaves = flatten((args, kwargs), _is_runtime_tensor)
        arrays = [x.asnumpy() for x in leaves]
        exe = self.executable
        sent = {}
        for symbol, param in self.parameters:
            sent[symbol] = param.asnumpy()
            exe.set_global(symbol, sent[symbol])
        outputs = exe.run(self.entry_name, *arrays)
        for symbol, param in self.parameters:
            current = exe.get_global(symbol)
            if current is not sent[symbol]:
                param.set_data(Tensor._wrap(current))
        results = [Tensor._wrap(o) for o in outputs]
        return unflatten(self.result_template, results)
