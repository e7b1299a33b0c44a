"""Plan builders for linalg structured ops, all through one vectorised scheme.

Each op is normalised to a `Spec` (see `linalg_spec`), its body compiled into
numpy calls on whole arrays (`linalg_body`), and planned as an elementwise op
here or as a reduction (`linalg_fold`).  Inits the body never reads, or that
are a fill of the combiner's neutral element, are not even read, so their
producers (`tensor.empty`, `linalg.fill`) are dropped from the plan.
"""

from __future__ import annotations

from math import prod
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue

from mindjit.backend.cpu.errors import op_failure, unsupported
from mindjit.backend.cpu.kernels_library import build_library_call
from mindjit.backend.cpu.linalg_body import Body
from mindjit.backend.cpu.linalg_fold import plan_reduction
from mindjit.backend.cpu.linalg_index_patterns import plan_arg_reduce
from mindjit.backend.cpu.linalg_segment import segment_sum_kernel
from mindjit.backend.cpu.linalg_spec import (
    Fn,
    Operand,
    Shape,
    Spec,
    broadcast_spec,
    layout,
    loop_shape,
    reduce_spec,
    seq,
    structured_spec,
    then,
    with_preps,
)
from mindjit.backend.cpu.registry import register
from mindjit.backend.cpu.steps import call_step, multi_call_step
from mindjit.backend.cpu.types import dtype_of, is_tensor, static_shape

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler


def build_structured(c: FunctionCompiler, spec: Spec) -> None:
    """One step (or a plan-time constant) computing all results of the op."""
    op = spec.op
    if len(op.results) != len(spec.outs) or not all(is_tensor(v.type) for v in spec.outs):
        raise unsupported(op, "only tensor operands with results are supported")
    loop = loop_shape(spec)
    operands = [layout(spec, v, m) for v, m in zip([*spec.ins, *spec.outs], spec.maps)]
    body = Body(c, op, spec.block, [o.shape for o in operands], loop)
    if len(body.yields) != len(spec.outs):  # xDSL's verifier lets this through, MLIR's not
        raise op_failure(
            op, f"'{op.name}' body yields {len(body.yields)} values for {len(spec.outs)} outputs"
        )
    if spec.reductions and (arg := plan_arg_reduce(c, spec, operands, loop)) is not None:
        kernel, ins, fresh = arg
    elif spec.reductions:
        kernel, ins, fresh = plan_reduction(c, spec, operands, body, loop)
    else:
        kernel, ins, fresh = _plan_parallel(spec, operands, body, loop)
    _emit(c, spec, kernel, ins, fresh)


def _emit(
    c: FunctionCompiler, spec: Spec, kernel: Fn, ins: list[SSAValue], fresh: list[bool]
) -> None:
    """Fold at plan time when every input is a constant, else emit one step."""
    results = list(spec.op.results)
    if all(c.is_known(v) for v in ins):
        with np.errstate(all="ignore"):
            values = kernel(*[c.known(v) for v in ins])
        values = values if len(results) > 1 else (values,)
        for r, value in zip(results, values):
            value = np.array(value)
            value.flags.writeable = False
            c.constant(r, value)
        return
    slots = [c.read(v) for v in ins]
    outs = [
        c.define(r, fresh=True) if f else c.define(r, like=spec.ins + spec.outs, readonly=True)
        for r, f in zip(results, fresh)
    ]
    if len(outs) == 1:
        c.emit(call_step(kernel, slots, outs[0]))
    else:
        c.emit(multi_call_step(kernel, slots, outs))


def _plan_parallel(
    spec: Spec, operands: list[Operand], body: Body, loop: Shape
) -> tuple[Fn, list[SSAValue], list[bool]]:
    """Elementwise: lay inputs out, run the body, give each result its layout."""
    n = spec.num_dims
    outs = operands[len(spec.ins) :]
    for o in outs:
        if not o.pure or sorted(o.dims) != list(range(n)):
            raise unsupported(spec.op, "output indexing map must be a permutation")
    fn, used, captured = body.compile(body.yields)
    posts, fresh = [], []
    for target, o in zip(body.yields, outs):
        post, is_fresh = _parallel_post(body, target, loop, o.dims)
        posts.append(post)
        fresh.append(is_fresh)
    preps = [operands[i].prep for i in used] + [None] * len(captured)
    kernel = then(with_preps(fn, preps), posts)
    return kernel, [operands[i].value for i in used] + captured, fresh


def _parallel_post(
    body: Body, target: SSAValue, loop: Shape, out_dims: tuple[int, ...]
) -> tuple[Fn | None, bool]:
    """Bring a body result to the output's full shape and axis order."""
    shape = body.shape[target]
    fresh = body.is_fresh(target)
    if not loop:
        return np.asarray, fresh
    parts: list[Fn] = []
    if shape != loop:
        if prod(shape) == prod(loop) and len(shape) <= len(loop):
            parts.append(lambda y: y.reshape(loop))
        else:
            parts.append(lambda y: np.broadcast_to(y, loop))
            fresh = False
    if out_dims != tuple(range(len(loop))):
        parts.append(lambda y: y.transpose(out_dims))
    return seq(parts), fresh


# -- registrations -----------------------------------------------------------------------------

_NAMED = (
    linalg.GenericOp,
    linalg.AddOp,
    linalg.SubOp,
    linalg.MulOp,
    linalg.MaxOp,
    linalg.MinOp,
    linalg.ExpOp,
    linalg.LogOp,
    linalg.SqrtOp,
    linalg.SelectOp,
    linalg.MatmulOp,
    linalg.TransposeOp,
)


@register(*_NAMED)
def build_named(c: FunctionCompiler, op: Operation) -> None:
    if build_library_call(c, op):  # a generic naming its kernel (kernels_library.py)
        return
    spec = structured_spec(op)
    if isinstance(op, linalg.GenericOp) and (segment := segment_sum_kernel(spec)) is not None:
        kernel, ins = segment  # a scatter-add, not the literal segments x N reduction
        _emit(c, spec, kernel, ins, [True])
        return
    build_structured(c, spec)


@register(linalg.CopyOp)
def build_copy(c: FunctionCompiler, op: Operation) -> None:
    """A real copy (what `mindir.tensor_move` lowers to): a fresh C-contiguous array,
    counted in `exe.stats` (copies, copied_bytes). A copy of a plan-time constant is
    that constant (no run-time copy)."""
    if (
        len(op.operands) != 2
        or len(op.results) != 1
        or op.operands[0].type != op.results[0].type
        or not is_tensor(op.results[0].type)
    ):
        build_structured(c, structured_spec(op))  # a converting copy: the general scheme
        return
    source, result = op.operands[0], op.results[0]
    if c.is_known(source):
        c.share(result, source)
        return
    stats = c.exe.stats

    def tensor_copy(x: np.ndarray) -> np.ndarray:
        y = np.array(x, order="C")
        stats.copies += 1
        stats.copied_bytes += y.nbytes
        return y

    c.emit(call_step(tensor_copy, [c.read(source)], c.define(result, fresh=True)))


@register(linalg.ReduceOp)
def build_reduce(c: FunctionCompiler, op: Operation) -> None:
    build_structured(c, reduce_spec(op))


@register(linalg.BroadcastOp)
def build_broadcast(c: FunctionCompiler, op: Operation) -> None:
    build_structured(c, broadcast_spec(op))


@register(linalg.FillOp)
def build_fill(c: FunctionCompiler, op: Operation) -> None:
    """A fill of a constant is a plan-time constant whose splat value consumers
    can see (neutral inits are then never read); otherwise one np.full."""
    if not op.results or not is_tensor(op.results[0].type):
        raise unsupported(op, "only tensor operands with results are supported")
    result, value = op.results[0], op.inputs[0]
    shape, dtype = static_shape(result.type, op), dtype_of(result.type, op)
    if c.is_known(value):
        v = dtype.type(c.known(value))

        def make() -> np.ndarray:
            array = np.full(shape, v, dtype)
            array.flags.writeable = False
            return array

        c.constant(result, make, splat=v)
        return
    c.emit(
        call_step(lambda x: np.full(shape, x, dtype), [c.read(value)], c.define(result, fresh=True))
    )
