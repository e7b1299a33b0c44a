"""Carrying extra values out of `mindir.if` and around `mindir.while`.

Two passes thread values through control flow the same way: mindir-auto-monad
the states (`!mindir.u`, `!mindir.io`), convert-mindir-to-tensor the current
values of the Parameter refs a reused graph writes. A carried value leaves an
`if` as an extra trailing result, each branch yielding its own; it goes around
a `while` as an extra trailing loop-carried value (an argument of both regions,
forwarded by `mindir.condition`, yielded by the body) and leaves it as an extra
result. A result list cannot grow in place, so the op is rebuilt with its
regions moved over, its location and attributes kept, and its old results'
uses moved to the new ones.

The caller threads the regions itself (it knows what the values are); these
functions add the operands, arguments and results around what it found.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from mindjit.dialects import mindir


def add_if_results(
    op: mindir.IfOp,
    then_values: Sequence[SSAValue],
    else_values: Sequence[SSAValue],
    names: Sequence[str | None],
) -> list[SSAValue]:
    """`op` (replaced) with each branch also yielding its value of each carried one;
    returns the new if's results for them."""
    for region, values in ((op.then_region, then_values), (op.else_region, else_values)):
        term = region.block.last_op
        assert isinstance(term, mindir.YieldOp)
        term.operands = [*term.values, *values]
    new = mindir.IfOp(
        op.cond,
        [*op.output.types, *[v.type for v in then_values]],
        Rewriter.move_region_contents_to_new_regions(op.then_region),
        Rewriter.move_region_contents_to_new_regions(op.else_region),
    )
    return _replace_with_more_results(op, new, names)


def add_grad_results(
    op: mindir.GradOp, values: Sequence[SSAValue], names: Sequence[str | None]
) -> list[SSAValue]:
    """`op` (replaced) with its forward region also yielding `values`, handed
    through as trailing results; returns them."""
    term = op.body.block.last_op
    assert isinstance(term, mindir.YieldOp)
    term.operands = [*term.values, *values]
    new = mindir.GradOp(
        op.inputs,
        op.sens,
        op.wrt_list,
        op.weight_symbols,
        op.n_aux,
        op.returns_value,
        [*op.outputs.types, *[v.type for v in values]],
        Rewriter.move_region_contents_to_new_regions(op.body),
    )
    return _replace_with_more_results(op, new, names)


def add_loop_arguments(
    op: mindir.WhileOp, types: Sequence[Attribute], names: Sequence[str | None]
) -> tuple[list[BlockArgument], list[BlockArgument]]:
    """New trailing arguments of the condition and body regions, one per carried
    value: what each region starts from (then thread the regions, and
    `finish_while`)."""
    added: list[list[BlockArgument]] = []
    for region in (op.before_region, op.after_region):
        block = region.block
        args = []
        for t, name in zip(types, names):
            arg = block.insert_arg(t, len(block.args))
            arg.name_hint = name
            args.append(arg)
        added.append(args)
    return added[0], added[1]


def finish_while(
    op: mindir.WhileOp,
    initial: Sequence[SSAValue],
    condition_values: Sequence[SSAValue],
    body_values: Sequence[SSAValue],
    names: Sequence[str | None],
) -> list[SSAValue]:
    """`op` (replaced, its regions given their arguments by `add_loop_arguments`)
    carrying values that start as `initial`, are forwarded by the condition as
    `condition_values` and yielded by the body as `body_values`; returns the new
    while's results for them."""
    cond = op.before_region.block.last_op
    assert isinstance(cond, mindir.ConditionOp)
    cond.operands = [cond.cond, *cond.arguments, *condition_values]
    body_end = op.after_region.block.last_op
    assert isinstance(body_end, mindir.YieldOp)
    body_end.operands = [*body_end.values, *body_values]
    new = mindir.WhileOp(
        [*op.arguments, *initial],
        [*op.res.types, *[v.type for v in initial]],
        Rewriter.move_region_contents_to_new_regions(op.before_region),
        Rewriter.move_region_contents_to_new_regions(op.after_region),
    )
    return _replace_with_more_results(op, new, names)


def _replace_with_more_results(
    op: Operation, new: Operation, names: Sequence[str | None]
) -> list[SSAValue]:
    new.location = op.location
    new.attributes |= op.attributes
    Rewriter.insert_op(new, InsertPoint.before(op))
    n = len(op.results)
    for old, result in zip(op.results, new.results[:n]):
        old.replace_all_uses_with(result)
    Rewriter.erase_op(op)
    extra = list(new.results[n:])
    for result, name in zip(extra, names):
        result.name_hint = name
    return extra
