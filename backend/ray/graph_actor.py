"""One graph in a Ray actor: a pipeline stage, or a data-parallel replica.

The driver (group.py and its two kinds) creates one `GraphActor` per stage
graph or replica, with the module it runs (a stage: its graph, callees and
globals alone, backend/ascend/stage_modules.py; a replica: the whole program)
encoded by the compile cache's module codec (tens of microseconds per op to
read, where MLIR text costs hundreds). The actor decodes it and plans it on the
numpy executor, or compiles it for IREE (falling back to numpy with the
reason, as one process does), once, in `__init__`. Its Parameters and
optimizer state stay in it between steps.

A step (`step`) runs the graph with the executor's communication on Ray:
- a stage's `channels` (the kernels' put/get, backend/cpu/pipeline_run.py): a
  send calls `deliver` on the actor that receives the tag (through the object
  store; zero-copy for the receiver), a receive takes it from this actor's
  mailbox;
- a replica's `comm` (backend/cpu/collectives.py's interface): comm.py.
The actor runs methods on several threads (`max_concurrency`), so deliveries
and an `abort` arrive while the graph runs. A step returns the graph's results,
the globals its graph stores to (for the user's Parameters) and its measured
spans: when it started and ended, and when each channel was waited for,
received and sent (the measured timeline).
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from mindjit.backend.cache.module_codec import decode
from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.cpu.memory_meter import MemoryMeter
from mindjit.backend.iree.executable import IreeExecutable
from mindjit.backend.iree.prepare import IreeUnsupported
from mindjit.backend.iree.toolchain import IreeCompileError
from mindjit.backend.ray.comm import RayComm
from mindjit.backend.ray.mailbox import Mailbox
from mindjit.dialects.context import make_context

#: threads of an actor: the step, deliveries from peers, abort
ACTOR_THREADS = 4


class _RayChannels:
    """The `channels` object the channel kernels call (put / get)."""

    def __init__(self, actor: GraphActor):
        self.actor = actor
        self.sent: list[Any] = []

    def put(self, name: str, value: Any) -> None:
        a = self.actor
        a.events.append(("send", name, time.time()))
        peer = a.peers[a.receiver_of[name]]
        self.sent.append(peer.deliver.remote(name, np.asarray(value)))

    def get(self, name: str) -> np.ndarray:
        return self.actor.take(name)


class GraphActor:
    """The actor class (wrapped by `ray.remote` in the driver)."""

    def __init__(
        self,
        index: int,
        graph: str,
        encoded: Any,
        backend: str,
        stores: list[str],
        group_size: int = 1,
    ):
        start = time.perf_counter()
        self.index, self.graph, self.stores = index, graph, stores
        self.group_size = group_size
        module = decode(encoded, make_context())
        self.fallback: str | None = None
        self.exe: Any = None
        if backend == "iree":
            try:
                self.exe = IreeExecutable(module, entries=[graph])
            except (IreeUnsupported, IreeCompileError) as exc:  # said by the driver
                self.fallback = f"{exc.loc}: {exc.message}" if exc.loc else exc.message
        if self.exe is None:
            self.exe = CpuExecutable(module)
        self.exe.plan_for(graph)
        self.compile_s = time.perf_counter() - start
        self.mailbox = Mailbox()
        self.peers: list[Any] = []
        self.receiver_of: dict[str, int] = {}
        self.events: list[tuple[str, str, float]] = []

    def ready(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "compile_s": self.compile_s, "fallback": self.fallback}

    def connect(self, peers: list[Any], receiver_of: dict[str, int]) -> None:
        self.peers, self.receiver_of = peers, receiver_of

    def meter_memory(self) -> None:
        """Count live bytes from the next step on (backend/cpu/memory_meter.py; the
        numpy executor's plans are rebuilt with the counters)."""
        self.exe.memory_meter = MemoryMeter()

    def memory(self) -> dict[str, int]:
        """The metered peaks of this actor's graph (bytes), after a metered step."""
        peak = self.exe.memory_meter.peak(self.graph)
        return {
            "held_activation_bytes": peak.held_activation_bytes,
            "activation_bytes": peak.activation_bytes,
            "intermediate_bytes": peak.intermediate_bytes,
        }

    def take(self, tag: str) -> Any:
        """A delivered value (waiting for it), with its wait in the step's events."""
        self.events.append(("wait", tag, time.time()))
        value = self.mailbox.take(tag)
        self.events.append(("recv", tag, time.time()))
        return value

    def deliver(self, tag: str, value: Any) -> None:
        self.mailbox.deliver(tag, value)

    def abort(self, reason: str) -> None:
        self.mailbox.abort(reason)

    def step(self, updates: dict[str, Any], *args: Any) -> dict[str, Any]:
        """One call of the graph; `updates`: globals the user changed."""
        import ray  # the optional extra: only an actor (which Ray started) runs this

        for name, value in updates.items():
            self.exe.set_global(name, np.array(value))  # writable, ours
        # no mailbox reset here: a peer that started first may already have delivered
        # this step's tensors (a failed step's actors are never reused: group.py)
        self.events = []
        channels = _RayChannels(self)
        comm = RayComm(self.index, self.group_size, self.peers, self.take)
        self.exe.channels = channels
        if self.group_size > 1:
            self.exe.comm = comm
        begin = time.time()
        try:
            outputs = self.exe.run(self.graph, *args)
        finally:
            self.exe.channels = None
            self.exe.comm = None
        end = time.time()
        ray.get(channels.sent + comm.sent)  # every delivery made (a dead receiver fails here)
        meter = getattr(self.exe, "memory_meter", None)
        return {
            "works": list(meter.peak(self.graph).work_ends) if meter is not None else [],
            "outputs": list(outputs),
            "globals": {name: self.exe.get_global(name) for name in self.stores},
            "begin": begin,
            "end": end,
            "events": self.events,
        }
