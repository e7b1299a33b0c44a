"""Planning linalg reductions: each output folds `f(ins)` with its combiner.

A reduction body must yield `combine(out, f(ins...))`; `f` is evaluated
vectorised over the iteration space and folded over the reduction dims with a
numpy reducer, then combined with the init unless the init is a fill of the
combiner's neutral element.  `add(out, mul(a, b))` over plain inputs is a
contraction: one matmul (backend/cpu/gemm.py) or `np.einsum`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue

from mindjit.backend.cpu.errors import unsupported
from mindjit.backend.cpu.linalg_body import Body
from mindjit.backend.cpu.linalg_reduce import (
    COMBINERS,
    contraction,
    is_neutral,
    needs_full_extent,
    reducer,
)
from mindjit.backend.cpu.linalg_spec import Fn, Operand, Shape, Spec, seq, then, with_preps
from mindjit.backend.cpu.scalar_fns import scalar_fn
from mindjit.backend.cpu.types import dtype_of, is_tensor, static_shape

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler


@dataclass
class Fold:
    combiner: Operation  # the body op combining the accumulator and `value`
    value: SSAValue  # body value folded into the output
    out: Operand
    dtype: np.dtype
    init_needed: bool  # False when the init is a fill of the neutral element
    out_shape: Shape


def folds(c: FunctionCompiler, spec: Spec, operands: list[Operand], body: Body) -> list[Fold]:
    """Match each yield as `combine(out, f(ins...))`, the only reductions planned."""
    n_in, n_out = len(spec.ins), len(spec.outs)
    parallel = [d for d in range(spec.num_dims) if d not in spec.reductions]
    found = []
    for j, y in enumerate(body.yields):
        comb = body.producer(y)
        if comb is None or type(comb) not in COMBINERS:
            raise unsupported(
                spec.op,
                "reduction body must yield combine(out, f(ins)) with an "
                "add/mul/max/min/and/or/xor combiner",
            )
        a, b = comb.operands
        if body.arg_index(a) == n_in + j:
            value = b
        elif body.arg_index(b) == n_in + j:
            value = a
        else:
            raise unsupported(spec.op, "reduction combiner must take the output block argument")
        if body.depends_on(value, set(range(n_in, n_in + n_out))):
            raise unsupported(spec.op, "reduction body reads the accumulator more than once")
        out = operands[n_in + j]
        if not out.pure or sorted(out.dims) != parallel:
            raise unsupported(spec.op, "reduction output map must list exactly the parallel dims")
        dtype = dtype_of(spec.outs[j].type, spec.op)
        init_needed = not is_neutral(type(comb), dtype, c.splat(spec.outs[j]))
        found.append(
            Fold(comb, value, out, dtype, init_needed, static_shape(spec.outs[j].type, spec.op))
        )
    return found


Planned = tuple[Fn, list[SSAValue], list[bool]]  # kernel, its operands, fresh results


def plan_reduction(
    spec: Spec, operands: list[Operand], body: Body, loop: Shape, found: list[Fold]
) -> Planned:
    """The kernel computing all outputs from (inputs..., captured..., inits...);
    `found` = `folds(...)` of the op."""
    if (
        len(found) == 1
        and (planned := _contraction(spec, operands, body, loop, found[0])) is not None
    ):
        kernel, ins = planned
        shapes = [found[0].out_shape]
    else:
        fn, used, captured = body.compile([f.value for f in found])
        preps = [operands[i].prep for i in used] + [None] * len(captured)
        posts, shapes = zip(*[_fold_post(body, f, loop, spec.reductions) for f in found])
        kernel = then(with_preps(fn, preps), list(posts))
        ins = [operands[i].value for i in used] + captured
    inits = [f.out.value for f in found if f.init_needed]
    kernel = _with_inits(kernel, len(ins), found, list(shapes))
    return kernel, ins + inits, [True] * len(found)


def _fold_post(body: Body, fold: Fold, loop: Shape, reductions: list[int]) -> tuple[Fn, Shape]:
    """value in iteration space -> reduced, in the output's axis order; and the
    shape that has (unit dims where the value did not depend on a loop dim)."""
    n = len(loop)
    shape = body.shape[fold.value]
    parts: list[Fn] = []
    if len(shape) < n:
        full = (1,) * (n - len(shape)) + tuple(shape)
        parts.append(lambda v: np.reshape(v, full))
        shape = full
    if needs_full_extent(type(fold.combiner)) and any(shape[d] != loop[d] for d in reductions):
        parts.append(lambda v: np.broadcast_to(v, loop))
        shape = loop
    red = reducer(type(fold.combiner), fold.dtype)
    if red is None:
        raise unsupported(fold.combiner, f"as a reduction combiner on {fold.dtype}")
    axes = tuple(reductions)
    parts.append(lambda v: red(v, axes))
    parallel = [d for d in range(n) if d not in reductions]
    perm = tuple(parallel.index(d) for d in fold.out.dims)
    if perm != tuple(range(len(perm))):
        parts.append(lambda r: r.transpose(perm))
    post = seq(parts)
    assert post is not None
    return post, tuple(shape[parallel[i]] for i in perm)


def _contraction(
    spec: Spec, operands: list[Operand], body: Body, loop: Shape, fold: Fold
) -> tuple[Fn, list[SSAValue]] | None:
    """`add(out, mul(a, b))` over plain input block args: a matmul/einsum."""
    if type(fold.combiner) not in (arith.AddfOp, arith.AddiOp) or fold.dtype == np.bool_:
        return None
    mul = body.producer(fold.value)
    if mul is None or type(mul) not in (arith.MulfOp, arith.MuliOp):
        return None
    ia, ib = (body.arg_index(v) for v in mul.operands)
    n_in = len(spec.ins)
    if ia is None or ib is None or ia >= n_in or ib >= n_in:
        return None
    a, b = operands[ia], operands[ib]
    if not (a.pure and b.pure and is_tensor(a.value.type) and is_tensor(b.value.type)):
        return None
    if not set(fold.out.dims) <= set(a.dims) | set(b.dims):
        return None  # an output dim neither operand has: the general path broadcasts
    return contraction(a.dims, b.dims, fold.out.dims, loop, fold.dtype), [a.value, b.value]


def _with_inits(kernel: Fn, n_ins: int, folds: list[Fold], shapes: list[Shape]) -> Fn:
    """Fold each result into its init (MLIR's accumulate-into-outs) unless the
    init is neutral; give each result its full shape; 0-d results as arrays.
    All decided here, so a neutral-init matmul stays a bare matmul call."""
    finals = [_finisher(f, shape) for f, shape in zip(folds, shapes)]
    if len(folds) == 1:
        fin, fold = finals[0], folds[0]
        if fold.init_needed:
            return lambda *v: fin(kernel(*v[:n_ins]), v[n_ins])
        if fin is None:
            return kernel
        return lambda *v: fin(kernel(*v), None)

    def many(*v: Any) -> tuple[Any, ...]:
        results = kernel(*v[:n_ins])
        inits = iter(v[n_ins:])
        out = []
        for fin, r, f in zip(finals, results, folds):
            init = next(inits) if f.init_needed else None
            out.append(fin(r, init) if fin is not None else r)
        return tuple(out)

    return many


def _finisher(fold: Fold, shape: Shape) -> Callable[[Any, Any], Any] | None:
    """None when the reduced value already is the result."""
    target = fold.out_shape
    combine = scalar_fn(fold.combiner, vectorized=True) if fold.init_needed else None
    grow = shape != target and not fold.init_needed
    scalar = target == ()
    if combine is None and not grow and not scalar:
        return None

    def finish(r: Any, init: Any) -> Any:
        if combine is not None:
            r = combine(init, r)
        if grow:
            r = np.broadcast_to(r, target).copy()
        return np.asarray(r) if scalar else r

    return finish
