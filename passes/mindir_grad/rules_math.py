"""mindir-grad's adjoint rules for the elementwise math ops that exist for accuracy
(log1p, expm1) or have no composition of the others (atan2):

- log1p: g / (1 + x);
- expm1: g * (y + 1), with y the forward result (exp(x) = expm1(x) + 1);
- atan2(y, x): d y = g * x / (x^2 + y^2), d x = -g * y / (x^2 + y^2), each summed
  back to its operand's shape (the operands broadcast). At the origin both are
  0 / 0 = NaN, as MindSpore's Atan2Grad gives.
"""

from __future__ import annotations

from mindjit.dialects import mindir as M
from mindjit.passes.mindir_grad.emitter import element_of
from mindjit.passes.mindir_grad.rules import _binary_out, rule


@rule(M.Log1pOp)
def _log1p(e, op, douts):
    (x,) = op.operands
    return [e.div(douts[0], e.add(x, e.scalar(1, element_of(x))))]


@rule(M.Expm1Op)
def _expm1(e, op, douts):
    y = op.results[0]
    return [e.mul(douts[0], e.add(y, e.scalar(1, element_of(y))))]


@rule(M.Atan2Op)
def _atan2(e, op, douts):
    (g,) = douts
    y, x = op.operands
    scaled = e.div(g, e.add(e.mul(x, x), e.mul(y, y)))
    return _binary_out(e, op, e.mul(scaled, x), e.neg(e.mul(scaled, y)))
