"""Pipeline schedules on X simulated devices: MindSpore's 1F1B, and GPipe.

A pipeline of X stages runs Y micro-batches; stage s runs on device s. Each
micro-batch's forward passes s = 0..X-1, its backward X-1..0, and every stage
boundary is a transfer on the link between two devices (latency + bytes /
bandwidth; it overlaps the devices' compute). A device runs its operations in
its schedule's fixed order, each as soon as the device is free and the inputs
have arrived:

- **1F1B** (MindSpore's default, PipeDream-Flush): stage s first runs
  min(X - s - 1, Y) warm-up forwards, then alternates one forward and one
  backward, then drains the remaining backwards. A device holds at most
  min(X - s, Y) micro-batches' activations.
- **GPipe**: all Y forwards, then all Y backwards (last micro-batch first). The
  same step time, but every device holds all Y micro-batches' activations.

With equal stages and a free link both give a step time of (Y + X - 1)(f + b)
and a bubble fraction (idle share of the devices' time) of (X - 1)/(Y + X - 1),
the figure MindSpore's pipeline documentation gives; `tests/backend/
test_pipeline_schedule.py` checks it exactly. This module is the schedule only:
the per-stage costs come from each stage's compiled device model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mindjit.passes.analysis.pipeline_order import SCHEDULES, device_order

__all__ = ["SCHEDULES", "device_order", "simulate", "Link", "StageCost", "Slot", "Timeline"]


@dataclass(frozen=True)
class StageCost:
    """One stage's work per micro-batch, and what it sends on."""

    forward_us: float
    backward_us: float
    activation_bytes: int = 0  # forward output sent to the next stage
    gradient_bytes: int = 0  # backward output sent to the previous stage


@dataclass(frozen=True)
class Link:
    """A device-to-device link: a transfer takes latency + bytes / bandwidth."""

    latency_us: float = 0.0
    bytes_per_us: float = float("inf")

    def transfer_us(self, nbytes: int) -> float:
        return 0.0 if nbytes == 0 else self.latency_us + nbytes / self.bytes_per_us


@dataclass(frozen=True)
class Slot:
    """One operation on one device: a forward ('F') or backward ('B') of a micro-batch."""

    device: int
    kind: str
    micro: int
    start_us: float
    end_us: float


@dataclass
class Timeline:
    """A schedule's result: every slot, and what the report prints."""

    stages: int
    micro_batches: int
    schedule: str
    slots: list[Slot] = field(default_factory=list)

    @property
    def step_us(self) -> float:
        return max((s.end_us for s in self.slots), default=0.0)

    def busy_us(self, device: int) -> float:
        return sum(s.end_us - s.start_us for s in self.slots if s.device == device)

    def bubble_fraction(self) -> float:
        """The devices' idle share of the step (all devices together)."""
        total = self.step_us * self.stages
        return 0.0 if total == 0 else 1.0 - sum(map(self.busy_us, range(self.stages))) / total

    def theoretical_bubble(self) -> float:
        """(X - 1)/(Y + X - 1): equal stages, free link."""
        return (self.stages - 1) / (self.micro_batches + self.stages - 1)

    def max_in_flight(self, device: int) -> int:
        """The most micro-batches whose activations the device holds at once
        (forward done, backward not yet)."""
        held = peak = 0
        for slot in sorted((s for s in self.slots if s.device == device), key=lambda s: s.start_us):
            held += 1 if slot.kind == "F" else -1
            peak = max(peak, held)
        return peak


def simulate(
    costs: list[StageCost], micro_batches: int, link: Link | None = None, schedule: str = "1f1b"
) -> Timeline:
    """Run `schedule` for one training step of `micro_batches` over the stages
    `costs` (stage s on device s), with `link` between neighbours."""
    if not costs:
        raise ValueError("a pipeline needs at least one stage")
    if micro_batches < 1:
        raise ValueError(f"micro_batches must be at least 1, got {micro_batches}")
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {list(SCHEDULES)}, got {schedule!r}")
    link = link or Link()
    stages = len(costs)
    orders = [device_order(s, stages, micro_batches, schedule) for s in range(stages)]
    done: dict[tuple[str, int, int], float] = {}  # (kind, stage, micro) -> end
    free = [0.0] * stages
    position = [0] * stages
    timeline = Timeline(stages, micro_batches, schedule)
    remaining = sum(map(len, orders))
    while remaining:
        progressed = False
        for s in range(stages):
            if position[s] == len(orders[s]):
                continue
            kind, m = orders[s][position[s]]
            ready = _ready(kind, s, m, stages, costs, link, done)
            if ready is None:
                continue  # its input is not computed yet: another device goes first
            start = max(free[s], ready)
            took = costs[s].forward_us if kind == "F" else costs[s].backward_us
            end = start + took
            timeline.slots.append(Slot(s, kind, m, start, end))
            done[(kind, s, m)] = end
            free[s] = end
            position[s] += 1
            remaining -= 1
            progressed = True
        if not progressed:  # cannot happen for these schedules: a guard, not a path
            raise RuntimeError(f"the {schedule} schedule deadlocked")
    return timeline


def _ready(
    kind: str,
    s: int,
    m: int,
    stages: int,
    costs: list[StageCost],
    link: Link,
    done: dict[tuple[str, int, int], float],
) -> float | None:
    """When the inputs of (kind, s, m) are on device s, or None if not computed yet."""
    if kind == "F":
        if s == 0:
            return 0.0
        end = done.get(("F", s - 1, m))
        return None if end is None else end + link.transfer_us(costs[s - 1].activation_bytes)
    own = done.get(("F", s, m))
    if own is None:
        return None
    if s == stages - 1:
        return own
    end = done.get(("B", s + 1, m))
    if end is None:
        return None
    return max(own, end + link.transfer_us(costs[s + 1].gradient_bytes))
