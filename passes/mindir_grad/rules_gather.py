"""mindir-grad's adjoint rules for gather and unsorted_segment_sum, each the other's
adjoint (MindSpore's Gather bprop is UnsortedSegmentSum, and back):

- gather, d params: the output gradient with the index dims moved to the front,
  summed into the rows its indices name (`unsorted_segment_sum` with
  num_segments = params.shape[axis]), the gathered axis moved back in place. An
  out-of-range index gathered zeros and sends nothing back. The indices are
  integers: no gradient.
- unsorted_segment_sum, d x: each slice gets its segment's gradient (`gather`
  along axis 0); an out-of-range id added nowhere and gets zeros.
"""

from __future__ import annotations

from mindjit.dialects import mindir as M
from mindjit.passes.mindir_grad.emitter import GradEmitter, shape_of
from mindjit.passes.mindir_grad.rules import rule


@rule(M.GatherOp)
def _gather(e: GradEmitter, op, douts):
    (g,) = douts
    g = e.broadcast_to(g, shape_of(op.results[0]))
    axis = op.gather_axis
    n = shape_of(op.params)[axis]
    k = len(shape_of(op.indices))
    rank = len(shape_of(g))
    if axis:
        front = [*range(axis, axis + k), *range(axis), *range(axis + k, rank)]
        g = e.v(M.TransposeOp.get(g, front))
    d = e.v(M.UnsortedSegmentSumOp.get(g, op.indices, n))
    if axis:
        back = [*range(1, axis + 1), 0, *range(axis + 1, len(shape_of(d)))]
        d = e.v(M.TransposeOp.get(d, back))
    return [d, None]


@rule(M.UnsortedSegmentSumOp)
def _unsorted_segment_sum(e: GradEmitter, op, douts):
    (g,) = douts
    g = e.broadcast_to(g, shape_of(op.results[0]))
    return [e.v(M.GatherOp.get(g, op.segment_ids, 0)), None]
