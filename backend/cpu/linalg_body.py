"""A linalg body (scalar arith/math ops) compiled into one vectorised function.

Block arguments arrive as whole arrays already laid out in the iteration space
(so numpy broadcasting lines them up); each body op becomes one numpy call on
those arrays. `linalg.index` is an arange along its loop dim, so index
arithmetic and a `tensor.extract` of an outer tensor at computed indices (a
gather, e.g. mindir.reverse's lowering) are one vectorised numpy indexing.  At plan time the body also tells, for every value, which loop
dims it depends on and the exact shape it will have at run time, so the
structured-op builder can decide every broadcast/transpose once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import tensor
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from mindjit.backend.cpu.errors import unsupported
from mindjit.backend.cpu.scalar_fns import ELEMENTWISE_OPS, scalar_fn
from mindjit.backend.cpu.steps import call_step
from mindjit.backend.cpu.types import scalar_value

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler

Shape = tuple[int, ...]
BodyFn = Callable[..., Any]


class Body:
    """Plan-time view of a linalg region: per-value loop dims and shapes."""

    def __init__(
        self,
        c: FunctionCompiler,
        owner: Operation,
        block: Block,
        arg_shapes: Sequence[Shape],
        loop_shape: Shape,
    ):
        self.c = c
        self.owner = owner
        self.block = block
        self.loop_shape = loop_shape
        self.shape: dict[SSAValue, Shape] = {}
        self.consts: dict[SSAValue, Any] = {}
        self.captured: list[SSAValue] = []
        self.ops: list[Operation] = []
        for arg, shape in zip(block.args, arg_shapes):
            self.shape[arg] = tuple(shape)
        for op in block.ops:
            if op is block.last_op:
                break
            self._analyse(op)
        self.yields: tuple[SSAValue, ...] = tuple(block.last_op.operands) if block.last_op else ()
        for v in self.yields:
            if v not in self.shape:
                self._capture(v)
        self._op_set = set(self.ops)

    def _analyse(self, op: Operation) -> None:
        if op.name == "arith.constant":
            self.consts[op.results[0]] = scalar_value(op.value, op.results[0].type, op)
            self.shape[op.results[0]] = ()
            return
        if op.name == "linalg.index":
            dim = op.dim.value.data
            n = len(self.loop_shape)
            shape = tuple(self.loop_shape[k] if k == dim else 1 for k in range(n))
            self.consts[op.results[0]] = np.arange(self.loop_shape[dim], dtype=np.int64).reshape(
                shape
            )
            self.shape[op.results[0]] = shape
            return
        if isinstance(op, tensor.ExtractOp):  # a gather: the indices are index arrays
            for v in op.operands:
                if v not in self.shape:
                    self._capture(v)
            self.shape[op.results[0]] = np.broadcast_shapes(*(self.shape[v] for v in op.indices))
            self.ops.append(op)
            return
        if type(op) not in ELEMENTWISE_OPS or len(op.results) != 1:
            raise unsupported(op, f"inside the body of '{self.owner.name}'")
        for v in op.operands:
            if v not in self.shape:
                self._capture(v)
        self.shape[op.results[0]] = np.broadcast_shapes(*(self.shape[v] for v in op.operands))
        self.ops.append(op)

    def _capture(self, v: SSAValue) -> None:
        """A value defined outside the body (a scalar, or the tensor a
        `tensor.extract` reads): a constant, or read from its slot."""
        if self.c.is_known(v):
            self.consts[v] = self.c.known(v)
        else:
            self.captured.append(v)
        self.shape[v] = ()

    # -- queries --------------------------------------------------------------

    def arg_index(self, v: SSAValue) -> int | None:
        if isinstance(v, BlockArgument) and v.block is self.block:
            return v.index
        return None

    def producer(self, v: SSAValue) -> Operation | None:
        op = getattr(v, "op", None)
        return op if op is not None and op in self._op_set else None

    def depends_on(self, v: SSAValue, args: set[int]) -> bool:
        """Whether `v` is computed from any of the given block arguments."""
        index = self.arg_index(v)
        if index is not None:
            return index in args
        op = self.producer(v)
        return op is not None and any(self.depends_on(x, args) for x in op.operands)

    def is_fresh(self, v: SSAValue) -> bool:
        """Whether `v` is a newly allocated array (not a block arg or a view)."""
        op = self.producer(v)
        return op is not None and op.name != "arith.bitcast"

    # -- code generation --------------------------------------------------------

    def compile(self, targets: Sequence[SSAValue]) -> tuple[BodyFn, list[int], list[SSAValue]]:
        """A function computing `targets` from block args and captured scalars.

        Returns (fn, used_args, captured): call `fn(*args[used_args], *captured)`;
        it returns one value, or a tuple for several targets.
        """
        needed = self._needed(targets)
        ops = [op for op in self.ops if op in needed]
        used = self._used_args(targets, ops)
        captured = [v for v in self.captured if v in targets or any(v in op.operands for op in ops)]
        single = self._single_op(ops, targets, used, captured)
        if single is not None:
            return single, used, captured
        return self._register_machine(ops, targets, used, captured), used, captured

    def _needed(self, targets: Sequence[SSAValue]) -> set[Operation]:
        needed: set[Operation] = set()
        stack = list(targets)
        while stack:
            op = self.producer(stack.pop())
            if op is not None and op not in needed:
                needed.add(op)
                stack.extend(op.operands)
        return needed

    def _used_args(self, targets: Sequence[SSAValue], ops: Sequence[Operation]) -> list[int]:
        used: list[int] = []
        for v in [*(x for op in ops for x in op.operands), *targets]:
            index = self.arg_index(v)
            if index is not None and index not in used:
                used.append(index)
        return used

    def _single_op(
        self,
        ops: Sequence[Operation],
        targets: Sequence[SSAValue],
        used: list[int],
        captured: list[SSAValue],
    ) -> BodyFn | None:
        """`yield(f(%a, %b))` on distinct block args is just the numpy call `f`."""
        if len(ops) != 1 or len(targets) != 1 or captured or targets[0] is not ops[0].results[0]:
            return None
        indices = [self.arg_index(v) for v in ops[0].operands]
        if indices != used:
            return None
        return _body_fn(ops[0])

    def _register_machine(
        self,
        ops: Sequence[Operation],
        targets: Sequence[SSAValue],
        used: list[int],
        captured: list[SSAValue],
    ) -> BodyFn:
        """General bodies: one step per op over a small register list."""
        reg: dict[SSAValue, int] = {}
        for i in used:
            reg[self.block.args[i]] = len(reg)
        for v in captured:
            reg[v] = len(reg)
        n_in = len(reg)
        template: list[Any] = []
        for v, value in self.consts.items():
            reg[v] = len(reg)
            template.append(value)
        steps = []
        for op in ops:
            out = reg[op.results[0]] = len(reg)
            steps.append(call_step(_body_fn(op), [reg[v] for v in op.operands], out))
        template += [None] * (len(reg) - n_in - len(template))
        result_regs = [reg[t] for t in targets]
        steps_t = tuple(steps)

        if len(result_regs) == 1:
            (r0,) = result_regs

            def run_one(*vals: Any) -> Any:
                r = [*vals, *template]
                for step in steps_t:
                    step(r)
                return r[r0]

            return run_one

        def run_many(*vals: Any) -> tuple[Any, ...]:
            r = [*vals, *template]
            for step in steps_t:
                step(r)
            return tuple([r[i] for i in result_regs])

        return run_many


def _gather(t: np.ndarray, *indices: Any) -> Any:
    """`tensor.extract %t[%i, ...]` over index arrays, as one `take` at the flat
    (row-major) indices.

    numpy's advanced indexing with one array per axis is slow: reversing a
    64x64x3x3 weight (conv2d's input gradient flips it every step) took 780 us
    as `t[i, j, k, l]` and 130 us as one `take`; an embedding lookup 214 -> 165
    us. The lowering keeps every index in range (mindir.gather clamps before
    its extract), so the flat index is exact.
    """
    if len(indices) <= 1:
        return t[indices]
    flat: Any = None
    stride = 1
    for axis in range(len(indices) - 1, -1, -1):
        term = indices[axis] if stride == 1 else indices[axis] * stride
        flat = term if flat is None else flat + term
        stride *= t.shape[axis]
    return np.ravel(t).take(flat)


def _body_fn(op: Operation) -> BodyFn:
    return _gather if isinstance(op, tensor.ExtractOp) else scalar_fn(op, vectorized=True)
