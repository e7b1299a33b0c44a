"""Pointwise mindir ops -> one all-parallel linalg.generic each.

binary, compare, logical and unary ops (those with a scalar semantics in
scalar.py, keyed by op class), select and cast all become a single
`linalg.generic` over the result shape with `outs(tensor.empty)`, broadcasting made
explicit by indexing maps (see `Emitter.elementwise`), and a body of scalar arith /
math ops (see mindir_to_tensor/scalar.py for the per-type semantics).
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir import shapes as S
from mindjit.passes.mindir_to_tensor import scalar
from mindjit.passes.mindir_to_tensor.builders import Emitter
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS


@LOWERINGS.register(*scalar.BINARY)
def lower_binary(op: mindir.BinaryOp, rewriter: PatternRewriter) -> None:
    kind = type(op)
    e = Emitter(rewriter, op.location)
    out = e.elementwise(
        [op.lhs, op.rhs],
        S.tensor_of(op.result.type),
        lambda b, a: scalar.binary(kind, b, a[0], a[1]),
    )
    rewriter.replace(op, [], [out])


@LOWERINGS.register(*scalar.UNARY)
def lower_unary(op: mindir.UnaryOp, rewriter: PatternRewriter) -> None:
    kind = type(op)
    e = Emitter(rewriter, op.location)
    out = e.elementwise(
        [op.input], S.tensor_of(op.result.type), lambda b, a: scalar.unary(kind, b, a[0])
    )
    rewriter.replace(op, [], [out])


@LOWERINGS.register(mindir.StopGradientOp)
def lower_stop_gradient(op: mindir.StopGradientOp, rewriter: PatternRewriter) -> None:
    """After mindir-grad a stop_gradient is its operand."""
    rewriter.replace(op, [], [op.input])


@LOWERINGS.register(mindir.SelectOp)
def lower_select(op: mindir.SelectOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    out = e.elementwise(
        [op.cond, op.true_value, op.false_value],
        S.tensor_of(op.result.type),
        lambda b, a: scalar.select(b, a[0], a[1], a[2]),
    )
    rewriter.replace(op, [], [out])


@LOWERINGS.register(mindir.CastOp)
def lower_cast(op: mindir.CastOp, rewriter: PatternRewriter) -> None:
    """A cast to the same element type is the input itself; others are one generic."""
    if op.input.type == op.result.type:
        rewriter.replace(op, [], [op.input])
        return
    to = op.to
    e = Emitter(rewriter, op.location)
    out = e.elementwise(
        [op.input], S.tensor_of(op.result.type), lambda b, a: scalar.cast(b, a[0], to)
    )
    rewriter.replace(op, [], [out])
