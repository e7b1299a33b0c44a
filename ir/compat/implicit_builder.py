"""Patch: xDSL's implicit builder is not thread-safe.

`ImplicitBuilder` keeps the current builder per thread (`threading.local`), but
to make new ops insert themselves it replaces the class attribute
`Operation.__post_init__`, which every thread shares: the outermost block of a
thread saves the attribute it finds and puts it back on leaving. Two threads
whose blocks overlap wrap each other's hook: thread B saves A's hook as "the
original", A restores the real one, B then restores A's hook for good. From
then on each op built inside an implicit block is inserted twice ("Can't add to
a block an operation already attached to a block", 4 in 5 runs of 8 threads
compiling 8 Cells), and every op built anywhere pays a dead callback.

The patch keeps xDSL's per-thread builder and its hook, and only changes who
installs the hook: a count of open implicit blocks in all threads, under a
lock; the first to open installs the hook, the last to close removes it. The
hook itself asks the calling thread's builder, so an op built in a thread with
no implicit block open is left alone. Cost: one lock round trip per implicit
block (a linalg op's body, a few per lowered op): 2.9 µs instead of 2.4 µs to
open and close one.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import xdsl.builder
from xdsl.builder import Builder, InsertPoint
from xdsl.ir import Block, Operation, Region

from mindjit.ir.compat.touchpoint import Touchpoint, original

TOUCHPOINT = Touchpoint(
    name="implicit-builder-threads",
    kind="patch",
    reason="overlapping implicit-builder blocks in two threads leave Operation.__post_init__ "
    "wrapped twice, so ops built in implicit blocks are inserted twice (compiles in threads fail)",
    cost="one lock round trip per implicit block (docs/xdsl-compat.md)",
    upstream="still present in xDSL 0.74.0: the hook is a class attribute saved and restored "
    "per thread",
    delete_when="xDSL installs the post-init hook once, or per process with a count "
    "(`test_implicit_builder_patch_still_needed` fails then)",
    xdsl_sources={
        "xdsl.builder.ImplicitBuilder": "6d75495d46c1",
        "xdsl.builder._override_operation_post_init": "987eafa71461",
        "xdsl.builder._op_init_callback": "aa46af90011f",
    },
)

ORIGINAL = original("xdsl.builder.ImplicitBuilder")

_LOCK = threading.Lock()
_open = 0  #: implicit blocks open in all threads
_saved_post_init: Any = None  #: Operation.__post_init__ before the first of them


@contextlib.contextmanager
def ImplicitBuilder(arg: Builder | Block | Region | None) -> Iterator[Any]:  # noqa: N802 - xDSL's name
    """xDSL's `ImplicitBuilder`, with the post-init hook installed once for all threads."""
    global _open, _saved_post_init
    match arg:
        case None:
            raise ValueError("Cannot pass None to implicit_builder")
        case Region():
            builder = Builder(InsertPoint.at_end(arg.block))
        case Block():
            builder = Builder(InsertPoint.at_end(arg))
        case Builder():
            builder = arg
    current = xdsl.builder._current_builder  # noqa: SLF001 - xDSL's per-thread builder
    with _LOCK:
        if _open == 0:
            _saved_post_init = xdsl.builder._override_operation_post_init()  # noqa: SLF001
        _open += 1
    old_builder = current.builder
    current.builder = builder
    try:
        yield builder.insertion_point.block.args
    finally:
        current.builder = old_builder
        with _LOCK:
            _open -= 1
            if _open == 0:
                Operation.__post_init__ = _saved_post_init  # type: ignore[method-assign]


def install() -> None:
    xdsl.builder.ImplicitBuilder = ImplicitBuilder  # type: ignore[assignment]
