"""The driver: runs a mindir module through the compiler and hands back what runs it.

The frontend emits mindir (one `func.func` per graph) and calls `compile_graph`
with the options in force (`mindjit.support.config.CompileOptions`): the
jit-level pipeline of mindir passes, the lowering to upstream dialects, each
stage timed (`report`), verified at its boundary and dumped when
`MS_DEV_SAVE_GRAPHS` asks, then the backend the device target names (the CPU
executor's plan, or the simulated Ascend device). The compile cache
(driver/cache.py) restores the same `Compiled` without the passes.
"""

from __future__ import annotations

import functools
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import xdsl.transforms.canonicalization_patterns.arith  # noqa: F401 - xDSL loads it in the first canonicalize
from xdsl.dialects.builtin import ModuleOp

from mindjit.backend.ascend.executable import AscendExecutable
from mindjit.backend.ascend.pipeline_executable import AscendPipelineExecutable
from mindjit.backend.auto import AutoExecutable
from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.cpu.pipeline_run import pipeline_plan
from mindjit.backend.cpu.replica_run import ReplicaExecutable, split_batch
from mindjit.backend.iree.executable import IreeExecutable
from mindjit.backend.iree.pipeline_executable import IreePipelineExecutable, iree_executable
from mindjit.backend.iree.prepare import IreeUnsupported
from mindjit.backend.iree.toolchain import TARGETS, IreeCompileError
from mindjit.backend.ray.pipeline_executable import RayPipelineExecutable
from mindjit.backend.ray.replica_executable import RayReplicaExecutable
from mindjit.dialects.context import make_context
from mindjit.driver.dumps import Dumps
from mindjit.driver.report import StageReport
from mindjit.passes.pipelines import (
    FUSED_LOWER_TO_TENSOR,
    LOWER_TO_TENSOR,
    jit_level_pipeline,
    lower_to_tensor_pipeline,
    parse_pipeline,
    run_passes,
    verify_stage,
)
from mindjit.support import config
from mindjit.support.errors import MindjitError

Executable = (
    AutoExecutable
    | CpuExecutable
    | IreeExecutable
    | IreePipelineExecutable
    | AscendExecutable
    | AscendPipelineExecutable
    | ReplicaExecutable
)


def replica_batch(arrays: list[Any], replicas: int) -> list[Any]:
    """One replica's slice of a call's inputs (what a data-parallel graph is traced
    with; backend/cpu/replica_run.py's `split_batch`, whose ValueError it raises)."""
    return split_batch(arrays, replicas)[0] if replicas > 1 else list(arrays)


def load_compiler() -> None:
    """Load what every compile uses and parse the default pipelines, so that a
    process's first compile reports compile work in its stages, not module
    loading (MindSpore likewise loads its compiler at import)."""

    make_context()  # loads the dialects
    try:
        for spec in (jit_level_pipeline("O1"), FUSED_LOWER_TO_TENSOR, LOWER_TO_TENSOR):
            parse_pipeline(spec)
    except MindjitError:
        pass  # a bad environment variable: the first compile reports it, located


class Compiled:
    """A lowered module and the executable of the device in the context. A cache
    hit gives one whose module is read only when something asks for it."""

    def __init__(
        self,
        report: StageReport,
        entry: str,
        module: ModuleOp | None = None,
        load_module: Callable[[], ModuleOp] | None = None,
        where: str = "",
    ):
        self.report = report
        self.entry = entry
        self._module = module
        self._load_module = load_module
        self._where = where
        self.executable: Executable | None = None

    @property
    def module(self) -> ModuleOp:
        if self._module is None:
            assert self._load_module is not None
            try:
                self._module = self._load_module()
            except Exception as exc:  # noqa: BLE001 - a crafted entry may fail anywhere
                message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
                raise MindjitError(
                    f"the compilation cache entry {self._where} holds an unreadable "
                    f"module ({message}); delete it to compile again"
                ) from None
        return self._module

    def op_counts(self) -> Counter:
        return Counter(op.name for op in self.module.walk() if op is not self.module)

    def build_backend(
        self,
        options: config.CompileOptions,
        dump_dir: str | None,
        vmfbs: list[Any] | None = None,
    ) -> None:
        """The executable of the options' device target and backend for the module
        (`vmfbs`: IREE's modules from a compile-cache entry, compiled if None)."""
        start = time.perf_counter()
        if options.device_target == "Ascend":
            stages = pipeline_plan(self.module, self.entry)
            if stages is not None:  # one device per pipeline stage
                self.executable = AscendPipelineExecutable(
                    self.module,
                    self.entry,
                    stages,
                    dump_dir,
                    options.cell_reuse,
                    config.pipeline_scheduler(),
                )
            else:
                self.executable = AscendExecutable(
                    self.module, self.entry, dump_dir, options.cell_reuse
                )
            self.report.add("ascend-compile", None, time.perf_counter() - start)
        elif (
            options.distributed == "ray"
            and (stages := pipeline_plan(self.module, self.entry)) is not None
        ):
            self.executable = RayPipelineExecutable(
                self.module, self.entry, stages, config.distributed_settings(), options.backend
            )
            self.report.add("ray-actors", None, time.perf_counter() - start)
        elif options.distributed == "ray" and options.replicas > 1:
            self.executable = RayReplicaExecutable(
                self.module,
                self.entry,
                options.replicas,
                config.distributed_settings(),
                options.backend,
            )
            self.report.add("ray-actors", None, time.perf_counter() - start)
        elif options.backend == "iree":
            first = iree_or_fallback(self.module, options.device_target, vmfbs, self.entry)
            self.executable = self._replicated(first, options.replicas)
            stage = "iree-load" if vmfbs is not None else f"{first.backend}-compile"
            self.report.add(stage, None, time.perf_counter() - start)
            self.executable.plan_for(self.entry)
        elif (
            options.backend == "auto"
            and options.replicas <= 1
            and pipeline_plan(self.module, self.entry) is None
        ):
            target, driver = TARGETS[options.device_target], config.iree_driver()
            self.executable = AutoExecutable(
                self.module,
                self.entry,
                lambda module: iree_executable(module, self.entry, target=target, driver=driver),
            )
            self.executable.plan_for(self.entry)
            self.report.add("cpu-plan", None, time.perf_counter() - start)
        else:  # numpy; and "auto" with replicas or pipeline stages (module doc of backend/auto)
            self.executable = self._replicated(CpuExecutable(self.module), options.replicas)
            self.executable.plan_for(self.entry)
            self.report.add("cpu-plan", None, time.perf_counter() - start)

    def _replicated(self, first: Any, replicas: int) -> Any:
        """`first`, or with N > 1 data-parallel replicas N executables of its kind
        run together in this process (backend/cpu/replica_run.py; on the Ray engine
        backend/ray/replica_executable.py runs them instead)."""
        if replicas <= 1:
            return first
        made = iter([first])

        def make() -> Any:
            exe = next(made, None)
            if exe is not None:
                return exe
            if isinstance(first, IreeExecutable):
                return IreeExecutable(
                    self.module,
                    target=first.target,
                    driver=first.driver,
                    vmfbs=first.vmfbs,
                    entries=[self.entry],
                )
            return CpuExecutable(self.module)

        return ReplicaExecutable(make, replicas)

    def adopt_executable(self, make: Callable[[Callable[[], ModuleOp]], Any]) -> None:
        """An executable made from a captured plan (given how to read the module)."""
        start = time.perf_counter()
        self.executable = make(lambda: self.module)
        self.executable.plan_for(self.entry)  # rebuilt, or planned from the module
        self.report.add("cpu-plan", None, time.perf_counter() - start)


def iree_or_fallback(
    module: ModuleOp,
    device_target: str,
    vmfbs: list[Any] | None = None,
    entry: str | None = None,
) -> CpuExecutable | IreeExecutable | IreePipelineExecutable:
    """IREE's executable for `module` (one per stage for a graph split into
    pipeline stages, backend/iree/pipeline_executable.py), or the numpy executor when the program uses
    something IREE cannot run or IREE fails to compile it (said in one line on
    stderr, with the reason; never silently wrong). A GPU graph has no fallback."""
    try:
        return iree_executable(
            module,
            entry,
            target=TARGETS[device_target],
            driver=config.iree_driver() if device_target == "CPU" else "cuda",
            vmfbs=vmfbs,
        )
    except (IreeUnsupported, IreeCompileError) as exc:
        if device_target != "CPU":
            raise
        where = f"{exc.loc}: " if exc.loc else ""
        print(
            f"mindjit: {where}running this graph on the numpy executor: {exc.message}",
            file=sys.stderr,
        )
    return CpuExecutable(module)


def dump_directory() -> str | None:
    """Where `MS_DEV_SAVE_GRAPHS` wants the stages' IR, or None."""
    return config.save_graphs_path() if config.save_graphs_enabled() else None


@functools.cache
def dump_stage_names() -> list[str]:
    """Every stage of the fullest pipeline (driver/dumps.py numbers dumps by it)."""
    fullest = config.CompileOptions(
        jit_level="O2",
        cell_reuse=2,
        load_elim=1,
        cf_to_select=True,
        device_target="CPU",
        pipeline_stages=2,
    )
    specs = (jit_level_pipeline("O2", fullest), LOWER_TO_TENSOR)
    return ["frontend", *(p.name for spec in specs for p in parse_pipeline(spec))]


def compile_graph(
    module: ModuleOp, entry: str, options: config.CompileOptions, report: StageReport
) -> Compiled:
    """Run `module` (the frontend's mindir, changed in place) through the mindir
    pipeline of `options.jit_level` and the lowering, then build the backend."""
    directory = dump_directory()
    dumps = Dumps(directory, entry, dump_stage_names() if directory is not None else [])
    dumps.stage("frontend", module)
    ctx = make_context()
    verify_each = config.verify_each_enabled()
    mindir_pipeline = jit_level_pipeline(options.jit_level, options)
    lowering = lower_to_tensor_pipeline(options.device_target)
    for stage, spec in (("mindir", mindir_pipeline), ("tensor", lowering)):
        for p in parse_pipeline(spec) if spec else []:
            start = time.perf_counter()
            run_passes([p], module, ctx, verify_each=verify_each)
            report.add(p.name, module, time.perf_counter() - start)
            dumps.stage(p.name, module)
        start = time.perf_counter()
        verify_stage(module, spec)
        report.add(f"verify-{stage}", module, time.perf_counter() - start)
    compiled = Compiled(report, entry, module)
    compiled.build_backend(options, directory)
    exe = compiled.executable
    if directory is not None and isinstance(exe, (IreeExecutable, IreePipelineExecutable)):
        # what iree-compile was given: `iree-run-module --function=<entry>` runs it
        # (a split graph's: each stage's, named by the stage)
        stages = exe.stages if isinstance(exe, IreePipelineExecutable) else {"": exe}
        for stage, part in stages.items():
            suffix = f"-{stage}" if stage else ""
            prepared = part.prepared
            for name, text in prepared.parts:  # the reused graphs' modules, then the entry's
                dumps.backend_text(f"iree-input{suffix}-{name}", text + "\n")
            dumps.backend_text(f"iree-input{suffix}", prepared.text + "\n")
    return compiled
