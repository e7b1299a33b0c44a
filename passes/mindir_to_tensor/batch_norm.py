"""mindir.batch_norm and batch_norm_grad -> two `linalg.reduce` each, and pointwise
`linalg.generic`s.

Per channel (axis 1), over every other axis: the sum of x, divided by the
elements per channel (the mean); the centred input x - mean; the sum of its
squares, divided likewise (the biased variance); then, per channel,
1 / sqrt(variance + epsilon), and over the input (centred * that) * gamma +
beta. These are the steps, in the order and with the scalar ops, of the
written-out form the frontend emitted before (reduce_mean, sub, mul,
reduce_mean, div(1, sqrt(add)), mul, mul, add), so the values are the same bits;
only the reshapes to and from (1, C, 1, ...) and the broadcasts are fewer.

batch_norm_grad: the sum of dy (d beta) and of dy * xhat (d gamma, xhat computed
in the loop nest of the product), then d x in one loop nest over the input.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, math
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir import shapes as S
from mindjit.passes.mindir_to_tensor.builders import Emitter, unit_dim_groups
from mindjit.passes.mindir_to_tensor.reduce import mean_of, reduce
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS
from mindjit.passes.mindir_to_tensor.scalar import scalar_op


def _spreader(e: Emitter, shape: Sequence[int]) -> Callable[[SSAValue], SSAValue]:
    """(C,) -> (1, C, 1, ...) for a loop nest over `shape` (channels on axis 1)."""
    per_channel = [d if i == 1 else 1 for i, d in enumerate(shape)]
    groups = unit_dim_groups([i == 1 for i in range(len(shape))])
    return lambda v: e.expand(v, groups, per_channel)


def _inverse_std(element: Attribute, eps: float) -> Callable:
    """A body 1 / sqrt(variance + eps) (the written-out form's `div(1, sqrt(add))`)."""

    def body(b: Emitter, args: list[SSAValue]) -> SSAValue:
        root = scalar_op(
            b, math.SqrtOp, scalar_op(b, arith.AddfOp, args[0], b.scalar(element, eps))
        )
        return scalar_op(b, arith.DivfOp, b.scalar(element, 1.0), root)

    return body


def _xhat(b: Emitter, x: SSAValue, mean: SSAValue, r: SSAValue) -> SSAValue:
    """(x - mean) * r, one element."""
    return scalar_op(b, arith.MulfOp, scalar_op(b, arith.SubfOp, x, mean), r)


@LOWERINGS.register(mindir.BatchNormOp)
def lower_batch_norm(op: mindir.BatchNormOp, rewriter: PatternRewriter) -> None:
    e = Emitter(rewriter, op.location)
    t = S.tensor_of(op.input.type)
    element = t.get_element_type()
    stat = S.tensor_of(op.mean.type)
    axes = op.reduced_axes()
    spread = _spreader(e, t.get_shape())
    mean = mean_of(e, op.input, axes)
    centred = e.elementwise(
        [op.input, spread(mean)], t, lambda b, a: scalar_op(b, arith.SubfOp, a[0], a[1])
    )
    squares = e.elementwise(
        [centred, centred], t, lambda b, a: scalar_op(b, arith.MulfOp, a[0], a[1])
    )
    variance = mean_of(e, squares, axes)
    rstd = e.elementwise([variance], stat, _inverse_std(element, op.eps()))

    def normalized(b: Emitter, args: list[SSAValue]) -> SSAValue:
        c, r, gamma, beta = args
        scaled = scalar_op(b, arith.MulfOp, scalar_op(b, arith.MulfOp, c, r), gamma)
        return scalar_op(b, arith.AddfOp, scaled, beta)

    out = e.elementwise([centred, spread(rstd), spread(op.gamma), spread(op.beta)], t, normalized)
    rewriter.replace(op, [], [out, mean, variance])


@LOWERINGS.register(mindir.BatchNormGradOp)
def lower_batch_norm_grad(op: mindir.BatchNormGradOp, rewriter: PatternRewriter) -> None:
    """d beta = sum(dy); d gamma = sum(dy * (x - mean) * r); then one loop nest for
    d x = (gamma * r) * ((dy - d beta / n) - xhat * (d gamma / n)), with r = 1 /
    sqrt(variance + epsilon) per channel (dialects/mindir/batch_norm.py)."""
    e = Emitter(rewriter, op.location)
    t = S.tensor_of(op.input.type)
    element = t.get_element_type()
    stat = S.tensor_of(op.mean.type)
    axes = op.reduced_axes()
    spread = _spreader(e, t.get_shape())
    rstd = e.elementwise([op.variance], stat, _inverse_std(element, op.eps()))
    dbeta = reduce(e, op.dy, axes, "sum")
    products = e.elementwise(
        [op.dy, op.input, spread(op.mean), spread(rstd)],
        t,
        lambda b, a: scalar_op(b, arith.MulfOp, a[0], _xhat(b, *a[1:])),
    )
    dgamma = reduce(e, products, axes, "sum")
    count = float(op.count())

    def dx_body(b: Emitter, args: list[SSAValue]) -> SSAValue:
        dy, x, mean, r, gamma, db, dg = args
        n = b.scalar(element, count)
        centred_dy = scalar_op(b, arith.SubfOp, dy, scalar_op(b, arith.DivfOp, db, n))
        tilt = scalar_op(b, arith.MulfOp, _xhat(b, x, mean, r), scalar_op(b, arith.DivfOp, dg, n))
        scale = scalar_op(b, arith.MulfOp, gamma, r)
        return scalar_op(b, arith.MulfOp, scale, scalar_op(b, arith.SubfOp, centred_dy, tilt))

    channel_args = [op.mean, rstd, op.gamma, dbeta, dgamma]
    dx = e.elementwise([op.dy, op.input, *map(spread, channel_args)], t, dx_body)
    rewriter.replace(op, [], [dx, dgamma, dbeta])
