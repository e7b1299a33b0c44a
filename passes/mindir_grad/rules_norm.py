"""mindir-grad's adjoint of batch_norm (training mode): one batch_norm_grad.

With xhat = (x - mean) * r, r = 1 / sqrt(variance + epsilon), n the elements
per channel and sums over every axis but the channels', `batch_norm_grad`
computes MindSpore's BatchNormGrad for the output's gradient dy:

    d beta  = sum(dy)
    d gamma = sum(dy * xhat)
    d x     = gamma * r * (dy - d beta / n - xhat * d gamma / n)

When the batch statistics themselves are used (the frontend's running averages
are Assigns, which have no gradient), d x also takes d mean / n and d variance
* 2 (x - mean) / n, written with mindir ops. The gradient of batch_norm_grad (a
second derivative through a training-mode batch norm) is refused with a reason.
"""

from __future__ import annotations

from mindjit.dialects import mindir as M
from mindjit.passes.mindir_grad.emitter import GradEmitter, element_of, shape_of
from mindjit.passes.mindir_grad.rules import RULES, rule


@rule(M.BatchNormOp)
def _batch_norm(e: GradEmitter, op: M.BatchNormOp, douts):
    dy, dmean, dvar = douts
    x = op.input
    dx = dgamma = dbeta = None
    if dy is not None:
        grads = e.op(M.BatchNormGradOp.get(dy, x, op.mean, op.variance, op.gamma, op.eps()))
        dx, dgamma, dbeta = grads.results
    if dmean is None and dvar is None:
        return [dx, dgamma, dbeta]
    shape = shape_of(x)
    channels = [1] * len(shape)
    channels[1] = shape[1]
    element = element_of(x)
    n = e.scalar(float(op.count()), element)
    if dmean is not None:
        part = e.broadcast_to(e.div(e.reshape(dmean, channels), n), shape)
        dx = part if dx is None else e.add(dx, part)
    if dvar is not None:
        twice = e.div(e.mul(dvar, e.scalar(2.0, element)), n)
        part = e.mul(e.reshape(twice, channels), e.sub(x, e.reshape(op.mean, channels)))
        dx = part if dx is None else e.add(dx, part)
    return [dx, dgamma, dbeta]


RULES.exclude(
    "a second derivative through a training-mode batch norm (the gradient of its "
    "gradient) is not supported",
    M.BatchNormGradOp,
    refused=True,
)
