"""Listing and walking ops fast, for modules with thousands of top-level ops.

A model of N lazy-inline Blocks declares 12N Parameters at the top of its
module. xDSL's `block.ops` iterator costs two Python calls per op (`__next__`
and the `next_op` property), and `op.walk()` three nested generators per op;
both add up when every pass and both verifications step over the declarations.
These follow the blocks' linked lists directly (`mindjit.ir.compat.linked_ops`)
and return lists: snapshots, for code that reads the IR (or changes it only after
the walk).
"""

from __future__ import annotations

from xdsl.ir import Operation

from mindjit.ir.compat.linked_ops import block_ops

__all__ = ["block_ops", "walk_ops"]


def walk_ops(root: Operation, *, reverse: bool = False) -> list[Operation]:
    """`list(root.walk(reverse=reverse))`: `root`, then, depth first, each op before
    the ops nested in it; regions, blocks and ops in reverse order if `reverse`."""
    out: list[Operation] = []
    stack = [root]
    while stack:
        op = stack.pop()
        out.append(op)
        if not op.regions:
            continue
        children: list[Operation] = []
        for region in op.regions:
            for block in region.blocks:
                children += block_ops(block)
        if not reverse:
            children.reverse()  # the stack pops the first child first
        stack.extend(children)
    return out
