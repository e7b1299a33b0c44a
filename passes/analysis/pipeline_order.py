"""The order in which a pipeline stage runs its micro-batches' forwards and backwards.

A pure function shared by the pass that reorders the stage graphs
(`mindir-pipeline-schedule`) and by the simulated devices' schedule
(backend/ascend/pipeline_schedule.py), so the order executed and the order
simulated are one definition.

- **1F1B** (MindSpore's default, PipeDream-Flush): stage s of X first runs
  min(X - s - 1, Y) warm-up forwards, then alternates one forward and one
  backward, then drains the remaining backwards; it holds at most
  min(X - s, Y) micro-batches' activations.
- **GPipe**: all Y forwards, then all Y backwards (last micro-batch first, the
  order reverse-mode differentiation of the unrolled micro-batch loop gives).
"""

from __future__ import annotations

SCHEDULES = ("1f1b", "gpipe")


def device_order(stage: int, stages: int, micro: int, schedule: str) -> list[tuple[str, int]]:
    """The (kind, micro-batch) operations of `stage`, in the order it runs them;
    kind is "F" (forward) or "B" (backward)."""
    if schedule == "gpipe":
        return [("F", m) for m in range(micro)] + [("B", m) for m in reversed(range(micro))]
    warmup = min(stages - stage - 1, micro)
    order = [("F", m) for m in range(warmup)]
    forward, backward = warmup, 0
    while forward < micro:  # steady state: one forward, one backward
        order.append(("F", forward))
        forward += 1
        order.append(("B", backward))
        backward += 1
    order += [("B", m) for m in range(backward, micro)]
    return order
