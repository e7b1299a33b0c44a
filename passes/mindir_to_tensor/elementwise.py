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
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

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
    saved = getattr(_FUSE, "enabled", False), getattr(_FUSE, "left", None)
    _FUSE.enabled, _FUSE.left = enabled, {}
    try:
        yield
    finally:
        _FUSE.enabled, _FUSE.left = saved


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
    return None


_BINARY = frozenset(scalar.BINARY)


def _shape(op: Operation) -> tuple[int, ...]:
    return tuple(S.tensor_of(op.results[0].type).get_shape())


def fused_into_user(op: Operation) -> bool:
    """Whether `op`'s user computes it (fusion on, one user, pointwise, same shape
    and block)."""
    if not getattr(_FUSE, "enabled", False):
        return False
    uses = op.results[0].uses
    if not uses:
        return False
    user = next(iter(uses)).operation
    if any(u.operation is not user for u in uses) or user.parent is not op.parent:
        return False
    if not _same_work(op, user):
        return False
    return pointwise(user) is not None and _shape(user) == _shape(op)


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


def _fused_tree(root: Operation) -> tuple[list[SSAValue], list[Operation]]:
    """The values `root`'s generic reads, and the ops it computes (producers first,
    `root` last): the producers left for it (`_FUSE.left`), transitively.
    Iterative: a chain can be as long as the program (5,000 adds)."""
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
    leaves, nodes = _fused_tree(op)
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
    for node in reversed(nodes[:-1]):  # users first: each is unused once its user is gone
        rewriter.erase(node)


@LOWERINGS.register(mindir.StopGradientOp)
def lower_stop_gradient(op: mindir.StopGradientOp, rewriter: PatternRewriter) -> None:
    """After mindir-grad a stop_gradient is its operand."""
    rewriter.replace(op, [], [op.input])
