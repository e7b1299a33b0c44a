"""Measured memory of a function's values: a pipeline stage's peak activation bytes.

Issue 39's check "a stage's peak activation memory under 1F1B is at most
(X - s)/Y of the GPipe order's" needs a measurement, not a model. The numpy
executor holds every value of a call in a slot and clears a slot after its last
use (compiler.py's release lists), so the bytes a stage holds at any point are
the arrays in its slots. With `exe.memory_meter = MemoryMeter()` (plans are
rebuilt), every plan of the executable counts, after each op of its function's
top-level block, the live bytes of

- `activation_bytes`: arrays made by forward work, the ops
  `mindir-pipeline-schedule` marked `mindir.pipeline_micro = "F<m>"` (the
  lowering copies the mark onto the ops it makes): a micro-batch's activations,
  from its forward until its backward's last use frees them;
- `intermediate_bytes`: arrays made by any op of the block (activations,
  gradients and their accumulators, optimizer temporaries);

and keeps each one's peak per function, and `held_activation_bytes`: the peak
of the activations live between two different works (after the last op of one
micro-batch's forward or backward, where a forward's temporaries are freed and
only what a later backward needs is held): the quantity a schedule controls,
min(X - s, Y) micro-batches' under 1F1B, all Y under GPipe. Not counted: the arguments, plan-time
constants and the globals (Parameters, optimizer state, channels' buffers), and
views of them (a micro-batch slice of an input is a view of the input); an
array and its views count once (by the numpy base they share). What is live
only inside one op (a kernel's temporaries, a called graph's own values) is not
seen: the counter samples between the ops of the block, where one schedule's
order differs from another's.

The marks are those of the mindir ops: what a forward's op computes counts
as that forward's, whatever it is. At MS_DEV_CELL_REUSE=2 the Block calls are
inlined after the schedule, and the Parameter copies (TensorMoves) their bodies
make count as the forward's activations too: compare schedules there by the
difference, or measure at levels 0 and 1, where a Block call is one op.

One `MemoryMeter` serves every thread of a process (one stage per thread, or one
per Ray actor: each reads its own stage's `peak(name)`); a function's counter is
its plan's, so one function must not run in two threads at once while measured.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, SSAValue

from mindjit.dialects.mindir.discardable import PIPELINE_MICRO_ATTR

if TYPE_CHECKING:
    from mindjit.backend.cpu.executable import CpuExecutable

Slots = list[Any]


@dataclass
class Peak:
    """A function's measured peaks, in bytes, over the calls since the meter was set."""

    activation_bytes: int = 0
    held_activation_bytes: int = 0
    intermediate_bytes: int = 0
    calls: int = 0
    #: the last call's works in the order they ran: (mark or None, wall-clock end):
    #: the measured timeline of a stage (backend/ray/measured.py)
    work_ends: list[tuple[str | None, float]] = field(default_factory=list)


class MemoryMeter:
    """Peaks by function name (module doc); give it to `CpuExecutable.memory_meter`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._peaks: dict[str, Peak] = {}

    def peak(self, name: str) -> Peak:
        """The peaks of function @name (zeros if it has not run while measured)."""
        with self._lock:
            return self._peaks.setdefault(name, Peak())

    def peaks(self) -> dict[str, Peak]:
        with self._lock:
            return dict(self._peaks)

    def reset(self) -> None:
        with self._lock:
            self._peaks.clear()


def _base(v: Any) -> np.ndarray | None:
    if not isinstance(v, np.ndarray):
        return None
    while isinstance(v.base, np.ndarray):
        v = v.base
    return v


class _Tracker:
    """Live bytes of the arrays in some slots, each base buffer counted once."""

    __slots__ = ("of_slot", "bases", "total")

    def __init__(self) -> None:
        self.of_slot: dict[int, int] = {}
        self.bases: dict[int, list[Any]] = {}  # id -> [base (kept alive), nbytes, slots]
        self.total = 0

    def add(self, slot: int, base: np.ndarray) -> None:
        self.drop(slot)
        key = id(base)
        entry = self.bases.get(key)
        if entry is None:
            self.bases[key] = [base, base.nbytes, 1]
            self.total += base.nbytes
        else:
            entry[2] += 1
        self.of_slot[slot] = key

    def drop(self, slot: int) -> None:
        key = self.of_slot.pop(slot, None)
        if key is None:
            return
        entry = self.bases[key]
        entry[2] -= 1
        if entry[2] == 0:
            self.total -= entry[1]
            del self.bases[key]


class _Counter:
    """One function's counting during a call (its plan's steps call it)."""

    def __init__(self, peak: Peak, exe: CpuExecutable, nargs: int):
        self.peak, self.exe, self.nargs = peak, exe, nargs
        self.outside: set[int] = set()
        self.activations = _Tracker()
        self.all = _Tracker()

    def start(self, s: Slots) -> None:
        """At the call's start: what is not the call's own (arguments, constants, globals)."""
        self.activations, self.all = _Tracker(), _Tracker()
        held = [*s, *self.exe.live_globals.values()]
        self.outside = {id(b) for v in held if (b := _base(v)) is not None}
        self.peak.calls += 1
        self.peak.work_ends = []

    def after(
        self,
        s: Slots,
        made: Sequence[tuple[int, bool]],
        freed: Sequence[int],
        boundary: bool,
        work: str | None = None,
    ) -> None:
        for slot in freed:
            self.activations.drop(slot)
            self.all.drop(slot)
        for slot, forward in made:
            b = _base(s[slot])
            if b is None or id(b) in self.outside:
                continue
            self.all.add(slot, b)
            if forward:
                self.activations.add(slot, b)
        peak = self.peak
        peak.activation_bytes = max(peak.activation_bytes, self.activations.total)
        peak.intermediate_bytes = max(peak.intermediate_bytes, self.all.total)
        if boundary:
            peak.held_activation_bytes = max(peak.held_activation_bytes, self.activations.total)
            peak.work_ends.append((work, time.time()))


def work_of(op: Operation) -> str | None:
    """The op's `mindir.pipeline_micro` mark ("F<m>", "B<m>"), or None."""
    mark = op.attributes.get(PIPELINE_MICRO_ATTR)
    return mark.data if isinstance(mark, StringAttr) else None


def probe_steps(
    meter: MemoryMeter,
    exe: CpuExecutable,
    name: str,
    nargs: int,
    ops: Sequence[Operation],
    slot_of: Callable[[SSAValue], int | None],
    releases: dict[int, list[int]],
) -> tuple[Callable[[Slots], None], list[Callable[[Slots], None]]]:
    """The step starting a call's count, and the step to run after each op of `ops`
    (the kept ops of the function's block, in order; `releases` by position)."""
    counter = _Counter(meter.peak(name), exe, nargs)
    works = [work_of(op) for op in ops]
    after = []
    for pos, op in enumerate(ops):
        forward = (works[pos] or "").startswith("F")
        made = tuple(
            (slot, forward)
            for r in op.results
            if (slot := slot_of(r)) is not None and slot >= nargs
        )
        freed = tuple(releases.get(pos, ()))
        boundary = pos + 1 == len(ops) or works[pos + 1] != works[pos]

        def step(s: Slots, made=made, freed=freed, boundary=boundary, work=works[pos]) -> None:
            counter.after(s, made, freed, boundary, work)

        after.append(step)
    return counter.start, after


def stage_peaks(exe: CpuExecutable, graph: str, args: Sequence[Any]) -> list[Peak]:
    """Run `graph` (split into pipeline stages, backend/cpu/pipeline_run.py) once on
    `exe` with a fresh meter: each stage's peaks, in stage order. The meter is
    removed afterwards (plans are rebuilt on each change). A process running one
    stage (a Ray actor) sets `exe.memory_meter` itself and reads `peak(stage)`."""
    plan = exe.pipeline(graph)
    if plan is None:
        raise ValueError(f"@{graph} is not split into pipeline stages")
    meter = MemoryMeter()
    exe.memory_meter = meter
    try:
        exe.run(graph, *args)
    finally:
        exe.memory_meter = None
    return [meter.peak(name) for name, _ in plan.stages]
