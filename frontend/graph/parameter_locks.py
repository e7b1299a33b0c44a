"""A call that reads and writes Parameters is atomic with respect to every other
call that touches any of them.

A compiled program's call is three steps: hand each Parameter's current array to
the executable, run, take the arrays the graph assigned back. Two calls that
interleave those steps lose an update (both read p, both write p + 1). Each
program already runs one call at a time (its own lock), but one Cell has several
programs (one per input signature, per `set_train` state), and networks share
Parameters (a TrainOneStepCell and the net inside it, two nets built on one
backbone): 13 of 50 processes lost updates with 8 threads calling one Cell with
two input shapes (issue 29).

So each Parameter has a lock, and a call holds the locks of all its program's
Parameters for its three steps. The locks are taken in one global order (the
order Parameters were first seen), so two calls never wait on each other in a
cycle; calls of programs with disjoint Parameters still run at once. A
program's list is found once, on its first call: a Parameter's lock lives as long
as the Parameter (the entry is dropped when it is collected; a program keeps its
Parameters alive). Locks are kept here, not on the Parameter, so copying or
pickling a Parameter never meets a lock. The locks are re-entrant: a call that
calls back into Python (a print, a fallback) which calls another program of the
same Parameters waits for nothing it holds itself.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import weakref
from collections.abc import Iterable, Iterator
from typing import Any

_LOCK = threading.Lock()
_ORDER = itertools.count()
_BY_ID: dict[int, tuple[int, threading.RLock]] = {}  # id(Parameter) -> (order, its lock)


def locks_of(parameters: Iterable[Any]) -> list[threading.RLock]:
    """The locks of `parameters`, each once, in the global order."""
    found = {}
    with _LOCK:
        for param in parameters:
            key = id(param)
            if key not in _BY_ID:
                _BY_ID[key] = (next(_ORDER), threading.RLock())
                weakref.finalize(param, _BY_ID.pop, key, None)
            found[key] = _BY_ID[key]
    return [lock for _, lock in sorted(found.values(), key=lambda entry: entry[0])]


@contextlib.contextmanager
def holding(locks: list[threading.RLock]) -> Iterator[None]:
    """All of `locks` (taken in their order), for the block."""
    taken = 0
    try:
        for lock in locks:
            lock.acquire()
            taken += 1
        yield
    finally:
        for lock in reversed(locks[:taken]):
            lock.release()
