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
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from mindjit.dialects import mindir
from mindjit.passes.mindir_to_tensor.builders import Emitter


def _scalar_condition(e: Emitter, cond: SSAValue) -> SSAValue:
    return e.value(tensor.ExtractOp(cond, [], i1))


class LowerIf(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: mindir.IfOp, rewriter: PatternRewriter) -> None:
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


class LowerWhile(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: mindir.WhileOp, rewriter: PatternRewriter) -> None:
        new = scf.WhileOp(
            list(op.arguments),
            op.res.types,
            rewriter.move_region_contents_to_new_regions(op.before_region),
            rewriter.move_region_contents_to_new_regions(op.after_region),
        )
        new.location = op.location
        rewriter.replace(op, new)


class LowerYield(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: mindir.YieldOp, rewriter: PatternRewriter) -> None:
        new = scf.YieldOp(*op.values)
        new.location = op.location
        rewriter.replace(op, new)


class LowerCondition(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: mindir.ConditionOp, rewriter: PatternRewriter) -> None:
        e = Emitter(rewriter, op.location)
        cond = _scalar_condition(e, op.cond)
        new = scf.ConditionOp(cond, *op.arguments)
        new.location = op.location
        rewriter.replace(op, new)


CONTROL_PATTERNS: tuple[RewritePattern, ...] = (
    LowerIf(),
    LowerWhile(),
    LowerYield(),
    LowerCondition(),
)
