"""Kernels of the collectives' runtime calls (passes/mindir_to_tensor/collective.py).

Each call runs with the executor's communication object `exe.comm`, looked up
when the call runs (a replica runner sets it for the step; see
backend/cpu/collectives.py for its interface). Without one (a single process,
MindSpore's stand-alone mode) every collective is the identity, which is what
a group of one computes: all_gather and reduce_scatter then have
`rank_size = 1` (anything else is an error naming the op).

reduce_scatter is an all_reduce followed by this rank's block of axis 0, so the
interface needs no fourth call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation

from mindjit.backend.cpu.errors import ExecutionError, op_failure
from mindjit.backend.cpu.registry import register_runtime
from mindjit.backend.cpu.steps import call_step
from mindjit.backend.cpu.types import static_shape

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler

#: The root-rank attribute of a broadcast call (mindir_to_tensor/collective.py).
ROOT_RANK_ATTR = "mindjit.root_rank"
_REDUCE_OPS = ("sum", "max", "min", "prod")


def _kind(c: FunctionCompiler, op: Operation) -> str:
    decl = c.exe.declaration(op.callee.root_reference.data)  # type: ignore[attr-defined]
    return decl.attributes["mindjit.runtime"].data  # type: ignore[union-attr]


def _emit(c: FunctionCompiler, op: Operation, run: Any) -> None:
    if len(op.operands) != 1 or len(op.results) != 1:
        raise op_failure(op, "a collective call takes one tensor and gives one")
    ins = [c.read(op.operands[0])]
    c.mark_side_effects()
    c.emit(call_step(run, ins, c.define(op.results[0], fresh=True)))


def _group_size(op: Operation, gather: bool) -> int:
    """N, as the types say: the result's first dimension over the operand's for
    all_gather, the operand's over the result's for reduce_scatter."""
    a, b = static_shape(op.operands[0].type, op), static_shape(op.results[0].type, op)
    if not a or not b or min(a[0], b[0]) == 0:
        raise op_failure(op, "a gathering collective needs tensors of rank >= 1, not empty")
    return b[0] // a[0] if gather else a[0] // b[0]


def _group_check(exe: Any, op_name: str, size: int) -> None:
    n = 1 if exe.comm is None else exe.comm.group_size
    if size != n:
        raise ExecutionError(
            f"{op_name} was compiled for a group of {size} replicas but runs in a group of {n}"
        )


@register_runtime(*(f"all_reduce_{r}" for r in _REDUCE_OPS))
def build_all_reduce(c: FunctionCompiler, op: Operation) -> None:
    kind = _kind(c, op)
    reduction = kind.removeprefix("all_reduce_")
    exe = c.exe

    def all_reduce(x: Any) -> np.ndarray:
        comm = exe.comm
        if comm is None:
            return np.array(x, copy=True)
        return comm.all_reduce(kind, x, reduction)

    _emit(c, op, all_reduce)


@register_runtime("all_gather")
def build_all_gather(c: FunctionCompiler, op: Operation) -> None:
    size = _group_size(op, gather=True)
    exe = c.exe

    def all_gather(x: Any) -> np.ndarray:
        _group_check(exe, "all_gather", size)
        if exe.comm is None:
            return np.array(x, copy=True)
        return exe.comm.all_gather("all_gather", x)

    _emit(c, op, all_gather)


@register_runtime("reduce_scatter_sum")
def build_reduce_scatter(c: FunctionCompiler, op: Operation) -> None:
    size = _group_size(op, gather=False)
    exe = c.exe

    def reduce_scatter(x: Any) -> np.ndarray:
        _group_check(exe, "reduce_scatter", size)
        comm = exe.comm
        if comm is None:
            return np.array(x, copy=True)
        total = comm.all_reduce("reduce_scatter_sum", x, "sum")
        block = total.shape[0] // comm.group_size
        return np.ascontiguousarray(total[comm.rank * block : (comm.rank + 1) * block])

    _emit(c, op, reduce_scatter)


@register_runtime("broadcast")
def build_broadcast(c: FunctionCompiler, op: Operation) -> None:
    attr = op.attributes.get(ROOT_RANK_ATTR)
    if not isinstance(attr, IntegerAttr):
        raise op_failure(op, f"a broadcast call needs its root rank ({ROOT_RANK_ATTR})")
    root = attr.value.data
    exe = c.exe

    def broadcast(x: Any) -> np.ndarray:
        comm = exe.comm
        if comm is None:  # a group of one: its only value, whatever the root
            return np.array(x, copy=True)
        return comm.broadcast("broadcast", x, root)

    _emit(c, op, broadcast)
