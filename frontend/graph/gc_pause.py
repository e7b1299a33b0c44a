"""No full garbage collections while a program compiles.

A compile builds a large IR that lives until the end (for a model of N Blocks,
12N declarations, N calls, a Block graph) next to the model's own objects, and
little of it is cyclic garbage. CPython's full collections re-scan all of that
each time the long-lived heap has grown by a quarter, finding almost nothing:
~10% of a large model's compile time (measured with benchmarks/lazy_inline.py).
`no_full_collections` keeps the young collections, which free the short-lived
cycles (erased ops, rewriter worklists), and holds the full ones off until the
compile ends; the thresholds are restored after, so the next full collection
takes whatever the compile left. The same idea as mypy's raised GC thresholds.

The thresholds are one global of the process while compiles may overlap (a
compile in each of several threads, one nested in another): the pause is
reference-counted, so the first to enter saves the thresholds and the last to
leave restores them. Saving and restoring per block, as before, left full
collections off for good when two threads' blocks interleaved (issue 29).
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

#: The third GC threshold while compiling: young collections between full ones.
_NO_FULL = 1 << 30

_LOCK = threading.Lock()
_paused = 0  #: blocks inside `no_full_collections`, in all threads
_saved: tuple[int, ...] = ()  #: the thresholds before the first of them


@contextlib.contextmanager
def no_full_collections() -> Iterator[None]:
    """Within the block (and while any thread is in one), only generations 0 and 1
    are collected."""
    global _paused, _saved
    with _LOCK:
        if _paused == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(_saved[0], _saved[1], _NO_FULL)
        _paused += 1
    try:
        yield
    finally:
        with _LOCK:
            _paused -= 1
            if _paused == 0:
                gc.set_threshold(*_saved)
