"""A graph cut into pipeline stages, run with one Ray actor per stage.

The driver side of backend/ray: what `Compiled.build_backend` gives for a split
graph when the distributed engine is "ray". It has the executable interface the
frontend uses (`set_global`, `run`, `get_global`): the frontend's program does
not know the stages are elsewhere.

Building: each stage graph's own module (backend/ascend/stage_modules.py) goes
to its actor once, encoded (stage_actor.py); the actor compiles it. Every
actor learns its peers and which actor receives each channel tag (the stage
whose module loads that channel).

State: the actors hold the Parameters and optimizer state of their stages
between steps. `set_global` ships a value only when it differs from what the
actors hold (the driver keeps the last values a step returned, read-only, out
of Ray's object store): a training loop ships nothing but its inputs, a user's
`set_data` or `load_checkpoint` between steps ships what it changed. After a
step, `get_global` gives the stages' new values (the user's Parameters adopt
them, so `asnumpy`, `save_checkpoint` and `parameters_and_names` read them).

Faults: a stage that fails or dies (`kill -9` of its process) fails the step at
once, naming the stage: the survivors' waiting receives are aborted, every
actor is killed (no orphan processes), and the Parameters keep the values of
the last completed step (a failed step's values are never adopted). The next
call starts new actors from those values. A user's own error inside a stage
(a failed `raise`/`assert` check) is raised as itself.
"""

from __future__ import annotations

import sys
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.ml_program import GlobalOp

from mindjit.backend.ascend.stage_modules import stage_module
from mindjit.backend.cache.module_codec import encode
from mindjit.backend.cpu.executable import caller_inputs
from mindjit.backend.cpu.pipeline_run import ChannelAborted, PipelinePlan
from mindjit.backend.ray.cluster import GROUPS, cause_of, connect, kill_all, start_actors
from mindjit.backend.ray.errors import DistributedError
from mindjit.backend.ray.stage_actor import ACTOR_THREADS, StageWorker
from mindjit.passes.mindir_to_tensor.state import CHANNEL_PREFIX
from mindjit.support.config import DistributedSettings
from mindjit.support.errors import MindjitError

#: how long survivors get to stop after a stage failed, before they are killed
ABORT_SECONDS = 10.0


@dataclass
class _Stage:
    """What the driver knows of one stage: its module and the globals it has."""

    graph: str
    encoded: Any
    declares: frozenset[str]  # every non-channel global of its module
    stores: list[str]  # the globals its graph writes (returned after each step)
    receives: list[str]  # the channels it receives


def _stage(module: ModuleOp, graph: str) -> _Stage:
    own = stage_module(module, graph)
    declares, stores, receives = set(), set(), set()
    for op in own.walk():
        if isinstance(op, GlobalOp) and not op.sym_name.data.startswith(CHANNEL_PREFIX):
            declares.add(op.sym_name.data)
        elif op.name in ("ml_program.global_store", "ml_program.global_load"):
            name = op.properties["global"].root_reference.data  # type: ignore[union-attr]
            if name.startswith(CHANNEL_PREFIX):
                if op.name == "ml_program.global_load":
                    receives.add(name)
            elif op.name == "ml_program.global_store":
                stores.add(name)
    return _Stage(graph, encode(own), frozenset(declares), sorted(stores), sorted(receives))


class RayPipelineExecutable:
    """Stage graphs on Ray actors (see the module doc)."""

    backend = "ray"

    def __init__(
        self,
        module: ModuleOp,
        entry: str,
        plan: PipelinePlan,
        settings: DistributedSettings,
        stage_backend: str = "numpy",
    ):
        self.module, self.entry, self.plan = module, entry, plan
        self.settings, self.stage_backend = settings, stage_backend
        self.stages = [_stage(module, graph) for graph, _ in plan.stages]
        self.receiver_of = {tag: k for k, stage in enumerate(self.stages) for tag in stage.receives}
        self.ray = connect(settings)
        self._actors: list[Any] | None = None
        self._finalizer: Any = None
        self._held: dict[str, np.ndarray] = {}  # what the actors hold (read-only)
        self._given: dict[str, np.ndarray] = {}  # the copies handed out by get_global
        self._updates: dict[str, np.ndarray] = {}  # set since the last step, to ship
        #: the last step: per stage its span, channel events and the actors' pids
        self.last_step: list[dict[str, Any]] = []
        self.pids: list[int] = []
        self.start_s = 0.0
        self._start()

    # -- actors -----------------------------------------------------------------------

    def _start(self) -> None:
        ray, cpus = self.ray, self.settings.cpus_per_actor
        begin = time.perf_counter()
        remote = ray.remote(StageWorker).options(
            num_cpus=cpus, max_concurrency=ACTOR_THREADS, max_restarts=0
        )

        GROUPS.make_room(ray, cpus * len(self.stages), keep=self)

        def make() -> list[Any]:
            return [
                remote.remote(k, s.graph, s.encoded, self.stage_backend, s.stores)
                for k, s in enumerate(self.stages)
            ]

        actors = start_actors(ray, make, self.settings.start_timeout, cpus, "pipeline stage")
        infos = ray.get([a.ready.remote() for a in actors])
        self.pids = [info["pid"] for info in infos]
        self.compile_s = [info["compile_s"] for info in infos]
        for k, info in enumerate(infos):
            if info["fallback"]:  # as iree_or_fallback says it in one process
                print(
                    f"mindjit: stage {k}: running this graph on the numpy executor: "
                    f"{info['fallback']}",
                    file=sys.stderr,
                )
        ray.get([a.connect.remote(actors, self.receiver_of) for a in actors])
        self._actors = actors
        self._finalizer = weakref.finalize(self, kill_all, ray, list(actors))
        GROUPS.touch(self)
        self.start_s = time.perf_counter() - begin

    def close(self) -> None:
        """Stop the actors (a later `run` starts new ones)."""
        if self._finalizer is not None:
            self._finalizer()
        self._actors = None
        self._held.clear()  # new actors will hold only their modules' initial values
        GROUPS.forget(self)

    # -- the executable interface -----------------------------------------------------

    def plan_for(self, name: str) -> None:
        self._check_entry(name)

    def signature(self, name: str) -> tuple[list[Any], list[Any]]:
        self._check_entry(name)
        outputs: list[Any] = [None] * self.plan.n_results
        first = None
        for (_, indices), op in zip(self.plan.stages, self._stage_funcs()):
            first = first or op
            for i, t in zip(indices, op.function_type.outputs.data):
                outputs[i] = t
        assert first is not None
        return caller_inputs(first), outputs

    def set_global(self, name: str, value: Any) -> None:
        held = self._held.get(name)
        if held is not None and np.array_equal(value, held):
            return  # the actors have it (a contents check: PyNative may write in place)
        self._updates[name] = np.asarray(value)

    def get_global(self, name: str) -> np.ndarray:
        if name in self._updates:
            return self._updates[name]
        if name not in self._given:
            held = self._held.get(name)
            if held is None:
                raise MindjitError(f"global @{name} has no value yet")
            self._given[name] = np.array(held)  # writable: the user's Parameter adopts it
        return self._given[name]

    def run(self, name: str, *args: Any) -> tuple[np.ndarray, ...]:
        self._check_entry(name)
        if self._actors is None:
            self._start()
        GROUPS.touch(self)
        ray, actors = self.ray, self._actors
        assert actors is not None
        arg_refs = [ray.put(np.asarray(a)) for a in args]
        refs = []
        for stage, actor in zip(self.stages, actors):
            updates = {n: v for n, v in self._updates.items() if n in stage.declares}
            refs.append(actor.step.remote(updates, *arg_refs))  # refs resolved by Ray
        results = self._wait(refs)
        self._updates.clear()
        self._given.clear()
        outputs: list[Any] = [None] * self.plan.n_results
        for (_, indices), result in zip(self.plan.stages, results):
            for i, value in zip(indices, result["outputs"]):
                outputs[i] = np.array(value)
            self._held.update(result["globals"])
        self.last_step = [
            {"begin": r["begin"], "end": r["end"], "events": r["events"]} for r in results
        ]
        return tuple(outputs)

    # -- faults -------------------------------------------------------------------------

    def _wait(self, refs: list[Any]) -> list[dict[str, Any]]:
        ray = self.ray
        index = {ref: k for k, ref in enumerate(refs)}
        results: list[Any] = [None] * len(refs)
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            k = index[done[0]]
            try:
                results[k] = ray.get(done[0])
            except ray.exceptions.RayError as exc:
                self._fail(k, exc, pending)
        return results

    def _fail(self, k: int, exc: BaseException, pending: Sequence[Any]) -> None:
        ray, actors = self.ray, self._actors or []
        graph = self.stages[k].graph
        died = isinstance(exc, ray.exceptions.RayActorError)
        reason = f"pipeline stage {k} (@{graph}) failed"
        for actor in actors:
            try:
                actor.abort.remote(reason)
            except Exception:  # noqa: BLE001 - a dead actor
                pass
        if pending:
            ray.wait(list(pending), num_returns=len(pending), timeout=ABORT_SECONDS)
        self.close()  # no orphans; the next run starts new actors from the user's values
        self._given.clear()
        cause = getattr(exc, "cause", None)
        if not died and isinstance(cause, MindjitError) and not isinstance(cause, ChannelAborted):
            raise cause from None  # the user's own error (a raise/assert check), as itself
        if died:
            pid = self.pids[k] if k < len(self.pids) else "?"
            raise DistributedError(
                f"pipeline stage {k} (@{graph}, Ray actor process {pid}) died mid-step: "
                f"{cause_of(exc)}. The step did not happen: the Parameters keep the values "
                "of the last completed step; the next call starts new actors."
            ) from None
        raise DistributedError(f"{reason}: {cause_of(exc)}") from None

    # -- helpers ------------------------------------------------------------------------

    def _check_entry(self, name: str) -> None:
        if name != self.plan.graph:
            raise MindjitError(
                f"@{name} is not the pipelined graph @{self.plan.graph} these actors run"
            )

    def _stage_funcs(self) -> list[func.FuncOp]:
        by_name = {
            op.sym_name.data: op for op in self.module.body.block.ops if isinstance(op, func.FuncOp)
        }
        return [by_name[graph] for graph, _ in self.plan.stages]
