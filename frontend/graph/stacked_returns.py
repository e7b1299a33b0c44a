"""Returned pieces of one `mindir.unstack` leave the graph as the one tensor.

A HyperMap over stacked elements (or a user's `ops.unstack`) gives many
tensors that are slices of one. Returned one by one they would cost a slice op
each through every later stage; returned as the stacked tensor, the graph stays
as small as its computation, and the caller takes the pieces as numpy views
(`structure.Piece`) when the outputs are unflattened.
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import OpResult, SSAValue
from xdsl.rewriter import Rewriter

from mindjit.dialects import mindir as M
from mindjit.frontend.structure import Leaf, Piece, unflatten


def stack_returned_pieces(template: Any, leaves: list[SSAValue]) -> tuple[Any, list[SSAValue]]:
    """(template, leaves) with every leaf that is a piece of an unstack replaced by
    a Piece of the unstack's input (one returned value per unstacked tensor)."""
    if not any(isinstance(v, OpResult) and isinstance(v.op, M.UnstackOp) for v in leaves):
        return template, leaves
    new_leaves: list[SSAValue] = []
    index_of: dict[SSAValue, int] = {}

    def index(v: SSAValue) -> int:
        if v not in index_of:
            index_of[v] = len(new_leaves)
            new_leaves.append(v)
        return index_of[v]

    where: list[Leaf | Piece] = []
    for v in leaves:
        if isinstance(v, OpResult) and isinstance(v.op, M.UnstackOp):
            where.append(Piece(index(v.op.input), v.op.axis.value.data, v.index))
        else:
            where.append(Leaf(index(v)))
    return unflatten(template, where), new_leaves


def erase_unused_unstacks(leaves: list[SSAValue]) -> None:
    """Erase the unstacks whose pieces were only returned (now unused)."""
    for v in leaves:
        for use in list(v.uses):
            op = use.operation
            if isinstance(op, M.UnstackOp) and all(not r.uses for r in op.results):
                Rewriter.erase_op(op)
