"""Keep freed memory in the process, so fresh numpy arrays reuse warm pages.

Every numpy kernel returns a fresh array, and a train step frees most of them
before the next. glibc's malloc hands large blocks back to the kernel (an
`munmap`, or trimming the heap's top past M_TRIM_THRESHOLD, which it keeps
near twice its adaptive mmap threshold), so the next step's arrays fault their
pages in again: on this VM that was about a quarter of the GPT-like train
step (helper fused, issue 41: 110 -> 83 ms with the thresholds raised through
MALLOC_*_ environment variables). PyTorch's CPU tensors keep their memory the
same way through its allocator; here the allocator is numpy's, i.e. malloc, so
`keep_freed_memory` tells malloc itself:

- M_MMAP_THRESHOLD = 32 MiB (glibc's largest; a fixed value also stops the
  adaptive one): blocks below it come from the heap, whose freed pages are
  reused;
- M_TRIM_THRESHOLD = 2 GiB - 1 (mallopt takes an int): the heap's top is not
  given back while less than that is free.

The cost is the process's resident memory: it stays at its high-water mark
instead of shrinking after a peak (a model's largest step keeps its pages).
It is process-wide, so it is done once, when the first CPU executable is made
(support/config.py `cpu_keep_memory`: MINDJIT_KEEP_FREED_MEMORY=0 leaves malloc
alone). Other C libraries than glibc (musl, macOS) have no mallopt: nothing
is done there.
"""

from __future__ import annotations

import ctypes
import threading

#: glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = (1 << 31) - 1

_done: list[bool] = []
_lock = threading.Lock()


def keep_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds once per process; whether malloc
    took them (False where there is no glibc mallopt)."""
    with _lock:
        if not _done:
            _done.append(_set_thresholds())
        return _done[0]


def _set_thresholds() -> bool:
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
