"""ascend-assign-streams{streams}: kernels on streams, synchronized by events.

Kernels on different streams may run at the same time (on different units, or
the same unit when it is free). Each kernel continues the stream of a
dependency that is the last kernel issued on its stream (a chain stays on one
stream); a kernel starting a new branch goes to the least loaded stream. Every
dependency between streams becomes an event: `ascend.record_event E stream S`
right after the producer, `ascend.wait_event E stream T` right before the
consumer, skipped when stream T already waited for that producer or a later
kernel of stream S.

The dependencies are those of backend/ascend/passes/graph.py plus the memory plan's:
a kernel writing memory that an earlier tensor used (a shared address) runs
after that tensor's last reader, so memory reuse is safe on any stream. A graph
call is a barrier: it runs on stream 0 after everything before it, and
everything after it waits for it. `streams=1` is the single-stream option: no
events at all. Kernels get `ascend.stream`; graphs `ascend.streams` (how many
they use) and `ascend.events`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from mindjit.backend.ascend.passes.graph import KernelGraph, aligned, graphs_of, value_bytes
from mindjit.dialects.ascend import (
    OFFSETS_ATTR,
    STREAM_ATTR,
    WORKSPACE_ATTR,
    RecordEventOp,
    WaitEventOp,
)


def _offsets(op: Operation) -> list[int]:
    return _offsets_named(op, OFFSETS_ATTR)


def _offsets_named(op: Operation, name: str) -> list[int]:
    attr = op.attributes.get(name)
    return list(attr.get_values()) if isinstance(attr, DenseArrayBase) else []


def memory_dependencies(graph: KernelGraph, align: int) -> list[set[int]]:
    """For each item, the earlier items that last used memory it writes."""
    # every buffer: (offset, size, writer item, last item touching it)
    rows: list[tuple[int, int, int, int]] = []
    last_use: dict[SSAValue, int] = {}
    for i in range(len(graph.items)):
        for root in graph.reads[i]:
            if isinstance(root, SSAValue):
                last_use[root] = i
    writes: list[list[tuple[int, int]]] = [[] for _ in graph.items]
    arg_offsets = _offsets_named(graph.fn, "ascend.arg_offsets")
    for arg, off in zip(graph.fn.body.block.args, arg_offsets):
        if off >= 0:  # an entry input in the heap: written before the first kernel
            rows.append((off, aligned(value_bytes(arg.type), align), -1, last_use.get(arg, -1)))
    for i, op in enumerate(graph.items):
        for r, off in zip(op.results, _offsets(op)):
            if off < 0:
                continue
            size = aligned(value_bytes(r.type), align)
            rows.append((off, size, i, max(i, last_use.get(r, i))))
            writes[i].append((off, size))
        ws = op.attributes.get(WORKSPACE_ATTR)
        if isinstance(ws, DenseArrayBase):
            off, size = ws.get_values()
            rows.append((off, size, i, i))
            writes[i].append((off, size))
    if not rows:
        return [set() for _ in graph.items]
    table = np.array(rows, np.int64)
    deps: list[set[int]] = []
    for i, ranges in enumerate(writes):
        d: set[int] = set()
        for off, size in ranges:
            # last use -1: an entry input nothing reads, free before the first kernel
            mask = (
                (table[:, 3] < i)
                & (table[:, 3] >= 0)
                & (table[:, 0] < off + size)
                & (table[:, 0] + table[:, 1] > off)
            )
            d |= set(table[mask, 3].tolist())
        deps.append(d)
    return deps


def assign(fn: func.FuncOp, streams: int, align: int, next_event: int) -> int:
    """Streams and events for one graph; returns the next free event number."""
    graph = KernelGraph(fn)
    items = graph.items
    deps = [set(d) for d in graph.deps]
    for i, extra in enumerate(memory_dependencies(graph, align)):
        deps[i] |= extra
    last_call = None
    for i, op in enumerate(items):
        if isinstance(op, func.CallOp):
            deps[i] |= set(range(i))
            last_call = i
        elif last_call is not None:
            deps[i].add(last_call)
    stream_of: list[int] = []
    tail: dict[int, int] = {}
    load = [0] * streams
    for i, op in enumerate(items):
        if isinstance(op, func.CallOp) or streams == 1:
            s = 0
        else:
            chained = [j for j in sorted(deps[i], reverse=True) if tail.get(stream_of[j]) == j]
            s = stream_of[chained[0]] if chained else min(range(streams), key=lambda k: load[k])
        stream_of.append(s)
        tail[s] = i
        load[s] += 1
        op.attributes[STREAM_ATTR] = IntegerAttr(s, i64)
    synced: dict[tuple[int, int], int] = {}  # (waiting stream, other stream) -> item done
    event_of: dict[int, int] = {}
    block = fn.body.block
    for i, op in enumerate(items):
        s = stream_of[i]
        latest: dict[int, int] = {}  # other stream -> its latest kernel i depends on
        for j in deps[i]:
            if stream_of[j] != s:
                latest[stream_of[j]] = max(latest.get(stream_of[j], -1), j)
        for sj, j in sorted(latest.items()):
            if synced.get((s, sj), -1) >= j:
                continue
            if j not in event_of:
                event_of[j] = next_event
                next_event += 1
                block.insert_op_after(RecordEventOp(event_of[j], sj), items[j])
            block.insert_op_before(WaitEventOp(event_of[j], s), op)
            synced[(s, sj)] = j
    fn.attributes["ascend.streams"] = IntegerAttr(len(set(stream_of)) or 1, i64)
    fn.attributes["ascend.events"] = IntegerAttr(len(event_of), i64)
    return next_event


@dataclass(frozen=True)
class AscendAssignStreamsPass(ModulePass):
    name = "ascend-assign-streams"

    streams: int = 2

    def __post_init__(self) -> None:
        if not 1 <= self.streams <= 64:
            raise ValueError(f"streams must be between 1 and 64, got '{self.streams}'")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        align_attr = op.attributes.get("ascend.align")
        align = align_attr.value.data if isinstance(align_attr, IntegerAttr) else 1
        next_event = 0
        for fn in graphs_of(op):
            if any(isinstance(o, RecordEventOp | WaitEventOp) for o in fn.body.block.ops):
                continue  # already assigned
            next_event = assign(fn, self.streams, align, next_event)
        op.attributes["ascend.events"] = IntegerAttr(next_event, i64)
