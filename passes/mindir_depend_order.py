"""mindir-depend-order: reads before the next write, then an explicit, verified order.

Runs on monadic mindir (after mindir-auto-monad) in two steps, block by block
(function bodies and the regions of if/while alike).

1. Write-after-read. In MindSpore a Load is not a kernel: it aliases the
   Parameter's memory, so whatever uses a loaded value must run before the next
   Assign to that Parameter, or it sees the new value. For every
   `%l = mindir.load %p, %s` of Parameter P (the `mindir.get_parameter` behind
   the ref, also through `mindir.depend`), the next write W of P in state order
   in the same block is found: a `mindir.assign` of P, or a `func.call`,
   `mindir.if` or `mindir.while` that writes P somewhere inside (callees are
   followed). State order is the depth of each op's `!mindir.u` operand along
   the `update_state` chain of the block, then block order. Every user U of %l
   (the op of the block that uses it or, for a use inside a region, the op that
   holds the region; users of a `mindir.depend` of %l count too; update_state
   and terminators are skipped) that does not itself depend on W is attached
   to the `mindir.update_state` producing W's input state: U's results become
   extra attach operands, so W runs after U. If W's input state is a block
   argument, the result of another op, or an update_state U already depends on,
   a new `update_state %s_in, U...` is inserted right before W and W takes it
   (for an if: every use of the state inside its regions). A user that depends
   on W cannot run before it; that case is left to Load elimination (TensorMove).
2. Order. Each block is sorted topologically so every op comes after every op
   of the block it uses: operands, including `update_state` and `depend` attach
   operands, and values used inside its regions. Ops with side effects keep
   their relative order per state (memory: assign and calls/if/while that take
   a `!mindir.u`; IO: print and calls/if/while that take a `!mindir.io`).
   The sort is stable: independent ops keep their original order, so a block
   that is already ordered is unchanged; the terminator stays last. A cycle is
   an error located at its first op, listing the ops of the cycle and their
   locations.

`mindir.depend %y, %a` needs nothing special: every user of its result uses it,
so step 2 places them after `%a`, which is how MindSpore orders the Ascend
float-status ops (alloc, clear, the computation, get).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

from mindjit.dialects import mindir
from mindjit.dialects.mindir.effects import SideEffectIO, SideEffectMem
from mindjit.ir.locations import loc_of_op
from mindjit.ir.walk import walk_ops
from mindjit.passes.analysis.effects import (
    ANY,
    Effects,
    Writes,
    input_state,
    parameter_symbol,
    state_kind,
)
from mindjit.support.errors import MindjitError, SourceLoc


def used_values(op: Operation) -> Iterator[SSAValue]:
    """The operands of `op` and of every op inside its regions."""
    if not op.regions:
        yield from op.operands
        return
    for inner in walk_ops(op):  # not op.walk(): its generators nest as deep as the regions
        yield from inner.operands


def block_ancestor(op: Operation | None, block: Block) -> Operation | None:
    """The op of `block` that is `op` or holds it in a region, if any."""
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()
    return op


def effect_kinds(op: Operation) -> frozenset[str]:
    """The states whose order `op` (with everything inside it) must keep."""
    kinds: set[str] = set()
    for inner in walk_ops(op) if op.regions else (op,):
        if inner.has_trait(SideEffectMem):
            kinds.add("u")
        if inner.has_trait(SideEffectIO):
            kinds.add("io")
        if isinstance(inner, func.CallOp):
            for v in inner.arguments:
                if (kind := state_kind(v.type)) is not None:
                    kinds.add(kind)
    return frozenset(kinds)


class _BlockGraph:
    """Dependencies between the ops of one block: data (incl. values used inside
    regions) and the per-state order of side effects.

    For the many reachability questions of step 1, `track_ranks` keeps a
    topological numbering of the ops (`rank`), updated as edges are added, so a
    search for `target` never looks at ops ranked before it."""

    def __init__(self, block: Block):
        self.block = block
        self._kinds: dict[Operation, frozenset[str]] = {}
        self._preds: dict[Operation, list[Operation]] = {}
        self.rank: dict[Operation, float] | None = None
        self.refresh()

    def refresh(self) -> None:
        """Read the block's ops again (ops were inserted): the edges of ops whose
        operands did not change stay known (`changed` forgets the others)."""
        self.ops = list(self.block.ops)
        self.index = {op: i for i, op in enumerate(self.ops)}
        self.effect_prev: dict[Operation, list[Operation]] = {}
        last: dict[str, Operation] = {}
        for op in self.ops:
            kinds = self._kinds.get(op)
            if kinds is None:
                kinds = self._kinds[op] = effect_kinds(op)
            prev = [last[k] for k in sorted(kinds) if k in last]
            if prev:
                if prev != self.effect_prev.get(op):
                    self._preds.pop(op, None)
                self.effect_prev[op] = prev
            for k in kinds:
                last[k] = op

    def preds(self, op: Operation) -> list[Operation]:
        cached = self._preds.get(op)
        if cached is not None:
            return cached
        found: dict[Operation, None] = {}
        for v in used_values(op):
            if isinstance(v, OpResult):
                owner = v.owner
                if owner is not op and owner.parent_block() is self.block:
                    found[owner] = None
        for prev in self.effect_prev.get(op, ()):
            found[prev] = None
        result = list(found)
        self._preds[op] = result
        return result

    def data_succs(self, op: Operation) -> list[Operation]:
        found: dict[Operation, None] = {}
        for result in op.results:
            for use in result.uses:
                holder = block_ancestor(use.operation, self.block)
                if holder is not None and holder is not op:
                    found[holder] = None
        return list(found)

    def stable_order(self, ops: list[Operation]) -> tuple[list[Operation], set[Operation]]:
        """`ops` sorted topologically, earliest in `ops` first among the ready ones
        (Kahn's algorithm); the ops left over sit on a cycle."""
        index = {op: i for i, op in enumerate(ops)}
        succs: dict[Operation, list[Operation]] = {op: [] for op in ops}
        indegree: dict[Operation, int] = {}
        for op in ops:
            preds = [p for p in self.preds(op) if p in index]
            indegree[op] = len(preds)
            for p in preds:
                succs[p].append(op)
        ready = [index[op] for op in ops if indegree[op] == 0]
        heapq.heapify(ready)
        order: list[Operation] = []
        while ready:
            op = ops[heapq.heappop(ready)]
            order.append(op)
            for s in succs[op]:
                indegree[s] -= 1
                if indegree[s] == 0:
                    heapq.heappush(ready, index[s])
        return order, set(ops) - set(order)

    # --- reachability --------------------------------------------------------------
    def track_ranks(self) -> None:
        order, stuck = self.stable_order(list(self.block.ops))
        self.rank = None if stuck else {op: float(i) for i, op in enumerate(order)}

    def changed(self, op: Operation) -> None:
        """`op`'s operands changed (or it is new): forget its edges, re-rank it."""
        self._preds.pop(op, None)
        if self.rank is None:
            return
        lo = max((self.rank[p] for p in self.preds(op)), default=-1.0)
        hi = min((self.rank[s] for s in self.data_succs(op)), default=float("inf"))
        current = self.rank.get(op)
        if current is not None and lo < current < hi:
            return
        new = lo + 1.0 if hi == float("inf") else (lo + hi) / 2
        if op in self.effect_prev or effect_kinds(op) or not lo < new < hi:
            self.track_ranks()  # no room (or effect edges): number everything again
        else:
            self.rank[op] = new

    def attached(self, op: Operation, values: list[SSAValue]) -> None:
        """`values` were added to `op`'s operands: its new edges, and a new rank only
        if one of them comes from an op ranked after it."""
        known = self._preds.get(op)
        if known is None or self.rank is None:
            self.changed(op)
            return
        rank = self.rank[op]
        later = False
        for v in values:
            if isinstance(v, OpResult):
                owner = v.owner
                if owner is not op and owner.parent_block() is self.block and owner not in known:
                    known.append(owner)
                    later = later or self.rank[owner] >= rank
        if later:
            self.changed(op)

    def depends_on(self, op: Operation, target: Operation) -> bool:
        """Whether `op` (transitively) needs `target` (or is it)."""
        rank = self.rank
        floor = rank[target] if rank is not None else 0.0
        if rank is not None and rank[op] < floor:
            return False
        seen = {op}
        stack = [op]
        while stack:
            current = stack.pop()
            if current is target:
                return True
            for pred in self.preds(current):
                if pred not in seen and (rank is None or rank[pred] >= floor):
                    seen.add(pred)
                    stack.append(pred)
        return False


# -- step 1: write-after-read ------------------------------------------------------------


def _state_depths(block: Block) -> dict[SSAValue, int]:
    """Depth of each `!mindir.u` value defined in `block` along its state chain."""
    depth: dict[SSAValue, int] = {}

    def inputs(v: SSAValue) -> list[SSAValue]:
        owner = v.owner
        if isinstance(owner, mindir.UpdateStateOp):
            return [owner.state]
        assert isinstance(owner, Operation)
        return [w for w in used_values(owner) if state_kind(w.type) == "u"]

    def local(v: SSAValue) -> bool:
        return isinstance(v, OpResult) and v.owner.parent_block() is block

    for op in block.ops:
        for result in op.results:
            if state_kind(result.type) != "u" or result in depth:
                continue
            stack: list[SSAValue] = [result]
            on_stack = {result}
            while stack:
                v = stack[-1]
                todo = [w for w in inputs(v) if local(w) and w not in depth and w not in on_stack]
                if todo:
                    stack.extend(todo)
                    on_stack.update(todo)
                    continue
                stack.pop()
                on_stack.discard(v)
                depth[v] = 1 + max((depth.get(w, 0) for w in inputs(v) if local(w)), default=0)
    return depth


#: Ops whose result may share the Load's memory once lowered (numpy views, or the
#: input itself when the op is an identity): their users read the Parameter too.
_ALIASING_OPS = (
    mindir.ReshapeOp,
    mindir.TransposeOp,
    mindir.BroadcastToOp,
    mindir.GetItemOp,
    mindir.CastOp,
    mindir.ConcatOp,
    mindir.StackOp,
    mindir.MakeTupleOp,
    mindir.TupleGetItemOp,
    mindir.CheckRangeOp,  # its result is its input once lowered
)


def _load_users(load: mindir.LoadOp, block: Block) -> list[Operation]:
    """The ops of `block` that use the loaded value, also through depend and
    through ops whose result may alias it (a reshape of a Load is a view of the
    Parameter's buffer, so its users must also run before the next write)."""
    users: dict[Operation, None] = {}
    values: list[SSAValue] = [load.result]
    seen: set[SSAValue] = set()
    while values:
        value = values.pop()
        if value in seen:
            continue
        seen.add(value)
        for use in value.uses:
            user = use.operation
            if (isinstance(user, mindir.DependOp) and use.index == 0) or isinstance(
                user, _ALIASING_OPS
            ):
                values.extend(user.results)
            holder = block_ancestor(user, block)
            if holder is None or holder is load:
                continue
            if isinstance(holder, mindir.UpdateStateOp) or holder.has_trait(IsTerminator):
                continue
            if not holder.results:
                continue
            users[holder] = None
    return list(users)


class _WriteAfterRead:
    def __init__(self, writes: Effects, block: Block):
        self.writes = writes
        self.block = block
        self.graph = _BlockGraph(block)
        self.inserted: dict[Operation, mindir.UpdateStateOp] = {}
        #: what each update_state attaches, as a set (asked for every user attached)
        self.attached: dict[mindir.UpdateStateOp, set[SSAValue]] = {}

    def run(self) -> None:
        self.graph.track_ranks()
        depth = _state_depths(self.block)
        events: list[tuple[int, int, Operation, SSAValue | None, Writes]] = []
        for i, op in enumerate(self.graph.ops):
            if isinstance(op, mindir.LoadOp):
                events.append((depth.get(op.state, 0), i, op, None, frozenset()))
                continue
            if not isinstance(op, (*mindir.WRITER_OPS, func.CallOp, mindir.IfOp, mindir.WhileOp)):
                continue
            written = self.writes.writes(op)
            state = input_state(op)
            if written and state is not None:
                events.append((depth.get(state, 0), i, op, state, written))
        events.sort(key=lambda e: (e[0], e[1]))
        # the Loads not yet followed by a write of their Parameter, by symbol (None:
        # a ref no symbol names, which every write may hit), in event order: a write
        # looks only at the Loads it conflicts with
        pending: dict[str | None, list[tuple[int, mindir.LoadOp]]] = {}
        for n, (_, _, op, state, written) in enumerate(events):
            if isinstance(op, mindir.LoadOp):
                pending.setdefault(parameter_symbol(op.ref), []).append((n, op))
                continue
            assert state is not None
            if ANY in written:
                hit = [load for loads in pending.values() for load in loads]
                pending = {}
            else:
                hit = [load for k in (*written, None) for load in pending.pop(k, ())]
            for _, load in sorted(hit, key=lambda item: item[0]):
                self.order_before(load, op, state)

    def order_before(self, load: mindir.LoadOp, writer: Operation, state: SSAValue) -> None:
        """Attach every user of `load` that can run before `writer` to its input state."""
        for user in _load_users(load, self.block):
            if user is writer or self.graph.depends_on(user, writer):
                continue
            attach = [r for r in user.results]
            target = state.owner if isinstance(state, OpResult) else None
            if (
                isinstance(target, mindir.UpdateStateOp)
                and target.parent_block() is self.block
                and writer not in self.inserted
                and not self.graph.depends_on(user, target)
            ):
                self._attach(target, attach)
            else:
                self._attach(self._update_before(writer, state), attach)

    def _attach(self, update: mindir.UpdateStateOp, values: list[SSAValue]) -> None:
        present = self.attached.get(update)
        if present is None:
            present = self.attached[update] = set(update.attach)
        new = [v for v in values if v not in present]
        if new:
            present.update(new)
            update.operands = [*update.operands, *new]
            self.graph.attached(update, new)

    def _update_before(self, writer: Operation, state: SSAValue) -> mindir.UpdateStateOp:
        """The update_state inserted right before `writer` that it takes as its state."""
        update = self.inserted.get(writer)
        if update is not None:
            return update
        update = mindir.UpdateStateOp.get(state, [])
        update.location = writer.location
        update.result.name_hint = "u"
        Rewriter.insert_op(update, InsertPoint.before(writer))
        if isinstance(writer, mindir.IfOp):
            state.replace_uses_with_if(update.result, lambda use: writer.is_ancestor(use.operation))
        else:
            index = next(i for i, v in enumerate(writer.operands) if v is state)
            writer.operands[index] = update.result
        self.inserted[writer] = update
        self.graph.changed(update)
        self.graph.changed(writer)
        return update


# -- step 2: order ---------------------------------------------------------------------


def _describe(op: Operation, where: SourceLoc | None) -> str:
    loc = loc_of_op(op)
    if loc is None:
        return f"'{op.name}' (no location)"
    if where is not None and loc.file == where.file:
        return f"'{op.name}' at {loc.line}:{loc.col}"
    return f"'{op.name}' at {loc}"


def _cycle_error(graph: _BlockGraph, remaining: set[Operation]) -> MindjitError:
    start = min(remaining, key=graph.index.__getitem__)
    path: list[Operation] = [start]
    position = {start: 0}
    current = start
    while True:
        pred = min((p for p in graph.preds(current) if p in remaining), key=graph.index.__getitem__)
        if pred in position:
            cycle = path[position[pred] :]
            break
        position[pred] = len(path)
        path.append(pred)
        current = pred
    # `cycle` lists each op followed by one it needs; report from the first in the block
    first = min(range(len(cycle)), key=lambda i: graph.index[cycle[i]])
    cycle = cycle[first:] + cycle[:first]
    where = loc_of_op(cycle[0])
    chain = ", which needs ".join(_describe(op, where) for op in [*cycle, cycle[0]])
    return MindjitError(f"mindir-depend-order: the ops form a dependency cycle: {chain}", where)


def order_block(block: Block, graph: _BlockGraph | None = None) -> None:
    """Sort `block` topologically (stable; see the module doc) or raise on a cycle;
    `graph`: the block's graph from step 1, refreshed instead of built again."""
    if graph is None:
        graph = _BlockGraph(block)
    else:
        graph.refresh()
    ops = graph.ops
    if len(ops) < 2:
        return
    term = ops[-1] if ops[-1].has_trait(IsTerminator) else None
    body = ops[:-1] if term is not None else ops
    order, stuck = graph.stable_order(body)
    if stuck:
        raise _cycle_error(graph, stuck)
    if term is not None:
        order.append(term)
    if order == ops:
        return
    for op in order:
        block.detach_op(op)
        block.add_op(op)


@dataclass(frozen=True)
class MindirDependOrderPass(ModulePass):
    """Order every user of a Load before the next write of its Parameter, then sort
    every block topologically over data, Depend and UpdateState edges (see the
    module doc); a dependency cycle is a located error."""

    name = "mindir-depend-order"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        writes = Effects(op)
        # symbol tables (module bodies) hold graphs and Parameters, not ordered code
        blocks = [b for b in op.walk_blocks() if not isinstance(b.parent_op(), ModuleOp)]
        graphs: dict[Block, _BlockGraph] = {}
        for block in blocks:
            if any(isinstance(o, mindir.LoadOp) for o in block.ops):
                step = _WriteAfterRead(writes, block)
                step.run()
                graphs[block] = step.graph
        for block in blocks:
            order_block(block, graphs.get(block))
