"""mindir.if / mindir.while -> scf.if / scf.while.

The condition is a 0-d `tensor<i1>`; scf wants an `i1`, so each branch point reads
it with `tensor.extract %c[] : tensor<i1>`. The regions are moved, not copied, and
their contents are lowered by the same walk (it visits the ops inside after the
op that owns them), so `mindir.yield` becomes `scf.yield` and `mindir.condition`
becomes `tensor.extract` + `scf.condition`.
"""

from __future__ import annotations

from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import i1
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects import mindir
from mindjit.passes.mindir_to_tensor.builders import Emitter
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS


def _scalar_condition(e: Emitter, cond: SSAValue) -> SSAValue:
    return e.value(tensor.ExtractOp(cond, [], i1))


@LOWERINGS.register(mindir.IfOp)
def lower_if(op: mindir.IfOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    cond = _scalar_condition(e, op.cond)
    new = scf.IfOp(
        cond,
        op.output.types,
        rewriter.move_region_contents_to_new_regions(op.then_region),
        rewriter.move_region_contents_to_new_regions(op.else_region),
    )
    new.location = op.location
    rewriter.replace(op, new)


@LOWERINGS.register(mindir.WhileOp)
def lower_while(op: mindir.WhileOp, rewriter: PatternRewriter) -> None:
    new = scf.WhileOp(
        list(op.arguments),
        op.res.types,
        rewriter.move_region_contents_to_new_regions(op.before_region),
        rewriter.move_region_contents_to_new_regions(op.after_region),
    )
    new.location = op.location
    rewriter.replace(op, new)


@LOWERINGS.register(mindir.YieldOp)
def lower_yield(op: mindir.YieldOp, rewriter: PatternRewriter) -> None:
    new = scf.YieldOp(*op.values)
    new.location = op.location
    rewriter.replace(op, new)


@LOWERINGS.register(mindir.ConditionOp)
def lower_condition(op: mindir.ConditionOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    cond = _scalar_condition(e, op.cond)
    new = scf.ConditionOp(cond, *op.arguments)
    new.location = op.location
    rewriter.replace(op, new)
