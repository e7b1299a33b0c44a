"""A graph split into pipeline stages, each stage its own IREE module.

`mindir-pipeline-split` makes X stage graphs of one graph; a call of the graph
runs them all at once, exchanging tensors through channels
(backend/cpu/pipeline_run.py). On IREE each stage graph is compiled alone, from
`stage_module(module, stage)` (its graph, what it calls, its Parameters), into
an `IreeExecutable` of its own: its own VM context, its own Parameter buffers,
its sends and receives host imports that call the hub (channels.py). A call of
the graph is `run_pipeline` over the stages: one thread per stage, each calling
its stage's IREE function.

Why one module and one context per stage, not one module with every stage
function: a stage is what one device (one Ray actor) compiles and runs, so the
in-process engine builds exactly what an actor builds, `stage_executable`, and
sets its `channels` to another hub; a stage's vmfb holds its graph only. Threads
calling functions of one VM context at once also work (measured: a receive
blocking in one thread while another thread's call of the same context sends),
but `IreeExecutable.run` takes one call at a time (its lock guards the
Parameter buffers), so two stages of one executable would wait for each other:
one executable per stage.

Why threads suffice: IREE releases the GIL while it runs a call (measured: a
spinning Python thread kept ~80% of its rate during a 55 ms IREE call, and two
such calls in two threads took 65 ms against 111 ms one after the other on 2
cores); a receive's host function waits on the hub's condition, which releases
the GIL too, so a stage blocked in a receive never stops the others.

Parameters: each lives on one stage (the split's rule), whose executable holds
its buffer; `get_global` / `set_global` go to it. A global several stage
modules read (none written by two) is set in each, and after a call the stage
that writes it gives its value to the others. A global no stage uses keeps the
value it was given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.ml_program import GlobalOp
from xdsl.ir import Attribute

from mindjit.backend.ascend.stage_modules import stage_module
from mindjit.backend.cpu.errors import ExecutionError
from mindjit.backend.cpu.executable import check_global_value
from mindjit.backend.cpu.pipeline_run import PipelinePlan, pipeline_plan, run_pipeline
from mindjit.backend.cpu.types import dense_array
from mindjit.backend.iree.channels import is_channel
from mindjit.backend.iree.executable import IreeExecutable
from mindjit.ir.locations import loc_of_op
from mindjit.support.tensor_text import default_print_hook


def stage_executable(
    module: ModuleOp,
    stage: str,
    *,
    target: str = "llvm-cpu",
    driver: str = "local-sync",
    vmfbs: Sequence[bytes] | None = None,
) -> IreeExecutable:
    """Stage graph @stage of `module` alone, compiled by IREE: what one device of
    a pipeline runs. Set its `channels` (an object with `put(tag, value)` and
    `get(tag) -> value`, which may block) before `run(stage, *args)`; outside a
    pipelined call (`channels` None) a channel keeps the last value sent."""
    return IreeExecutable(
        stage_module(module, stage), target=target, driver=driver, vmfbs=vmfbs, entries=[stage]
    )


def iree_executable(
    module: ModuleOp,
    entry: str | None,
    *,
    target: str = "llvm-cpu",
    driver: str = "local-sync",
    vmfbs: Sequence[Any] | None = None,
) -> IreeExecutable | IreePipelineExecutable:
    """The IREE executable of `module` for `entry` (None: every public function):
    one per stage when `entry` is a graph split into pipeline stages. `vmfbs`
    (a compile-cache entry's) are the modules of `IreeExecutable.vmfbs`, or for a
    split graph one such list per stage (`IreePipelineExecutable.vmfbs`)."""
    plan = pipeline_plan(module, entry) if entry is not None else None
    if plan is not None:
        staged = vmfbs if vmfbs is not None and len(vmfbs) == len(plan.stages) else None
        if staged is not None and not all(isinstance(v, list) for v in staged):
            staged = None  # not a split graph's modules: compiled again
        return IreePipelineExecutable(module, plan, target=target, driver=driver, vmfbs=staged)
    return IreeExecutable(
        module,
        target=target,
        driver=driver,
        vmfbs=vmfbs,
        entries=None if entry is None else [entry],
    )


class IreePipelineExecutable:
    """Runs a split graph's stages on IREE, one executable per stage (see the
    module doc); the executor's contract of `IreeExecutable` / `CpuExecutable`."""

    backend = "iree"

    def __init__(
        self,
        module: ModuleOp,
        plan: PipelinePlan,
        *,
        target: str = "llvm-cpu",
        driver: str = "local-sync",
        vmfbs: Sequence[Sequence[bytes]] | None = None,
    ):
        self.module, self.plan, self.target, self.driver = module, plan, target, driver
        self.stages: dict[str, IreeExecutable] = {
            name: stage_executable(
                module,
                name,
                target=target,
                driver=driver,
                vmfbs=None if vmfbs is None else vmfbs[k],
            )
            for k, (name, _) in enumerate(plan.stages)
        }
        self._print_hook = default_print_hook
        self._channels: Any = None
        self._globals = {
            op.sym_name.data: op
            for op in module.body.block.ops
            if isinstance(op, GlobalOp) and not is_channel(op.sym_name.data)
        }
        #: global -> the stage executables holding it, the writer (if any) first
        self._holders: dict[str, list[IreeExecutable]] = {}
        for name, exe in self.stages.items():
            written = exe.prepared.entries[name].written
            for g in exe.prepared.globals:
                holders = self._holders.setdefault(g, [])
                holders.insert(0 if g in written else len(holders), exe)
        self._shared = [g for g, holders in self._holders.items() if len(holders) > 1]
        self._loose: dict[str, np.ndarray] = {}  # globals no stage uses

    @property
    def vmfbs(self) -> list[list[bytes]]:
        """Each stage's compiled modules (what the compile cache keeps)."""
        return [exe.vmfbs for exe in self.stages.values()]

    # -- what the stages share ---------------------------------------------------------

    @property
    def channels(self) -> Any:
        return self._channels

    @channels.setter
    def channels(self, hub: Any) -> None:
        """The hub of the pipelined call running now (run_pipeline sets it)."""
        self._channels = hub
        for exe in self.stages.values():
            exe.channels = hub

    @property
    def print_hook(self) -> Callable[[list[Any]], None]:
        return self._print_hook

    @print_hook.setter
    def print_hook(self, hook: Callable[[list[Any]], None]) -> None:
        self._print_hook = hook
        for exe in self.stages.values():
            exe.print_hook = hook

    # -- the executor's contract -------------------------------------------------------

    def entry_names(self) -> list[str]:
        return [self.plan.graph, *self.stages]

    def signature(self, name: str) -> tuple[list[Attribute], list[Attribute]]:
        if name != self.plan.graph:
            return self._stage(name).signature(name)
        outputs: list[Attribute] = [None] * self.plan.n_results  # type: ignore[list-item]
        for stage, indices in self.plan.stages:
            for i, t in zip(indices, self.stages[stage].signature(stage)[1]):
                outputs[i] = t
        first = self.plan.stages[0][0]
        return self.stages[first].signature(first)[0], outputs

    def plan_for(self, name: str) -> None:
        if name != self.plan.graph:
            self._stage(name).plan_for(name)

    def run(self, name: str, *args: Any) -> tuple[np.ndarray, ...]:
        """A call of the split graph runs every stage at once; a stage's name runs
        that stage alone (what run_pipeline's threads call)."""
        if name != self.plan.graph:
            return self._stage(name).run(name, *args)
        try:
            return run_pipeline(self, self.plan, args)
        finally:
            for g in self._shared:  # the writer's value to the stages that read it
                value = self._holders[g][0].get_global(g)
                for exe in self._holders[g][1:]:
                    exe.set_global(g, value)

    def get_global(self, name: str) -> np.ndarray:
        holders = self._holders.get(name)
        if holders:
            return holders[0].get_global(name)
        op = self._global(name)
        if name not in self._loose:
            if op.value is None:
                raise ExecutionError(f"global @{name} has no value yet", loc_of_op(op))
            self._loose[name] = np.array(dense_array(op.value, op.type, op))
        return self._loose[name]

    def set_global(self, name: str, value: Any) -> None:
        holders = self._holders.get(name)
        if not holders:
            check_global_value(self._global(name), value)
            self._loose[name] = np.asarray(value)
        for exe in holders or ():
            exe.set_global(name, value)

    # -- internals -----------------------------------------------------------------------

    def _stage(self, name: str) -> IreeExecutable:
        exe = self.stages.get(name)
        if exe is None:
            available = ", ".join(f"@{n}" for n in self.entry_names())
            raise ExecutionError(f"no function @{name} in the module; available: {available}")
        return exe

    def _global(self, name: str) -> GlobalOp:
        op = self._globals.get(name)
        if op is None:
            raise ExecutionError(f"no global @{name} in the module")
        return op
