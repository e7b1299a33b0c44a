"""The simulator's report: a JSON-able dict, and its text form for `ms-sim`.

Keys: `total_time_us`; `streams` (busy time each); `kernels` (every executed
kernel: name, unit, stream, start_us, duration_us); `kernel_table` (per kernel
type: count, time, share of the summed kernel time); `peak_memory_bytes` (the
plan's device memory: Parameters, constants, reused graphs' regions and the
heap) against `lower_bound_bytes` (the same with each heap replaced by the
largest sum of sizes of tensors live at once); `persistent_bytes`;
`tensor_move_bytes` (what TensorMove kernels copied); `link_bytes` (what the
Send and Receive kernels that ran moved over the link); `memory_timeline`
((time, bytes in use) steps: Parameters, constants and reused graphs' regions,
reserved for the whole run, then each heap tensor while it is live in simulated
time, a call's tensors for the whole call as the plan holds them; its maximum
is at most `lower_bound_bytes` and equals the peak when the plan is tight and
the streams do not shorten a tensor's life) and `float_status` (the register,
8 floats); `event_waits` (each wait of a stream for an event another stream
recorded: event, from_stream, to_stream, time_us, the time the event happened);
`loop_record_bytes` (the peak of the bytes of loop records live at once:
mindir.stack_*'s `tensor<?x...>`, capacity x item bytes, allocated at run time
beside the plan; `peak_memory_bytes` and `lower_bound_bytes` include that peak
with each record rounded up to the alignment, and the `memory_timeline` counts
each record while it is live).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mindjit.backend.ascend.simulator import Simulator


def build_report(
    sim: Simulator,
    kernels: list[dict[str, Any]],
    intervals: list[tuple[float, float, int]],
    link_bytes: float = 0.0,
    record_intervals: list[tuple[float, float, int]] | None = None,
    aligned_records: list[tuple[float, float, int]] | None = None,
) -> dict[str, Any]:
    """`record_intervals`: each loop record's exact bytes while live; `aligned_records`
    the same rounded up as the device allocates them (what the peak adds)."""
    model = sim.model
    exact = max((level for _, level in memory_timeline(record_intervals or [], 0)), default=0)
    records = max((level for _, level in memory_timeline(aligned_records or [], 0)), default=0)
    total = max((k["start_us"] + k["duration_us"] for k in kernels), default=0.0)
    busy: dict[int, float] = defaultdict(float)
    count: Counter[str] = Counter()
    time: dict[str, float] = defaultdict(float)
    units: dict[str, str] = {}
    for k in kernels:
        busy[k["stream"]] += k["duration_us"]
        count[k["name"]] += 1
        time[k["name"]] += k["duration_us"]
        units[k["name"]] = k["unit"]
    summed = sum(time.values()) or 1.0
    table = [
        {
            "kernel": name,
            "unit": units[name],
            "count": count[name],
            "time_us": time[name],
            "share": time[name] / summed,
        }
        for name in sorted(time, key=lambda n: -time[n])
    ]
    regions = [g for g in model.graphs if not g.entry]  # reused graphs: a region each
    entries = [g for g in model.graphs if g.entry]  # entry graphs share the heap
    lower = (
        model.persistent_bytes
        + sum(g.lower_bound_bytes for g in regions)
        + max((g.lower_bound_bytes for g in entries), default=0)
    )
    moved = sum(
        model.tensors[s.outputs[0]].nbytes
        for g in model.graphs
        for s in g.sequence
        if s.op == "kernel" and s.name == "TensorMove" and s.outputs
    )
    return {
        "total_time_us": total,
        "streams": [{"stream": s, "busy_us": busy[s]} for s in sorted(busy)],
        "kernels": kernels,
        "kernel_table": table,
        "peak_memory_bytes": model.memory_bytes + records,
        "lower_bound_bytes": lower + records,
        "loop_record_bytes": int(exact),
        "persistent_bytes": model.persistent_bytes,
        "heap_bytes": model.memory_bytes - model.persistent_bytes,
        "heap_lower_bound_bytes": lower - model.persistent_bytes,
        "tensor_move_bytes": moved,
        "link_bytes": int(link_bytes),
        # the base: Parameters, constants and the reused graphs' regions, reserved throughout
        "memory_timeline": memory_timeline(
            intervals, model.persistent_bytes + sum(g.heap_bytes for g in regions)
        ),
        "float_status": sim.float_status,
    }


def memory_timeline(intervals: list[tuple[float, float, int]], base: int) -> list[list[float]]:
    """Bytes in use over time: `base` plus every interval's size while it lasts."""
    changes: dict[float, int] = defaultdict(int)
    for start, end, size in intervals:
        changes[start] += size
        changes[end] -= size
    steps, level = [[0.0, base]], base
    for t in sorted(changes):
        level += changes[t]
        steps.append([t, level])
    return steps


def _bytes(n: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{int(n)} B"


def format_report(report: dict[str, Any]) -> str:
    lines = [f"simulated time: {report['total_time_us']:.2f} us"]
    for s in report["streams"]:
        lines.append(f"  stream {s['stream']}: busy {s['busy_us']:.2f} us")
    lines.append("kernels:")
    lines.append(f"  {'kernel':<28}{'unit':<8}{'count':>7}{'time (us)':>12}{'share':>8}")
    for row in report["kernel_table"]:
        lines.append(
            f"  {row['kernel'][:27]:<28}{row['unit']:<8}{row['count']:>7}"
            f"{row['time_us']:>12.2f}{row['share']:>8.1%}"
        )
    peak, lower = report["peak_memory_bytes"], report["lower_bound_bytes"]
    ratio = peak / lower if lower else 1.0
    lines.append(
        f"device memory: peak {_bytes(peak)} ({peak} B), lower bound {_bytes(lower)} "
        f"({lower} B), ratio {ratio:.3f}"
    )
    heap, heap_lower = report["heap_bytes"], report["heap_lower_bound_bytes"]
    lines.append(
        f"  of which Parameters and constants {_bytes(report['persistent_bytes'])}, "
        f"activations {_bytes(heap)} (lower bound {_bytes(heap_lower)})"
    )
    if report.get("loop_record_bytes"):
        lines.append(
            f"  loop records {_bytes(report['loop_record_bytes'])} at peak "
            "(capacity x item bytes, allocated at run time)"
        )
    if report["tensor_move_bytes"]:
        lines.append(f"TensorMove copied {report['tensor_move_bytes']} B")
    if report.get("link_bytes"):
        lines.append(f"Send/Receive moved {report['link_bytes']} B over the link")
    lines.append("float status: " + str([float(v) for v in report["float_status"]]))
    return "\n".join(lines)
