"""mindir.gather and mindir.unsorted_segment_sum -> linalg.generic.

gather: one all-parallel generic over the result, its only input the indices
(indexed by the result's index dims); the body reads `params` with
`tensor.extract` at the loop indices with the gathered axis replaced by the
index (the form mindir.reverse uses, which IREE tiles):

    %i = arith.index_cast %idx : i32 to index
    %in = arith.cmpi ult, %i, %n : index          // 0 <= i < n (negative: huge unsigned)
    %safe = arith.select %in, %i, %c0 : index
    %v = tensor.extract %params[%d0, %safe, %d3] : tensor<4x5x6xf32>
    %r = arith.select %in, %v, %zero : f32        // out of range: 0

unsorted_segment_sum: a generic over (segment, ids dims..., slice dims...) that
reduces over the ids dims, adding x where the id equals the segment's index:

    %id = arith.index_cast %ids_elem : i32 to index
    %s = linalg.index 0 : index
    %hit = arith.cmpi eq, %id, %s : index
    %v = arith.select %hit, %x_elem, %zero : f32
    %r = arith.addf %acc, %v : f32

That is O(num_segments * N) work for a compiler that takes it literally (IREE
does); the CPU executor recognises the form and runs one scatter-add
(backend/cpu/linalg_segment.py). Out-of-range ids match no segment.
"""

from __future__ import annotations

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir import shapes as S
from mindjit.passes.mindir_to_tensor.builders import Emitter
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS


def _index_const(b: Emitter, value: int) -> SSAValue:
    return b.value(arith.ConstantOp(IntegerAttr(value, IndexType())))


def _dims(n: int, positions: range | list[int]) -> AffineMap:
    return AffineMap(n, 0, tuple(AffineDimExpr(p) for p in positions))


@LOWERINGS.register(mindir.GatherOp)
def lower_gather(op: mindir.GatherOp, rewriter: PatternRewriter) -> None:
    p = S.tensor_of(op.params.type)
    shape, element = p.get_shape(), p.get_element_type()
    axis = op.gather_axis
    k = len(S.tensor_of(op.indices.type).get_shape())
    out = S.tensor_of(op.result.type)
    rank = len(out.get_shape())
    params = op.params

    def body(b: Emitter, args) -> SSAValue:
        i = b.value(arith.IndexCastOp(args[0], IndexType()))
        inside = b.value(arith.CmpiOp(i, _index_const(b, shape[axis]), "ult"))
        safe = b.value(arith.SelectOp(inside, i, _index_const(b, 0)))
        coords = [b.value(linalg.IndexOp(d)) for d in range(axis)]
        coords.append(safe)
        coords += [b.value(linalg.IndexOp(axis + k + j)) for j in range(len(shape) - axis - 1)]
        v = b.value(tensor.ExtractOp(params, coords, element))
        return b.value(arith.SelectOp(inside, v, b.scalar(element, 0)))

    e = Emitter(rewriter, op.location)
    init = e.empty(out.get_shape(), element)
    maps = [_dims(rank, range(axis, axis + k)), AffineMap.identity(rank)]
    result = e.generic([op.indices], init, maps, ["parallel"] * rank, body)
    rewriter.replace(op, [], [result])


@LOWERINGS.register(mindir.UnsortedSegmentSumOp)
def lower_unsorted_segment_sum(op: mindir.UnsortedSegmentSumOp, rewriter: PatternRewriter) -> None:
    x = S.tensor_of(op.input.type)
    element = x.get_element_type()
    k = len(S.tensor_of(op.segment_ids.type).get_shape())
    m = len(x.get_shape()) - k
    n = 1 + k + m
    add = arith.AddfOp if S.is_float(element) else arith.AddiOp

    def body(b: Emitter, args) -> SSAValue:
        i = b.value(arith.IndexCastOp(args[0], IndexType()))
        hit = b.value(arith.CmpiOp(i, b.value(linalg.IndexOp(0)), "eq"))
        v = b.value(arith.SelectOp(hit, args[1], b.scalar(element, 0)))
        return b.value(add(args[2], v))

    e = Emitter(rewriter, op.location)
    init = e.filled(S.tensor_of(op.result.type).get_shape(), element, 0)
    maps = [
        _dims(n, range(1, 1 + k)),
        _dims(n, range(1, n)),
        _dims(n, [0, *range(1 + k, n)]),
    ]
    iterators = ["parallel"] + ["reduction"] * k + ["parallel"] * m
    result = e.generic([op.segment_ids, op.input], init, maps, iterators, body)
    rewriter.replace(op, [], [result])
