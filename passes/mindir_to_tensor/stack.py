"""mindir's loop record (`mindir.stack_new/stack_push/stack_read`) -> tensor + scf.

A stack is a `tensor<?x...>` whose first dimension is its capacity
(dialects/mindir/stack.py), so it lowers to plain tensor ops on a tensor with
one dynamic dimension, which every engine below runs like any other tensor:

    %s = mindir.stack_new : tensor<?x3xf32>
      ->  %s = tensor.empty(%c0) : tensor<?x3xf32>              (capacity 0)

    %s2 = mindir.stack_push %s, %k, %x
      ->  %k0 = tensor.extract %k[] : tensor<i64>
          %i = arith.index_cast %k0 : i64 to index
          %cap = tensor.dim %s, %c0 : tensor<?x3xf32>
          %full = arith.cmpi uge, %i, %cap : index
          %g = scf.if %full -> (tensor<?x3xf32>) {
            %sixteenth = arith.shrui %cap, %c4 : index
            %more0 = arith.addi %cap, %sixteenth : index
            %grown = arith.addi %more0, %c4 : index
            %next = arith.addi %i, %c1 : index
            %n = arith.maxui %grown, %next : index          (max(cap + cap/16 + 4, i + 1))
            %more = arith.subi %n, %cap : index
            %e = tensor.empty(%more) : tensor<?x3xf32>
            %c = tensor.concat dim(0) %s, %e : (...) -> tensor<?x3xf32>
            scf.yield %c : tensor<?x3xf32>
          } else {
            scf.yield %s : tensor<?x3xf32>
          }
          %s2 = tensor.insert_slice %x into %g[%i, 0] [1, 3] [1, 1]
                : tensor<3xf32> into tensor<?x3xf32>            (rank-reducing)

    %y = mindir.stack_read %s, %k
      ->  %y = tensor.extract_slice %s[%i, 0] [1, 3] [1, 1]
                : tensor<?x3xf32> to tensor<3xf32>              (rank-reducing)

A 0-d item is the same with the stack `tensor<?xf32>` and slices `[%i] [1] [1]`
from / into a `tensor<f32>` (iree-opt verifies the rank-reducing form to 0-d, so
one form serves every rank).

Why the growth is a `tensor.concat` of the stack and an empty tail, not an
`insert_slice` of the stack into a `tensor.empty` of the new capacity: IREE
3.13 sizes the copy the latter becomes by the loop-carried stack's initial
capacity (its stream IR copies through a 0-byte temporary and fails with
OUT_OF_RANGE at the second growth when the slot comes from a tensor counter);
the concat compiles right, and is the same copy.

Why the growth is an `scf.if` in the IR rather than a run-time helper: the
lowered module must stay upstream MLIR that IREE compiles, and IREE handles a
dynamic `tensor.empty` and slices at dynamic offsets.

Why growth by a sixteenth (plus 4 items), not doubling: the record is most of
what a differentiated loop holds, and the issue's bound is its bytes within 10%
of the values it saves; capacity / pushes is at most 1 + 1/16 (+ 4 items), where
doubling left up to 2x (128 KiB for 101 KiB of values at 101 pushes). Growth by
a fixed fraction still keeps n pushes at O(n) copied items (about 17n: each
growth copies the stack once, and there are log(n) / log(17/16) of them); a
copy is a memcpy of items next to the body's recompute, which dominates. The CPU executor writes the final
`insert_slice` in place when its destination is dead (backend/cpu/kernels_tensor.py),
so a push costs one item, not one stack.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.stack import StackNewOp, StackPushOp, StackReadOp
from mindjit.passes.mindir_to_tensor.builders import Emitter
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS

_INDEX = IndexType()


def _const(e: Emitter, value: int) -> SSAValue:
    """An `index` constant, made once per block."""
    return e.shared(("index", value), lambda: arith.ConstantOp(IntegerAttr(value, _INDEX)))


def _slot(e: Emitter, index: SSAValue, *lane: SSAValue) -> SSAValue:
    """The 0-d integer tensor `index` (or its element `lane`, for one slot per
    example) as an `index` scalar."""
    element = S.tensor_of(index.type).get_element_type()
    scalar = e.value(tensor.ExtractOp(index, list(lane), element))
    return e.value(arith.IndexCastOp(scalar, _INDEX))


def _item_slice(
    stack: TensorType, slot: SSAValue
) -> tuple[list[SSAValue], list[int], list[int], list[int]]:
    """(dynamic offsets, static offsets, sizes, strides) of one item at `slot`."""
    item = list(stack.get_shape())[1:]
    return [slot], [DYNAMIC_INDEX] + [0] * len(item), [1, *item], [1] * (len(item) + 1)


@LOWERINGS.register(StackNewOp)
def lower_stack_new(op: StackNewOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    t = op.result.type
    zero = _const(e, 0)
    empty = e.shared(("stack_new", t), lambda: tensor.EmptyOp([zero], t))
    rewriter.replace(op, [], [empty])


def _grown(e: Emitter, stack: SSAValue, slot: SSAValue) -> SSAValue:
    """`stack`, or a copy with room for `slot` when `slot` is past its end."""
    t = stack.type
    assert isinstance(t, TensorType)
    zero, one, four = (_const(e, v) for v in (0, 1, 4))
    cap = e.value(tensor.DimOp(stack, zero))
    full = e.value(arith.CmpiOp(slot, cap, "uge"))

    grow = Block()
    g = Emitter.at_end(grow, e.loc)
    sixteenth = g.value(arith.ShRUIOp(cap, four))
    grown_by = g.value(arith.AddiOp(g.value(arith.AddiOp(cap, sixteenth)), four))
    past = g.value(arith.AddiOp(slot, one))
    size = g.value(arith.MaxUIOp(grown_by, past))
    tail = g.value(tensor.EmptyOp([g.value(arith.SubiOp(size, cap))], t))
    copied = g.value(tensor.ConcatOp([stack, tail], 0, t))
    g.emit(scf.YieldOp(copied))
    keep = Block()
    Emitter.at_end(keep, e.loc).emit(scf.YieldOp(stack))
    return e.value(scf.IfOp(full, [t], Region(grow), Region(keep)))


@LOWERINGS.register(StackPushOp)
def lower_stack_push(op: StackPushOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    t = op.stack.type
    assert isinstance(t, TensorType)
    if S.tensor_of(op.index.type).get_shape():
        rewriter.replace(op, [], [_push_lanes(e, op)])
        return
    slot = _slot(e, op.index)
    grown = _grown(e, op.stack, slot)
    offsets, static_offsets, sizes, strides = _item_slice(t, slot)
    pushed = e.value(
        tensor.InsertSliceOp.get(
            op.value,
            grown,
            sizes,
            static_offsets=static_offsets,
            static_strides=strides,
            offsets=offsets,
        )
    )
    rewriter.replace(op, [], [pushed])


@LOWERINGS.register(StackReadOp)
def lower_stack_read(op: StackReadOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    t = op.stack.type
    assert isinstance(t, TensorType)
    if S.tensor_of(op.index.type).get_shape():
        rewriter.replace(op, [], [_read_lanes(e, op)])
        return
    slot = _slot(e, op.index)
    _, static_offsets, sizes, strides = _item_slice(t, slot)
    offsets: list[SSAValue | int] = [slot, *static_offsets[1:]]
    read = e.value(tensor.ExtractSliceOp(op.stack, offsets, sizes, strides, op.result.type))
    rewriter.replace(op, [], [read])


# --- one slot per example (mindir-vmap's form: dialects/mindir/stack.py) ---------------


def _over_lanes(
    e: Emitter, lanes: int, init: SSAValue, step: Callable[[Emitter, SSAValue, SSAValue], SSAValue]
) -> SSAValue:
    """`scf.for` over the examples carrying one value: step(emitter, lane, value)."""
    body = Block(arg_types=[_INDEX, init.type])
    inner = Emitter.at_end(body, e.loc)
    inner.emit(scf.YieldOp(step(inner, body.args[0], body.args[1])))
    zero, one = _const(e, 0), _const(e, 1)
    return e.value(scf.ForOp(zero, _const(e, lanes), one, [init], body))


def _push_lanes(e: Emitter, op: StackPushOp) -> SSAValue:
    """Example b's item into slot index[b] of column b, after growing the stack to the
    largest slot: a loop over the B examples (B item copies, as B pushes)."""
    t = op.stack.type
    assert isinstance(t, TensorType)
    item = list(t.get_shape())[1:]
    lanes = item[0]
    top = _over_lanes(
        e,
        lanes,
        _const(e, 0),
        lambda g, lane, m: g.value(arith.MaxUIOp(m, _slot(g, op.index, lane))),
    )
    grown = _grown(e, op.stack, top)
    piece = TensorType(t.get_element_type(), item[1:])

    def write(g: Emitter, lane: SSAValue, acc: SSAValue) -> SSAValue:
        slot = _slot(g, op.index, lane)
        rest = [0] * (len(item) - 1)
        one_item = g.value(
            tensor.ExtractSliceOp(op.value, [lane, *rest], [1, *item[1:]], [1] * len(item), piece)
        )
        return g.value(
            tensor.InsertSliceOp.get(
                one_item,
                acc,
                [1, 1, *item[1:]],
                static_offsets=[DYNAMIC_INDEX, DYNAMIC_INDEX, *rest],
                static_strides=[1] * (len(item) + 1),
                offsets=[slot, lane],
            )
        )

    return _over_lanes(e, lanes, grown, write)


def _read_lanes(e: Emitter, op: StackReadOp) -> SSAValue:
    """Example b's item from slot index[b] of column b (clamped into the record): a
    loop over the examples."""
    t = op.stack.type
    assert isinstance(t, TensorType)
    item = list(t.get_shape())[1:]
    piece = TensorType(t.get_element_type(), item[1:])
    rest = [0] * (len(item) - 1)
    out = e.value(tensor.EmptyOp([], op.result.type))

    cap = e.value(tensor.DimOp(op.stack, _const(e, 0)))
    last = e.value(arith.SubiOp(cap, _const(e, 1)))

    def read(g: Emitter, lane: SSAValue, acc: SSAValue) -> SSAValue:
        # clamped into the record, as a gather clips: under vmap an example whose
        # loop is done still runs the masked body, reading past its first slot, and
        # the mask drops what it read (passes/vmap_loops.py)
        wanted = _slot(g, op.index, lane)
        slot = g.value(arith.MinSIOp(g.value(arith.MaxSIOp(wanted, _const(g, 0))), last))
        one_item = g.value(
            tensor.ExtractSliceOp(
                op.stack, [slot, lane, *rest], [1, 1, *item[1:]], [1] * (len(item) + 1), piece
            )
        )
        return g.value(
            tensor.InsertSliceOp.get(
                one_item,
                acc,
                [1, *item[1:]],
                static_offsets=[DYNAMIC_INDEX, *rest],
                static_strides=[1] * len(item),
                offsets=[lane],
            )
        )

    return _over_lanes(e, item[0], out, read)
