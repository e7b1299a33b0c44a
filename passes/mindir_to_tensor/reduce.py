"""reduce_sum / reduce_max / reduce_mean -> linalg.reduce.

The accumulator is a `linalg.fill` of the identity (0 for sum; -inf, or the
smallest integer, for max) into `tensor.empty`; `keep_dims` adds the reduced axes
back as size 1 with `tensor.expand_shape`. reduce_mean is the sum followed by one
elementwise division by the number of reduced elements. Reducing a rank-0 tensor
(no axis to reduce) is the value itself.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir import shapes as S
from mindjit.passes.mindir_to_tensor.builders import Emitter, index_array, unit_dim_groups
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS
from mindjit.passes.mindir_to_tensor.scalar import int_extremes, is_unsigned

#: what each reduction op computes: the combiner it reduces with, and whether the
#: sum is then divided by the number of reduced elements. Keyed by the concrete
#: class with no default: a new reduction has no lowering until it has a line here.
REDUCE_KINDS: dict[type[Operation], tuple[str, bool]] = {
    mindir.ReduceSumOp: ("sum", False),
    mindir.ReduceMeanOp: ("sum", True),
    mindir.ReduceMaxOp: ("max", False),
}


def _identity(kind: str, element: Attribute) -> float | int:
    """The combiner's neutral element: 0 for sum; -inf, or the smallest integer, for max."""
    if kind == "sum":
        return 0
    assert kind == "max", kind
    if isinstance(element, AnyFloat):
        return float("-inf")
    assert isinstance(element, IntegerType)
    return int_extremes(element)[0]


def _combiner(kind: str, element: Attribute):
    is_float = isinstance(element, AnyFloat)
    if kind == "sum":
        return arith.AddfOp if is_float else arith.AddiOp
    assert kind == "max", kind
    if is_float:
        return arith.MaximumfOp
    return arith.MaxUIOp if is_unsigned(element) else arith.MaxSIOp


def reduce(e: Emitter, x: SSAValue, axes: tuple[int, ...], kind: str) -> SSAValue:
    """`linalg.reduce` of `x` over `axes` (sorted) with `kind` in {"sum", "max"}."""
    t = S.tensor_of(x.type)
    shape, element = t.get_shape(), t.get_element_type()
    if not axes:
        return x
    out_shape = tuple(d for i, d in enumerate(shape) if i not in axes)
    init = e.filled(out_shape, element, _identity(kind, element))
    block = Block(arg_types=[element, element])
    # built with `create` (xDSL's constructors check what is known here: 3x the cost)
    combined = _combiner(kind, element).create(operands=list(block.args), result_types=[element])
    block.add_ops([combined, linalg.YieldOp.create(operands=combined.results)])
    return e.value(
        linalg.ReduceOp.create(
            operands=[x, init],
            result_types=[init.type],
            properties={"dimensions": index_array(axes)},
            regions=[Region(block)],
        )
    )


def mean_of(e: Emitter, x: SSAValue, axes: tuple[int, ...]) -> SSAValue:
    """reduce_mean's lowering: the sum over `axes`, then one elementwise division by
    the number of elements reduced (batch_norm's statistics are the same steps)."""
    out = reduce(e, x, axes, "sum")
    if not axes:
        return out
    shape = S.tensor_of(x.type).get_shape()
    count = 1
    for a in axes:
        count *= shape[a]
    reduced = S.tensor_of(out.type)
    element = reduced.get_element_type()
    return e.elementwise(
        [out],
        reduced,
        lambda b, args: b.value(
            arith.DivfOp.create(
                operands=[args[0], b.scalar(element, float(count))], result_types=[element]
            )
        ),
    )


@LOWERINGS.register(*REDUCE_KINDS)
def lower_reduce(op: mindir.ReduceOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    x = S.tensor_of(op.input.type)
    shape = x.get_shape()
    axes = op.reduced_axes()
    kind, mean = REDUCE_KINDS[type(op)]
    out = mean_of(e, op.input, axes) if mean else reduce(e, op.input, axes, kind)
    if op.keep_dims.value.data and axes:
        keep = [i not in axes for i in range(len(shape))]
        out = e.expand(out, unit_dim_groups(keep), S.tensor_of(op.result.type).get_shape())
    rewriter.replace(op, [], [out])
