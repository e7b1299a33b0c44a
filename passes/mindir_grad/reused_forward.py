"""The forward a `mindir.grad` reuses: outputs its region yields from outside it.

A region that yields a value defined before the op (the frontend does this when
a gradient follows a call of the same Cell on the same values: TrainOneStepCell)
says "differentiate the computation that already ran". Its forward is the slice
of the enclosing block that computed those outputs from the op's inputs: the
ops the outputs depend on, stopping at the op's inputs (the region's arguments
stand for them) and at values defined further out (constants of the
differentiation). States are not followed: the slice's ops stay where they are,
in their order, and run once; the backward reads their values.

Before the slice is differentiated it is brought to the form the region's
forward gets: nested `mindir.grad`s expanded, calls inlined or, for a graph
lazy inline keeps, rewritten to its pure form (calls.py). Both rewrites keep
the program's meaning, so doing them in the enclosing block is safe.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from mindjit.dialects import mindir as M
from mindjit.dialects.mindir.types import is_monad
from mindjit.ir.locations import op_error
from mindjit.ir.walk import walk_ops
from mindjit.passes.analysis.effects import defined_inside, values_from_outside


def outer_outputs(op: M.GradOp) -> list[SSAValue]:
    """The outputs `op`'s region yields that are defined outside it."""
    outs, _ = op.yielded()
    return [v for v in outs if not defined_inside(v, op)]


def forward_slice(op: M.GradOp, outputs: list[SSAValue]) -> list[Operation]:
    """The ops of `op`'s block that compute `outputs` from `op`'s inputs, in block order."""
    block = op.parent_block()
    assert block is not None
    roots = set(op.inputs)
    chosen: set[Operation] = set()
    stack = [v for v in outputs if v not in roots]
    while stack:
        v = stack.pop()
        owner = v.owner
        if not isinstance(owner, Operation):
            continue  # an argument of an enclosing block: a constant here
        top = block.find_ancestor_op_in_block(owner)
        if top is None or top in chosen:
            continue  # defined further out: a constant here
        chosen.add(top)
        for used in values_from_outside(top):
            if used not in roots and not is_monad(used.type):
                stack.append(used)
    ordered = []
    for o in block.ops:
        if o is op:
            break
        if o in chosen:
            ordered.append(o)
    return ordered


def prepare_slice(
    op: M.GradOp,
    expand_grads: Callable[[M.GradOp], None],
    rewrite_calls: Callable[[list[func.CallOp]], bool],
) -> list[Operation]:
    """The forward slice of `op` once nested grads are expanded and calls rewritten
    (`rewrite_calls` returns whether it changed anything), to a fixpoint."""
    _check_inputs(op)
    while True:
        ops = forward_slice(op, outer_outputs(op))
        grads = [g for o in ops for g in walk_ops(o) if isinstance(g, M.GradOp)]
        if grads:
            for g in reversed(grads):  # pre-order reversed: innermost first
                expand_grads(g)
            continue
        calls = [c for o in ops for c in walk_ops(o) if isinstance(c, func.CallOp)]
        if calls and rewrite_calls(calls):
            continue
        return ops


def _check_inputs(op: M.GradOp) -> None:
    """With a reused forward a gradient belongs to a value, not a position: each
    differentiated input must be a value no other input is."""
    values = list(op.inputs)
    for i in op.wrt_list:
        if values.count(values[i]) > 1:
            raise op_error(
                op,
                f"mindir.grad: input {i} is differentiated but is also another input; a "
                "region yielding values computed outside it needs distinct inputs",
            )
