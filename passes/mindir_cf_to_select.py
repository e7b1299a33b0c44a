"""mindir-cf-to-select{max-branch-ops=8 max-branch-elements=1048576}: small
side-effect-free `mindir.if`s become `mindir.select`s.

MindSpore's docs ("Using select Operator") advise replacing an `if` on a
tensor condition by `ops.select` when its branches are small: each `if` is
extra subgraphs to compile and a control-flow op to run, while a select runs
both branches' few ops and picks. MindSpore leaves the rewrite to the user;
this pass does it:

    %r = mindir.if %c -> (T) {            %a = mindir.sub %x, %y : T
      %a = mindir.sub %x, %y : T    ==>   %b = mindir.add %x, %y : T
      mindir.yield %a : T                 %r = mindir.select %c, %a, %b : ...
    } else {
      %b = mindir.add %x, %y : T
      mindir.yield %b : T
    }

An `if` is converted when both branches can run unconditionally:
- every op in them is `Pure` (the value ops) or a `mindir.load` of a Parameter
  no `mindir.assign` of the module writes (reading it early reads the same
  value); anything else keeps the `if`: assign, print, update_state / depend
  (ordering), tensor_move, calls, a `while`, an inner `if` that stayed;
- its results are tensors or tuples of them (a `!mindir.u` / `!mindir.io`
  result means the branches have effects), none a loop's record (a
  `tensor<?x...>` of mindir.stack_*: the two sides may differ in capacity,
  which an elementwise select cannot pick between);
- no branch touches a record (`mindir.stack_*`): a read is only defined for a
  slot an earlier push wrote, which the `if`'s condition may be what guarantees,
  and a speculated push would copy the record for nothing;
- the cost model: each branch has at most `max-branch-ops` ops, not counting
  constants, tuple plumbing (`make_tuple`, `tuple_get_item`) and the yield, and
  its ops produce at most `max-branch-elements` tensor elements in all (0: no
  limit), so a branch that is short but computes on large tensors keeps its
  `if` and is not run for nothing.

Nested `if`s are converted from the inside out: an inner `if` that becomes a
select counts as its ops in the outer branch. Results yielded as tuples are
selected leaf by leaf (`tuple_get_item` of both sides, then `make_tuple`); a
result both branches yield as the same value needs no select. A condition the
frontend reshaped from a one-element tensor (`if x < y` on `tensor<1xf32>`)
is selected on before the reshape when that gives the same result shape. The branches' ops
move before the `if` in order (then-branch first) and keep their locations; the
selects take the `if`'s.

A module using the float-status runtime (`mindir.npu_*_float_status`) is left
alone: running an untaken branch could raise the overflow flag it reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType, TupleType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import Pure

from mindjit.dialects import mindir
from mindjit.dialects.mindir.device import (
    NPUAllocFloatStatusOp,
    NPUClearFloatStatusOp,
    NPUGetFloatStatusOp,
)
from mindjit.ir.walk import walk_ops
from mindjit.passes.analysis.effects import Effects
from mindjit.passes.analysis.graph_walk import top_level_graphs

DEFAULT_MAX_BRANCH_OPS = 8
DEFAULT_MAX_BRANCH_ELEMENTS = 1 << 20

#: Ops that cost nothing at run time: not counted against `max-branch-ops`.
_FREE = (mindir.ConstantOp, mindir.MakeTupleOp, mindir.TupleGetItemOp)
_FLOAT_STATUS = (NPUAllocFloatStatusOp, NPUClearFloatStatusOp, NPUGetFloatStatusOp)


@dataclass(frozen=True)
class MindirCfToSelectPass(ModulePass):
    """Rewrite small side-effect-free `mindir.if`s into `mindir.select`s (see the
    module doc)."""

    name = "mindir-cf-to-select"

    max_branch_ops: int = DEFAULT_MAX_BRANCH_OPS
    max_branch_elements: int = DEFAULT_MAX_BRANCH_ELEMENTS

    def __post_init__(self) -> None:
        for option, value in (
            ("max-branch-ops", self.max_branch_ops),
            ("max-branch-elements", self.max_branch_elements),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{option} must be an integer >= 0, got '{value}'")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        cf_to_select(op, self.max_branch_ops, self.max_branch_elements)


def cf_to_select(
    module: ModuleOp,
    max_branch_ops: int = DEFAULT_MAX_BRANCH_OPS,
    max_branch_elements: int = DEFAULT_MAX_BRANCH_ELEMENTS,
) -> int:
    """Convert the module's convertible `if`s in place; returns how many."""
    ops = [op for fn in top_level_graphs(module) for op in walk_ops(fn)]
    # inner ifs first: walk_ops lists an op before what it contains
    ifs = [op for op in reversed(ops) if isinstance(op, mindir.IfOp)]
    if not ifs or any(isinstance(op, _FLOAT_STATUS) for op in ops):
        return 0
    rules = _Rules(Effects(module), max_branch_ops, max_branch_elements)
    converted = 0
    for if_op in ifs:
        if rules.convertible(if_op):
            _to_select(if_op)
            converted += 1
    return converted


def ifs_to_selects_in(op: Operation, effects: Effects) -> None:
    """Convert every convertible `if` inside `op`, whatever its size: a vmap must
    batch its body, and a select is what an `if` on a per-example condition
    becomes (MindSpore's vmap does the same)."""
    rules = _Rules(effects, max_ops=1 << 62, max_elements=0)
    for inner in reversed(walk_ops(op)):
        if isinstance(inner, mindir.IfOp) and rules.convertible(inner):
            _to_select(inner)


@dataclass
class _Rules:
    effects: Effects
    max_ops: int
    max_elements: int

    def convertible(self, op: mindir.IfOp) -> bool:
        if not all(_selectable(t) for t in op.output.types):
            return False
        return self._branch_ok(op.then_region.block) and self._branch_ok(op.else_region.block)

    def _branch_ok(self, block: Block) -> bool:
        ops, elements = 0, 0
        for inner in block.ops:
            if isinstance(inner, mindir.YieldOp):
                continue
            if not self._speculatable(inner):
                return False
            if not isinstance(inner, _FREE):
                ops += 1
                elements += sum(_elements(r.type) for r in inner.results)
        return ops <= self.max_ops and (not self.max_elements or elements <= self.max_elements)

    def _speculatable(self, op: Operation) -> bool:
        if op.regions:
            return False
        if isinstance(op, mindir.LoadOp):
            return not self.effects.is_written(op.ref)
        if isinstance(op, mindir.STACK_OPS):
            return False  # a record's slot is defined only where its push ran
        return op.has_trait(Pure)


def _selectable(t: Attribute) -> bool:
    if isinstance(t, TensorType):
        return all(d >= 0 for d in t.get_shape())  # not a loop's record
    return isinstance(t, TupleType) and all(_selectable(e) for e in t.types.data)


def _elements(t: Attribute) -> int:
    if isinstance(t, TensorType):
        n = 1
        for d in t.get_shape():
            n *= max(d, 1)
        return n
    if isinstance(t, TupleType):
        return sum(_elements(e) for e in t.types.data)
    return 0


def _to_select(op: mindir.IfOp) -> None:
    where = InsertPoint.before(op)
    yields: list[list[SSAValue]] = []
    for region in (op.then_region, op.else_region):
        block = region.block
        for inner in list(block.ops):
            if isinstance(inner, mindir.YieldOp):
                yields.append(list(inner.values))
                continue
            inner.detach()
            Rewriter.insert_op(inner, where)
    selector = _Selector(op.cond, op.location, where)
    results = [selector.select(t, e, r.type) for t, e, r in zip(yields[0], yields[1], op.output)]
    for old, new in zip(op.output, results):
        if old.name_hint and new.name_hint is None:
            new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    Rewriter.erase_op(op)


@dataclass
class _Selector:
    cond: SSAValue
    location: Attribute
    where: InsertPoint

    def select(self, then: SSAValue, other: SSAValue, t: Attribute) -> SSAValue:
        if then is other:
            return then
        if isinstance(t, TupleType):
            leaves = [
                self.select(self._item(then, i), self._item(other, i), e)
                for i, e in enumerate(t.types.data)
            ]
            return self._insert(mindir.MakeTupleOp.get(leaves))
        return self._insert(mindir.SelectOp.get(self._cond_for(t), then, other))

    def _cond_for(self, t: Attribute) -> SSAValue:
        """The condition, or the one-element tensor the frontend reshaped into it
        (`if x < y` on tensor<1xf32>) when selecting with it gives the same shape:
        the reshape then dies."""
        reshape = self.cond.owner
        if isinstance(reshape, mindir.ReshapeOp) and isinstance(t, TensorType):
            source = reshape.operands[0].type
            if isinstance(source, TensorType) and len(source.get_shape()) <= len(t.get_shape()):
                return reshape.operands[0]
        return self.cond

    def _item(self, value: SSAValue, index: int) -> SSAValue:
        return self._insert(mindir.TupleGetItemOp.get(value, index))

    def _insert(self, new: Operation) -> SSAValue:
        new.location = self.location  # type: ignore[assignment]
        Rewriter.insert_op(new, self.where)
        return new.results[0]
