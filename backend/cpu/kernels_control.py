"""Plan builders for calls and structured control flow (func.call, scf.*).

Regions become sub-`StepBlock`s sharing the function's slot array; moving
values between region arguments and yields is a precomputed slot copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue

from mindjit.backend.cpu.errors import op_failure
from mindjit.backend.cpu.registry import RUNTIME_BUILDERS, register
from mindjit.backend.cpu.steps import Slots, Step, StepBlock, mover, multi_call_step
from mindjit.backend.cpu.types import dtype_of

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler


@register(func.CallOp)
def build_call(c: FunctionCompiler, op: Operation) -> None:
    """Call another function's plan (compiled once, shared by all callers), or
    a runtime function (a declaration with `mindjit.runtime`, e.g. print)."""
    name = op.callee.root_reference.data
    decl = c.exe.declaration(name)
    if decl is not None:
        kind = decl.attributes.get("mindjit.runtime")
        builder = RUNTIME_BUILDERS.get(kind.data) if isinstance(kind, StringAttr) else None
        if builder is None:
            raise op_failure(
                op, f"cannot call @{name}: external functions are not supported by the CPU executor"
            )
        builder(c, op)
        return
    plan = c.exe.plan_for(name, op)
    if plan.side_effects:
        c.mark_side_effects()
    ins = [c.read(v) for v in op.operands]
    # the callee copies whatever could alias its inputs, so results are fresh
    outs = [c.define(r, fresh=True) for r in op.results]
    invoke = plan.invoke
    if outs:
        c.emit(multi_call_step(lambda *a: invoke(a), ins, outs))
        return
    idx = tuple(ins)

    def call(s: Slots) -> None:
        invoke([s[i] for i in idx])

    c.emit(call)


def _then(block_fn: StepBlock, move: Step | None) -> Step | None:
    """Run a region then move its yielded values; None if both are empty."""
    if move is None:
        return block_fn if len(block_fn) else None
    if not len(block_fn):
        return move

    def run(s: Slots) -> None:
        block_fn(s)
        move(s)

    return run


def _yield_slots(
    c: FunctionCompiler, term: Operation | None, count: int, op: Operation
) -> list[int]:
    if term is None or len(term.operands) != count:
        raise op_failure(op, f"region of '{op.name}' must yield {count} values")
    return [c.slot_of(v) for v in term.operands]


@register(scf.IfOp)
def build_if(c: FunctionCompiler, op: Operation) -> None:
    cond = c.read(op.cond)
    n = len(op.results)
    if n and not op.false_region.blocks:
        raise op_failure(op, "'scf.if' with results needs an else region")
    regions = (op.true_region, op.false_region)
    branches = [_branch(c, region, n, op) for region in regions]
    outs = [
        c.define(r, like=[yields[i] for _, _, yields in branches if yields])
        for i, r in enumerate(op.results)
    ]
    then_fn, else_fn = (
        _then(blk, mover(vals, outs, _dead(c, yields, region))) if blk is not None else None
        for (blk, vals, yields), region in zip(branches, regions)
    )
    c.emit(_if_step(cond, then_fn, else_fn))


def _branch(
    c: FunctionCompiler, region: Region, n: int, op: Operation
) -> tuple[StepBlock | None, list[int], Sequence[SSAValue]]:
    """A branch's steps, the slots of its yielded values and those values."""
    if not region.blocks:
        return None, [], ()
    blk, term = c.compile_block(region.block)
    if not n:
        return blk, [], ()
    return blk, _yield_slots(c, term, n, op), term.operands  # type: ignore[union-attr]


def _dead(c: FunctionCompiler, values: Sequence[SSAValue], region: Region) -> list[int]:
    return c.dead_after(values, region.block) if region.blocks else []


def _noop(s: Slots) -> None:
    return None


def _if_step(cond: int, then_fn: Step | None, else_fn: Step | None) -> Step | None:
    t, e = then_fn or _noop, else_fn or _noop
    if then_fn is None and else_fn is None:
        return None

    def if_step(s: Slots) -> None:
        if s[cond]:
            t(s)
        else:
            e(s)

    return if_step


@register(scf.WhileOp)
def build_while(c: FunctionCompiler, op: Operation) -> None:
    """before-region computes the condition; after-region yields the next args."""
    inits = [c.read(v) for v in op.arguments]
    before, after = op.before_region.block, op.after_region.block
    before_args = [c.define(a) for a in before.args]
    before_blk, cond_term = c.compile_block(before)
    if not isinstance(cond_term, scf.ConditionOp):
        raise op_failure(op, "'scf.while' before region must end with 'scf.condition'")
    cond = c.slot_of(cond_term.operands[0])
    forwarded = [c.slot_of(v) for v in cond_term.operands[1:]]
    after_args = [c.define(a) for a in after.args]
    after_blk, yield_term = c.compile_block(after)
    yields = _yield_slots(c, yield_term, len(before.args), op)
    outs = [c.define(r) for r in op.results]
    c.emit(
        _while_step(
            mover(inits, before_args),
            before_blk,
            cond,
            _then(after_blk, mover(yields, before_args, c.dead_after(yield_term.operands, after))),
            mover(forwarded, after_args, c.dead_after(cond_term.operands[1:], before)),
            mover(forwarded, outs),
        )
    )


def _while_step(
    enter: Step | None,
    before: Step,
    cond: int,
    after: Step | None,
    to_after: Step | None,
    to_results: Step | None,
) -> Step:
    enter_, after_, to_after_, to_results_ = (
        enter or _noop,
        after or _noop,
        to_after or _noop,
        to_results or _noop,
    )

    def while_step(s: Slots) -> None:
        enter_(s)
        while True:
            before(s)
            if not s[cond]:
                break
            to_after_(s)
            after_(s)
        to_results_(s)

    return while_step


@register(scf.ForOp)
def build_for(c: FunctionCompiler, op: Operation) -> None:
    lb, ub, st = c.read(op.lb), c.read(op.ub), c.read(op.step)
    inits = [c.read(v) for v in op.iter_args]
    block: Block = op.body.block
    iv_type = dtype_of(block.args[0].type, op).type
    iv = c.define(block.args[0])
    carried = [c.define(a) for a in block.args[1:]]
    body_blk, term = c.compile_block(block)
    yields = _yield_slots(c, term, len(carried), op)
    outs = [c.define(r) for r in op.results]
    body = _then(body_blk, mover(yields, carried, c.dead_after(term.operands, block))) or _noop
    enter = mover(inits, carried) or _noop
    leave = mover(carried, outs) or _noop

    def for_step(s: Slots) -> None:
        enter(s)
        for i in range(int(s[lb]), int(s[ub]), int(s[st])):
            s[iv] = iv_type(i)
            body(s)
        leave(s)

    c.emit(for_step)
