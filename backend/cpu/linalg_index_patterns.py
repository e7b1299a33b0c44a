"""linalg.generic forms of index computations, recognised and run as one numpy call.

`convert-mindir-to-tensor` lowers argmax/argmin to a reduction carrying
(value, index) pairs (passes/mindir_to_tensor/index_reduce.py). Its body is
not `combine(out, f(ins))`, so the general reduction planner (linalg_fold)
cannot run it; run element by element in Python it would be hopeless. This
module matches that exact body and plans `np.argmax` / `np.argmin` (whose
rule, the first index on ties and the first NaN, is the body's) plus one
`take_along_axis` for the values. A body that does not match exactly is left
to the general planner, which reports it. Likewise the lowering's reverse (a
generic extracting every element at reversed indices) is `np.flip` and a copy
(`reverse_kernel`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IntegerType, Signedness
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from mindjit.backend.cpu.linalg_spec import Fn, Operand, Shape, Spec
from mindjit.backend.cpu.types import dtype_of

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler

Planned = tuple[Fn, list[SSAValue], list[bool]]

_CMPF = arith.CMPF_COMPARISON_OPERATIONS
_CMPI = arith.CMPI_COMPARISON_OPERATIONS


def _owner(v: SSAValue) -> Operation | None:
    owner = v.owner
    return owner if isinstance(owner, Operation) else None


def _is_arg(v: SSAValue, block: Block, index: int) -> bool:
    return isinstance(v, BlockArgument) and v.block is block and v.index == index


def _predicate(op: Operation | None, cls: type, a: SSAValue, b: SSAValue) -> str | None:
    """The predicate name of `cls(a, b)` (a cmpf/cmpi of exactly these operands)."""
    if not isinstance(op, cls) or tuple(op.operands) != (a, b):
        return None
    names = _CMPF if cls is arith.CmpfOp else _CMPI
    return names[op.predicate.value.data]  # type: ignore[attr-defined]


def _index_of(v: SSAValue) -> int | None:
    """The loop dim `d` when `v` is `index_cast(linalg.index d)`."""
    cast = _owner(v)
    if not isinstance(cast, arith.IndexCastOp):
        return None
    index = _owner(cast.input)
    return index.dim.value.data if isinstance(index, linalg.IndexOp) else None


def _arg_reduce_kind(block: Block) -> tuple[str, int] | None:
    """("max" | "min", reduced dim) if `block` is the (value, index) pair body."""
    last = block.last_op
    if not isinstance(last, linalg.YieldOp) or len(last.operands) != 2 or len(block.args) != 3:
        return None
    x, acc, acc_i = block.args
    sel_v, sel_i = (_owner(v) for v in last.operands)
    if not (isinstance(sel_v, arith.SelectOp) and isinstance(sel_i, arith.SelectOp)):
        return None
    cond = sel_v.cond
    if tuple(sel_v.operands) != (cond, x, acc) or sel_i.cond is not cond:
        return None
    if sel_i.rhs is not acc_i or (dim := _index_of(sel_i.lhs)) is None:
        return None
    test = _owner(cond)
    pred = _predicate(test, arith.CmpiOp, x, acc)
    if pred is None and isinstance(test, arith.OrIOp):
        pred = _predicate(_owner(test.lhs), arith.CmpfOp, x, acc)
        first_nan = _owner(test.rhs)
        if not (
            isinstance(first_nan, arith.AndIOp)
            and _predicate(_owner(first_nan.lhs), arith.CmpfOp, x, x) == "uno"
            and _predicate(_owner(first_nan.rhs), arith.CmpfOp, acc, acc) == "ord"
        ):
            return None
    kinds = {"ogt": "max", "sgt": "max", "olt": "min", "slt": "min"}
    if isinstance(x.type, IntegerType) and x.type.signedness.data == Signedness.UNSIGNED:
        kinds = {"ugt": "max", "ult": "min"}  # numpy's argmax on uint8 is the unsigned order
    kind = kinds.get(pred or "")
    return (kind, dim) if kind else None


def plan_arg_reduce(
    c: FunctionCompiler, spec: Spec, operands: list[Operand], loop: Shape
) -> Planned | None:
    """`np.argmax`/`np.argmin` for the (value, index) reduction, or None if not it."""
    if len(spec.ins) != 1 or len(spec.outs) != 2 or len(spec.reductions) != 1:
        return None
    match = _arg_reduce_kind(spec.block)
    if match is None or match[1] != spec.reductions[0]:
        return None
    kind, axis = match
    x, out_v, out_i = operands
    parallel = tuple(d for d in range(len(loop)) if d != axis)
    if not x.pure or x.shape != loop or out_v.dims != parallel or out_i.dims != parallel:
        return None
    value_dtype = dtype_of(spec.outs[0].type, spec.op)
    worst = -np.inf if kind == "max" else np.inf
    if value_dtype.kind != "f":
        info = np.iinfo(value_dtype)
        worst = info.min if kind == "max" else info.max
    if c.splat(spec.outs[0]) != worst or c.splat(spec.outs[1]) != 0:
        return None  # an init that can win: not argmax's
    index_dtype = dtype_of(spec.outs[1].type, spec.op)
    find = np.argmax if kind == "max" else np.argmin
    prep = x.prep

    def arg_reduce(a: Any) -> tuple[Any, Any]:
        if prep is not None:
            a = prep(a)
        where = find(a, axis=axis)
        best = np.take_along_axis(a, np.expand_dims(where, axis), axis)
        return np.squeeze(best, axis), np.asarray(where, dtype=index_dtype)

    return arg_reduce, [x.value], [True, True]


def _reversed_dim(v: SSAValue, d: int, size: int) -> bool | None:
    """For index `d` of an extract: False when `v` is `linalg.index d`, True when it
    is `(size - 1) - linalg.index d`, else None."""
    op = _owner(v)
    if isinstance(op, linalg.IndexOp):
        return False if op.dim.value.data == d else None
    if not isinstance(op, arith.SubiOp):
        return None
    last, index = _owner(op.lhs), _owner(op.rhs)
    value = getattr(getattr(last, "value", None), "value", None)
    if not isinstance(last, arith.ConstantOp) or value is None or value.data != size - 1:
        return None
    return True if isinstance(index, linalg.IndexOp) and index.dim.value.data == d else None


def reverse_kernel(spec: Spec) -> tuple[Fn, list[SSAValue]] | None:
    """(kernel(x) -> x reversed along some axes, [x]) when the generic is the
    lowering's reverse (passes/mindir_to_tensor/shape.py: every output element
    `tensor.extract %x[..., (n - 1) - i, ...]` of a tensor from outside the body),
    else None.

    Taken literally that builds an int64 index array per axis as large as the
    output and one `take` (linalg_body.py's `_gather`): conv2d's input gradient
    flips its weight this way every step, 3.8 of ResNet-18's 42 ms train step at two
    threads (16 flips). As `np.flip` and one copy it is a strided copy.
    """
    if spec.ins or len(spec.outs) != 1 or spec.reductions:
        return None
    rank = spec.num_dims
    if spec.maps[0] != list(range(rank)):
        return None
    last = spec.block.last_op
    if not isinstance(last, linalg.YieldOp) or len(last.operands) != 1:
        return None
    extract = _owner(last.operands[0])
    if not isinstance(extract, tensor.ExtractOp) or len(extract.indices) != rank:
        return None
    source = extract.tensor
    inner = source.block if isinstance(source, BlockArgument) else source.owner.parent
    if inner is spec.block:  # type: ignore[union-attr]
        return None  # computed in the body: not a tensor from outside
    shape = tuple(spec.outs[0].type.get_shape())  # type: ignore[attr-defined]
    if tuple(source.type.get_shape()) != shape:  # type: ignore[attr-defined]
        return None
    axes = []
    for d, (v, size) in enumerate(zip(extract.indices, shape)):
        flipped = _reversed_dim(v, d, size)
        if flipped is None:
            return None
        if flipped:
            axes.append(d)
    flip_axes = tuple(axes)

    def reverse(x: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(np.flip(x, flip_axes)) if flip_axes else np.array(x)

    return reverse, [source]
