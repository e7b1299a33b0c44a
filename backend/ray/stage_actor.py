"""One pipeline stage in a Ray actor: its graph compiled once, its Parameters and
optimizer state kept between steps, its channels carried by Ray.

The driver (pipeline_executable.py) creates one `StageWorker` per stage graph
with the stage's own module (backend/ascend/stage_modules.py: the graph, its
callees and its globals only), encoded by the compile cache's module codec
(tens of microseconds per op to read, where MLIR text costs hundreds). The
actor decodes it and plans it on the numpy executor (or compiles it for IREE)
once, in `__init__`.

A step (`step`) runs the stage graph as the in-process pipeline runs it on a
thread (backend/cpu/pipeline_run.py), with the executor's `channels` on Ray: a
send calls `deliver` on the actor that receives the tag (a Ray actor call: the
tensor goes through the object store, zero-copy for the receiver), a receive
takes it from this actor's mailbox. The actor runs methods on several threads
(`max_concurrency`), so deliveries and an `abort` arrive while the graph runs.
The step returns the stage's results, the globals its graph stores to (its
Parameters and optimizer state, for the user's Parameters), and its measured
spans (when each channel was sent or received, the step's start and end: the
measured timeline).
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from mindjit.backend.cache.module_codec import decode
from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.iree.executable import IreeExecutable
from mindjit.backend.iree.prepare import IreeUnsupported
from mindjit.backend.iree.toolchain import IreeCompileError
from mindjit.backend.ray.mailbox import Mailbox
from mindjit.dialects.context import make_context

#: threads of a stage actor: the step, deliveries from peers, abort
ACTOR_THREADS = 4


class _RayChannels:
    """The `channels` object the channel kernels call (put / get)."""

    def __init__(self, worker: StageWorker):
        self.worker = worker
        self.sent: list[Any] = []

    def put(self, name: str, value: Any) -> None:
        w = self.worker
        peer = w.peers[w.receiver_of[name]]
        w.events.append(("send", name, time.time()))
        self.sent.append(peer.deliver.remote(name, np.asarray(value)))

    def get(self, name: str) -> np.ndarray:
        w = self.worker
        w.events.append(("wait", name, time.time()))
        value = w.mailbox.take(name)
        w.events.append(("recv", name, time.time()))
        return value


class StageWorker:
    """The actor class (wrapped by `ray.remote` in the driver)."""

    def __init__(self, stage: int, graph: str, encoded: Any, backend: str, stores: list[str]):
        start = time.perf_counter()
        self.stage, self.graph, self.stores = stage, graph, stores
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

    def deliver(self, tag: str, value: Any) -> None:
        self.mailbox.deliver(tag, value)

    def abort(self, reason: str) -> None:
        self.mailbox.abort(reason)

    def step(self, updates: dict[str, Any], *args: Any) -> dict[str, Any]:
        """One call of the stage graph; `updates`: globals the user changed."""
        import ray  # the optional extra: only an actor (which Ray started) runs this

        for name, value in updates.items():
            self.exe.set_global(name, np.array(value))  # writable, ours
        self.mailbox.reset()
        self.events = []
        channels = _RayChannels(self)
        self.exe.channels = channels
        begin = time.time()
        try:
            outputs = self.exe.run(self.graph, *args)
        finally:
            self.exe.channels = None
        end = time.time()
        ray.get(channels.sent)  # every delivery made (a dead receiver fails here)
        return {
            "outputs": list(outputs),
            "globals": {name: self.exe.get_global(name) for name in self.stores},
            "begin": begin,
            "end": end,
            "events": self.events,
        }
