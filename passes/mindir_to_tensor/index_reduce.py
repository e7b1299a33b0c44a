"""argmax / argmin -> one linalg.generic reduction carrying (value, index) pairs.

The generic reduces `axis` into two accumulators: the best value so far
(initially -inf / +inf, or the extreme integer) and its index (initially 0).
Its body, for element `x` at position `j = linalg.index(axis)`:

    better = x > acc            (argmin: x < acc; strict, so ties keep the first)
             or (x is NaN and acc is not)     (floats: the first NaN wins, numpy's rule)
    acc'   = better ? x : acc
    index' = better ? j : index

An all -inf (or all-extreme-integer) slice never replaces the init, whose
index 0 is then the right answer. The value accumulator is what
ArgMaxWithValue returns; argmax drops it. The CPU executor recognises this
body and runs `np.argmax` / `np.argmin` (backend/cpu/linalg_index_patterns.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr, AnyFloat, IntegerType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir import shapes as S
from mindjit.passes.mindir_to_tensor.builders import Emitter, unit_dim_groups
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS
from mindjit.passes.mindir_to_tensor.scalar import int_compare, int_extremes

Body = Callable[[Emitter, list[SSAValue]], list[SSAValue]]


def generic_n(
    e: Emitter,
    inputs: Sequence[SSAValue],
    inits: Sequence[SSAValue],
    maps: Sequence[AffineMap],
    iterators: Sequence[linalg.IteratorTypeAttr],
    body: Body,
) -> list[SSAValue]:
    """A `linalg.generic` with several outputs; `body` gets the scalar ins then outs."""
    types = [S.tensor_of(v.type).get_element_type() for v in (*inputs, *inits)]
    block = Block(arg_types=types)
    inner = Emitter.at_end(block, e.loc)
    inner.emit(linalg.YieldOp(*body(inner, list(block.args))))
    op = e.emit(
        linalg.GenericOp(
            inputs,
            inits,
            Region(block),
            [AffineMapAttr(m) for m in maps],
            list(iterators),
            [v.type for v in inits],
        )
    )
    return list(op.results)


#: which element each index reduction points at, by concrete class with no default:
#: a new one has no lowering until it has a line here.
ARG_REDUCE_KINDS: dict[type[Operation], str] = {mindir.ArgMaxOp: "max", mindir.ArgMinOp: "min"}
#: per kind: (float compare, signed integer compare) meaning "x beats acc"
_BEATS: dict[str, tuple[str, str]] = {"max": ("ogt", "sgt"), "min": ("olt", "slt")}


def _worst(kind: str, element) -> float | int:
    """The init no element loses to: -inf for max, +inf for min (or the integer extremes)."""
    if isinstance(element, AnyFloat):
        return {"max": float("-inf"), "min": float("inf")}[kind]
    assert isinstance(element, IntegerType)
    low, high = int_extremes(element)
    return {"max": low, "min": high}[kind]


def arg_reduce(
    e: Emitter, x: SSAValue, axis: int, kind: str, index: IntegerType
) -> tuple[SSAValue, SSAValue]:
    """(best values, their first indices) of `x` along `axis`, the axis dropped."""
    t = S.tensor_of(x.type)
    shape, element = t.get_shape(), t.get_element_type()
    rank = len(shape)
    out_shape = [d for i, d in enumerate(shape) if i != axis]
    values = e.filled(out_shape, element, _worst(kind, element))
    indices = e.filled(out_shape, index, 0)
    out_map = AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in range(rank) if d != axis))
    is_float = isinstance(element, AnyFloat)
    float_beats, int_beats = _BEATS[kind]

    def body(b: Emitter, args: list[SSAValue]) -> list[SSAValue]:
        v, acc, acc_i = args
        j = b.value(linalg.IndexOp(axis))
        j = b.value(arith.IndexCastOp(j, index))
        if is_float:
            better = b.value(arith.CmpfOp(v, acc, float_beats))
            v_nan = b.value(arith.CmpfOp(v, v, "uno"))
            acc_num = b.value(arith.CmpfOp(acc, acc, "ord"))
            first_nan = b.value(arith.AndIOp(v_nan, acc_num))
            better = b.value(arith.OrIOp(better, first_nan))
        else:
            better = b.value(arith.CmpiOp(v, acc, int_compare(int_beats, v.type)))
        return [
            b.value(arith.SelectOp(better, v, acc)),
            b.value(arith.SelectOp(better, j, acc_i)),
        ]

    iterators = [
        linalg.IteratorTypeAttr.reduction() if d == axis else linalg.IteratorTypeAttr.parallel()
        for d in range(rank)
    ]
    best, where = generic_n(
        e, [x], [values, indices], [AffineMap.identity(rank), out_map, out_map], iterators, body
    )
    return best, where


def keep_axis(e: Emitter, value: SSAValue, rank: int, axis: int) -> SSAValue:
    """`value` (rank - 1) with `axis` put back as size 1."""
    shape = list(S.tensor_of(value.type).get_shape())
    shape.insert(axis, 1)
    keep = [d != axis for d in range(rank)]
    return e.expand(value, unit_dim_groups(keep), shape)


@LOWERINGS.register(*ARG_REDUCE_KINDS)
def lower_arg_reduce(op: mindir.ArgReduceOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    rank = len(S.tensor_of(op.input.type).get_shape())
    axis = op.reduced_axis()
    index = S.tensor_of(op.result.type).get_element_type()
    assert isinstance(index, IntegerType)
    _, out = arg_reduce(e, op.input, axis, ARG_REDUCE_KINDS[type(op)], index)
    if op.keep_dims.value.data:
        out = keep_axis(e, out, rank, axis)
    rewriter.replace(op, [], [out])
