"""ascend-execution-order{policy}: the total order the device runs a graph's kernels in.

The order respects every dependency of passes/ascend_graph.py: data, the order
mindir-depend-order fixed for Parameter reads and writes, side effects and the
float-status state. Within that freedom:

- `policy=program` keeps program order (already a valid order: it is the
  order mindir-depend-order verified);
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

from mindjit.dialects.diagnostics import op_error
from mindjit.passes.ascend_graph import KernelGraph, graphs_of, root_of

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


def defer_kernels(graph: KernelGraph) -> int:
    """Move movable kernels with persistent inputs to just before their first user."""
    block = graph.fn.body.block
    moved = 0
    for i in reversed(range(len(graph.items))):
        op = graph.items[i]
        if not graph.order_only(i) or not _persistent_inputs(op) or not op.results:
            continue
        users = {use.operation for r in op.results for use in r.uses}
        first = None
        blocked = False
        cursor = op.next_op
        while cursor is not None and first is None:
            if cursor in users:
                first = cursor
            elif cursor in graph.position and i in graph.deps[graph.position[cursor]]:
                blocked = True  # a later op must follow this one (a write, the float status)
                break
            cursor = cursor.next_op
        if blocked or first is None or first is op.next_op:
            continue
        op.detach()
        block.insert_op_before(op, first)
        moved += 1
    return moved


def check_order(graph: KernelGraph) -> None:
    """Every dependency runs before its dependent (a guard against a bad input order)."""
    for i, deps in enumerate(graph.deps):
        late = [j for j in deps if j > i]
        if late:
            raise op_error(
                graph.items[i],
                f"'{graph.items[i].name}' must run after a later op: the order is invalid",
            )


@dataclass(frozen=True)
class AscendExecutionOrderPass(ModulePass):
    name = "ascend-execution-order"

    policy: str = "late"

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got '{self.policy}'")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in graphs_of(op):
            graph = KernelGraph(fn)
            check_order(graph)
            if self.policy == "late":
                defer_kernels(graph)
