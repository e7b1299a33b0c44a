"""ascend-execution-order{policy}: the total order the device runs a graph's kernels in.

The order respects every dependency of backend/ascend/passes/graph.py: data, the order
mindir-depend-order fixed for Parameter reads and writes, side effects and the
float-status state. Within that freedom:

- `policy=program` keeps program order (already a valid order: it is the
  order mindir-depend-order verified, and the dependencies only ever point
  backwards in it);
- `policy=late` (the default) also moves each movable kernel whose inputs are
  all persistent (Parameters, constants), such as a weight's Transpose or Cast,
  to just before its first user, as MindSpore's execution-order pass does: its
  result is then live for the shortest time, which lowers peak memory.

A kernel that reads a Parameter some op writes, has side effects or may raise
the float-status flag never moves.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, OpResult
from xdsl.passes import ModulePass

from mindjit.backend.ascend.passes.graph import KernelGraph, graphs_of, root_of

POLICIES = ("program", "late")


def _persistent_inputs(op: Operation) -> bool:
    for v in op.operands:
        root = root_of(v)
        if isinstance(root, tuple):
            continue
        if isinstance(root, OpResult) and root.op.name == "arith.constant":
            continue
        return False
    return True


def _destination(graph: KernelGraph, i: int) -> Operation | None:
    """The first user of item i, if no op before it must follow item i (a write
    of a Parameter it reads, the float status); None when it should stay."""
    op = graph.items[i]
    users = {use.operation for r in op.results for use in r.uses}
    cursor = op.next_op
    while cursor is not None:
        if cursor in users:
            return None if cursor is op.next_op else cursor
        if cursor in graph.position and i in graph.deps[graph.position[cursor]]:
            return None
        cursor = cursor.next_op
    return None


def defer_kernels(graph: KernelGraph) -> None:
    """Move movable kernels with persistent inputs to just before their first user."""
    block = graph.fn.body.block
    for i in reversed(range(len(graph.items))):
        op = graph.items[i]
        if not op.results or not graph.order_only(i) or not _persistent_inputs(op):
            continue
        first = _destination(graph, i)
        if first is not None:
            op.detach()
            block.insert_op_before(op, first)


@dataclass(frozen=True)
class AscendExecutionOrderPass(ModulePass):
    name = "ascend-execution-order"

    policy: str = "late"

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got '{self.policy}'")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.policy == "late":
            for fn in graphs_of(op):
                defer_kernels(KernelGraph(fn))
