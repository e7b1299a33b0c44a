"""mindir-grad's adjoint rules for elementwise ops, select, cast and the effect ops
that hand a value through.

A rule takes the emitter, the forward op and the adjoint of each of its results
(None: zero) and returns the adjoint of each operand (None: zero, or not
differentiable). Binary ops broadcast, so each operand's adjoint is summed back
to the operand's shape. The formulas are MindSpore's bprops (e.g. `maximum`
gives ties to x, `abs` has slope 0 at 0, `relu` too), down to their primitives:
sigmoid's and tanh's adjoints are one `sigmoid_grad` / `tanh_grad` each, as
MindSpore's SigmoidGrad / TanhGrad, not the three ops of their formulas (an
unrolled LSTM has a thousand of them), and those two differentiate into
themselves plus a few ops (second order).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from xdsl.ir import Operation, SSAValue

from mindjit.dialects import mindir as M
from mindjit.dialects.mindir import shapes as S
from mindjit.ir.rules import RuleTable
from mindjit.passes.mindir_grad.emitter import GradEmitter, element_of, shape_of

Adjoint = Any  # SSAValue | None | list (a tuple's adjoint, one per element)
Rule = Callable[[GradEmitter, Operation, list[Adjoint]], list[Adjoint]]

#: op class -> its adjoint rule; the classes excluded give their operands no
#: gradient (why: the exclusion's reason)
RULES: RuleTable[Rule] = RuleTable("mindir-grad", "passes/mindir_grad/rules*.py", "adjoint rule")
rule = RULES.register

RULES.exclude(
    "not differentiable: its result carries no gradient",
    M.ConstantOp,
    *M.COMPARE_OPS,
    M.LogicalAndOp,
    M.LogicalOrOp,
    M.LogicalNotOp,
)
RULES.exclude(
    "bitwise: integer operands and result, nothing differentiable flows through",
    *M.BITWISE_OPS,
)
RULES.exclude(
    "random numbers: a function of integer operands (seed key, offset) only, so "
    "nothing differentiable flows in (a dropout's gradient reuses the mask's SSA value)",
    M.UniformRealOp,
)
RULES.exclude(
    "stop_gradient: the gradient does not flow through it (MindSpore's StopGradient)",
    M.StopGradientOp,
)
RULES.exclude(
    "piecewise constant: its gradient is zero (MindSpore's bprop returns zeros)",
    M.FloorOp,
    M.CeilOp,
    M.RoundOp,
)
RULES.exclude(
    "a Parameter's handle, an assignment or a state: no gradient flows through it "
    "(a Load's adjoint goes to its Parameter, see mindir_grad.py)",
    M.ParameterOp,
    M.GetParameterOp,
    M.AssignOp,
    M.ApplyMomentumOp,
    M.ApplyAdamOp,
    M.UpdateMovingStatsOp,
    M.UpdateStateOp,
    M.PrintOp,
)
RULES.exclude(
    "a loop's record, made by mindir-grad for its backward loop: second order through "
    "a recorded loop (differentiating the record itself) is not supported yet",
    *M.STACK_OPS,
    refused=True,
)
RULES.exclude(
    "mindir-pipeline-split runs after mindir-grad: a send/receive never reaches the grad pass",
    *M.COMM_OPS,
    refused=True,
)
RULES.exclude(
    "the Ascend float status: no gradient (ordered with depend, as in MindSpore)",
    *M.DEVICE_OPS,
)
RULES.exclude(
    "differentiated by mindir-grad itself: a Load's adjoint is added to its "
    "Parameter's gradient, an if's regions are differentiated branch by branch "
    "(control.py), a while by a backward loop over its record (while_loop.py), a "
    "terminator by the op holding it, an inner grad expanded first",
    M.LoadOp,
    M.IfOp,
    M.WhileOp,
    M.YieldOp,
    M.ConditionOp,
    M.GradOp,
)


RULES.exclude(
    "batched before its grad is expanded, by mindir-grad{vmap=true} (the jit pipelines' setting)",
    M.VmapOp,
    refused=True,
)


def _binary_out(e: GradEmitter, op: Operation, gx: SSAValue | None, gy: SSAValue | None):
    x, y = op.operands
    return [
        None if gx is None else e.sum_to(gx, shape_of(x)),
        None if gy is None else e.sum_to(gy, shape_of(y)),
    ]


@rule(M.AddOp)
def _add(e, op, douts):
    (g,) = douts
    return _binary_out(e, op, g, g)


@rule(M.SubOp)
def _sub(e, op, douts):
    (g,) = douts
    return _binary_out(e, op, g, e.neg(g))


@rule(M.MulOp)
def _mul(e, op, douts):
    (g,) = douts
    x, y = op.operands
    return _binary_out(e, op, e.mul(g, y), e.mul(g, x))


@rule(M.DivOp)
def _div(e, op, douts):
    (g,) = douts
    x, y = op.operands
    gx = e.div(g, y)
    gy = e.neg(e.mul(gx, op.results[0]))  # -g * (x / y) / y
    return _binary_out(e, op, gx, gy)


@rule(M.PowOp)
def _pow(e, op, douts):
    (g,) = douts
    x, y = op.operands
    out = op.results[0]
    elt = element_of(x)
    # d/dx x**y = y * x**(y-1)
    ym1 = e.sub(y, e.scalar(1, elt))
    gx = e.mul(g, e.mul(y, e.v(M.PowOp.get(x, ym1))))
    if not S.is_float(elt):
        return _binary_out(e, op, gx, None)
    # d/dy x**y = x**y * log(x), 0 where x <= 0 (as MindSpore's PowGrad)
    zero = e.scalar(0, elt)
    positive = e.compare(M.GreaterOp, x, zero)
    safe_x = e.select(positive, x, e.scalar(1, elt))
    gy = e.mask(positive, e.mul(g, e.mul(out, e.unary(M.LogOp, safe_x))))
    return _binary_out(e, op, gx, gy)


#: the compare that says x is the one maximum/minimum picks (ties go to x)
_X_WINS: dict[type, type] = {M.MaximumOp: M.GreaterEqualOp, M.MinimumOp: M.LessEqualOp}


@rule(*_X_WINS)
def _max_min(e, op, douts):
    (g,) = douts
    x, y = op.operands
    cmp = _X_WINS[type(op)]
    x_wins = e.compare(cmp, x, y)
    shape = shape_of(op.results[0])
    g = e.broadcast_to(g, shape)
    zero = e.scalar(0, element_of(g))
    return _binary_out(e, op, e.select(x_wins, g, zero), e.select(x_wins, zero, g))


@rule(M.NegOp)
def _neg(e, op, douts):
    return [e.neg(douts[0])]


@rule(M.AbsOp)
def _abs(e, op, douts):
    (x,) = op.operands
    zero = e.scalar(0, element_of(x))
    g = douts[0]
    pos = e.mask(e.compare(M.GreaterOp, x, zero), g)
    neg = e.mask(e.compare(M.LessOp, x, zero), g)
    return [e.sub(pos, neg)]


@rule(M.ReluOp)
def _relu(e, op, douts):
    (x,) = op.operands
    return [e.mask(e.compare(M.GreaterOp, x, e.scalar(0, element_of(x))), douts[0])]


@rule(M.ExpOp)
def _exp(e, op, douts):
    return [e.mul(douts[0], op.results[0])]


@rule(M.LogOp)
def _log(e, op, douts):
    return [e.div(douts[0], op.operands[0])]


@rule(M.TanhOp)
def _tanh(e, op, douts):  # dy * (1 - t * t), one op
    return [e.v(M.TanhGradOp.get(op.results[0], douts[0]))]


@rule(M.TanhGradOp)
def _tanh_grad(e, op, douts):
    # d/dy dy * (1 - y*y) = -2 * dy * y; d/ddy = 1 - y*y, TanhGrad(y, g) again
    (g,) = douts
    y, dy = op.operands
    gy = e.mul(e.mul(e.mul(g, dy), y), e.scalar(-2, element_of(y)))
    return _binary_out(e, op, gy, e.v(M.TanhGradOp.get(y, g)))


@rule(M.SinOp)
def _sin(e, op, douts):
    return [e.mul(douts[0], e.unary(M.CosOp, op.operands[0]))]


@rule(M.CosOp)
def _cos(e, op, douts):
    return [e.neg(e.mul(douts[0], e.unary(M.SinOp, op.operands[0])))]


@rule(M.ErfOp)
def _erf(e, op, douts):
    x = op.operands[0]
    elt = element_of(x)
    slope = e.mul(e.unary(M.ExpOp, e.neg(e.mul(x, x))), e.scalar(2.0 / math.sqrt(math.pi), elt))
    return [e.mul(douts[0], slope)]


@rule(M.SigmoidOp)
def _sigmoid(e, op, douts):  # dy * s * (1 - s), one op
    return [e.v(M.SigmoidGradOp.get(op.results[0], douts[0]))]


@rule(M.SigmoidGradOp)
def _sigmoid_grad(e, op, douts):
    # d/dy dy * y * (1 - y) = dy * (1 - 2y); d/ddy = y * (1 - y), SigmoidGrad(y, g) again
    (g,) = douts
    y, dy = op.operands
    elt = element_of(y)
    slope = e.sub(e.scalar(1, elt), e.mul(y, e.scalar(2, elt)))
    return _binary_out(e, op, e.mul(e.mul(g, dy), slope), e.v(M.SigmoidGradOp.get(y, g)))


@rule(M.SqrtOp)
def _sqrt(e, op, douts):
    r = op.results[0]
    return [e.div(douts[0], e.mul(r, e.scalar(2, element_of(r))))]


@rule(M.HSwishOp)
def _hswish(e, op, douts):
    # slope 0 below -3, 1 above 3, (2x + 3) / 6 between
    (x,) = op.operands
    elt = element_of(x)
    slope = e.div(e.add(e.mul(x, e.scalar(2, elt)), e.scalar(3, elt)), e.scalar(6, elt))
    slope = e.select(e.compare(M.GreaterOp, x, e.scalar(3, elt)), e.scalar(1, elt), slope)
    slope = e.mask(e.compare(M.GreaterEqualOp, x, e.scalar(-3, elt)), slope)
    return [e.mul(douts[0], slope)]


@rule(M.SelectOp)
def _select(e, op, douts):
    (g,) = douts
    cond, x, y = op.operands
    g = e.broadcast_to(g, shape_of(op.results[0]))
    zero = e.scalar(0, element_of(g))
    gx = e.sum_to(e.select(cond, g, zero), shape_of(x))
    gy = e.sum_to(e.select(cond, zero, g), shape_of(y))
    return [None, gx, gy]


@rule(M.CastOp)
def _cast(e, op, douts):
    (x,) = op.operands
    if S.is_bool(element_of(x)):
        return [None]
    return [e.cast(douts[0], element_of(x))]


@rule(M.DependOp)
def _depend(e, op, douts):
    return [douts[0]] + [None] * (len(op.operands) - 1)


@rule(M.TensorMoveOp, M.CheckRangeOp)
def _identity(e, op, douts):
    return [douts[0]]
