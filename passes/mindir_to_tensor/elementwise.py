"""Pointwise mindir ops -> one all-parallel linalg.generic each, or per fused tree.

binary, compare, logical and unary ops (those with a scalar semantics in
scalar.py, keyed by op class), select and cast all become a single
`linalg.generic` over the result shape with `outs(tensor.empty)`, broadcasting made
explicit by indexing maps (see `Emitter.elementwise`), and a body of scalar arith /
math ops (see mindir_to_tensor/scalar.py for the per-type semantics).

With `fuse-elementwise` (the pass option; the CPU and IREE pipelines set it, the
device's keeps one kernel per node as MindSpore does without graph kernel fusion)
a pointwise op whose only user is a pointwise op of the same shape in the same
block is not lowered on its own: its user's generic computes it in its body
(`_fused_tree`), the way MLIR's linalg elementwise fusion would merge the two
generics afterwards. Doing it while lowering, not as a pass over the generics,
means the producers' generics are never built: in the sentiment model's train
step (an unrolled LSTM's forward and backward) 2,342 of its 5,369 pointwise ops
fuse (4,736 of 7,964 before sigmoid's and tanh's adjoints became one op each), and the lowered module has that many fewer generics for cse, the verifier
and the CPU planner. Each body op keeps the location of the mindir op it computes.
The values are the same: each scalar op is what the op's own generic computes,
in the same element type.

Three widenings, for the values an autodiff saves (examples/gpt.py's train step,
274 -> 176 generics, ~75 -> ~70 ms at one thread): a cheap tree read by a few
pointwise users is computed again in each (`_duplicable`); a broadcast_to read
only by pointwise ops becomes their broadcasting map (`leave_broadcast`); and an
update_state attaching a value does not stop its fusion when it comes after the
user (`_before`, `_holds_no_more`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from math import prod

from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.discardable import PIPELINE_MICRO_ATTR
from mindjit.passes.mindir_to_tensor import scalar
from mindjit.passes.mindir_to_tensor.builders import Emitter
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS

#: `(emitter, scalar operands) -> scalar result`: one pointwise op on elements.
Scalar = Callable[[Emitter, Sequence[SSAValue]], SSAValue]

#: Whether the lowering in this thread fuses (`fusing`): a compile may run in any thread.
_FUSE = threading.local()


@contextmanager
def fusing(enabled: bool) -> Iterator[None]:
    """While lowering: fuse pointwise trees into one generic when `enabled`.

    `_FUSE.left` holds the ops left for their users (by id, in the walk's order:
    producers first, so a user's tree finds them there). One whose user turned out
    dead (the walk erases a dead op instead of lowering it) is dead too: the pass's
    sweep of unused ops (ir/dead_ops.py) erases it at the end."""
    saved = tuple(getattr(_FUSE, name, None) for name in ("enabled", "left", "order"))
    _FUSE.enabled, _FUSE.left, _FUSE.order = enabled, {}, {}
    try:
        yield
    finally:
        _FUSE.enabled, _FUSE.left, _FUSE.order = saved


def pointwise(op: Operation) -> tuple[Sequence[SSAValue], Scalar] | None:
    """The operands and the scalar computation of a pointwise op, or None."""
    kind = type(op)
    if kind in _BINARY:
        return op.operands, lambda b, a: scalar.binary(kind, b, a[0], a[1])
    if kind in scalar.UNARY:
        return op.operands, lambda b, a: scalar.unary(kind, b, a[0])
    if isinstance(op, mindir.SelectOp):
        return op.operands, lambda b, a: scalar.select(b, a[0], a[1], a[2])
    if isinstance(op, mindir.CastOp) and op.input.type != op.result.type:
        to = op.to
        return op.operands, lambda b, a: scalar.cast(b, a[0], to)
    if isinstance(op, mindir.BroadcastToOp):  # only fused (`leave_broadcast`): the map broadcasts
        return op.operands, lambda b, a: a[0]
    return None


def leave_broadcast(op: mindir.BroadcastToOp) -> bool:
    """Whether a static broadcast_to is left for its pointwise users, which read its
    input through a broadcasting indexing map (numpy's rule, broadcast_to's own)
    instead of a materialized linalg.broadcast. Their generics could not run as
    generated loop nests over such a view (its zero strides), so every LayerNorm
    gradient's broadcast mean went the numpy way (26 a step in examples/gpt.py's
    train step)."""
    if not S.tensor_of(op.input.type).has_static_shape() or not fused_into_user(op):
        return False
    _FUSE.left[id(op)] = op
    return True


_BINARY = frozenset(scalar.BINARY)


def _shape(op: Operation) -> tuple[int, ...]:
    return tuple(S.tensor_of(op.results[0].type).get_shape())


#: pointwise ops cheap enough to compute again in each of several users: a few
#: arith ops an element, no division or transcendental
_CHEAP = frozenset(
    {
        mindir.AddOp,
        mindir.SubOp,
        mindir.MulOp,
        mindir.MaximumOp,
        mindir.MinimumOp,
        mindir.NegOp,
        mindir.AbsOp,
        mindir.ReluOp,
        mindir.LogicalAndOp,
        mindir.LogicalOrOp,
        mindir.LogicalNotOp,
        mindir.SelectOp,
        mindir.CastOp,
        mindir.BroadcastToOp,
        *scalar.COMPARES,
    }
)
#: the most ops a tree computed again in each user may have
DUPLICATE_MAX_OPS = 4
#: the fewest elements of a value whose arithmetic is computed again in each user
DUPLICATE_MIN_ELEMENTS = 1 << 16


def fused_into_user(op: Operation) -> bool:
    """Whether `op`'s users compute it: fusion on; every user pointwise, of its
    shape, in its block and work; one user, or a few users and a cheap tree
    (`_duplicable`); an update_state attaching it placed after them (`_before`)."""
    if not getattr(_FUSE, "enabled", False):
        return False
    users: dict[int, Operation] = {}
    states: list[Operation] = []
    for use in op.results[0].uses:
        if isinstance(use.operation, mindir.UpdateStateOp):
            states.append(use.operation)
        else:
            users.setdefault(id(use.operation), use.operation)
    if not users:
        return False
    for user in users.values():
        if user.parent is not op.parent or not _same_work(op, user):
            return False
        if pointwise(user) is None or isinstance(user, mindir.BroadcastToOp):
            return False
        if _shape(user) != _shape(op):
            return False
    if len(users) > 1 and not _duplicable(op, len(users)):
        return False
    if states and not _holds_no_more(op):
        return False
    return all(_before(user, state) for user in users.values() for state in states)


def _tree(op: Operation, limit: int) -> tuple[list[Operation], int] | None:
    """`op`'s fused tree as far as it is known now (`_fused_tree`): its ops and how
    many values of `op`'s shape it reads; None past `limit` ops."""
    tree = _fused_tree(op, limit)
    if tree is None:
        return None
    leaves, nodes = tree
    shape = _shape(op)
    return nodes, sum(tuple(S.tensor_of(v.type).get_shape()) == shape for v in leaves)


def _holds_no_more(op: Operation) -> bool:
    """A value an update_state attaches is computed at its user, later than its own
    place: fine when its tree reads at most one array of its shape (LayerNorm's
    x * gamma), which is then held instead of the value (reading two, it would hold
    both), and when it is not part of a scheduled pipeline stage's work: there the
    attachments order each micro-batch's work, and computing it late made a 1F1B
    stage hold more than its (X-s)/Y share of GPipe's activations
    (test_mindir_pipeline_schedule)."""
    if PIPELINE_MICRO_ATTR in op.attributes:
        return False
    tree = _tree(op, 16)
    return tree is not None and tree[1] <= 1


def _duplicable(op: Operation, users: int) -> bool:
    """Whether `op`'s tree is worth computing again in each of its `users`
    instead of being written once and read by each: at most DUPLICATE_MAX_OPS
    cheap ops (`_CHEAP`), reading L arrays of its shape, with L*users <= L + 1 +
    users (what the users would read, against writing it once, reading its
    inputs and then it). The autodiff of a composite saves every intermediate
    for the backward: GELU's tanh form wrote x + b, x*x, x/2 and 1 + t, each
    read again by the backward (examples/gpt.py's train step). Only values of at
    least DUPLICATE_MIN_ELEMENTS do arithmetic again (a broadcast_to is free at
    any size): smaller ones stay in cache, where the saved traffic is worth less
    than the repeated work, and a small body is numpy calls, one more per op
    (MobileNet's train step, batch 8: 29 -> 32 ms without the bound)."""
    tree = _tree(op, DUPLICATE_MAX_OPS)
    if tree is None or any(type(node) not in _CHEAP for node in tree[0]):
        return False
    small = prod(_shape(op)) < DUPLICATE_MIN_ELEMENTS
    if small and not all(isinstance(node, mindir.BroadcastToOp) for node in tree[0]):
        return False
    arrays = tree[1]
    return arrays * users <= arrays + 1 + users


def _before(op: Operation, later: Operation) -> bool:
    """Whether `op` comes before `later` in their block. An update_state that
    attaches a fused producer only orders it before the state's next effects;
    computed in a user placed before that update_state, it still is (the
    auto-monad attaches x*gamma to the optimizer's state, which kept every
    LayerNorm's scale and shift two passes over the activations). Positions are
    taken once per block (`_FUSE.order`), holding the ops themselves: an id
    alone could be an erased op's."""
    block = op.parent
    if block is None or later.parent is not block:
        return False
    order = _FUSE.order.get(id(block))
    if order is None or order[0] is not block:
        order = _FUSE.order[id(block)] = (block, {id(o): (o, i) for i, o in enumerate(block.ops)})
    a, b = order[1].get(id(op)), order[1].get(id(later))
    return a is not None and b is not None and a[0] is op and b[0] is later and a[1] < b[1]


def _same_work(op: Operation, user: Operation) -> bool:
    """Fusion stays inside one work of a scheduled pipeline stage (their
    `mindir.pipeline_micro` marks): fused into a later micro-batch's op, or into the
    next sum of a gradient accumulation (an unmarked op reading marked work), a
    producer would be computed late and hold its operands (every micro-batch's
    gradients) until then."""
    mark = op.attributes.get(PIPELINE_MICRO_ATTR)
    if mark != user.attributes.get(PIPELINE_MICRO_ATTR):
        return False
    return mark is not None or not any(
        isinstance(v, OpResult) and PIPELINE_MICRO_ATTR in v.op.attributes for v in op.operands
    )


def _fused_tree(
    root: Operation, limit: int | None = None
) -> tuple[list[SSAValue], list[Operation]] | None:
    """The values `root`'s generic reads, and the ops it computes (producers first,
    `root` last): the producers left for it (`_FUSE.left`), transitively; None
    once it has more than `limit` ops. Iterative: a chain can be as long as the
    program (5,000 adds)."""
    leaves: dict[int, SSAValue] = {}
    nodes: list[Operation] = []
    seen: set[int] = {id(root)}  # `mul(x, x)`: x is computed once
    stack: list[tuple[Operation, int]] = [(root, 0)]
    while stack:
        op, i = stack.pop()
        if i == len(op.operands):
            nodes.append(op)
            continue
        stack.append((op, i + 1))
        v = op.operands[i]
        owner = v.owner
        if id(owner) in _FUSE.left:
            if id(owner) not in seen:
                seen.add(id(owner))
                if limit is not None and len(seen) > limit:
                    return None
                stack.append((owner, 0))
        else:
            leaves.setdefault(id(v), v)
    return list(leaves.values()), nodes


@LOWERINGS.register(*scalar.BINARY, *scalar.UNARY, mindir.SelectOp, mindir.CastOp)
def lower_pointwise(op: Operation, rewriter: PatternRewriter) -> None:
    if isinstance(op, mindir.CastOp) and op.input.type == op.result.type:
        rewriter.replace(op, [], [op.input])  # a cast to its own type is its input
        return
    if fused_into_user(op):
        _FUSE.left[id(op)] = op  # its user's generic computes it
        return
    tree = _fused_tree(op)
    assert tree is not None  # no limit
    leaves, nodes = tree
    specs = [pointwise(node) for node in nodes]

    def body(b: Emitter, args: Sequence[SSAValue]) -> SSAValue:
        values = {id(v): a for v, a in zip(leaves, args)}
        for node, (operands, compute) in zip(nodes, specs):  # type: ignore[misc]
            at = Emitter(b.builder, node.location)
            values[id(node.results[0])] = compute(at, [values[id(v)] for v in operands])
        return values[id(op.results[0])]

    e = Emitter(rewriter, op.location)
    out = e.elementwise(leaves, S.tensor_of(op.results[0].type), body)
    rewriter.replace(op, [], [out])
    for node in reversed(nodes[:-1]):  # users first: each is unused once its users are gone
        if any(not isinstance(u.operation, mindir.UpdateStateOp) for u in node.results[0].uses):
            continue  # a user still to be lowered computes it again (`_duplicable`)
        # an update_state attaching it now attaches what computes it (`_before`)
        node.results[0].replace_all_uses_with(out)
        rewriter.erase(node)


@LOWERINGS.register(mindir.StopGradientOp)
def lower_stop_gradient(op: mindir.StopGradientOp, rewriter: PatternRewriter) -> None:
    """After mindir-grad a stop_gradient is its operand."""
    rewriter.replace(op, [], [op.input])
