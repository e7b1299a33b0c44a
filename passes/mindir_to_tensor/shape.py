"""Data-movement mindir ops -> tensor / linalg ops.

- reshape: tensor.collapse_shape or tensor.expand_shape (a collapse to 1-D then an
  expand when no reassociation exists, e.g. 2x3 -> 3x2; rank 0 both ways).
- transpose: linalg.transpose into tensor.empty.
- broadcast_to: linalg.broadcast, after collapsing the broadcast size-1 dims.
- concat: tensor.concat; stack: tensor.expand_shape of each input + tensor.concat.
- get_item: tensor.extract_slice, rank-reduced for the squeezed axes.
- pad: a filled tensor.empty and one strided tensor.insert_slice (interior
  padding is the stride), then an extract_slice where low/high crop.
- reverse: a gather, a linalg.generic whose body extracts x at (n - 1) - i.

An op that does not change its input (same shape, identity permutation, one
input to concat) is replaced by the input.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, i64
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.format import ints_prop
from mindjit.passes.mindir_to_tensor.builders import Emitter, unit_dim_groups
from mindjit.passes.mindir_to_tensor.elementwise import leave_broadcast
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS


@LOWERINGS.register(mindir.ReshapeOp)
def lower_reshape(op: mindir.ReshapeOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    rewriter.replace(op, [], [e.reshape(op.input, S.tensor_of(op.result.type).get_shape())])


@LOWERINGS.register(mindir.TransposeOp)
def lower_transpose(op: mindir.TransposeOp, rewriter: PatternRewriter) -> None:
    perm = ints_prop(dict(op.properties), "perm")
    if list(perm) == list(range(len(perm))):
        rewriter.replace(op, [], [op.input])
        return
    e = Emitter(rewriter, op.location)
    result = S.tensor_of(op.result.type)
    init = e.empty(result.get_shape(), result.get_element_type())
    out = e.transpose(op.input, perm, init)
    rewriter.replace(op, [], [out])


@LOWERINGS.register(mindir.BroadcastToOp)
def lower_broadcast_to(op: mindir.BroadcastToOp, rewriter: PatternRewriter) -> None:
    src = S.tensor_of(op.input.type).get_shape()
    result = S.tensor_of(op.result.type)
    dst = result.get_shape()
    if src == dst:
        rewriter.replace(op, [], [op.input])
        return
    if leave_broadcast(op):  # its pointwise users read the input, broadcasting
        return
    e = Emitter(rewriter, op.location)
    offset = len(dst) - len(src)
    keep = [not (d == 1 and dst[offset + j] != 1) for j, d in enumerate(src)]
    value = e.drop_unit_dims(op.input, keep)
    mapped = {offset + j for j, k in enumerate(keep) if k}
    added = [i for i in range(len(dst)) if i not in mapped]
    init = e.empty(dst, result.get_element_type())
    out = e.value(linalg.BroadcastOp(value, init, DenseArrayBase.from_list(i64, added)))
    rewriter.replace(op, [], [out])


def _axis(op: mindir.JoinOp, rank: int) -> int:
    return S.normalize_axis(op.axis.value.data, rank)


@LOWERINGS.register(mindir.ConcatOp)
def lower_concat(op: mindir.ConcatOp, rewriter: PatternRewriter) -> None:
    if len(op.inputs) == 1:
        rewriter.replace(op, [], [op.inputs[0]])
        return
    result = S.tensor_of(op.result.type)
    e = Emitter(rewriter, op.location)
    out = e.value(tensor.ConcatOp(list(op.inputs), _axis(op, len(result.get_shape())), result))
    rewriter.replace(op, [], [out])


@LOWERINGS.register(mindir.StackOp)
def lower_stack(op: mindir.StackOp, rewriter: PatternRewriter) -> None:
    result = S.tensor_of(op.result.type)
    out_shape = result.get_shape()
    axis = _axis(op, len(out_shape))
    e = Emitter(rewriter, op.location)
    piece = list(out_shape)
    piece[axis] = 1
    groups = unit_dim_groups([i != axis for i in range(len(out_shape))])
    parts = [e.expand(x, groups, piece) for x in op.inputs]
    out = parts[0] if len(parts) == 1 else e.value(tensor.ConcatOp(parts, axis, result))
    rewriter.replace(op, [], [out])


@LOWERINGS.register(mindir.GetItemOp)
def lower_get_item(op: mindir.GetItemOp, rewriter: PatternRewriter) -> None:
    props = dict(op.properties)
    starts, limits, strides = (ints_prop(props, n) for n in ("starts", "limits", "strides"))
    sizes = [(hi - lo + st - 1) // st for lo, hi, st in zip(starts, limits, strides)]
    e = Emitter(rewriter, op.location)
    out = e.extract_slice(op.input, starts, sizes, strides, op.result.type)
    rewriter.replace(op, [], [out])


@LOWERINGS.register(mindir.UnstackOp)
def lower_unstack(op: mindir.UnstackOp, rewriter: PatternRewriter) -> None:
    """Each piece is a rank-reducing `tensor.extract_slice` of the input."""
    shape = list(S.tensor_of(op.input.type).get_shape())
    axis = op.axis.value.data
    sizes = [1 if i == axis else d for i, d in enumerate(shape)]
    strides = [1] * len(shape)
    e = Emitter(rewriter, op.location)
    pieces = []
    for k, piece in enumerate(op.pieces):
        offsets = [k if i == axis else 0 for i in range(len(shape))]
        pieces.append(e.extract_slice(op.input, offsets, sizes, strides, piece.type))
    rewriter.replace(op, [], pieces)


def pad_tensor(
    e: Emitter,
    x: SSAValue,
    low: Sequence[int],
    high: Sequence[int],
    interior: Sequence[int] | None = None,
    value: float = 0.0,
) -> SSAValue:
    """`x` with `low`/`high` elements of `value` around each axis and `interior`
    between its elements: a fill, one strided `tensor.insert_slice`, and an
    `extract_slice` for negative low/high (a crop). Made once per value and padding
    (`Emitter.derived`): a convolution's input is padded the same way for its
    forward and for its weight's gradient."""
    t = S.tensor_of(x.type)
    shape = t.get_shape()
    interior = list(interior) if interior is not None else [0] * len(shape)
    if not any(low) and not any(high) and not any(interior):
        return x
    key = ("pad", tuple(low), tuple(high), tuple(interior), type(value), repr(value))
    return e.derived(key, x, lambda here: _padded(here, x, low, high, interior, value))


def _padded(
    e: Emitter,
    x: SSAValue,
    low: Sequence[int],
    high: Sequence[int],
    interior: Sequence[int],
    value: float,
) -> SSAValue:
    t = S.tensor_of(x.type)
    shape = t.get_shape()
    grow_lo = [max(v, 0) for v in low]
    grow_hi = [max(v, 0) for v in high]
    spread = [d + max(d - 1, 0) * it for d, it in zip(shape, interior)]
    full = [s + lo + hi for s, lo, hi in zip(spread, grow_lo, grow_hi)]
    out = e.filled(full, t.get_element_type(), value, shared=False)
    strides = [it + 1 for it in interior]
    out = e.value(
        tensor.InsertSliceOp.from_static_parameters(x, out, grow_lo, list(shape), strides)
    )
    if min(*low, *high, 0) < 0:
        crop = [max(-v, 0) for v in low]
        sizes = [f - c - max(-h, 0) for f, c, h in zip(full, crop, high)]
        out = e.value(
            tensor.ExtractSliceOp.from_static_parameters(out, crop, sizes, [1] * len(sizes))
        )
    return out


@LOWERINGS.register(mindir.PadOp)
def lower_pad(op: mindir.PadOp, rewriter: PatternRewriter) -> None:
    low, high, interior = op.paddings()
    e = Emitter(rewriter, op.location)
    rewriter.replace(op, [], [pad_tensor(e, op.input, low, high, interior, op.pad_value())])


@LOWERINGS.register(mindir.ReverseOp)
def lower_reverse(op: mindir.ReverseOp, rewriter: PatternRewriter) -> None:
    """A gather: a linalg.generic over the result whose body reads
    `tensor.extract %x[..., (n - 1) - i, ...]` (IREE tiles this form; a reversed
    indexing map `(d * -1) + (n - 1)` is valid MLIR but IREE's tiling rejects it)."""
    t = S.tensor_of(op.input.type)
    shape = t.get_shape()
    axes = set(ints_prop(dict(op.properties), "axis"))
    e = Emitter(rewriter, op.location)
    if all(shape[a] == 1 for a in axes):
        rewriter.replace(op, [], [op.input])
        return
    rank = len(shape)
    source = op.input

    def body(b: Emitter, _args) -> SSAValue:
        indices = []
        for d in range(rank):
            i = b.value(linalg.IndexOp(d))
            if d in axes:
                last = b.value(arith.ConstantOp(IntegerAttr(shape[d] - 1, IndexType())))
                i = b.value(arith.SubiOp(last, i))
            indices.append(i)
        return b.value(tensor.ExtractOp(source, indices, t.get_element_type()))

    init = e.empty(shape, t.get_element_type())
    out = e.generic([], init, [AffineMap.identity(rank)], ["parallel"] * rank, body)
    rewriter.replace(op, [], [out])
