"""Turns one `func.func` into a `Plan`: slots, steps, dead-code elimination, aliasing.

Each op is handed to its builder (see `registry`), which records a *node*: the
values it reads, the steps it emits and the constants it adds to the slot
template.  A block is compiled into a node list, then only the nodes whose
results are needed (or that have side effects) keep their steps, so an unused
`tensor.empty`/`linalg.fill` init that its consumer ignores costs nothing.

Alias tracking: every value gets a set of *roots* telling where its memory may
come from (an argument, a constant, a view of something, or a fresh buffer of
one kernel).  A returned value is copied only when it may alias an input, a
constant, a read-only view, a global's buffer (`ml_program.global_load` gives
the buffer itself, see kernels_state), memory a builder marked as escaped, or
another result.  The copy is made when the call returns, after all its steps.

Three plan-time options of the executable add steps: `trace_enabled` (each kept
node first appends its op's name to `exe.trace`), `checks_float_status`
(after each arithmetic node with f16/f32 results, an inf/nan check that sets
`exe.float_status.overflow`) and `memory_meter` (after each node of a function's
block, its live bytes, memory_meter.py); without them plans are unchanged.

Side effects (global stores, prints, calls of functions that have them) mark
their node impure: it is never dropped, and like every kept node it runs in
block order.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import Float16Type, Float32Type, TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import IsTerminator

from mindjit.backend.cpu.errors import ExecutionError, op_failure, unsupported
from mindjit.backend.cpu.memory_meter import probe_steps
from mindjit.backend.cpu.plan import Plan, result_getter
from mindjit.backend.cpu.registry import BUILDERS
from mindjit.backend.cpu.steps import Step, StepBlock, call_release_step, steal_release_step
from mindjit.backend.cpu.types import is_tensor

if TYPE_CHECKING:
    from mindjit.backend.cpu.executable import CpuExecutable

ARG, CONST, EXT, READONLY, GLOBAL = "arg", "const", "ext", "readonly", "global"
UNSAFE_ROOTS = frozenset({ARG, CONST, EXT, READONLY, GLOBAL})
Roots = frozenset[Any]


class _Lazy:
    """A plan-time value computed on first use (e.g. a big folded fill)."""

    __slots__ = ("make", "value", "done")

    def __init__(self, make: Callable[[], Any]):
        self.make, self.value, self.done = make, None, False

    def get(self) -> Any:
        if not self.done:
            self.value, self.done = self.make(), True
        return self.value


@dataclass
class _Node:
    op: Operation
    reads: set[SSAValue] = field(default_factory=set)
    steps: list[Step] = field(default_factory=list)
    consts: list[tuple[int, _Lazy]] = field(default_factory=list)
    pure: bool = True


class FunctionCompiler:
    """Plans one function; builders talk to it through read/define/emit."""

    def __init__(self, exe: CpuExecutable, fn: func.FuncOp):
        self.exe = exe
        self.func = fn
        self._slots: dict[SSAValue, int] = {}
        self._next_slot = 0
        self._shared: set[int] = set()
        self._roots: dict[SSAValue, Roots] = {}
        self._known: dict[SSAValue, _Lazy] = {}
        self._splats: dict[SSAValue, Any] = {}
        self._template: dict[int, _Lazy] = {}
        self._node: _Node | None = None
        self._ids = itertools.count()
        self._impure = False
        self._escaped: set[Any] = set()
        #: structure -> (kernel, operand positions it reads, fresh results, the
        #: attributes the key names by id): the kernels of structured ops, planned
        #: once per structure (kernels_linalg.py)
        self.kernels_by_structure: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        #: Set `keep_top` to have `compile` leave the function block's kept
        #: nodes and their releases in `top` (the compile cache records them).
        self.keep_top = False
        self.top: tuple[list[_Node], dict[int, list[int]]] | None = None
        #: After `compile`: the returned slots and which of them are copied.
        self.results: tuple[list[int], list[bool]] = ([], [])

    # -- the whole function -------------------------------------------------

    def compile(self, plan: Plan) -> None:
        """Fill `plan` with this function's steps (the plan object already exists
        so that calls, even recursive ones, can refer to it)."""
        block = self.func.body.block
        for arg in block.args:
            self._slot(arg)
            self._roots[arg] = frozenset({ARG})
        self._node = _Node(self.func)
        body, term = self.compile_block(block)
        if term is None or term.name != "func.return":
            raise op_failure(self.func, "function body must end with 'func.return'")
        slots = [self._slots[v] for v in term.operands]
        copies = self._copies_needed(term.operands)
        self.results = (slots, copies)
        nargs = len(block.args)
        template: list[Any] = [None] * (self._next_slot - nargs)
        for slot, lazy in self._template.items():
            template[slot - nargs] = lazy.get()
        plan.finish(template, body, result_getter(slots, copies), self._impure)

    def _copies_needed(self, values: Iterable[SSAValue]) -> list[bool]:
        """Which results must be copied so callers never see shared memory."""
        seen: set[Any] = set()
        copies: list[bool] = []
        for v in values:
            if not is_tensor(v.type):
                copies.append(False)
                continue
            roots = self.roots(v)
            copies.append(
                bool(roots & UNSAFE_ROOTS) or bool(roots & seen) or bool(roots & self._escaped)
            )
            seen |= roots
        return copies

    # -- blocks and nodes -----------------------------------------------------

    def compile_block(self, block: Block) -> tuple[StepBlock, Operation | None]:
        """Plan every op of `block` but its terminator; drop the unneeded ones.

        Values from outside the block that the kept steps need are added to the
        reads of the op being built (the one owning the region), so outer
        dead-code elimination keeps their producers.
        """
        outer = self._node
        nodes: list[_Node] = []
        term: Operation | None = None
        for op in block.ops:
            if op.has_trait(IsTerminator):
                term = op
                break
            nodes.append(self._build(op))
        self._node = outer
        live: set[SSAValue] = set(term.operands) if term is not None else set()
        kept: list[_Node] = []
        for node in reversed(nodes):
            if not node.pure or any(r in live for r in node.op.results):
                live |= node.reads
                kept.append(node)
        kept.reverse()
        for node in kept:
            self._template.update(node.consts)
        releases = self._releases(kept, block, term)
        if self.keep_top and outer is not None and outer.op is self.func:
            self.top = (kept, releases)
        origin: dict[Step, Operation] = {}
        steps: list[Step] = []
        tracing = self.exe.trace_enabled
        meter = self.exe.memory_meter if outer is not None and outer.op is self.func else None
        if meter is not None:  # the block's live bytes after each op (memory_meter.py)
            start, probes = probe_steps(
                meter,
                self.exe,
                self.func.sym_name.data,
                len(block.args),
                [node.op for node in kept],
                self._slots.get,
                releases,
            )
            steps.append(start)
        for pos, node in enumerate(kept):
            node_steps = list(node.steps)
            if tracing and node_steps:
                node_steps.insert(0, _trace_step(self.exe, trace_name(node.op)))
            if pos in releases:
                node_steps = _with_release(node_steps, releases[pos])
            if meter is not None:
                node_steps.append(probes[pos])
            for step in node_steps:
                origin[step] = node.op
                steps.append(step)
        if outer is not None:
            outer.reads |= {v for v in live if not _defined_in(v, block)}
            if any(not node.pure for node in kept):
                outer.pure = False  # a region with effects keeps its op alive
        return StepBlock(steps, origin), term

    def _releases(
        self, kept: list[_Node], block: Block, term: Operation | None
    ) -> dict[int, list[int]]:
        """Slots to clear after each node: temporaries of this block at their
        last use, so numpy can recycle their buffers (like `f(g(x))` would).
        In a region's block (not the function's) its arguments too: the region's
        op sets them again before each run of the block, and a loop-carried value
        the block no longer holds can be updated in place (kernels_tensor.py)."""
        last: dict[int, int] = {}
        keep = {self._slots[v] for v in term.operands} if term is not None else set()
        keep |= self._template.keys() | self._shared
        args_too = block is not self.func.body.block
        for pos, node in enumerate(kept):
            for v in [*node.reads, *node.op.results]:
                slot = self._slots.get(v)
                if (
                    slot is not None
                    and slot not in keep
                    and _defined_in(v, block)
                    and (args_too or isinstance(v, OpResult))
                ):
                    last[slot] = pos
        releases: dict[int, list[int]] = {}
        for slot, pos in last.items():
            releases.setdefault(pos, []).append(slot)
        return releases

    def _build(self, op: Operation) -> _Node:
        builder = BUILDERS.get(type(op))
        if builder is None:
            raise unsupported(op)
        node = _Node(op)
        self._node = node
        try:
            builder(self, op)
        except ExecutionError:
            raise
        except Exception as exc:  # a builder bug or an odd form: still name the op
            raise op_failure(op, f"cannot plan '{op.name}': {type(exc).__name__}: {exc}") from exc
        if not node.pure:
            self._impure = True
        if self.exe.checks_float_status and node.steps and may_overflow(op):
            slots = [self._slots[r] for r in op.results if r in self._slots and _is_f16_f32(r.type)]
            if slots:
                node.steps.append(_overflow_check(self.exe.float_status, slots))
        return node

    # -- the builder API --------------------------------------------------------

    def read(self, v: SSAValue) -> int:
        """The slot of an operand; marks it as needed by the op being built."""
        assert self._node is not None
        self._node.reads.add(v)
        return self._slot(v)

    def dead_after(self, values: Iterable[SSAValue], block: Block) -> list[int]:
        """The slots of those of `values` (a region's yielded or forwarded values)
        that nothing reads once `block` has run: its own arguments and results, not
        a constant's or a shared slot. The region's op clears them when it has moved
        them (`steps.mover`'s `clear`), so a moved array has one holder."""
        fixed = self._template.keys() | self._shared
        return [
            self._slots[v]
            for v in values
            if _defined_in(v, block) and v in self._slots and self._slots[v] not in fixed
        ]

    def slot_of(self, v: SSAValue) -> int:
        """The slot of a value already planned (e.g. a region's yielded value)."""
        return self._slot(v)

    def define(
        self,
        v: SSAValue,
        *,
        fresh: bool = False,
        like: Iterable[SSAValue] = (),
        readonly: bool = False,
    ) -> int:
        """The slot of a result, with where its memory comes from:
        `fresh` (a new buffer), `like` (a view of those values) or, by default,
        unknown (copied if returned)."""
        like = list(like)
        if fresh:
            roots: Roots = frozenset({next(self._ids)})
        elif like:
            roots = frozenset().union(*(self.roots(x) for x in like))
        else:
            roots = frozenset({EXT})
        if readonly:
            roots |= {READONLY}
        self._set_roots(v, roots)
        return self._slot(v)

    def constant(self, v: SSAValue, value: Any, *, splat: Any = None) -> int:
        """Define `v` as a plan-time constant (a value or a zero-arg factory)
        preloaded into the slot template: no run-time step at all."""
        assert self._node is not None
        lazy = _Lazy(value if callable(value) else (lambda: value))
        slot = self._slot(v)
        self._roots[v] = frozenset({CONST})
        self._known[v] = lazy
        if splat is not None:
            self._splats[v] = splat
        self._node.consts.append((slot, lazy))
        return slot

    def share(self, result: SSAValue, source: SSAValue) -> None:
        """Make `result` the very same value as `source` (same slot, no step):
        for no-op casts.  Safe because SSA values are never overwritten while
        a dependent value is still live."""
        slot = self.read(source)
        self._slots[result] = slot
        self._shared.add(slot)
        self._set_roots(result, self.roots(source))
        if source in self._known:
            self._known[result] = self._known[source]
        if source in self._splats:
            self._splats[result] = self._splats[source]

    def known(self, v: SSAValue) -> Any | None:
        """The plan-time value of `v` if it is a constant, else None."""
        lazy = self._known.get(v)
        return lazy.get() if lazy is not None else None

    def is_known(self, v: SSAValue) -> bool:
        return v in self._known

    def splat(self, v: SSAValue) -> Any | None:
        """The single element value of a constant splat tensor (e.g. a folded
        `linalg.fill`), without materialising it; None if unknown."""
        return self._splats.get(v)

    def emit(self, step: Step | None) -> None:
        if step is not None:
            assert self._node is not None
            self._node.steps.append(step)

    def mark_side_effects(self) -> None:
        """Keep the op being built even if its results are unused."""
        assert self._node is not None
        self._node.pure = False

    def escape(self, v: SSAValue) -> None:
        """`v`'s memory outlives the call (e.g. it was stored in a global): a
        returned value that may share it is copied."""
        self._escaped |= self.roots(v)

    def set_roots(self, v: SSAValue, roots: Iterable[Any]) -> None:
        """Say where a defined value's memory comes from (e.g. `{GLOBAL}`)."""
        self._set_roots(v, frozenset(roots))

    def _set_roots(self, v: SSAValue, roots: Roots) -> None:
        self._roots[v] = roots

    def roots(self, v: SSAValue) -> Roots:
        return self._roots.get(v, frozenset({EXT}))

    def value_type(self, v: SSAValue) -> Attribute:
        return v.type

    def _slot(self, v: SSAValue) -> int:
        slot = self._slots.get(v)
        if slot is None:
            slot = self._slots[v] = self._next_slot
            self._next_slot += 1
        return slot


def _with_release(steps: list[Step], slots: list[int]) -> list[Step]:
    """Append clearing `slots` to the node's last step (or as its own step)."""
    if not steps:
        ks = tuple(slots)

        def release(s: list[Any]) -> None:
            for k in ks:
                s[k] = None

        return [release]
    *head, last = steps
    spec = getattr(last, "call_spec", None)
    steals = getattr(last, "steals", None)
    if spec is not None and steals is not None and spec[1][steals] in slots:
        fn, ins, out = spec  # the operand's last use: its slot is moved into the kernel
        return [*head, steal_release_step(fn, ins, out, steals, slots)]
    if spec is not None:
        return [*head, call_release_step(*spec, slots)]
    if len(slots) == 1:
        (k,) = slots

        def then_release1(s: list[Any]) -> None:
            last(s)
            s[k] = None

        return [*head, then_release1]
    ks = tuple(slots)

    def then_release(s: list[Any]) -> None:
        last(s)
        for k in ks:
            s[k] = None

    return [*head, then_release]


# -- tracing and float-status checks ---------------------------------------------------------


def trace_name(op: Operation) -> str:
    """How `exe.trace` names an executed op."""
    if isinstance(op, func.CallOp):
        return f"func.call @{op.callee.root_reference.data}"
    if op.name == "linalg.generic" and op.regions and op.regions[0].blocks:
        inner = [o.name for o in op.regions[0].block.ops if not o.has_trait(IsTerminator)]
        return f"linalg.generic[{','.join(inner)}]"
    return op.name


def _trace_step(exe: CpuExecutable, name: str) -> Step:
    def trace(s: list[Any]) -> None:
        exe.trace.append(name)

    return trace


#: Ops with f16/f32 results that only move or pick values: they cannot overflow.
_NO_OVERFLOW: frozenset[type[Operation]] = frozenset(
    {
        arith.ConstantOp,
        arith.SelectOp,
        arith.BitcastOp,
        linalg.CopyOp,
        linalg.TransposeOp,
        linalg.BroadcastOp,
        linalg.FillOp,
    }
)


def may_overflow(op: Operation) -> bool:
    """Arithmetic (arith, math, linalg) that computes values, not data movement,
    control flow or calls (their inner ops are checked themselves)."""
    return op.dialect_name() in ("arith", "math", "linalg") and type(op) not in _NO_OVERFLOW


def _is_f16_f32(t: Attribute) -> bool:
    element = t.get_element_type() if isinstance(t, TensorType) else t
    return isinstance(element, Float16Type | Float32Type)


def _overflow_check(status: Any, slots: list[int]) -> Step:
    ks = tuple(slots)

    def check_overflow(s: list[Any]) -> None:
        if not status.overflow:
            for k in ks:
                if not np.isfinite(s[k]).all():
                    status.overflow = True
                    return

    return check_overflow


def _defined_in(v: SSAValue, block: Block) -> bool:
    kind = type(v)  # exact classes (isinstance on these ABCs is 5x slower)
    if kind is BlockArgument:
        return v.block is block
    if kind is OpResult:
        return v.op.parent_block() is block
    return False
