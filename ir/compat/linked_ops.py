"""Private reads: a block's ops and an op's operands as xDSL stores them.

A model of N lazy-inline Blocks declares 12N Parameters at the top of its
module. xDSL's `block.ops` iterator costs two Python calls per op (`__next__`
and the `next_op` property), and `op.operands` builds an `OpOperands` view per
call; both add up when every pass and both verifications step over thousands
of declarations and call operands. These read the fields behind them: the
block's linked list (`_first_op`, `_next_op`) and the operand tuple
(`_operands`), returning plain lists/tuples: snapshots, for code that reads the
IR (or changes it only after reading).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Block, Operation, SSAValue

from mindjit.ir.compat.touchpoint import Touchpoint

TOUCHPOINT = Touchpoint(
    name="linked-ops",
    kind="private",
    reason="`block.ops` costs two Python calls per op and `op.operands` a view object per "
    "call; passes and verification step over thousands of declarations",
    cost="measured in docs/xdsl-compat.md (benchmarks/compat_costs.py)",
    upstream="xDSL keeps these fields private (no bulk accessor)",
    delete_when="xDSL's public iteration is as cheap as reading the fields",
    xdsl_sources={
        "xdsl.ir.core.Block.first_op": "6221c9bd8dbc",
        "xdsl.ir.core.Operation.next_op": "5873daa82d07",
        "xdsl.ir.core.Operation.operands": "0cdeb76a3623",
        "xdsl.ir.core.Operation.successors": "ba7dbd088e65",
    },
)


def block_ops(block: Block) -> list[Operation]:
    """The ops of `block`, in order (`list(block.ops)`)."""
    ops: list[Operation] = []
    op = block._first_op  # noqa: SLF001 - the linked list itself, no iterator per op
    while op is not None:
        ops.append(op)
        op = op._next_op  # noqa: SLF001
    return ops


def raw_operands(op: Operation) -> Sequence[SSAValue]:
    """`op.operands` as the stored tuple (no `OpOperands` view per call)."""
    return op._operands  # noqa: SLF001


def has_successors(op: Operation) -> bool:
    return bool(op._successors)  # noqa: SLF001
