"""The segment-sum form of linalg.generic, run as one scatter-add.

mindir.unsorted_segment_sum lowers to a reduction generic over
(segment, ids dims..., slice dims...) whose body adds x where the id equals the
segment's loop index (passes/mindir_to_tensor/gather.py):

    ^bb0(%id: i32, %x: f32, %acc: f32):
      %i = arith.index_cast %id : i32 to index
      %s = linalg.index 0 : index
      %hit = arith.cmpi eq, %i, %s : index
      %v = arith.select %hit, %x, %zero : f32
      %r = arith.addf %acc, %v : f32

Taken literally (the general reduction scheme) that builds an array of
num_segments * N * slice elements: an embedding table's gradient would need
vocabulary x tokens x width floats. Recognised here, it is `np.add.at` of the
N slices into a copy of the init: O(N * slice). Anything else is left to the
general scheme.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import BlockArgument, Operation, SSAValue

from mindjit.backend.cpu.linalg_spec import Spec

Kernel = Callable[..., Any]


def _arg(v: SSAValue, spec: Spec, index: int) -> bool:
    return isinstance(v, BlockArgument) and v.block is spec.block and v.index == index


def _op(v: SSAValue, cls: type[Operation]) -> Any:
    owner = getattr(v, "owner", None)
    return owner if isinstance(owner, cls) else None


def _is_zero(v: SSAValue) -> bool:
    const = _op(v, arith.ConstantOp)
    value = getattr(getattr(const, "value", None), "value", None)
    return const is not None and value is not None and float(value.data) == 0.0


def _segment_dim(spec: Spec) -> int | None:
    """The segment loop dim if the body is the segment-sum body, else None."""
    last = spec.block.last_op
    if not isinstance(last, linalg.YieldOp) or len(last.operands) != 1:
        return None
    add = _op(last.operands[0], arith.AddfOp) or _op(last.operands[0], arith.AddiOp)
    if add is None:
        return None
    lhs, rhs = add.operands
    sel = _op(rhs, arith.SelectOp) if _arg(lhs, spec, 2) else _op(lhs, arith.SelectOp)
    if sel is None or not (_arg(lhs, spec, 2) or _arg(rhs, spec, 2)):
        return None
    hit, picked, other = sel.operands
    if not _arg(picked, spec, 1) or not _is_zero(other):
        return None
    cmp = _op(hit, arith.CmpiOp)
    if cmp is None or cmp.predicate.value.data != 0:  # eq
        return None
    a, b = cmp.operands
    for cast, index in ((a, b), (b, a)):
        c, i = _op(cast, arith.IndexCastOp), _op(index, linalg.IndexOp)
        if c is not None and i is not None and _arg(c.operands[0], spec, 0):
            return i.dim.value.data
    return None


def segment_sum_kernel(spec: Spec) -> tuple[Kernel, list[SSAValue]] | None:
    """(kernel(ids, x, init) -> out, its inputs) for the segment-sum form, else None."""
    if len(spec.ins) != 2 or len(spec.outs) != 1 or not spec.reductions:
        return None
    s = _segment_dim(spec)
    if s is None or s in spec.reductions:
        return None
    red = list(spec.maps[0])
    rest = [d for d in spec.maps[2] if d != s]
    if (
        sorted(red) != sorted(spec.reductions)
        or spec.maps[1] != [*red, *rest]
        or spec.maps[2] != [s, *rest]
    ):
        return None

    def segment_sum(ids: np.ndarray, x: np.ndarray, init: np.ndarray) -> np.ndarray:
        out = np.array(init, copy=True)
        flat = np.asarray(ids).reshape(-1)
        rows = np.asarray(x).reshape(flat.size, *out.shape[1:])
        valid = (flat >= 0) & (flat < out.shape[0])
        if not valid.all():
            flat, rows = flat[valid], rows[valid]
        np.add.at(out, flat, rows)
        return out

    return segment_sum, [spec.ins[0], spec.ins[1], spec.outs[0]]
