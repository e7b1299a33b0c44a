"""mindir-grad's rules for index ops: argmax/argmin (no gradient: integer results),
sort (the values' adjoint goes back to where each value came from)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import SSAValue

from mindjit.dialects import mindir as M
from mindjit.passes.mindir_grad.emitter import GradEmitter, element_of, shape_of
from mindjit.passes.mindir_grad.rules import RULES, rule

RULES.exclude(
    "an integer result (an index) carries no gradient; ops.max/min take their values' "
    "gradient through the one-hot selection of the chosen element",
    *M.INDEX_REDUCE_OPS,
)


def iota(e: GradEmitter, shape: tuple[int, ...], axis: int, element) -> SSAValue:
    """A constant counting 0..n-1 along `axis` of a tensor of 1s elsewhere in `shape`."""
    n = shape[axis]
    values = np.arange(n).reshape([n if d == axis else 1 for d in range(len(shape))])
    t = TensorType(element, [n if d == axis else 1 for d in range(len(shape))])
    attr = DenseIntOrFPElementsAttr.from_list(t, values.ravel().tolist())
    return e.v(M.ConstantOp.make([], {"value": attr}))


def scatter_along(e: GradEmitter, g: SSAValue, indices: SSAValue, axis: int) -> SSAValue:
    """d[..., i, ...] = sum over k of (indices[..., k, ...] == i) * g[..., k, ...]:
    the adjoint of a gather along `axis` by `indices`, with existing ops only (a
    one-hot of n x n per row: sort's lowering is quadratic along the axis anyway)."""
    shape = shape_of(g)
    n = shape[axis]
    with_i = (*shape[: axis + 1], 1, *shape[axis + 1 :])  # [..., k, 1(i), ...]
    onehot_shape = (*shape[: axis + 1], n, *shape[axis + 1 :])
    positions = iota(e, onehot_shape, axis + 1, element_of(indices))
    hit = e.compare(M.EqualOp, e.reshape(indices, with_i), positions)
    spread = e.broadcast_to(e.reshape(g, with_i), onehot_shape)
    return e.reduce_sum(e.mask(hit, spread), [axis])


@rule(M.SortOp)
def _sort(e, op, douts):
    g = douts[0]
    if g is None:  # only the indices are used
        return [None]
    return [scatter_along(e, g, op.indices, op.sorted_axis())]


@rule(M.CumSumOp)
def _cumsum(e, op, douts):
    """The adjoint of a running sum is the running sum the other way round."""
    (g,) = douts
    return [e.v(M.CumSumOp.get(g, op.scan_axis(), op.is_exclusive(), not op.is_reverse()))]


@rule(M.CumProdOp)
def _cumprod(e, op, douts):
    """d x_j = sum over the i whose product holds x_j of g_i * out_i / x_j, i.e.
    cumsum(g * out) the other way round, divided by x. Exact for an input without
    zeros (MindSpore's CumProd bprop is the same formula); a zero gives inf/NaN."""
    (g,) = douts
    x = op.input
    flow = e.v(
        M.CumSumOp.get(e.mul(g, op.result), op.scan_axis(), op.is_exclusive(), not op.is_reverse())
    )
    return [e.div(flow, x)]
