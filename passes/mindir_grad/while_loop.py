"""mindir-grad through `mindir.while`: record the carried values, recompute backward.

A while whose trip count is known only at run time cannot be unrolled, so its
adjoint is a second loop running the iterations backward. The policy (the
classic memory/recompute trade, as MindSpore's `recompute` and checkpointed
loops make it): the forward loop records only what the body cannot recompute,
and the backward loop recomputes the rest.

- **The record.** The forward loop gets a counter `k` and one stack
  (`mindir.stack_push`, dialects/mindir/stack.py) per carried value: at the top
  of the condition region, iteration k pushes its carried values into slot k
  (n + 1 pushes for n trips: the condition runs once more than the body). It
  also pushes what recomputing would get wrong: the value of a Load of a
  Parameter the loop itself writes (the effects analysis, passes/analysis/
  effects.py, says which) and the results of ops that are not pure. A Load of
  a Parameter the loop does not write is recomputed: it reads the state the
  loop started from, which holds the same value. So the record is n + 1 times
  the carried values (plus those Loads), no more: an LSTM over time records h,
  c and its counter, never its gates.
- **The backward.** After the forward loop, the condition region's adjoint at
  the last slot (recomputed there), then a `mindir.while` counting the slots
  down: each iteration reads slot i - 1, recomputes the condition region and
  the body from it (clones without side effects: Assigns, update_state and
  print are left out, a saved value replaces its op), and runs the existing
  adjoint rules over the clone (mindir.if, nested whiles: this same code).
  The backward loop carries the adjoints of the carried values and sums those
  of the values the loop reads from outside and of the weight Parameters it
  loads. The body runs twice per iteration in all (forward, recompute): the
  cost of holding only the carried values.
- **Activity** is a fixpoint: a carried value is varying when its initial value
  is or when the body makes it from a varying value (`mark_while`).

Left out, each a located error: a carried tuple (the frontend carries tensors),
and side effects nested in an `if` or inner loop of the loop (an Assign or a
Load of a Parameter the loop writes there: its per-iteration value would have
to leave the branch). Second order through a recorded loop is refused by the
stack ops' rules (rules.py).
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import TensorType, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import Pure

from mindjit.dialects import mindir as M
from mindjit.dialects.mindir.stack import stack_type
from mindjit.dialects.mindir.types import is_monad
from mindjit.ir.locations import op_error
from mindjit.ir.walk import walk_ops
from mindjit.passes.analysis.effects import (
    Effects,
    defined_inside,
    parameter_symbol,
    ref_key,
    state_kind,
)
from mindjit.passes.mindir_grad.adjoints import accumulate, differentiable, materialize
from mindjit.passes.mindir_grad.emitter import GradEmitter

_COUNTER = TensorType(i64, [])

#: ops a recompute drops: their effect already happened in the forward loop
_DROPPED = (M.AssignOp, M.UpdateStateOp, M.PrintOp)
#: not pure, but recomputing them gives the same value
_REPLAYED = (M.DependOp, M.TensorMoveOp, M.LoadOp, M.IfOp, M.WhileOp)


# --- activity ----------------------------------------------------------------------------


def mark_while(bp: Any, op: M.WhileOp) -> None:
    """Mark the loop's varying values: to a fixpoint over the carried values."""
    before, body = op.before_region.block, op.after_region.block
    cond, yld = before.last_op, body.last_op
    assert isinstance(cond, M.ConditionOp) and isinstance(yld, M.YieldOp)
    for a, init in zip(before.args, op.arguments):
        if init in bp.varying and differentiable(a.type):
            bp.varying.add(a)
    while True:
        bp.mark(before)
        for a, f in zip(body.args, cond.arguments):
            if f in bp.varying and differentiable(a.type):
                bp.varying.add(a)
        bp.mark(body)
        grew = False
        for a, y in zip(before.args, yld.values):
            if y in bp.varying and a not in bp.varying and differentiable(a.type):
                bp.varying.add(a)
                grew = True
        if not grew:
            break
    for r, f in zip(op.results, cond.arguments):
        if f in bp.varying and differentiable(r.type):
            bp.varying.add(r)


# --- what the record holds ---------------------------------------------------------------


def _saved_ops(op: M.WhileOp, block: Block, effects: Effects) -> list[Operation]:
    """The ops of `block` (a region of `op`) whose results the record keeps: Loads of
    a Parameter the loop writes, ops that are not pure. Side effects deeper down are
    refused (module doc)."""
    saved: list[Operation] = []
    for inner in list(block.ops)[:-1]:
        if isinstance(inner, M.LoadOp):
            if effects.may_write(op, ref_key(inner.ref)):
                saved.append(inner)
            continue
        if isinstance(inner, _DROPPED) or isinstance(inner, _REPLAYED):
            if inner.regions:
                _check_nested(op, inner, effects)
            continue
        if not inner.has_trait(Pure) and any(not is_monad(r.type) for r in inner.results):
            saved.append(inner)
    return saved


def _check_nested(loop: M.WhileOp, holder: Operation, effects: Effects) -> None:
    for inner in walk_ops(holder):
        if inner is holder:
            continue
        effect = isinstance(inner, (*M.WRITER_OPS, M.PrintOp)) or (
            isinstance(inner, M.LoadOp) and effects.may_write(loop, ref_key(inner.ref))
        )
        if effect or not (
            inner.has_trait(Pure) or isinstance(inner, _REPLAYED + _DROPPED) or inner.regions
        ):
            raise op_error(
                inner,
                f"mindir-grad: '{inner.name}' inside a branch or inner loop of a while that is "
                "differentiated: its per-iteration effect cannot be recorded there yet (move "
                "it to the loop body's top level)",
            )


def _check_carried(op: M.WhileOp) -> None:
    for a in op.before_region.block.args:
        if is_monad(a.type):
            continue
        if not isinstance(a.type, TensorType):
            raise op_error(
                op,
                f"mindir-grad: a while carrying a {a.type} cannot be differentiated yet "
                "(carry its tensors one by one)",
            )


# --- the forward loop, recording ---------------------------------------------------------


class _Record:
    """The forward loop rebuilt with a counter and its stacks (module doc)."""

    def __init__(self, op: M.WhileOp, saved: list[Operation], e: GradEmitter):
        before, body = op.before_region.block, op.after_region.block
        n = len(op.arguments)
        while n and is_monad(op.arguments[n - 1].type):
            n -= 1  # new carried values go before the states, which stay last
        self.at = n
        pushed_args = [a for a in before.args if not is_monad(a.type)]
        pushed_ops = [r for o in saved for r in o.results if not is_monad(r.type)]
        types = [_COUNTER] + [stack_type(v.type) for v in pushed_args + pushed_ops]
        pre = e.at(InsertPoint.before(op))
        inits = [pre.scalar(0, i64)]
        inits += [pre.v(M.StackNewOp.get(v.type)) for v in pushed_args + pushed_ops]
        self.args_count = len(pushed_args)

        b_new = [before.insert_arg(t, n + i) for i, t in enumerate(types)]
        a_new = [body.insert_arg(t, n + i) for i, t in enumerate(types)]
        k_before, k_body = b_new[0], a_new[0]
        stacks_before = list(b_new[1:])
        stacks_body = list(a_new[1:])
        # the carried values, at the top of the condition region
        first = before.first_op
        assert first is not None
        top = e.at(InsertPoint.before(first))
        self.ops: set[Operation] = set()  # the record's own ops: no recompute clones them
        for j, v in enumerate(pushed_args):
            stacks_before[j] = top.v(M.StackPushOp.get(stacks_before[j], k_before, v))
            self.ops.add(stacks_before[j].owner)
        # the values recomputing would get wrong, after the op that makes them
        for j, v in enumerate(pushed_ops, start=len(pushed_args)):
            owner = v.owner
            assert isinstance(owner, Operation)
            in_before = owner.parent_block() is before
            k, stacks = (k_before, stacks_before) if in_before else (k_body, stacks_body)
            after = e.at(InsertPoint.after(owner))
            stacks[j] = after.v(M.StackPushOp.get(stacks[j], k, v))
            self.ops.add(stacks[j].owner)
        cond = before.last_op
        assert isinstance(cond, M.ConditionOp)
        args = list(cond.arguments)
        cond.operands = [cond.cond, *args[:n], k_before, *stacks_before, *args[n:]]
        yld = body.last_op
        assert isinstance(yld, M.YieldOp)
        inc = e.at(InsertPoint.before(yld))
        k_next = inc.v(M.AddOp.get(k_body, inc.scalar(1, i64)))
        self.ops.add(k_next.owner)
        values = list(yld.values)
        yld.operands = [*values[:n], k_next, *stacks_body, *values[n:]]

        operands = list(op.arguments)
        results = list(op.res.types)
        m = len(types)
        kept = {i: i if i < n else i + m for i in range(len(operands))}  # old -> new
        new, self.moved = _rebuilt(
            op, [*operands[:n], *inits, *operands[n:]], [*results[:n], *types, *results[n:]], kept
        )
        self.op = new
        self.count = new.results[n]
        self.stacks = list(new.results[n + 1 : n + m])
        self.pushed_args = pushed_args
        self.pushed_ops = pushed_ops
        self.inits = inits

    def prune(self) -> None:
        """Drop the stacks no backward read (once the expansion erased what it did not
        need): a counter of no gradient's use, a Load only an Assign reads. The
        record then holds exactly what the backward reads."""
        op = self.op
        first = self.at + 1
        dead = [first + j for j, s in enumerate(self.stacks) if not s.uses]
        if not dead:
            return
        before, body = op.before_region.block, op.after_region.block
        cond, yld = before.last_op, body.last_op
        assert isinstance(cond, M.ConditionOp) and isinstance(yld, M.YieldOp)
        keep = [i for i in range(len(op.arguments)) if i not in dead]
        pushes = [cond.arguments[i].owner for i in dead] + [yld.values[i].owner for i in dead]
        cond.operands = [cond.cond, *(cond.arguments[i] for i in keep)]
        yld.operands = [yld.values[i] for i in keep]
        for push in pushes:
            if isinstance(push, M.StackPushOp) and not push.results[0].uses:
                Rewriter.erase_op(push)
        for block in (before, body):
            for i in reversed(dead):
                block.erase_arg(block.args[i])
        new, _ = _rebuilt(
            op,
            [op.arguments[i] for i in keep],
            [op.results[i].type for i in keep],
            {i: j for j, i in enumerate(keep)},  # a dropped result has no uses
        )
        for init in self.inits:
            owner = init.owner
            if isinstance(owner, M.StackNewOp) and not init.uses:
                Rewriter.erase_op(owner)
        self.op = new


def _rebuilt(
    op: M.WhileOp, operands: list, types: list, kept: dict[int, int]
) -> tuple[M.WhileOp, dict]:
    """`op` with new operands and result types, its regions moved over; old result i
    becomes new result kept[i] (its uses too). The new op, and old -> new results."""
    new = M.WhileOp(
        operands,
        types,
        Rewriter.move_region_contents_to_new_regions(op.before_region),
        Rewriter.move_region_contents_to_new_regions(op.after_region),
    )
    new.location = op.location
    new.attributes |= op.attributes
    Rewriter.insert_op(new, InsertPoint.before(op))
    moved = {op.results[i]: new.results[k] for i, k in kept.items()}
    for old, r in moved.items():
        old.replace_all_uses_with(r)
    Rewriter.erase_op(op)
    return new, moved


def _rename(moved: dict, *tables: dict) -> None:
    """Adjoints in `tables` that name a replaced result of the old loop (an adjoint
    folded to a forward value) name the new loop's instead."""

    def rename(g: Any) -> Any:
        return [rename(x) for x in g] if isinstance(g, list) else moved.get(g, g)

    for table in tables:
        for key, g in table.items():
            table[key] = rename(g)


# --- the recompute ---------------------------------------------------------------------


class _Recompute:
    """Clones of the loop's regions without side effects, for one slot."""

    def __init__(self, bp: Any, loop: M.WhileOp, record: _Record, states: dict[str, SSAValue]):
        self.bp = bp
        self.loop = loop
        self.record = record
        self.states = states  # "u"/"io" -> the state the loop started from

    def slot(self, e: GradEmitter, index: SSAValue) -> tuple[dict, dict]:
        """The reads of slot `index`: (carried value -> read, saved result -> read)."""
        rec = self.record
        reads = [e.v(M.StackReadOp.get(s, index)) for s in rec.stacks]
        args = dict(zip(rec.pushed_args, reads[: rec.args_count]))
        saved = dict(zip(rec.pushed_ops, reads[rec.args_count :]))
        for v, r in list(args.items()) + list(saved.items()):
            if v in self.bp.varying:
                self.bp.varying.add(r)
        return args, saved

    def block(
        self, e: GradEmitter, block: Block, inputs: list[SSAValue], saved: dict, mapper: dict
    ) -> list[Operation]:
        """Clone `block`'s ops (its arguments bound to `inputs`) at `e`; the clones."""
        for a, v in zip(block.args, inputs):
            mapper[a] = self._state(a) if is_monad(a.type) else v
        made: list[Operation] = []
        for op in list(block.ops)[:-1]:
            if op in self.record.ops:
                continue
            if any(r in saved for r in op.results):
                for r in op.results:
                    mapper[r] = saved[r] if r in saved else self._state(r)
                continue
            if isinstance(op, M.AssignOp):
                mapper[op.results[0]] = mapper.get(op.value, op.value)
                continue
            if isinstance(op, _DROPPED):
                for r in op.results:
                    mapper[r] = self._state(r)
                continue
            clone = op.clone(value_mapper=mapper)
            e.builder.insert(clone)
            e.created.append(clone)
            made.append(clone)
        for v in list(self.bp.varying):
            m = mapper.get(v)
            if m is not None:
                self.bp.varying.add(m)
        return made

    def _state(self, r: SSAValue) -> SSAValue:
        kind = state_kind(r.type)
        if kind is None or kind not in self.states:
            raise op_error(
                self.loop,
                f"mindir-grad: a {r.type} made in a differentiated while has no value to "
                "recompute it from",
            )
        return self.states[kind]


# --- the backward ------------------------------------------------------------------------


def grad_while(
    bp: Any, e: GradEmitter, op: M.WhileOp, douts: list, adj: dict, weight_adj: dict
) -> None:
    """Emit the adjoint of the forward loop `op` at `e` (module doc)."""
    _check_carried(op)
    effects = bp.effects
    before, body = op.before_region.block, op.after_region.block
    saved = _saved_ops(op, before, effects) + _saved_ops(op, body, effects)
    states = {
        kind: init
        for a, init in zip(before.args, op.arguments)
        if (kind := state_kind(a.type)) is not None
    }
    captures = _captures(bp, op)
    symbols = _loaded_weights(bp, op)

    rec = _Record(op, saved, e)
    bp.records.append(rec)
    _rename(rec.moved, adj, weight_adj)
    bp.varying.update(rec.moved[r] for r in rec.moved if r in bp.varying)
    douts = [rec.moved.get(d, d) if not isinstance(d, list) else d for d in douts]
    loop = rec.op
    before, body = loop.before_region.block, loop.after_region.block
    cond = before.last_op
    yld = body.last_op
    assert isinstance(cond, M.ConditionOp) and isinstance(yld, M.YieldOp)
    re = _Recompute(bp, loop, rec, states)
    carried = [j for j, a in enumerate(before.args) if a in bp.varying]

    # the condition region's adjoint at the last slot, outside the loop
    args, saved_reads = re.slot(e, rec.count)
    mapper: dict = {}
    inputs = [args.get(a, a) for a in before.args]
    last_ops = re.block(e, before, inputs, saved_reads, mapper)
    local: dict = {}
    for f, g in zip(cond.arguments, douts):
        f = mapper.get(f, f)
        if g is not None and f in bp.varying:
            accumulate(e, local, f, g)
    w_out: dict = {}
    bp.run(last_ops, local, e, w_out)
    _hand_out(e, local, w_out, captures, adj, weight_adj, saved_reads, bp)
    inits = [materialize(e, local.get(inputs[j]), before.args[j].type) for j in carried]

    # the loop over the slots, last first
    types = [_COUNTER] + [before.args[j].type for j in carried]
    types += [c.type for c in captures] + [t for _, t in symbols]
    zeros = [e.zeros(c.type) for c in captures] + [e.zeros(t) for _, t in symbols]
    b_cond = Block(arg_types=types)
    ce = e.at(InsertPoint.at_end(b_cond))
    more = ce.compare(M.GreaterOp, b_cond.args[0], ce.scalar(0, i64))
    ce.op(M.ConditionOp(more, *b_cond.args))
    b_body = Block(arg_types=types)
    be = e.at(InsertPoint.at_end(b_body))
    i = be.v(M.SubOp.get(b_body.args[0], be.scalar(1, i64)))
    d_carried = list(b_body.args[1 : 1 + len(carried)])
    acc = list(b_body.args[1 + len(carried) :])
    args, saved_reads = re.slot(be, i)
    mapper = {}
    inputs = [args.get(a, a) for a in before.args]
    made = re.block(be, before, inputs, saved_reads, mapper)
    forwarded = [mapper.get(f, f) for f in cond.arguments]
    made += re.block(be, body, forwarded, saved_reads, mapper)
    local = {}
    for j, g in zip(carried, d_carried):
        y = mapper.get(yld.values[j], yld.values[j])
        if y in bp.varying:
            accumulate(be, local, y, g)
    w_local: dict = {}
    bp.run(made, local, be, w_local)
    out_c: dict = {}
    out_w: dict = {}
    _hand_out(be, local, w_local, captures, out_c, out_w, saved_reads, bp)
    yields = [i] + [
        materialize(be, local.get(inputs[j]), types[1 + n]) for n, j in enumerate(carried)
    ]
    for a, c in zip(acc, captures):
        yields.append(be.add(a, out_c[c]) if out_c.get(c) is not None else a)
    for a, (s, _) in zip(acc[len(captures) :], symbols):
        yields.append(be.add(a, out_w[s]) if out_w.get(s) is not None else a)
    be.op(M.YieldOp(*yields))
    back = M.WhileOp([rec.count, *inits, *zeros], types, Region(b_cond), Region(b_body))
    e.op(back)

    n = len(carried)
    for j, g in zip(carried, back.results[1 : 1 + n]):
        if loop.arguments[j] in bp.varying:
            accumulate(e, adj, loop.arguments[j], g)
    for c, g in zip(captures, back.results[1 + n :]):
        accumulate(e, adj, c, g)
    for (s, _), g in zip(symbols, back.results[1 + n + len(captures) :]):
        accumulate(e, weight_adj, s, g)


def _hand_out(
    e: GradEmitter,
    local: dict,
    w_local: dict,
    captures: list[SSAValue],
    adj: dict,
    weight_adj: dict,
    saved_reads: dict,
    bp: Any,
) -> None:
    """Pass a recompute's adjoints on: those of values from outside the loop to `adj`,
    the weights' (Loads recomputed, or read from the record) to `weight_adj`."""
    for c in captures:
        accumulate(e, adj, c, local.get(c))
    for symbol, g in w_local.items():
        accumulate(e, weight_adj, symbol, g)
    for v, r in saved_reads.items():
        owner = v.owner
        if isinstance(owner, M.LoadOp):
            symbol = parameter_symbol(owner.ref)
            if symbol in bp.weights:
                accumulate(e, weight_adj, symbol, local.get(r))


def _captures(bp: Any, op: M.WhileOp) -> list[SSAValue]:
    """The varying values the loop's regions read from outside it, in a fixed order."""
    found: list[SSAValue] = []
    for inner in walk_ops(op):
        if inner is op:
            continue
        for v in inner.operands:
            if v in bp.varying and not defined_inside(v, op) and v not in found:
                found.append(v)
    return found


def _loaded_weights(bp: Any, op: M.WhileOp) -> list[tuple[str, Attribute]]:
    """The weight Parameters the loop loads, with their types."""
    found: dict[str, Attribute] = {}
    for inner in walk_ops(op):
        if isinstance(inner, M.LoadOp):
            symbol = parameter_symbol(inner.ref)
            if symbol in bp.weights and symbol not in found:
                found[symbol] = inner.results[0].type
    return list(found.items())
