"""A process-wide setting changed while any thread is inside a block.

The GC thresholds (support/gc_pause.py) and the recursion limit
(support/deep_stack.py) are one global each, while the blocks that change them
overlap across threads and nest. Saving and restoring per block leaves the
change in place for good when two threads' blocks interleave (issue 29: full
collections stayed off). So the change is reference-counted: the first block in
applies it and keeps what it replaced, the last one out restores that. A class,
not a generator: the recursion limit's block wraps every call of a compiled
program (~1 µs, not ~3).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class SharedOverride:
    """`with override:` applies `apply()` (which returns what it replaced) when the
    first thread enters, and `restore(replaced)` when the last one leaves."""

    __slots__ = ("_apply", "_restore", "_lock", "_inside", "_replaced")

    def __init__(self, apply: Callable[[], Any], restore: Callable[[Any], None]):
        self._apply, self._restore = apply, restore
        self._lock = threading.Lock()
        self._inside = 0  #: blocks inside, in all threads
        self._replaced: Any = None

    def __enter__(self) -> None:
        with self._lock:
            if self._inside == 0:
                self._replaced = self._apply()
            self._inside += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._inside -= 1
            if self._inside == 0:
                self._restore(self._replaced)
