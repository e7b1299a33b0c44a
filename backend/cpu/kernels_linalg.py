"""Plan builders for linalg structured ops, all through one vectorised scheme.

Each op is normalised to a `Spec` (see `linalg_spec`), its body compiled into
numpy calls on whole arrays (`linalg_body`), and planned as an elementwise op
here or as a reduction (`linalg_fold`).  Inits the body never reads, or that
are a fill of the combiner's neutral element, are not even read, so their
producers (`tensor.empty`, `linalg.fill`) are dropped from the plan.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue

from mindjit.backend.cpu.codegen_llvm import fused_kernel
from mindjit.backend.cpu.codegen_reduce import row_sum_kernel
from mindjit.backend.cpu.errors import op_failure, unsupported
from mindjit.backend.cpu.kernels_library import build_library_call
from mindjit.backend.cpu.linalg_body import Body
from mindjit.backend.cpu.linalg_fold import folds, plan_reduction
from mindjit.backend.cpu.linalg_index_patterns import plan_arg_reduce, reverse_kernel
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
from mindjit.backend.cpu.steps import call_step, multi_call_step, stealing
from mindjit.backend.cpu.types import dtype_of, is_tensor, static_shape
from mindjit.ir.compat.linked_ops import block_ops, has_successors, raw_operands

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler


def build_structured(c: FunctionCompiler, spec: Spec) -> None:
    """One step (or a plan-time constant) computing all results of the op."""
    kernel, ins, fresh = _plan_structured(c, spec)
    _emit(c, spec.op, spec.ins + spec.outs, kernel, ins, fresh)


def _plan_structured(c: FunctionCompiler, spec: Spec) -> tuple[Fn, list[SSAValue], list[bool]]:
    """The kernel of a structured op, the values it reads and which results are fresh."""
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
        return arg
    codegen = c.exe.codegen
    if spec.reductions:
        found = folds(c, spec, operands, body)
        if codegen is not None:
            summed = row_sum_kernel(
                codegen,
                spec,
                operands,
                body,
                loop,
                found,
                lambda: plan_reduction(spec, operands, body, loop, found),
            )
            if summed is not None:
                return summed
        return plan_reduction(spec, operands, body, loop, found)
    if codegen is not None:  # also for constant inputs: one structure, one kernel
        fused = fused_kernel(
            codegen, spec, operands, body, loop, lambda: _plan_parallel(spec, operands, body, loop)
        )
        if fused is not None:
            return fused
    return _plan_parallel(spec, operands, body, loop)


def _emit(
    c: FunctionCompiler,
    op: Operation,
    views: Sequence[SSAValue],
    kernel: Fn,
    ins: list[SSAValue],
    fresh: list[bool],
) -> None:
    """Fold at plan time when every input is a constant, else emit one step
    (`views`: the values a result that is not fresh may be a view of)."""
    results = list(op.results)
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
        c.define(r, fresh=True) if f else c.define(r, like=views, readonly=True)
        for r, f in zip(results, fresh)
    ]
    steals = getattr(kernel, "steals", None)  # a generated kernel that may write in place
    if len(outs) == 1 and steals is not None:
        c.set_roots(results[0], c.roots(results[0]) | c.roots(ins[steals]))
        c.emit(stealing(kernel, slots, outs[0], steals))
    elif len(outs) == 1:
        c.emit(call_step(kernel, slots, outs[0]))
    else:
        c.emit(multi_call_step(kernel, slots, outs))


# -- one kernel per structure --------------------------------------------------------------
#
# A lowered graph repeats a few op structures thousands of times (an LSTM unrolled
# over 50 steps has its gates' generics once per step). The kernel of a structured
# op depends only on its structure: the op's class, the operand and result types,
# which operands are the same value, its properties and attributes, its body, and
# the splat values of the operands the compiler folded (a neutral init is not read).
# Each structure is planned once per function; later ops of it reuse the kernel
# with their own slots (as the compile cache's kernel templates do,
# backend/cache/plan_codec.py). A body reading a value from outside itself
# (captured, maybe a plan-time constant) is planned op by op.


def _splat_key(value: object) -> object:
    if value is None:
        return None
    tobytes = getattr(value, "tobytes", None)  # exact bits: -0.0 and NaNs apart
    return (type(value), tobytes() if tobytes is not None else repr(value))


def _structure_key(
    c: FunctionCompiler, op: Operation
) -> tuple[tuple[object, ...], list[object]] | None:
    """What the kernel of `op` depends on, or None when that is more (see above):
    its attributes (types, properties), and the rest of it as a tuple of plain
    values. Values are told apart by id and read through `raw_operands` (asked of
    every structured op: xDSL's operand views and SSAValue.__hash__ are Python
    calls, half of this function's time on the GPT-32 train step)."""
    if has_successors(op):
        return None
    attrs: list[object] = []
    parts: list[object] = [type(op)]
    first: dict[int, int] = {}
    for i, v in enumerate(raw_operands(op)):
        parts.append(first.setdefault(id(v), i))
        attrs.append(v.type)
        parts.append(_splat_key(c.splat(v)))
    results = op.results
    parts.append(len(results))
    attrs.extend([r.type for r in results])
    for table in (op.properties, op.attributes):
        parts.append(len(table))
        for name, value in table.items():
            parts.append(name)
            attrs.append(value)
    for region in op.regions:
        blocks = list(region.blocks)
        parts.append(len(blocks))
        for block in blocks:
            local: dict[int, int] = {}
            for a in block.args:
                local[id(a)] = len(local)
                attrs.append(a.type)
            parts.append(len(local))
            for inner in block_ops(block):
                if inner.regions or has_successors(inner):
                    return None
                parts.append(type(inner))
                operands = raw_operands(inner)
                parts.append(len(operands))
                for v in operands:
                    ref = local.get(id(v))
                    if ref is None:
                        return None  # a value from outside the body
                    parts.append(ref)
                parts.append(len(inner.results))
                for r in inner.results:
                    local[id(r)] = len(local)
                    attrs.append(r.type)
                for table in (inner.properties, inner.attributes):
                    parts.append(len(table))
                    for name, value in table.items():
                        parts.append(name)
                        attrs.append(value)
    return tuple(parts), attrs


def _build_by_structure(
    c: FunctionCompiler,
    op: Operation,
    plan: Callable[[], tuple[Spec, Fn, list[SSAValue], list[bool]]],
) -> None:
    """Emit `op` with the kernel of its structure, planned by `plan()` the first time.

    The table is looked up by the attributes' identities first (the lowering interns
    most of them: a tenth of the cost of hashing them by value), then by value; an
    entry keeps its attributes alive, so no other object takes their ids."""
    structure = _structure_key(c, op)
    table = c.kernels_by_structure
    found = by_id = by_value = None
    if structure is not None:
        parts, attrs = structure
        by_id = (parts, *[id(a) for a in attrs])
        found = table.get(by_id)
        if found is None:
            try:
                by_value = (parts, tuple(attrs))
                found = table.get(by_value)
            except TypeError:  # an attribute without a hash
                by_value = None
            if found is not None:  # this op's attributes stay alive with its entry
                found = table[by_id] = (*found[:3], attrs)
    operands = op.operands
    if found is not None:
        kernel, positions, fresh, _ = found
        _emit(c, op, operands, kernel, [operands[i] for i in positions], fresh)
        return
    spec, kernel, ins, fresh = plan()
    views = spec.ins + spec.outs
    _emit(c, op, views, kernel, ins, fresh)
    if structure is None or len(views) != len(operands):
        return
    if any(a is not b for a, b in zip(views, operands)):
        return
    index: dict[SSAValue, int] = {}
    for i, v in enumerate(operands):
        index.setdefault(v, i)
    if all(v in index for v in ins):
        entry = (kernel, tuple([index[v] for v in ins]), fresh, structure[1])
        table[by_id] = entry
        if by_value is not None:
            table[by_value] = entry


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

    def plan() -> tuple[Spec, Fn, list[SSAValue], list[bool]]:
        spec = structured_spec(op)
        if isinstance(op, linalg.GenericOp):
            # bodies run as one numpy call when they match exactly: a segment sum as one
            # scatter-add (not the literal segments x N reduction), the lowering's
            # reverse as a flip and a copy (not an index array per axis and a take)
            for pattern in (segment_sum_kernel, reverse_kernel):
                found = pattern(spec)
                if found is not None:
                    kernel, ins = found
                    return spec, kernel, ins, [True]
        return spec, *_plan_structured(c, spec)

    _build_by_structure(c, op, plan)


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
    def plan() -> tuple[Spec, Fn, list[SSAValue], list[bool]]:
        spec = reduce_spec(op)
        return spec, *_plan_structured(c, spec)

    _build_by_structure(c, op, plan)


@register(linalg.BroadcastOp)
def build_broadcast(c: FunctionCompiler, op: Operation) -> None:
    def plan() -> tuple[Spec, Fn, list[SSAValue], list[bool]]:
        spec = broadcast_spec(op)
        return spec, *_plan_structured(c, spec)

    _build_by_structure(c, op, plan)


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
