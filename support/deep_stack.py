"""Room on the Python stack for deeply nested programs, bounded by what the C stack takes.

Nesting in a user's program becomes recursion in mindjit: a tensor `if` ...
`elif` chain of 300 is 300 regions one inside the other, and the frontend
(6 frames a level), the CPU planner (5), mindir-auto-monad (4) and xDSL's walk,
verifier, printer, parser and cloner (3 or so) each recurse once per level:
1800 frames, past Python's default limit of 1000. Long *sequences* need no
recursion (a 1000-term sum: frontend/graph/expr_chains.py; 5000 statements are
a loop), but nesting is recursive in too many places, xDSL's among them, to
rewrite; so compiling, running and the tools raise the limit, within a bound.

The bound. In CPython 3.11 a Python-to-Python call uses no C stack, but one
through C does (a generator resumed by `yield from`, `map`, a class's
`__init__`, `functools.partial`). Measured on an 8 MiB thread stack, recursing
through `__init__` crashes at ~10,400 levels (~800 bytes each), through `map`
at ~13,200, through generators at ~19,900; mindjit's own recursion on a tensor
`if` chain needs 0.6-1.3 KiB a level of ~6 frames (200 levels fit in 256 KiB,
not in 128 KiB). So at most one frame per KiB of half the stack: 4096 frames
on the 8 MiB stack Linux gives the main thread and, through glibc, every other
thread (RLIMIT_STACK; `threading.stack_size()` when a program sets one). At
~10 frames a level for the deepest consumer (xDSL's parser), graph mode takes
409 levels of tensor `if`; a deeper program gets a located error
(frontend/graph/too_deep.py), never a crash. The limit is never lowered.

The limit is one number for all threads: the raise is a `SharedOverride`
(support/shared_override.py), the first block in saves the limit, the last out
restores it (unless the program changed it meanwhile), as for the GC thresholds.
"""

from __future__ import annotations

import functools
import sys
import threading

from mindjit.support.shared_override import SharedOverride

#: C stack allowed per Python frame (measured at most ~800 bytes; see above)
FRAME_BYTES = 1024
#: Linux's default stack (main thread; glibc's threads take the same)
DEFAULT_STACK = 8 << 20
#: glibc's thread stack when RLIMIT_STACK is unlimited
UNLIMITED_THREAD_STACK = 2 << 20


@functools.cache
def _rlimit_stack() -> tuple[int, bool]:
    """RLIMIT_STACK's soft limit and whether it is unlimited (read once: a call of a
    compiled program asks, and the syscall is most of the cost)."""
    try:
        import resource  # noqa: PLC0415 - Unix only
    except ImportError:  # Windows: 1 MiB for the main thread and for threads
        return 1 << 20, False
    soft, _ = resource.getrlimit(resource.RLIMIT_STACK)
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return DEFAULT_STACK, True
    return soft, False


def stack_bytes() -> int:
    """The stack size every thread that may compile has, at least."""
    main, unlimited = _rlimit_stack()
    threads = threading.stack_size() or (UNLIMITED_THREAD_STACK if unlimited else main)
    return min(main, threads)


def frame_budget() -> int:
    """The recursion limit the stack takes: half of it at `FRAME_BYTES` a frame."""
    return stack_bytes() // 2 // FRAME_BYTES


def _raise() -> tuple[int, int]:
    """Raise the limit to the budget (never lower it); (the limit before, ours)."""
    saved = sys.getrecursionlimit()
    raised = max(saved, frame_budget())
    if raised != saved:
        sys.setrecursionlimit(raised)
    return saved, raised


def _restore(limits: tuple[int, int]) -> None:
    """Put the old limit back, unless the program changed ours meanwhile."""
    saved, raised = limits
    if raised != saved and sys.getrecursionlimit() == raised:
        try:
            sys.setrecursionlimit(saved)
        except RecursionError:  # deeper than the old limit right now: keep ours
            pass


class _DeepStack(SharedOverride):
    """The raised limit's block: `as` gives the limit in force."""

    __slots__ = ()

    def __enter__(self) -> int:  # type: ignore[override]
        super().__enter__()
        return sys.getrecursionlimit()


_DEEP = _DeepStack(_raise, _restore)


def deep_stack() -> _DeepStack:
    """Within the block (and while any thread is in one) the recursion limit is at
    least `frame_budget()`; `with deep_stack() as limit:` gives the limit in force."""
    return _DEEP


__all__ = ["FRAME_BYTES", "deep_stack", "frame_budget", "stack_bytes"]
