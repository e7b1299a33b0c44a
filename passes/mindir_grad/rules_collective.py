"""mindir-grad's adjoints of the collectives: MindSpore's bprops
(mindspore/ops/_grad_experimental/grad_comm_ops.py), themselves collectives.

- all_reduce sum: all_reduce sum of the output gradient;
  prod: all_reduce_sum(dout * out) / x; max and min: all_reduce_sum(dout) where
  x is the result (`x == out`), else 0.
- all_gather: reduce_scatter (sum) of the output gradient (MindSpore's
  `mean_flag` is False for a user's AllGather).
- reduce_scatter: all_gather of the output gradient.
- broadcast: the output gradient itself, on every rank (MindSpore's bprop
  returns `dout`).

Every replica differentiates the same graph, so the backward collectives match
up across replicas like the forward ones.
"""

from __future__ import annotations

from mindjit.dialects import mindir as M
from mindjit.passes.mindir_grad.emitter import element_of
from mindjit.passes.mindir_grad.rules import rule


@rule(M.AllReduceOp)
def _all_reduce(e, op, douts):
    (g,) = douts
    kind = op.op.data
    if kind == "sum":
        return [e.v(M.AllReduceOp.get(g, "sum"))]
    x, out = op.operands[0], op.results[0]
    if kind == "prod":
        return [e.div(e.v(M.AllReduceOp.get(e.mul(g, out), "sum")), x)]
    summed = e.v(M.AllReduceOp.get(g, "sum"))
    return [e.mul(summed, e.cast(e.compare(M.EqualOp, x, out), element_of(summed)))]


@rule(M.AllGatherOp)
def _all_gather(e, op, douts):
    (g,) = douts
    return [e.v(M.ReduceScatterOp.get(g, op.rank_size.value.data))]


@rule(M.ReduceScatterOp)
def _reduce_scatter(e, op, douts):
    (g,) = douts
    return [e.v(M.AllGatherOp.get(g, op.rank_size.value.data))]


@rule(M.BroadcastOp)
def _broadcast(e, op, douts):
    return [douts[0]]
