"""Run-time building blocks: steps are closures over bound slot indices.

A *slot array* is a plain list holding every SSA value of one function call.
A *step* is `f(slots) -> None`; it reads its operands from fixed slot indices
and stores its results. A kernel may raise an `ExecutionError` without a
location: the `StepBlock` running it locates it at the step's op.  These factories specialise the closures by arity at
plan time so the hot loop does no dispatch, no lookups by name and no
isinstance checks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from xdsl.ir import Operation

from mindjit.backend.cpu.errors import ExecutionError, op_failure
from mindjit.ir.locations import loc_of_op
from mindjit.support.errors import SourceLoc

Slots = list[Any]
Step = Callable[[Slots], None]


def call_step(fn: Callable[..., Any], ins: Sequence[int], out: int) -> Step:
    """A step doing `slots[out] = fn(*slots[ins])`, specialised by arity.

    The step remembers (fn, ins, out) so the compiler can rebuild it fused
    with slot releases (`call_release_step`) without an extra call per step.
    """
    step = _call_step(fn, ins, out)
    step.call_spec = (fn, tuple(ins), out)  # type: ignore[attr-defined]
    return step


def effect_step(fn: Callable[..., Any], ins: Sequence[int]) -> Step:
    """A step calling `fn(*slots[ins])` for its effect only (a store, a check).

    Like `call_step` it remembers (fn, ins, None), so it can be fused with
    releases and rebuilt from data."""
    idx = tuple(ins)
    if len(idx) == 1:
        (a,) = idx

        def effect1(s: Slots) -> None:
            fn(s[a])

        step = effect1
    else:

        def effect(s: Slots) -> None:
            fn(*[s[i] for i in idx])

        step = effect
    step.call_spec = (fn, idx, None)  # type: ignore[attr-defined]
    return step


def call_release_step(
    fn: Callable[..., Any], ins: Sequence[int], out: int | None, kill: Sequence[int]
) -> Step:
    """`slots[out] = fn(*slots[ins])` (or just the call when `out` is None), then
    drop the slots in `kill`."""
    if out is None:
        idx, kills = tuple(ins), tuple(kill)

        def effectk(s: Slots) -> None:
            fn(*[s[i] for i in idx])
            for i in kills:
                s[i] = None

        return effectk
    if len(kill) == 1 and len(ins) in (1, 2):
        (k,) = kill
        if len(ins) == 1:
            (a,) = ins

            def step1k(s: Slots) -> None:
                s[out] = fn(s[a])
                s[k] = None

            return step1k
        a, b = ins

        def step2k(s: Slots) -> None:
            s[out] = fn(s[a], s[b])
            s[k] = None

        return step2k
    idx, kills = tuple(ins), tuple(kill)

    def stepk(s: Slots) -> None:
        s[out] = fn(*[s[i] for i in idx])
        for i in kills:
            s[i] = None

    return stepk


def stealing(fn: Callable[..., Any], ins: Sequence[int], out: int, k: int) -> Step:
    """`call_step(fn, ins, out)` for a kernel that may reuse operand `k`'s buffer
    (`fn(..., sole=True)`): when the compiler releases that operand's slot at this
    step (its value's last use), it rebuilds the step with `steal_release_step`."""
    step = call_step(fn, ins, out)
    step.steals = k  # type: ignore[attr-defined]
    return step


def steal_release_step(
    fn: Callable[..., Any], ins: Sequence[int], out: int, k: int, kill: Sequence[int]
) -> Step:
    """`slots[out] = fn(*slots[ins], sole=True)` with operand `k` moved out of its
    slot first (so the slot array no longer holds it: the kernel can tell by its
    reference count whether anything else does), then drop the slots in `kill`."""
    idx, kills, taken = tuple(ins), tuple(i for i in kill if i != ins[k]), ins[k]

    def steal(s: Slots) -> None:
        args = [s[i] for i in idx]
        s[taken] = None
        s[out] = fn(*args, sole=True)
        for i in kills:
            s[i] = None

    return steal


def _call_step(fn: Callable[..., Any], ins: Sequence[int], out: int) -> Step:
    n = len(ins)
    if n == 0:

        def step0(s: Slots) -> None:
            s[out] = fn()

        return step0
    if n == 1:
        (a,) = ins

        def step1(s: Slots) -> None:
            s[out] = fn(s[a])

        return step1
    if n == 2:
        a, b = ins

        def step2(s: Slots) -> None:
            s[out] = fn(s[a], s[b])

        return step2
    if n == 3:
        a, b, c = ins

        def step3(s: Slots) -> None:
            s[out] = fn(s[a], s[b], s[c])

        return step3
    idx = tuple(ins)

    def stepn(s: Slots) -> None:
        s[out] = fn(*[s[i] for i in idx])

    return stepn


def multi_call_step(
    fn: Callable[..., Sequence[Any]], ins: Sequence[int], outs: Sequence[int]
) -> Step:
    """A step storing each of `fn(*slots[ins])`'s results in `outs`."""
    if len(outs) == 1:
        (o,) = outs
        return call_step(lambda *a: fn(*a)[0], ins, o)
    idx, odx = tuple(ins), tuple(outs)

    def step(s: Slots) -> None:
        for o, v in zip(odx, fn(*[s[i] for i in idx])):
            s[o] = v

    return step


def mover(src: Sequence[int], dst: Sequence[int], clear: Sequence[int] = ()) -> Step | None:
    """A step copying slot values src -> dst as one parallel assignment, then
    clearing the `clear` slots (sources that are dead once moved; never a
    destination).

    None when there is nothing to move, so callers can skip the call entirely.
    """
    pairs = [(a, b) for a, b in zip(src, dst) if a != b]
    drop = tuple(sorted({k for k in clear if k not in dst}))
    if not pairs:
        return None
    if len(pairs) == 1 and not drop:
        ((a, b),) = pairs

        def move1(s: Slots) -> None:
            s[b] = s[a]

        return move1
    srcs = tuple(a for a, _ in pairs)
    dsts = tuple(b for _, b in pairs)

    def moven(s: Slots) -> None:
        vals = [s[i] for i in srcs]
        for i, v in zip(dsts, vals):
            s[i] = v
        for i in drop:
            s[i] = None

    return moven


class StepOrigin(NamedTuple):
    """Where a step comes from when its op is not at hand (a plan the compile
    cache rebuilt without the module): the op's name and location."""

    name: str
    loc: SourceLoc | None


class StepBlock:
    """An ordered list of steps (one block or region), with the op (or its
    `StepOrigin`) of each step.

    Calling it runs the steps; a failure inside a kernel becomes an
    `ExecutionError` located at the op the failing step was planned from.
    """

    __slots__ = ("steps", "origin")

    def __init__(self, steps: Sequence[Step], origin: dict[Step, Operation | StepOrigin]):
        self.steps = tuple(steps)
        self.origin = origin

    def __call__(self, s: Slots) -> None:
        step = None
        try:
            for step in self.steps:
                step(s)
        except ExecutionError as err:
            if err.loc is None and step is not None:  # a kernel's error, located here
                op = self.origin.get(step)
                if op is not None:
                    err.loc = op.loc if isinstance(op, StepOrigin) else loc_of_op(op)
            raise
        except Exception as exc:  # a kernel failed: name the op it came from
            op = self.origin.get(step) if step is not None else None
            message = f"{type(exc).__name__}: {exc}"
            if op is None:
                raise ExecutionError(f"execution failed: {message}") from exc
            failure = f"'{op.name}' failed at run time: {message}"
            if isinstance(op, StepOrigin):
                raise ExecutionError(failure, op.loc) from exc
            raise op_failure(op, failure) from exc

    def __len__(self) -> int:
        return len(self.steps)
