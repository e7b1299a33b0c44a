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
compile in each of several threads, one nested in another): the pause is a
`SharedOverride`, reference-counted across threads (support/shared_override.py).
"""

from __future__ import annotations

import gc

from mindjit.support.shared_override import SharedOverride

#: The third GC threshold while compiling: young collections between full ones.
_NO_FULL = 1 << 30


def _pause() -> tuple[int, ...]:
    saved = gc.get_threshold()
    gc.set_threshold(saved[0], saved[1], _NO_FULL)
    return saved


_PAUSE = SharedOverride(_pause, lambda saved: gc.set_threshold(*saved))


def no_full_collections() -> SharedOverride:
    """Within the block (and while any thread is in one), only generations 0 and 1
    are collected."""
    return _PAUSE
