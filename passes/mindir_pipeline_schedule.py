"""mindir-pipeline-schedule{schedule}: each stage graph in 1F1B or GPipe order.

Runs right after `mindir-pipeline-split` (before depend-order, whose stable
topological sort keeps the order). The stages of a pipeline run at once, a
receive waiting for its send, so the order of the ops in each stage graph IS the
schedule that runs. The split keeps the original graph's order: the unrolled
micro-batch loop's Y forwards, then the Y backwards reverse-mode
differentiation gives (last micro-batch first), which is GPipe's order, and every
stage holds all Y micro-batches' activations. This pass reorders every stage
graph into `device_order(s, X, Y, schedule)` (passes/analysis/pipeline_order.py,
the same function the simulated devices use): for 1F1B, stage s runs
min(X - s - 1, Y) warm-up forwards, then one forward and one backward in turn,
then the remaining backwards, so it holds at most X - s micro-batches'
activations.

**Which work an op is** (its micro-batch m, and forward or backward) is found by
dataflow over all the stage graphs of one pipeline together
(passes/analysis/pipeline_work.py says how and why not by attributes):
`nn.PipelineCell`'s slices of the inputs seed each micro-batch, labels flow
through operands and from a send to its receive, and a micro-batch's forward is
what its loss is made from. A lazy-inline call (of a shared Block graph) is one
op, one unit of work.

**The order**: a list scheduling of each stage graph's dependence graph (every
operand, including states and values used inside regions, so SSA and the
`!mindir.u` chain are kept) that always runs the ready op of the earliest work:
an F/B op has the position of its (kind, m) in `device_order`; an op of no group
has the latest position of what it uses (so a gradient accumulation runs right
after its last operand, an optimizer update after the last backward, a Parameter
load first), ties broken by the original order. The one chain that contradicts a
schedule is the `!mindir.io` chain the split threads through the stage's
sends and receives in the original order: it orders nothing but the channel ops
themselves, so when it is a simple chain the pass drops it as a dependence
between channel ops (a print keeps its order among prints) and threads it again
in the new order. Gradient accumulation `add` chains (one Parameter's
per-micro-batch gradients summed in the original backward order) are summed
again in the new order of their micro-batches, each sum right after the op that
makes its new term, so 1F1B keeps one accumulator per Parameter instead of Y
gradients (the sum's rounding changes by an ulp or so).
Each F/B op is marked `mindir.pipeline_micro = "F<m>"` / `"B<m>"`, and the
lowering copies the mark onto the ops it makes (backend/cpu/memory_meter.py
measures activations by it).

**Why the stages cannot deadlock.** The stages are a Kahn process network:
each runs a fixed sequence, a receive blocks until its value is there, a send
never blocks (channels buffer). Such a network is determinate: if one
interleaving runs every stage to its end, every fair interleaving does. The pass
checks one: it replays the stage graphs' channel ops, advancing any stage whose
next channel op is a send or a receive whose send has run, and reports a
located error if all stages wait (it never happens for these schedules when
the IR follows them: warm-up forwards of stage s need only stage s - 1's
forwards, which come earlier in its order, and B(m) on stage s needs B(m) on
stage s + 1, which runs there after F(m) and at most X - s - 2 further
forwards, all fed by earlier forwards, the standard PipeDream-Flush argument).
An order that dependences force away from the schedule (a state chain through
micro-batches) is still a topological order and is checked the same way.

Graphs that are not stage graphs, and pipelines whose micro-batches cannot be
told (mixed slice sizes), are left as they are.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator

from mindjit.dialects import mindir
from mindjit.dialects.mindir.discardable import (
    MICRO_BATCHES_ATTR,
    PIPELINE_MICRO_ATTR,
    PIPELINE_OF_ATTR,
    PIPELINE_SCHEDULE_ATTR,
    stage_of_attr,
)
from mindjit.ir.locations import loc_of_op
from mindjit.passes.analysis.effects import state_kind, values_from_outside
from mindjit.passes.analysis.pipeline_order import SCHEDULES, device_order
from mindjit.passes.analysis.pipeline_work import PipelineWork
from mindjit.support.errors import MindjitError


@dataclass(frozen=True)
class MindirPipelineSchedulePass(ModulePass):
    """Order every pipeline stage graph by `schedule` (see the module doc)."""

    name = "mindir-pipeline-schedule"

    schedule: str = "1f1b"

    def __post_init__(self) -> None:
        if self.schedule not in SCHEDULES:
            raise ValueError(
                f"schedule must be one of {', '.join(SCHEDULES)}, got '{self.schedule}'"
            )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        schedule_pipelines(op, self.schedule)


def schedule_pipelines(module: ModuleOp, schedule: str = "1f1b") -> dict[str, int]:
    """Order the stage graphs of every split graph of `module` in place; returns
    each scheduled graph's micro-batches (Y)."""
    groups: dict[str, list[func.FuncOp]] = defaultdict(list)
    for op in module.body.block.ops:
        if isinstance(op, func.FuncOp) and op.body.blocks:
            of = op.attributes.get(PIPELINE_OF_ATTR)
            if isinstance(of, StringAttr):
                groups[of.data].append(op)
    done: dict[str, int] = {}
    for graph, fns in groups.items():
        fns.sort(key=lambda f: stage_of_attr(f) or 0)
        y = _Pipeline(fns).schedule(schedule)
        if y is not None:
            done[graph] = y
    return done


class _Pipeline(PipelineWork):
    """The stage graphs of one pipeline, ordered by a schedule (module doc)."""

    def __init__(self, fns: list[func.FuncOp]):
        super().__init__(fns)
        #: per stage: the io chain `_order` dropped and `_apply` threads again
        self.chains: dict[int, dict[Operation, SSAValue] | None] = {}

    def schedule(self, schedule: str) -> int | None:
        y = self.find()
        if y is None:
            return None
        x = len(self.fns)
        orders = []
        for k in range(x):
            rank = {w: i for i, w in enumerate(device_order(k, x, y, schedule))}
            _reassociate_sums(self, k, rank)
            orders.append(self._order(k, rank))
        _check_no_deadlock(self, orders, schedule)
        for k, order in enumerate(orders):
            self._apply(k, order)
            self.fns[k].attributes[PIPELINE_SCHEDULE_ATTR] = StringAttr(schedule)
            self.fns[k].attributes.setdefault(MICRO_BATCHES_ATTR, IntegerAttr(y, i64))
        return y

    def _order(self, k: int, rank: dict[tuple[str, int], int]) -> list[Operation]:
        ops = self.ops[k]
        index = {o: i for i, o in enumerate(ops)}
        chain = _io_chain(self.blocks[k], ops)
        deps: dict[Operation, set[Operation]] = {}
        previous_effect: Operation | None = None
        for o in ops:
            ds = {p for v in self.inputs[o] if (p := self.producer(v, k)) is not None}
            if chain is not None and o in chain:
                io_in = chain[o]
                if (p := self.producer(io_in, k)) is not None:
                    ds.discard(p)
                if not isinstance(o, mindir.SendOp | mindir.ReceiveOp):
                    if previous_effect is not None:
                        ds.add(previous_effect)
                    previous_effect = o
            deps[o] = ds
        key: dict[Operation, int] = {}
        for root in ops:  # depth first, what an op uses before it
            stack = [(root, False)]
            while stack:
                o, done = stack.pop()
                if o in key:
                    continue
                if not done:
                    stack.append((o, True))
                    stack += [(d, False) for d in deps[o] if d not in key]
                    continue
                w = self.work(o)
                if w is not None and w in rank:
                    key[o] = rank[w]
                else:
                    key[o] = max((key[d] for d in deps[o]), default=-1)
        users: dict[Operation, list[Operation]] = defaultdict(list)
        waiting = {o: len(ds) for o, ds in deps.items()}
        for o, ds in deps.items():
            for d in ds:
                users[d].append(o)
        ready = [(key[o], index[o], o) for o in ops if waiting[o] == 0]
        heapq.heapify(ready)
        order: list[Operation] = []
        while ready:
            _, _, o = heapq.heappop(ready)
            order.append(o)
            for u in users[o]:
                waiting[u] -= 1
                if waiting[u] == 0:
                    heapq.heappush(ready, (key[u], index[u], u))
        assert len(order) == len(ops), "the stage graph's dependences have a cycle"
        self.chains[k] = chain
        return order

    def _apply(self, k: int, order: list[Operation]) -> None:
        block, ret = self.blocks[k], self.returns[k]
        assert ret is not None
        chain = self.chains.get(k)
        placed: set[Operation] = set()
        for o in order:
            assert all(
                (q := self.producer(v, k)) is None
                or q in placed
                or (chain is not None and state_kind(v.type) == "io")
                for v in self.inputs[o]
            ), "an op placed before what it uses"
            placed.add(o)
            block.detach_op(o)
            block.insert_op_before(o, ret)
            w = self.work(o)
            if w is not None:
                o.attributes[PIPELINE_MICRO_ATTR] = StringAttr(f"{w[0]}{w[1]}")
        if chain is None:
            return
        io: SSAValue = next(a for a in block.args if state_kind(a.type) == "io")
        for o in order:
            if o in chain:
                old = chain[o]
                o.operands = [io if x is old else x for x in o.operands]
                io = next(r for r in o.results if state_kind(r.type) == "io")
        ret.operands = [io if state_kind(v.type) == "io" else v for v in ret.operands]


def _io_chain(block: Block, ops: list[Operation]) -> dict[Operation, SSAValue] | None:
    """When the block threads one `!mindir.io` through its ops as a simple chain (each
    io value used once, each op taking it as a direct operand and making the next),
    each chained op's io operand; else None (the chain is then kept as it is)."""
    args = [a for a in block.args if state_kind(a.type) == "io"]
    if len(args) != 1:
        return None
    chain: dict[Operation, SSAValue] = {}
    v: SSAValue = args[0]
    while True:
        uses = list(v.uses)
        if len(uses) != 1:
            return None
        user = uses[0].operation
        if user.has_trait(IsTerminator):
            break
        if user.parent is not block or any(
            state_kind(x.type) == "io" for x in user.operands if x is not v
        ):
            return None
        outs = [r for r in user.results if state_kind(r.type) == "io"]
        if len(outs) != 1:
            return None
        chain[user] = v
        v = outs[0]
    io_users = [o for o in ops if any(state_kind(x.type) == "io" for x in values_from_outside(o))]
    return chain if all(o in chain for o in io_users) else None


# -- gradient accumulation in the new order ------------------------------------------------


def _reassociate_sums(p: _Pipeline, k: int, rank: dict[tuple[str, int], int]) -> None:
    """Sum each chain of same-typed `mindir.add`s of no group (a Parameter's gradients
    of several micro-batches) again, its terms in the order the schedule makes them."""
    block = p.blocks[k]

    def is_sum(o: Operation | None) -> bool:
        return (
            isinstance(o, mindir.AddOp)
            and o.parent is block
            and p.work(o) is None
            and o.operands[0].type == o.results[0].type == o.operands[1].type
        )

    def inner(v: SSAValue) -> bool:
        o = p.producer(v, k)
        return is_sum(o) and _one_use(v)

    roots = [
        o
        for o in p.ops[k]
        if is_sum(o) and not (_one_use(o.results[0]) and is_sum(_single_user(o)))
    ]
    for root in roots:
        terms: list[SSAValue] = []
        adds: list[Operation] = []
        stack: list[SSAValue] = [root.results[0]]
        while stack:
            v = stack.pop()
            o = p.producer(v, k)
            if v is root.results[0] or inner(v):
                assert o is not None
                adds.append(o)
                stack += [o.operands[1], o.operands[0]]
            else:
                terms.append(v)
        if len(terms) < 3:
            continue

        def when(v: SSAValue) -> int:
            o = p.producer(v, k)
            w = p.work(o) if o is not None else None
            return rank.get(w, -1) if w is not None else -1

        ordered = sorted(terms, key=when)  # stable: ties keep the original order
        if all(a is b for a, b in zip(ordered, terms)):
            continue  # already summed in this order (terms are left to right)
        acc = ordered[0]
        for t in ordered[1:]:
            add = mindir.AddOp.get(acc, t)
            add.attributes.update(root.attributes)
            block.insert_op_before(add, root)
            # right after its new term in the list the order's ties break by, so
            # each sum runs as soon as its term is made (a Block's gradients are
            # added as its backward call returns, not after the whole backward)
            q = p.producer(t, k)
            p.ops[k].insert(p.ops[k].index(q) + 1 if q is not None else 0, add)
            p.inputs[add] = [acc, t]
            p.stage[add] = k
            p.label[add] = p.label.get(root, frozenset())
            acc = add.results[0]
        root.results[0].replace_all_uses_with(acc)
        for use in acc.uses:  # they read the new sum now
            if use.operation in p.inputs:
                p.inputs[use.operation] = values_from_outside(use.operation)
        for o in adds:  # users first: the root, then its operands' adds
            block.detach_op(o)
            p.ops[k].remove(o)
            del p.inputs[o]
        for o in adds:
            o.erase(safe_erase=False)


def _single_user(o: Operation) -> Operation:
    return next(iter(o.results[0].uses)).operation


# -- the deadlock check ---------------------------------------------------------------------


def _check_no_deadlock(p: _Pipeline, orders: list[list[Operation]], schedule: str) -> None:
    """Replay the channel ops of every stage (module doc): a located error if the
    stages would wait for each other forever."""
    channels = [
        [o for o in order if isinstance(o, mindir.SendOp | mindir.ReceiveOp)] for order in orders
    ]
    at = [0] * len(channels)
    sent: set[int] = set()
    progress = True
    while progress:
        progress = False
        for k, ops in enumerate(channels):
            while at[k] < len(ops):
                o = ops[at[k]]
                tag = o.sr_tag.value.data
                if isinstance(o, mindir.ReceiveOp) and tag not in sent and tag in p.send:
                    break
                sent.add(tag)
                at[k] += 1
                progress = True
    for k, ops in enumerate(channels):
        if at[k] < len(ops):
            o = ops[at[k]]
            raise MindjitError(
                f"mindir-pipeline-schedule: the {schedule} order of the stages deadlocks: "
                f"stage {k} waits for sr_tag {o.sr_tag.value.data}, which its sender "
                "reaches only after a receive that waits too",
                loc_of_op(o),
            )


def _one_use(v: SSAValue) -> bool:
    uses = iter(v.uses)
    return next(uses, None) is not None and next(uses, None) is None
