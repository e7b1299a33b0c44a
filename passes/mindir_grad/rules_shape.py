"""mindir-grad's adjoint rules for matmul, reductions, shape ops and tuples.

A tuple's adjoint is a Python list with one adjoint (or None) per element, so
`make_tuple` / `tuple_get_item` / `addn` cost no op in the backward.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from mindjit.dialects import mindir as M
from mindjit.dialects.mindir import shapes as S
from mindjit.passes.mindir_grad.emitter import GradEmitter, element_of, shape_of
from mindjit.passes.mindir_grad.rules import rule


@rule(M.MatMulOp)
def _matmul(e: GradEmitter, op, douts):
    (g,) = douts
    a, b = op.operands
    ta = bool(op.transpose_a.value.data)
    tb = bool(op.transpose_b.value.data)
    # C = op(A) @ op(B): dop(A) = dC @ op(B)^T, dop(B) = op(A)^T @ dC
    if ta:
        ga = e.v(M.MatMulOp.get(b, g, tb, True))
    else:
        ga = e.v(M.MatMulOp.get(g, b, False, not tb))
    if tb:
        gb = e.v(M.MatMulOp.get(g, a, True, ta))
    else:
        gb = e.v(M.MatMulOp.get(a, g, not ta, False))
    return [e.sum_to(ga, shape_of(a)), e.sum_to(gb, shape_of(b))]


def _kept_shape(op) -> tuple[int, ...]:
    """The reduction's result shape with the reduced axes kept as size 1."""
    shape = list(shape_of(op.input))
    for a in op.reduced_axes():
        shape[a] = 1
    return tuple(shape)


def _spread(e: GradEmitter, op, g: SSAValue) -> SSAValue:
    """The reduction's adjoint broadcast back over the reduced axes."""
    kept = _kept_shape(op)
    while kept and kept[0] == 1 and len(kept) > len(shape_of(g)):
        kept = kept[1:]  # leading axes: broadcasting adds them back
    return e.broadcast_to(e.reshape(g, kept), shape_of(op.input))


@rule(M.ReduceSumOp)
def _reduce_sum(e, op, douts):
    return [_spread(e, op, douts[0])]


@rule(M.ReduceMeanOp)
def _reduce_mean(e, op, douts):
    shape = shape_of(op.input)
    count = int(np.prod([shape[a] for a in op.reduced_axes()], dtype=np.int64))
    g = e.div(douts[0], e.scalar(count, element_of(douts[0])))
    return [_spread(e, op, g)]


@rule(M.ReduceMaxOp)
def _reduce_max(e, op, douts):
    # the adjoint is shared by the elements equal to the max (MindSpore's ReduceMax bprop)
    x = op.input
    kept = _kept_shape(op)
    out = e.broadcast_to(e.reshape(op.results[0], kept), shape_of(x))
    elt = element_of(x)
    hits = e.v(M.CastOp.get(e.compare(M.EqualOp, x, out), elt))
    n = e.reduce_sum(hits, op.reduced_axes(), keep_dims=True)
    g = e.div(e.reshape(douts[0], kept), n)
    return [e.mul(hits, e.broadcast_to(g, shape_of(x)))]


@rule(M.ReshapeOp)
def _reshape(e, op, douts):
    return [e.reshape(douts[0], shape_of(op.input))]


@rule(M.BroadcastToOp)
def _broadcast_to(e, op, douts):
    return [e.sum_to(douts[0], shape_of(op.input))]


@rule(M.TransposeOp)
def _transpose(e, op, douts):
    perm = list(op.perm.get_values())
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return [e.v(M.TransposeOp.get(douts[0], inverse))]


def _axis(op) -> int:
    return op.axis.value.data


def _slice_along(e: GradEmitter, g: SSAValue, axis: int, start: int, stop: int) -> SSAValue:
    shape = shape_of(g)
    starts = [0] * len(shape)
    limits = list(shape)
    starts[axis], limits[axis] = start, stop
    return e.v(M.GetItemOp.get(g, starts, limits, [1] * len(shape)))


@rule(M.ConcatOp)
def _concat(e, op, douts):
    (g,) = douts
    rank = len(shape_of(g))
    axis = _axis(op) % rank
    out, start = [], 0
    for x in op.inputs:
        size = shape_of(x)[axis]
        out.append(_slice_along(e, g, axis, start, start + size))
        start += size
    return out


@rule(M.StackOp)
def _stack(e, op, douts):
    (g,) = douts
    axis = _axis(op) % len(shape_of(g))
    return list(e.op(M.UnstackOp.get(g, axis)).results)


@rule(M.UnstackOp)
def _unstack(e, op, douts):
    axis = _axis(op) % len(shape_of(op.input))
    pieces = [g if g is not None else e.zeros(r.type) for g, r in zip(douts, op.results)]
    return [e.v(M.StackOp.get(pieces, axis))]


@rule(M.GetItemOp)
def _get_item(e, op, douts):
    """Scatter the slice's adjoint back: zeros around it, and between its elements
    when a stride skips some."""
    x = op.input
    xshape = shape_of(x)
    starts = list(op.starts.get_values())
    limits = list(op.limits.get_values())
    strides = list(op.strides.get_values())
    squeeze = set(op.squeeze.get_values())
    g = douts[0]
    # put the squeezed axes back as size 1
    full = [
        1 if a in squeeze else len(range(starts[a], limits[a], strides[a]))
        for a in range(len(xshape))
    ]
    g = e.reshape(g, full)
    for a in range(len(xshape)):
        n, s, start = full[a], strides[a], starts[a]
        if s > 1 and n > 1:
            # interleave s - 1 zero slabs after each element, then cut the tail
            shape = list(shape_of(g))
            zeros = e.zeros(g.type)
            g = e.v(M.StackOp.get([g] + [zeros] * (s - 1), a + 1))
            shape[a] = n * s
            g = e.reshape(g, shape)
            g = _slice_along(e, g, a, 0, (n - 1) * s + 1)
        span = shape_of(g)[a]
        before, after = start, xshape[a] - start - span
        pieces = []
        if before:
            pieces.append(e.zeros(_with(g, a, before)))
        pieces.append(g)
        if after:
            pieces.append(e.zeros(_with(g, a, after)))
        if len(pieces) > 1:
            g = e.v(M.ConcatOp.get(pieces, a))
    return [g]


def _with(g: SSAValue, axis: int, size: int):

    shape = list(shape_of(g))
    shape[axis] = size
    return S.tensor_type(shape, element_of(g))


@rule(M.MakeTupleOp)
def _make_tuple(e, op, douts):
    (g,) = douts
    if isinstance(g, list):
        return list(g)
    return [None] * len(op.operands)


@rule(M.TupleGetItemOp)
def _tuple_get_item(e, op, douts):
    n = len(op.tuple.type.types.data)
    adj: list = [None] * n
    adj[op.index.value.data] = douts[0]
    return [adj]


@rule(M.AddNOp)
def _addn(e, op, douts):
    n = len(op.inputs.type.types.data)
    return [[douts[0]] * n]
