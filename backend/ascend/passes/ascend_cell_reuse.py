"""ascend-cell-reuse{level}: what the device does with a graph kept by lazy inline.

MindSpore's MS_DEV_CELL_REUSE levels (default 1; the pipelines mindjit builds write the
variable's value as the option):

- 0 and 1: a `func.call` of a reused graph stays. Its kernels are one kernel
  sub-sequence, planned once (memory, streams) and called from each call site:
  the model file holds the sub-sequence once, however many blocks call it.
- 2: every graph call is inlined here, before execution order and memory
  planning, so the whole program is planned as one sequence: its tensors may
  share memory across what were call boundaries, giving a peak memory lower
  than or equal to level 1's, for a larger model file.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from mindjit.backend.ascend.passes.graph import graphs_of
from mindjit.ir.locations import op_error
from mindjit.passes.mindir_inline import inline_call
from mindjit.support.config import CELL_REUSE_LEVELS, parse_level


def graph_calls(fn: func.FuncOp, by_name: dict[str, func.FuncOp]) -> list[func.CallOp]:
    return [
        op
        for op in fn.body.block.ops
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in by_name
    ]


def inline_all(module: ModuleOp) -> None:
    """Inline every call of a graph (callees first); erase the graphs that were called."""
    by_name = {fn.sym_name.data: fn for fn in graphs_of(module)}
    called = {
        c.callee.root_reference.data for g in by_name.values() for c in graph_calls(g, by_name)
    }
    done: set[str] = set()

    def visit(name: str, stack: tuple[str, ...]) -> None:
        if name in done:
            return
        for call in graph_calls(by_name[name], by_name):
            callee = call.callee.root_reference.data
            if callee in stack:
                raise op_error(call, f"recursive call of @{callee} cannot be inlined")
            visit(callee, (*stack, callee))
            inline_call(call, by_name[callee])
        done.add(name)

    for name in by_name:
        visit(name, (name,))
    for name in called:
        by_name[name].detach()
        by_name[name].erase()


@dataclass(frozen=True)
class AscendCellReusePass(ModulePass):
    name = "ascend-cell-reuse"

    level: int = 1

    def __post_init__(self) -> None:
        parse_level(self.level, CELL_REUSE_LEVELS, "level")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.level == 2:
            inline_all(op)
