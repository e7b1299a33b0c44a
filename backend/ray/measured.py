"""A pipeline step measured on Ray actors, and the simulated schedule it should match.

With the actors metered (`ActorGroup.meter_memory`), each stage reports when each
of its works ended (the `mindir.pipeline_micro` marks "F<m>"/"B<m>" of
mindir-pipeline-schedule, backend/cpu/memory_meter.py) and when it waited for and
received each channel. From that:

- the measured timeline: per stage, one slot per forward and backward of a
  micro-batch, from the later of the previous work's end and its input's
  arrival to its own end (a stage's work between marks, the gradient sums and
  the optimizer, goes with the backward before it);
- each stage's measured cost per micro-batch (mean forward and backward busy
  time, waits excluded) and the link's (the median time from a send to its
  receive when the receiver was already waiting);
- the schedule backend/ascend/pipeline_schedule.py simulates from those costs,
  whose step time the measured one should match (issue 39: within 25%).

Times are wall-clock seconds from each actor (one machine's clock; on a
cluster, nodes' clocks agree to NTP's precision, which the report says).
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median
from typing import Any

from mindjit.backend.ascend.pipeline_schedule import Link, Slot, StageCost, Timeline, simulate
from mindjit.backend.ascend.pipeline_timeline import pipeline_svg


@dataclass
class MeasuredStep:
    measured: Timeline
    predicted: Timeline
    costs: list[StageCost]
    link: Link

    @property
    def ratio(self) -> float:
        """measured / predicted step time."""
        return self.measured.step_us / self.predicted.step_us if self.predicted.step_us else 0.0


def _waits(events: list[tuple[str, str, float]]) -> list[tuple[float, float]]:
    out, open_at = [], None
    for kind, _, t in events:
        if kind == "wait":
            open_at = t
        elif kind == "recv" and open_at is not None:
            out.append((open_at, t))
            open_at = None
    return out


def _busy(start: float, end: float, waits: list[tuple[float, float]]) -> float:
    idle = sum(max(0.0, min(end, b) - max(start, a)) for a, b in waits)
    return max(0.0, end - start - idle)


def measure(last_step: list[dict[str, Any]], micro: int, schedule: str) -> MeasuredStep:
    """The measured and the predicted timelines of the last metered step."""
    if not all(s["works"] for s in last_step):
        raise ValueError("the step was not metered: call meter_memory() before it")
    t0 = min(s["begin"] for s in last_step)
    stages = len(last_step)
    measured = Timeline(stages, micro, schedule)
    costs = []
    for d, stage in enumerate(last_step):
        waits = _waits(stage["events"])
        prev = stage["begin"]
        spent: dict[str, list[float]] = {"F": [], "B": []}
        last_kind = None
        for mark, end in stage["works"]:
            busy = _busy(prev, end, waits)
            # a slot starts when the stage stops waiting (its input arrived)
            start = max([prev, *(b for a, b in waits if prev <= b <= end)])
            if mark and mark[0] in "FB":
                kind, m = mark[0], int(mark[1:])
                measured.slots.append(Slot(d, kind, m, (start - t0) * 1e6, (end - t0) * 1e6))
                spent[kind].append(busy)
                last_kind = kind
            elif last_kind is not None:  # sums, optimizer: with the work before them
                spent[last_kind][-1] += busy
            elif spent["F"] or busy:
                spent["B"].append(busy)
            prev = end
        f = sum(spent["F"]) / max(1, micro)
        b = sum(spent["B"]) / max(1, micro)
        costs.append(StageCost(f * 1e6, b * 1e6))
    link = Link(latency_us=_link_latency(last_step) * 1e6)
    predicted = simulate(costs, micro, link, schedule)
    return MeasuredStep(measured, predicted, costs, link)


def _link_latency(last_step: list[dict[str, Any]]) -> float:
    sent = {tag: t for s in last_step for kind, tag, t in s["events"] if kind == "send"}
    hops = []
    for s in last_step:
        waiting: dict[str, float] = {}
        for kind, tag, t in s["events"]:
            if kind == "wait":
                waiting[tag] = t
            elif kind == "recv" and tag in sent and waiting.get(tag, t) < sent[tag]:
                hops.append(t - sent[tag])
    return median(hops) if hops else 0.0


def timeline_html(step: MeasuredStep, title: str) -> str:
    """The measured timeline above the simulated one, as one page."""
    measured = pipeline_svg(step.measured, step.costs, Link(), f"{title}: measured on Ray actors")
    predicted = pipeline_svg(
        step.predicted, step.costs, step.link, f"{title}: simulated from the measured costs"
    )
    return (
        f"<!doctype html><meta charset='utf-8'><title>{title}</title>"
        f"<p>measured step / simulated step = {step.ratio:.3f}</p>\n"
        f"{_body(measured)}\n{_body(predicted)}\n"
    )


def _body(svg: str) -> str:
    return svg.split("?>", 1)[-1]
