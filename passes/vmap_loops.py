"""mindir-vmap's rules for loops: `mindir.while` and the records of its gradient.

A while inside a vmap runs the loop once for the whole batch (JAX's batching of
`while_loop`):

- Which carried values are batched is a fixpoint: those whose initial value is,
  and those the body makes from a batched value (`_batched_in_loop`, an
  over-approximation: a value it calls batched that comes out shared is
  broadcast, never the other way round).
- A condition the same for every example (`while i < n` with n shared): the loop
  is the same loop on batched values.
- A condition that differs per example: every example runs until its own
  condition is false, so the loop runs while any example's is true
  (`reduce_max` of the mask), and the body's new values are taken only where
  the example's condition held (`select(mask, new, old)`); an example that is
  done keeps its values, and its condition region, run again on them, forwards
  what it forwarded when it stopped. Every carried value is then batched.
- A loop's record (`mindir.stack_*`, dialects/mindir/stack.py) holds batched
  items as `tensor<?xBx...>`: pushes and reads at a shared slot are the same
  ops on the batched items. At a slot that differs per example (the record of
  a differentiated loop whose trip count differs per example: its counter is
  masked like every carried value) they take a `tensor<Bxi64>` index, one slot
  per example, and lower to a loop over the examples. A record is carried
  unmasked: a done example's push rewrites its own last slot with the values it
  kept, which changes nothing. So `vmap(grad(f))` batches any loop's gradient.

Side effects inside are refused as everywhere in a vmap.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseIntOrFPElementsAttr, TensorType, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from mindjit.dialects import mindir
from mindjit.dialects import mindir as V
from mindjit.dialects.mindir.stack import item_type, stack_type
from mindjit.dialects.mindir.types import is_monad
from mindjit.ir.locations import op_error
from mindjit.passes.analysis.effects import values_from_outside


def is_stack(t: Attribute) -> bool:
    return isinstance(t, TensorType) and bool(t.get_shape()) and t.get_shape()[0] == DYNAMIC_INDEX


def batched_type(t: Attribute, size: int) -> Attribute:
    """`t` with the batch: axis 0, or axis 1 of a record (its items are batched)."""
    assert isinstance(t, TensorType)
    if is_stack(t):
        item = item_type(t)
        return stack_type(TensorType(item.get_element_type(), [size, *item.get_shape()]))
    return TensorType(t.get_element_type(), [size, *t.get_shape()])


def batch_shared(b: Any, v: SSAValue, like: Operation) -> SSAValue:
    """A shared value repeated for every example; an empty record made anew with
    batched items (a record with items cannot be broadcast)."""
    if is_stack(v.type):
        if not isinstance(v.owner, mindir.StackNewOp):
            raise op_error(like, "mindir-vmap: a loop's record filled before the vmap")
        return b._emit(V.StackNewOp.get(item_type(batched_type(v.type, b.size))), like)
    return b._broadcast(v, like)


def _batched_in_loop(b: Any, op: mindir.WhileOp, args: list, force: bool) -> set[SSAValue]:
    """The loop's values that may be batched (module doc); `force`: every carried one."""
    before, body = op.before_region.block, op.after_region.block
    cond, yld = before.last_op, body.last_op
    assert isinstance(cond, mindir.ConditionOp) and isinstance(yld, mindir.YieldOp)
    found: set[SSAValue] = set()

    def batched(v: SSAValue) -> bool:
        known = b.env.get(v)
        return v in found or (known is not None and known.batched)

    def mark(block: Block) -> None:
        for inner in block.ops:
            for region in inner.regions:
                for nested in region.blocks:
                    mark(nested)
            used = values_from_outside(inner) if inner.regions else inner.operands
            if any(batched(v) for v in used):
                found.update(r for r in inner.results if not is_monad(r.type))

    for a, v in zip(before.args, args):
        if not is_monad(a.type) and (force or v.batched):
            found.add(a)
    while True:
        mark(before)
        for a, f in zip(body.args, cond.arguments):
            if batched(f) and not is_monad(a.type):
                found.add(a)
        mark(body)
        grew = False
        for a, y in zip(before.args, yld.values):
            if batched(y) and a not in found and not is_monad(a.type):
                found.add(a)
                grew = True
        if not grew:
            return found


def _value(b: Any, v: SSAValue, want: bool, like: Operation) -> SSAValue:
    """`v` as batched (`want`) or shared; shared made batched by repetition."""
    got = b._get(v)
    x = b._tensor(got, like)
    if want and not got.batched:
        return batch_shared(b, x, like)
    if got.batched and not want:
        raise op_error(like, "mindir-vmap: a loop value batched where the loop keeps it shared")
    return x


def batch_while(b: Any, op: Operation, args: list) -> None:
    """The batching rule of `mindir.while` (module doc)."""
    assert isinstance(op, mindir.WhileOp)
    before, body = op.before_region.block, op.after_region.block
    cond, yld = before.last_op, body.last_op
    assert isinstance(cond, mindir.ConditionOp) and isinstance(yld, mindir.YieldOp)
    found = _batched_in_loop(b, op, args, force=False)
    per_example = cond.cond in found
    if per_example:
        found = _batched_in_loop(b, op, args, force=True)
    carried = [a in found for a in before.args]
    forwarded = [f in found or (per_example and not is_monad(f.type)) for f in cond.arguments]
    types = [batched_type(a.type, b.size) if k else a.type for a, k in zip(before.args, carried)]
    ftypes = [
        batched_type(f.type, b.size) if k else f.type for f, k in zip(cond.arguments, forwarded)
    ]
    inits = [
        batch_shared(b, b._tensor(v, op), op) if k and not v.batched else b._tensor(v, op)
        for v, k in zip(args, carried)
    ]
    outer = b.point

    # the condition region
    new_before = _batched_block(b, before, types, carried)
    fwd = [_value(b, f, k, cond) for f, k in zip(cond.arguments, forwarded)]
    extra_types: list[Attribute] = []
    if per_example:
        mask = b._tensor(b._get(cond.cond), cond)
        any_active = _any(b, mask, cond)
        extra_types = [mask.type, *types]
        b._insert(V.ConditionOp(any_active, *fwd, mask, *new_before.args), cond)
    else:
        b._insert(V.ConditionOp(b._tensor(b._get(cond.cond), cond), *fwd), cond)

    # the body
    new_body = _batched_block(b, body, [*ftypes, *extra_types], forwarded)
    new_values = [_value(b, y, k, yld) for y, k in zip(yld.values, carried)]
    if per_example:
        mask = new_body.args[len(ftypes)]
        old = new_body.args[len(ftypes) + 1 :]
        new_values = [
            _keep_done(b, mask, n, o, yld) if k else n for n, o, k in zip(new_values, old, carried)
        ]
    b._insert(V.YieldOp(*new_values), yld)

    b.point = outer
    new = b._insert(
        V.WhileOp(inits, [*ftypes, *extra_types], Region(new_before), Region(new_body)), op
    )
    for r, nr, k in zip(op.results, new.results, forwarded):
        nr.name_hint = r.name_hint
        b.env[r] = b.value(nr, k)


def _batched_block(b: Any, old: Block, types: list[Attribute], batched: list[bool]) -> Block:
    """A new block of `types` standing for `old` (its arguments batched as `batched`
    says), holding `old`'s ops but its terminator, batched; the batcher then emits
    at its end."""
    new = Block(arg_types=types)
    for a, na, k in zip(old.args, new.args, batched):
        b.env[a] = b.value(na, k)
    b.point = InsertPoint.at_end(new)
    for inner in list(old.ops)[:-1]:
        b._batch(inner)
    return new


def _any(b: Any, mask: SSAValue, like: Operation) -> SSAValue:
    """Whether any example's condition holds: a 0-d i1 from a [B] mask."""
    as_int = b._emit(V.CastOp.get(mask, i32), like)
    top = b._emit(V.ReduceMaxOp.get(as_int, (0,), False), like)
    zero_attr = DenseIntOrFPElementsAttr.from_list(TensorType(i32, []), [0])
    zero = b._emit(V.ConstantOp.make([], {"value": zero_attr}), like)
    return b._emit(V.GreaterOp.get(top, zero), like)


def _keep_done(b: Any, mask: SSAValue, new: SSAValue, old: SSAValue, like: Operation) -> SSAValue:
    """`new` where the example's condition held, else `old` (records: `new`: a done
    example rewrites its last slot with the same values; module doc)."""
    if is_stack(new.type) or is_monad(new.type):
        return new
    rank = len(new.type.get_shape()) - 1  # type: ignore[attr-defined]
    return b._emit(V.SelectOp.get(b._align(mask, rank, like), new, old), like)


def batch_stack(b: Any, op: Operation, args: list) -> None:
    """`stack_push` / `stack_read` on batched items: at a shared slot, the same op; at a
    slot per example, its per-example form (a `tensor<Bxi64>` index; module doc)."""
    index = args[1]
    stack = args[0]
    s = b._tensor(stack, op)
    if not stack.batched:
        s = batch_shared(b, s, op)
    k = b._tensor(index, op)
    if isinstance(op, mindir.StackPushOp):
        x = _value(b, op.value, True, op)
        out = b._emit(V.StackPushOp.get(s, k, x), op)
    else:
        out = b._emit(V.StackReadOp.get(s, k), op)
    out.name_hint = op.results[0].name_hint
    b.env[op.results[0]] = b.value(out, True)
