"""Running a graph that `mindir-pipeline-split` cut into stages, in one process.

A call of the split graph runs every stage graph at once, one thread per stage,
as X devices would, and gathers the graph's results from the stages that return
them (`mindir.pipeline_results`). Sends and receives meet in a `ChannelHub`: a
send puts a copy of its tensor under its tag, a receive waits until the tag's
value is there and takes it. Each stage graph runs in its schedule's order
(mindir-pipeline-schedule: 1F1B or GPipe, replayed at compile time to prove the
stages finish; unscheduled, the split's original order, where each receive comes
after its send); a receive no stage will ever satisfy (a hand-written module whose tags
do not pair up) is found the moment every stage still running waits, and is an
error naming the tag, never a hang.

Why threads and not one stage after another: stage 0 sends activations forward
and then waits for the gradients stage 1 sends back, so no order of whole stage
graphs works; the numpy kernels release the GIL in BLAS, so the stages even
overlap a little on two cores.

The executor (`exe`) needs `run(name, *args)` and a `channels` attribute its
channel kernels read (backend/cpu/kernels_state.py): None outside a pipeline
call, where a channel is an ordinary global.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from mindjit.backend.cpu.errors import ExecutionError
from mindjit.dialects.mindir.discardable import pipeline_results, pipeline_stage_graphs


class ChannelAborted(ExecutionError):
    """A stage stopped waiting because another stage failed."""


class ChannelHub:
    """The channels of one pipelined call: tag -> the value sent, until received."""

    def __init__(self, stages: int):
        self._cond = threading.Condition()
        self._values: dict[str, np.ndarray] = {}
        self._running = stages  # stages not finished
        self._wanted: dict[int, str] = {}  # thread id -> the channel it waits for
        self._failed = False

    def put(self, name: str, value: Any) -> None:
        with self._cond:
            if name in self._values:
                raise ExecutionError(
                    f"channel @{name} is sent twice before it is received (two sends of one "
                    "sr_tag in one call)"
                )
            self._values[name] = np.array(value, copy=True)
            self._cond.notify_all()

    def get(self, name: str) -> np.ndarray:
        me = threading.get_ident()
        with self._cond:
            self._wanted[me] = name
            try:
                while name not in self._values:
                    if self._failed:
                        raise ChannelAborted("another pipeline stage failed")
                    if self._stuck():
                        self._failed = True
                        self._cond.notify_all()
                        raise ExecutionError(
                            f"pipeline stages wait for each other: nothing sends channel @{name} "
                            "(a receive whose sr_tag no send of the call uses)"
                        )
                    self._cond.wait()
                return self._values.pop(name)
            finally:
                del self._wanted[me]

    def _stuck(self) -> bool:
        """Every stage still running waits for a channel nobody has sent."""
        return len(self._wanted) == self._running and not any(
            n in self._values for n in self._wanted.values()
        )

    def finished(self, failed: bool) -> None:
        with self._cond:
            self._running -= 1
            self._failed = self._failed or failed
            self._cond.notify_all()


@dataclass(frozen=True)
class PipelinePlan:
    """The stage graphs of one split graph: (name, result indices) by stage."""

    graph: str
    stages: tuple[tuple[str, tuple[int, ...]], ...]
    n_results: int


def pipeline_plan(module: ModuleOp, graph: str) -> PipelinePlan | None:
    """How to run `graph` when `module` holds it as stage graphs (else None)."""
    fns: list[func.FuncOp] = pipeline_stage_graphs(module, graph)
    if not fns:
        return None
    stages = tuple((f.sym_name.data, tuple(pipeline_results(f))) for f in fns)
    return PipelinePlan(graph, stages, sum(len(r) for _, r in stages))


def run_pipeline(exe: Any, plan: PipelinePlan, args: Sequence[Any]) -> tuple[Any, ...]:
    """One call of the split graph: every stage at once (see the module doc)."""
    hub = ChannelHub(len(plan.stages))
    results: list[Any] = [None] * plan.n_results
    errors: list[BaseException | None] = [None] * len(plan.stages)

    def stage(k: int) -> None:
        name, indices = plan.stages[k]
        failed = True
        try:
            outputs = exe.run(name, *args)
            for i, value in zip(indices, outputs):
                results[i] = value
            failed = False
        except BaseException as exc:  # noqa: BLE001 - handed to the caller below
            errors[k] = exc
        finally:
            hub.finished(failed)

    for name, _ in plan.stages:  # planned here, not by racing threads (a plan is shared)
        exe.plan_for(name)
    exe.channels = hub
    try:
        threads = [threading.Thread(target=stage, args=(k,)) for k in range(1, len(plan.stages))]
        for t in threads:
            t.start()
        stage(0)
        for t in threads:
            t.join()
    finally:
        exe.channels = None
    real = [e for e in errors if e is not None and not isinstance(e, ChannelAborted)]
    if real:
        raise real[0]
    if any(errors):
        raise next(e for e in errors if e is not None)
    return tuple(results)
