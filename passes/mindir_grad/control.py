"""mindir-grad through `mindir.if`: a second if on the same condition.

The backward if's branches hold each forward branch's adjoints and yield the
adjoints of the values the branches use from outside (and each weight
Parameter's share from Loads inside the branch); the other branch yields zeros
for what it does not touch. Values of a forward branch that its adjoints need
(a tanh's result, a Load) leave the forward if as extra results: the forward
runs once, and a Load's value is still the one read at its state.
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from mindjit.dialects import mindir as M
from mindjit.dialects.mindir.types import is_monad
from mindjit.passes.mindir_grad.adjoints import accumulate, materialize, used_values
from mindjit.passes.mindir_grad.emitter import GradEmitter


def _defined_in(v: SSAValue, block: Block) -> bool:
    owner = v.owner
    parent = owner.parent_block() if isinstance(owner, Operation) else owner
    while parent is not None:
        if parent is block:
            return True
        up = parent.parent_op()
        parent = up.parent_block() if up is not None else None
    return False


def grad_if(bp: Any, e: GradEmitter, op: M.IfOp, douts: list, adj: dict, weight_adj: dict) -> None:

    outer = [v for v in used_values(op) if v in bp.varying and v is not op.cond]
    outer.sort(key=lambda v: str(id(v)))  # any fixed order: both branches agree on it
    branches = []
    symbols: list[str] = []
    for region in (op.then_region, op.else_region):
        fwd_block = region.block
        block = Block()
        be = e.at(InsertPoint.at_end(block))
        term = fwd_block.last_op
        assert isinstance(term, M.YieldOp)
        local: dict = {}
        for v, g in zip(term.values, douts):
            if g is not None and v in bp.varying:
                accumulate(be, local, v, g)
        w_local: dict = {}
        bp.run(list(fwd_block.ops)[:-1], local, be, w_local)
        branches.append((fwd_block, block, be, local, w_local))
        symbols += [s for s in w_local if s not in symbols]
    # the types of what both backward branches yield
    types = [v.type for v in outer]
    for symbol in symbols:
        for *_, w_local in branches:
            if symbol in w_local:
                types.append(w_local[symbol].type)
                break
    for _, _, be, local, w_local in branches:
        yields = [materialize(be, local.get(v), v.type) for v in outer]
        yields += [materialize(be, w_local.get(s), t) for s, t in zip(symbols, types[len(outer) :])]
        be.op(M.YieldOp(*yields))
    # forward values the backward branches read: extra results of the forward if
    exported: list[SSAValue] = []
    for fwd_block, block, *_ in branches:
        for inner in block.walk():
            for v in inner.operands:
                if _defined_in(v, fwd_block) and v not in exported:
                    exported.append(v)
    if exported:
        before = list(op.results)
        op = _export(op, exported, branches)
        _rename_adjoints(before, list(op.results), len(exported), adj, weight_adj)
    bwd = M.IfOp(op.cond, types, Region(branches[0][1]), Region(branches[1][1]))
    e.op(bwd)
    for v, g in zip(outer, bwd.results):
        accumulate(e, adj, v, g)
    for s, g in zip(symbols, bwd.results[len(outer) :]):
        accumulate(e, weight_adj, s, g)


def _rename_adjoints(before: list, after: list, n_exported: int, *tables: dict) -> None:
    """Adjoints held in `tables` that are results of the forward if `_export`
    replaced (an adjoint folded to a forward value: `g * r` with g = 1 is `r`)
    now name the new if's results."""
    n = len(before)
    while n and is_monad(before[n - 1].type):
        n -= 1
    moved = dict(zip(before[:n], after[:n])) | dict(zip(before[n:], after[n + n_exported :]))

    def rename(g: Any) -> Any:
        return [rename(x) for x in g] if isinstance(g, list) else moved.get(g, g)

    for table in tables:
        for key, g in table.items():
            table[key] = rename(g)


def _in_blocks(op: Operation, blocks: set[Block]) -> bool:
    """Whether `op` is in one of `blocks`, or nested in an op that is."""
    block = op.parent_block()
    while block is not None:
        if block in blocks:
            return True
        parent = block.parent_op()
        block = parent.parent_block() if parent is not None else None
    return False


def _export(op: M.IfOp, exported: list[SSAValue], branches: list) -> M.IfOp:
    """Rebuild the forward `op` yielding `exported` too (zeros from the branch
    that does not define one); uses in the backward branches read the results."""
    types = list(op.output.types)
    n = len(types)
    while n and is_monad(types[n - 1]):
        n -= 1  # the states stay last
    for region in (op.then_region, op.else_region):
        term = region.block.last_op
        assert isinstance(term, M.YieldOp)
        fe = GradEmitter(InsertPoint.before(term), op.location)  # forward: kept
        extra = [v if _defined_in(v, region.block) else fe.zeros(v.type) for v in exported]
        term.operands = [*term.operands[:n], *extra, *term.operands[n:]]
    new = M.IfOp(
        op.cond,
        [*types[:n], *[v.type for v in exported], *types[n:]],
        Rewriter.move_region_contents_to_new_regions(op.then_region),
        Rewriter.move_region_contents_to_new_regions(op.else_region),
    )
    new.location = op.location
    new.attributes |= op.attributes
    Rewriter.insert_op(new, InsertPoint.before(op))
    for old, r in zip(op.results[:n], new.results[:n]):
        old.replace_all_uses_with(r)
    for old, r in zip(op.results[n:], new.results[n + len(exported) :]):
        old.replace_all_uses_with(r)
    backward = {block for _, block, *_ in branches}
    for v, r in zip(exported, new.results[n : n + len(exported)]):
        for use in tuple(v.uses):  # (not replace_uses_with_if: it would rename r)
            if _in_blocks(use.operation, backward):
                use.operation.operands[use.index] = r
    Rewriter.erase_op(op)
    return new
