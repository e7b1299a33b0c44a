"""ascend-plan-memory{align}: an address in one device memory for every tensor.

The device memory is laid out as

    [ Parameters | constants | one region per reused graph | dynamic heap ]

- Parameters (`ml_program.global`, attribute `ascend.offset`) and constants
  (top-level `arith.constant`, `ascend.offsets`) are persistent.
- Every graph's intermediate tensors (kernel and call results, an entry graph's
  inputs, kernel workspaces) get an offset in that graph's heap: two tensors
  share memory when their lifetimes (from the op writing them to their last
  reader, a view's readers included; results live to the end) do not overlap.
  Offsets are chosen greedy by size, best fit (Pisarchyk & Lee, "Efficient
  Memory Management for Deep Neural Net Inference", 2020), as MindSpore's SOMAS
  does. Sizes are rounded up to `align` bytes (MindSpore aligns device memory to
  512).
- A reused graph (one called by another, kept at MS_DEV_CELL_REUSE=1) has a
  region of its own, planned once for every call; its arguments are bound at
  each call. Entry graphs share the heap (one runs at a time).
- A loop's record (a `tensor<?x...>`, what mindir.stack_* lower to) has no
  static size: its capacity is known only when the loop runs. It gets no
  buffer here but the address `DYNAMIC_OFFSET` (-2): the simulator allocates it
  when a kernel writes it, sized by what the kernel gave, and counts its bytes
  in the report's `loop_record_bytes` (DEVICE.md, "Loop records"). Inside a
  control-flow kernel's workspace it counts 0 for the same reason.
- A Load is no tensor: it reads its Parameter's memory in place, so without a
  TensorMove a later Assign changes what its readers see (as the docs warn for
  MS_DEV_SIDE_EFFECT_LOAD_ELIM=3).

Results: kernels and calls get `ascend.offsets` (absolute, one per result) and
`ascend.workspace = array<i64: offset, bytes>` when they need scratch memory;
graphs get `ascend.base`, `ascend.heap_bytes`, `ascend.lower_bound_bytes` (the
largest sum of sizes of tensors live at once: no plan can use less) and
`ascend.arg_offsets` (-1: bound at the call); the module gets
`ascend.persistent_bytes` and `ascend.memory_bytes`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from mindjit.backend.ascend.model import DYNAMIC_OFFSET
from mindjit.backend.ascend.passes.graph import (
    aligned,
    bound_param,
    graphs_of,
    is_dynamic,
    root_of,
    value_bytes,
)
from mindjit.dialects.ascend import OFFSETS_ATTR, WORKSPACE_ATTR, KernelOp


@dataclass
class Buffer:
    """One tensor's memory need: bytes and lifetime [start, end] in op positions."""

    key: object
    size: int
    start: int
    end: int
    offset: int = -1


@dataclass
class HeapPlan:
    buffers: list[Buffer] = field(default_factory=list)
    size: int = 0
    lower_bound: int = 0


def place(buffers: list[Buffer]) -> int:
    """Greedy by size, best fit: give each buffer an offset; returns the heap size."""
    order = sorted(buffers, key=lambda b: (-b.size, b.start, b.end))
    starts = np.zeros(len(order), np.int64)
    ends = np.zeros(len(order), np.int64)
    offs = np.zeros(len(order), np.int64)
    sizes = np.zeros(len(order), np.int64)
    top = 0
    for n, buf in enumerate(order):
        live = (starts[:n] <= buf.end) & (ends[:n] >= buf.start)
        taken = sorted(zip(offs[:n][live].tolist(), sizes[:n][live].tolist()))
        best, best_gap, cursor = -1, None, 0
        for off, size in taken:
            gap = off - cursor
            if gap >= buf.size and (best_gap is None or gap < best_gap):
                best, best_gap = cursor, gap
            cursor = max(cursor, off + size)
        buf.offset = best if best >= 0 else cursor
        starts[n], ends[n], offs[n], sizes[n] = buf.start, buf.end, buf.offset, buf.size
        top = max(top, buf.offset + buf.size)
    return top


def lower_bound(buffers: list[Buffer], positions: int) -> int:
    """The largest sum of sizes of buffers live at one position."""
    if not buffers:
        return 0
    delta = np.zeros(positions + 3, np.int64)
    for b in buffers:
        delta[b.start + 1] += b.size
        delta[b.end + 2] -= b.size
    return int(np.cumsum(delta).max())


def workspace_bytes(kernel: KernelOp) -> int:
    """Scratch memory of a kernel whose code has regions (control flow): every
    tensor its nested ops make, an upper bound on what is live inside it."""
    total = 0
    for op in kernel.body.block.ops:
        if not op.regions:
            continue
        for inner in op.walk():
            if inner is op:
                continue
            for r in inner.results:
                if isinstance(r.type, TensorType):
                    total += value_bytes(r.type)
    return total


def plan_graph(fn: func.FuncOp, align: int, entry: bool) -> tuple[HeapPlan, dict]:
    """The heap plan of one graph: buffers keyed by SSA value (or ("ws", op))."""
    ops = list(fn.body.block.ops)
    pos = {op: i for i, op in enumerate(ops)}
    end_pos = len(ops)
    plan = HeapPlan()
    by_key: dict[object, Buffer] = {}

    def add(key: object, t_bytes: int, start: int) -> None:
        buf = Buffer(key, aligned(t_bytes, align), start, start)
        by_key[key] = buf
        plan.buffers.append(buf)

    if entry:
        for arg in fn.body.block.args:
            if bound_param(arg) is None and not is_dynamic(arg.type):
                add(arg, value_bytes(arg.type), -1)
    for op in ops:
        if isinstance(op, KernelOp | func.CallOp):
            for r in op.results:
                if not is_dynamic(r.type):
                    add(r, value_bytes(r.type), pos[op])
        if isinstance(op, KernelOp) and (ws := workspace_bytes(op)):
            add(("ws", op), ws, pos[op])
    for op in ops:
        for v in op.operands:
            buf = by_key.get(root_of(v))
            if buf is not None:
                last = end_pos if isinstance(op, func.ReturnOp) else pos[op]
                buf.end = max(buf.end, last)
    plan.size = place(plan.buffers)
    plan.lower_bound = lower_bound(plan.buffers, end_pos + 1)
    return plan, by_key


def _array(values: list[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


def _int(v: int) -> IntegerAttr:
    return IntegerAttr(v, i64)


def annotate(fn: func.FuncOp, plan: HeapPlan, by_key: dict, base: int) -> None:
    def absolute(v: SSAValue) -> int:
        if is_dynamic(v.type):
            return DYNAMIC_OFFSET
        buf = by_key.get(v)
        return base + buf.offset if buf is not None else -1

    for op in fn.body.block.ops:
        if isinstance(op, KernelOp | func.CallOp) and op.results:
            op.attributes[OFFSETS_ATTR] = _array([absolute(r) for r in op.results])
        ws = by_key.get(("ws", op))
        if ws is not None:
            op.attributes[WORKSPACE_ATTR] = _array([base + ws.offset, ws.size])
    fn.attributes["ascend.base"] = _int(base)
    fn.attributes["ascend.heap_bytes"] = _int(plan.size)
    fn.attributes["ascend.lower_bound_bytes"] = _int(plan.lower_bound)
    fn.attributes["ascend.arg_offsets"] = _array([absolute(a) for a in fn.body.block.args])


def called_graphs(module: ModuleOp) -> set[str]:
    return {
        op.callee.root_reference.data
        for fn in graphs_of(module)
        for op in fn.body.block.ops
        if isinstance(op, func.CallOp)
    }


@dataclass(frozen=True)
class AscendPlanMemoryPass(ModulePass):
    name = "ascend-plan-memory"

    align: int = 512

    def __post_init__(self) -> None:
        if self.align < 1 or self.align & (self.align - 1):
            raise ValueError(f"align must be a power of two, got '{self.align}'")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        cursor = 0
        for glob in op.body.block.ops:
            if glob.name == "ml_program.global":
                glob.attributes["ascend.offset"] = _int(cursor)
                cursor += aligned(value_bytes(glob.properties["type"]), self.align)  # type: ignore[arg-type]
        graphs = graphs_of(op)
        for fn in graphs:
            for const in fn.body.block.ops:
                if const.name in ("arith.constant", "ml_program.global_load_const"):
                    const.attributes[OFFSETS_ATTR] = _array([cursor])
                    cursor += aligned(value_bytes(const.results[0].type), self.align)
        op.attributes["ascend.persistent_bytes"] = _int(cursor)
        op.attributes["ascend.align"] = _int(self.align)
        called = called_graphs(op)
        for fn in graphs:
            if fn.sym_name.data in called:
                plan, by_key = plan_graph(fn, self.align, entry=False)
                annotate(fn, plan, by_key, cursor)
                cursor += plan.size
        heap = 0
        for fn in graphs:
            if fn.sym_name.data not in called:
                plan, by_key = plan_graph(fn, self.align, entry=True)
                annotate(fn, plan, by_key, cursor)
                heap = max(heap, plan.size)
        op.attributes["ascend.memory_bytes"] = _int(cursor + heap)
