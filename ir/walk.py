"""Listing and walking ops fast, for modules with thousands of top-level ops.

A model of N lazy-inline Blocks declares 12N Parameters at the top of its
module. xDSL's `block.ops` iterator costs two Python calls per op (`__next__`
and the `next_op` property), and `op.walk()` three nested generators per op;
both add up when every pass and both verifications step over the declarations.
These follow the blocks' linked lists directly and return lists: snapshots, for
code that reads the IR (or changes it only after the walk).
"""

from __future__ import annotations

from xdsl.ir import Block, Operation


def block_ops(block: Block) -> list[Operation]:
    """The ops of `block`, in order (`list(block.ops)`)."""
    ops: list[Operation] = []
    op = block._first_op  # noqa: SLF001 - the linked list itself, no iterator per op
    while op is not None:
        ops.append(op)
        op = op._next_op  # noqa: SLF001
    return ops


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
