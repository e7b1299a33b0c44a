"""sort -> three linalg.generics: rank by counting, place by rank, gather the values.

Upstream MLIR has no sort op (IREE's own `iree_linalg_ext.sort` is not upstream),
so the lowering says what a stable sort computes in plain linalg:

1. rank (`library_call = "mindjit_sort_rank"`, or `..._desc`): for each element
   x_i, how many elements go before it,
       rank_i = #{ j : x_j before x_i, or x_j ties x_i and j < i }
   a reduction over a second loop dim j (O(n^2) along the axis). "Before" is `<`
   (descending: `>`) with NaN larger than every number; "ties" is `==` or both NaN.
2. place (`library_call = "mindjit_sort_place"`, MindSpore's InvertPermutation):
   indices_k = sum_i (rank_i == k) * i, again a reduction over i.
3. values: a gather, values_k = x[indices_k] (`tensor.extract` in the body).

The `library_call` names the kernel implementing the generic (MLIR's meaning
of the attribute): the CPU executor runs `np.argsort(kind="stable")` and an
inverse permutation (O(n log n), backend/cpu/kernels_library.py), the device a
Sort kernel; IREE compiles the region as written.
"""

from __future__ import annotations

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir import shapes as S
from mindjit.passes.mindir_to_tensor.builders import Emitter
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS
from mindjit.passes.mindir_to_tensor.scalar import int_compare

RANK_ASC = "mindjit_sort_rank"
RANK_DESC = "mindjit_sort_rank_desc"
PLACE = "mindjit_sort_place"


def along(rank: int, axis: int, extra: int) -> AffineMap:
    """The identity over `rank` dims with `axis` replaced by the extra loop dim."""
    dims = [AffineDimExpr(extra if d == axis else d) for d in range(rank)]
    return AffineMap(rank + 1, 0, tuple(dims))


def counting(
    e: Emitter,
    inputs: list[SSAValue],
    maps: list[AffineMap],
    out_element: Attribute,
    out_shape: tuple[int, ...],
    body,
    library_call: str,
    init: int = 0,
) -> SSAValue:
    """A reduction over one extra loop dim (after the output's) into a fill of `init`,
    the generic naming its kernel `library_call`."""
    rank = len(out_shape)
    init_value = e.filled(out_shape, out_element, init)
    types = [S.tensor_of(v.type).get_element_type() for v in inputs] + [out_element]
    block = Block(arg_types=types)
    inner = Emitter.at_end(block, e.loc)
    inner.emit(linalg.YieldOp(body(inner, list(block.args))))
    iterators = [linalg.IteratorTypeAttr.parallel()] * rank + [linalg.IteratorTypeAttr.reduction()]
    identity = AffineMap(rank + 1, 0, tuple(AffineDimExpr(d) for d in range(rank)))
    op = linalg.GenericOp(
        inputs,
        [init_value],
        Region(block),
        [AffineMapAttr(m) for m in [*maps, identity]],
        iterators,
        [init_value.type],
        library_call=StringAttr(library_call),
    )
    return e.value(op)


def loop_index(b: Emitter, dim: int, element: Attribute | None = None) -> SSAValue:
    """`linalg.index dim`, cast to `element` (an integer type) unless None."""
    index = b.value(linalg.IndexOp(dim))
    return index if element is None else b.value(arith.IndexCastOp(index, element))


def _goes_before(b: Emitter, xj: SSAValue, xi: SSAValue, descending: bool) -> SSAValue:
    """x_j strictly before x_i in the sorted order (NaN larger than any number)."""
    if not isinstance(xi.type, AnyFloat):
        return b.value(arith.CmpiOp(xj, xi, int_compare("sgt" if descending else "slt", xj.type)))
    big, small = (xj, xi) if descending else (xi, xj)
    ordered = b.value(arith.CmpfOp(small, big, "olt"))
    big_nan = b.value(arith.CmpfOp(big, big, "uno"))
    small_num = b.value(arith.CmpfOp(small, small, "ord"))
    return b.value(arith.OrIOp(ordered, b.value(arith.AndIOp(big_nan, small_num))))


def _ties(b: Emitter, xj: SSAValue, xi: SSAValue) -> SSAValue:
    if not isinstance(xi.type, AnyFloat):
        return b.value(arith.CmpiOp(xj, xi, "eq"))
    equal = b.value(arith.CmpfOp(xj, xi, "oeq"))
    both_nan = b.value(
        arith.AndIOp(b.value(arith.CmpfOp(xj, xj, "uno")), b.value(arith.CmpfOp(xi, xi, "uno")))
    )
    return b.value(arith.OrIOp(equal, both_nan))


def sort_ranks(e: Emitter, x: SSAValue, axis: int, descending: bool, out: IntegerType) -> SSAValue:
    """Each element's position in the stable sort of `x` along `axis`."""
    shape = tuple(S.tensor_of(x.type).get_shape())
    rank = len(shape)

    def body(b: Emitter, args: list[SSAValue]) -> SSAValue:
        xi, xj, acc = args
        i, j = loop_index(b, axis, out), loop_index(b, rank, out)
        earlier = b.value(arith.CmpiOp(j, i, "slt"))
        tie_first = b.value(arith.AndIOp(_ties(b, xj, xi), earlier))
        before = b.value(arith.OrIOp(_goes_before(b, xj, xi, descending), tie_first))
        return b.value(arith.AddiOp(acc, b.value(arith.ExtUIOp(before, out))))

    identity = AffineMap(rank + 1, 0, tuple(AffineDimExpr(d) for d in range(rank)))
    return counting(
        e,
        [x, x],
        [identity, along(rank, axis, rank)],
        out,
        shape,
        body,
        RANK_DESC if descending else RANK_ASC,
    )


def place(e: Emitter, ranks: SSAValue, axis: int) -> SSAValue:
    """indices_k = the i whose rank_i is k (the inverse permutation along `axis`)."""
    t = S.tensor_of(ranks.type)
    shape, element = tuple(t.get_shape()), t.get_element_type()
    assert isinstance(element, IntegerType)
    rank = len(shape)

    def body(b: Emitter, args: list[SSAValue]) -> SSAValue:
        rank_i, acc = args
        k, i = loop_index(b, axis, element), loop_index(b, rank, element)
        hit = b.value(arith.CmpiOp(rank_i, k, "eq"))
        zero = b.value(arith.ConstantOp(IntegerAttr(0, element)))
        return b.value(arith.AddiOp(acc, b.value(arith.SelectOp(hit, i, zero))))

    return counting(e, [ranks], [along(rank, axis, rank)], element, shape, body, PLACE)


def gather_along(e: Emitter, x: SSAValue, indices: SSAValue, axis: int) -> SSAValue:
    """values[..., k, ...] = x[..., indices[..., k, ...], ...] (a parallel generic)."""
    t = S.tensor_of(x.type)
    out_shape = tuple(S.tensor_of(indices.type).get_shape())
    rank = len(out_shape)

    def body(b: Emitter, args: list[SSAValue]) -> SSAValue:
        where = b.value(arith.IndexCastOp(args[0], IndexType()))
        at = [where if d == axis else b.value(linalg.IndexOp(d)) for d in range(rank)]
        return b.value(tensor.ExtractOp(x, at, t.get_element_type()))

    init = e.empty(out_shape, t.get_element_type())
    identity = AffineMap.identity(rank)
    return e.generic([indices], init, [identity, identity], ["parallel"] * rank, body)


@LOWERINGS.register(mindir.SortOp)
def lower_sort(op: mindir.SortOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    axis = op.sorted_axis()
    index = S.tensor_of(op.indices.type).get_element_type()
    assert isinstance(index, IntegerType)
    ranks = sort_ranks(e, op.input, axis, op.is_descending(), index)
    indices = place(e, ranks, axis)
    values = gather_along(e, op.input, indices, axis)
    rewriter.replace(op, [], [values, indices])
