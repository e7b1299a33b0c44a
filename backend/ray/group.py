"""A group of graph actors that runs as one executable: what the two Ray kinds share.

`ActorGroup` is the driver side of backend/ray: it has the executable
interface the frontend uses (`set_global`, `run`, `get_global`, `plan_for`,
`signature`), so the frontend's program does not know its graph runs elsewhere.
Its kinds say what each actor runs and how a call's inputs and outputs map onto
them: pipeline_executable.py (one actor per stage graph, every actor all
inputs, each stage some outputs) and replica_executable.py (one actor per
data-parallel replica, each a slice of the batch).

State: the actors hold the Parameters and optimizer state between steps.
`set_global` ships a value only when it differs from what the actors hold (the
driver keeps the last values a step returned, read-only, out of Ray's object
store; a contents check, since PyNative may write a Parameter in place): a
training loop ships nothing but its inputs, a user's `set_data` or
`load_checkpoint` between steps ships what it changed. After a step,
`get_global` gives the new values (the user's Parameters adopt them, so
`asnumpy`, `save_checkpoint` and `parameters_and_names` read them).

Faults: an actor that fails or dies (`kill -9` of its process) fails the step
at once, naming the stage or rank: the survivors' waits are aborted, every
actor is killed (no orphan processes), and the Parameters keep the values of
the last completed step (a failed step's values are never adopted). The next
call starts new actors from those values. A user's own error inside a graph (a
failed `raise`/`assert` check) is raised as itself.
"""

from __future__ import annotations

import sys
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.ml_program import GlobalOp

from mindjit.backend.cache.module_codec import encode
from mindjit.backend.cpu.pipeline_run import ChannelAborted
from mindjit.backend.ray.cluster import GROUPS, cause_of, connect, kill_all, start_actors
from mindjit.backend.ray.errors import DistributedError
from mindjit.backend.ray.graph_actor import ACTOR_THREADS, GraphActor
from mindjit.passes.mindir_to_tensor.state import CHANNEL_PREFIX
from mindjit.support.config import DistributedSettings
from mindjit.support.errors import MindjitError

#: how long survivors get to stop after an actor failed, before they are killed
ABORT_SECONDS = 10.0


@dataclass
class Member:
    """What the driver knows of one actor's graph."""

    graph: str
    encoded: Any  # its module, encoded (backend/cache/module_codec.py)
    declares: frozenset[str]  # every (non-channel) global its module has
    stores: list[str]  # the globals its graph writes, returned after each step
    receives: list[str] = field(default_factory=list)  # channels it receives


def module_member(module: ModuleOp, graph: str) -> Member:
    """`graph` with what its module declares, stores and receives."""
    declares, stores, receives = set(), set(), set()
    for op in module.walk():
        if isinstance(op, GlobalOp) and not op.sym_name.data.startswith(CHANNEL_PREFIX):
            declares.add(op.sym_name.data)
        elif op.name in ("ml_program.global_store", "ml_program.global_load"):
            name = op.properties["global"].root_reference.data  # type: ignore[union-attr]
            if name.startswith(CHANNEL_PREFIX):
                if op.name == "ml_program.global_load":
                    receives.add(name)
            elif op.name == "ml_program.global_store":
                stores.add(name)
    return Member(graph, encode(module), frozenset(declares), sorted(stores), sorted(receives))


class ActorGroup:
    """Graph actors run as one executable (see the module doc). A kind sets
    `members`, `what` ("pipeline stage" / "data-parallel replica") and implements
    `_inputs` and `_outputs`."""

    backend = "ray"
    what = "actor"

    def __init__(
        self,
        entry: str,
        members: list[Member],
        settings: DistributedSettings,
        stage_backend: str,
        receiver_of: dict[str, int] | None = None,
    ):
        self.entry, self.members = entry, members
        self.settings, self.stage_backend = settings, stage_backend
        self.receiver_of = receiver_of or {}
        self.ray = connect(settings)
        self._actors: list[Any] | None = None
        self._finalizer: Any = None
        self._held: dict[str, np.ndarray] = {}  # what the actors hold (read-only)
        self._given: dict[str, np.ndarray] = {}  # the copies handed out by get_global
        self._updates: dict[str, np.ndarray] = {}  # set since the last step, to ship
        #: the last step, per actor: its span and channel events (wall-clock seconds)
        self.last_step: list[dict[str, Any]] = []
        self.pids: list[int] = []
        self.compile_s: list[float] = []
        self.start_s = 0.0
        self._start()

    # -- actors -------------------------------------------------------------------------

    def _start(self) -> None:
        ray, cpus, n = self.ray, self.settings.cpus_per_actor, len(self.members)
        begin = time.perf_counter()
        GROUPS.make_room(ray, cpus * n, keep=self)
        remote = ray.remote(GraphActor).options(
            num_cpus=cpus, max_concurrency=ACTOR_THREADS, max_restarts=0
        )

        def make() -> list[Any]:
            return [
                remote.remote(k, m.graph, m.encoded, self.stage_backend, m.stores, self._group())
                for k, m in enumerate(self.members)
            ]

        actors = start_actors(ray, make, self.settings.start_timeout, cpus, self.what)
        infos = ray.get([a.ready.remote() for a in actors])
        self.pids = [info["pid"] for info in infos]
        self.compile_s = [info["compile_s"] for info in infos]
        #: per actor, why its graph runs on numpy although the backend is IREE (or None)
        self.fallbacks = [info["fallback"] for info in infos]
        for reason in dict.fromkeys(info["fallback"] for info in infos if info["fallback"]):
            print(  # as iree_or_fallback says it in one process
                f"mindjit: {reason}: running this graph on the numpy executor", file=sys.stderr
            )
        ray.get([a.connect.remote(actors, self.receiver_of) for a in actors])
        self._actors = actors
        self._finalizer = weakref.finalize(self, kill_all, ray, list(actors))
        GROUPS.touch(self)
        self.start_s = time.perf_counter() - begin

    def report(self) -> dict[str, Any]:
        """The last step: its wall time, and per actor its pid, busy and waiting
        seconds (waiting: blocked in a receive or a collective's mailbox)."""
        if not self.last_step:
            return {}
        begin = min(a["begin"] for a in self.last_step)
        end = max(a["end"] for a in self.last_step)
        actors = []
        for k, a in enumerate(self.last_step):
            waited, since = 0.0, None
            for kind, _, t in a["events"]:
                if kind == "wait":
                    since = t
                elif kind == "recv" and since is not None:
                    waited, since = waited + t - since, None
            span = a["end"] - a["begin"]
            actors.append(
                {"pid": self.pids[k], "busy_s": span - waited, "wait_s": waited, "span_s": span}
            )
        return {"step_s": end - begin, self.what.split()[-1] + "s": actors}

    def meter_memory(self) -> None:
        """Each actor counts its graph's live bytes from the next step on (`memory`)."""
        if self._actors is None:
            self._start()
        self.ray.get([a.meter_memory.remote() for a in self._actors or []])

    def memory(self) -> list[dict[str, int]]:
        """Each actor's measured peaks (bytes) of the steps since `meter_memory`."""
        return self.ray.get([a.memory.remote() for a in self._actors or []])

    def _group(self) -> int:
        """The size of the actors' collective group (1: they only exchange channels)."""
        return 1

    def close(self) -> None:
        """Stop the actors (a later `run` starts new ones, from the driver's values)."""
        if self._finalizer is not None:
            self._finalizer()
        self._actors = None
        self._held.clear()  # new actors will hold only their modules' initial values
        GROUPS.forget(self)

    # -- the executable interface -------------------------------------------------------

    def plan_for(self, name: str) -> None:
        self._check_entry(name)

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
        inputs = self._inputs(args)  # before any actor starts: bad input is the user's
        if self._actors is None:
            self._start()
        GROUPS.touch(self)
        actors = self._actors
        assert actors is not None
        refs = []
        for member, actor, own in zip(self.members, actors, inputs):
            updates = {n: v for n, v in self._updates.items() if n in member.declares}
            refs.append(actor.step.remote(updates, *own))  # refs are resolved by Ray
        results = self._wait(refs)
        self._updates.clear()
        self._given.clear()
        for result in results:
            self._held.update(result["globals"])
        self.last_step = [
            {"begin": r["begin"], "end": r["end"], "events": r["events"], "works": r["works"]}
            for r in results
        ]
        return self._outputs([r["outputs"] for r in results])

    def _inputs(self, args: Sequence[Any]) -> list[list[Any]]:
        raise NotImplementedError

    def _outputs(self, outputs: list[list[Any]]) -> tuple[np.ndarray, ...]:
        raise NotImplementedError

    # -- faults -------------------------------------------------------------------------

    def _wait(self, refs: list[Any]) -> list[dict[str, Any]]:
        ray = self.ray
        index = {ref: k for k, ref in enumerate(refs)}
        results: list[Any] = [None] * len(refs)
        pending = list(refs)
        while pending:
            # a bounded wait per turn: Ctrl-C and signal handlers run while steps do
            done, pending = ray.wait(pending, num_returns=1, timeout=0.5)
            if not done:
                continue
            k = index[done[0]]
            try:
                results[k] = ray.get(done[0])
            except ray.exceptions.RayError as exc:
                self._fail(k, exc, pending)
        return results

    def _fail(self, k: int, exc: BaseException, pending: Sequence[Any]) -> None:
        ray, actors = self.ray, self._actors or []
        who = f"{self.what} {k}" + (f" (@{self.members[k].graph})" if self._group() == 1 else "")
        died = isinstance(exc, ray.exceptions.RayActorError)
        reason = f"{who} failed"
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
                f"{who}, Ray actor process {pid}, died mid-step: {cause_of(exc)}. The step "
                "did not happen: the Parameters keep the values of the last completed step; "
                "the next call starts new actors."
            ) from None
        raise DistributedError(f"{reason}: {cause_of(exc)}") from None

    def _check_entry(self, name: str) -> None:
        if name != self.entry:
            raise MindjitError(f"@{name} is not the graph @{self.entry} these actors run")
