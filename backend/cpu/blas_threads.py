"""numpy's OpenBLAS on one thread while a program runs its convolutions on oneDNN.

Two thread pools in turn oversubscribe the two cores: after a product
OpenBLAS's pthreads keep spinning (~0.1 s, its THREAD_TIMEOUT), and oneDNN's
GNU OpenMP threads then wait for a core. LeNet5's train step with both cores,
its convolutions on oneDNN (median ms, one process, 60 steps): OpenBLAS on two
threads 8.0, on one 3.5 (all on numpy: 4.3). Its products are small, so one
thread costs them nothing; feeding them to oneMKL on the same GNU OpenMP pool
instead measured 3.6. So once a convolution runs on oneDNN with more than one
thread (kernels_conv chose it: `from_now`), every CPU executable's run keeps
the calling thread's OpenBLAS at one thread (`single_threaded`, numpy's
OpenBLAS 0.3.27+ `openblas_set_num_threads_local`, restored after the run):
per process, not per program, because PyNative runs each op as a program of
its own (LeNet5's PyNative step with both cores: 8 ms on numpy, 30 with its
convolutions on oneDNN and its products on two OpenBLAS threads). A process
without such a convolution (a transformer), and the user's own numpy, keep
every thread.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

_state: dict[str, Any] = {"loaded": False, "set": None, "wanted": False}
_loading = threading.Lock()


def _setter() -> Any:
    """numpy's bundled OpenBLAS's `openblas_set_num_threads_local`, or None
    (another BLAS, an older OpenBLAS: nothing is changed). Looked up once; every
    run asks, so the lock is only taken before that."""
    if _state["loaded"]:
        return _state["set"]
    with _loading:
        if not _state["loaded"]:
            libs = Path(np.__file__).parent.parent / "numpy.libs"
            for path in sorted(libs.glob("libscipy_openblas*.so*")):
                try:
                    fn = ctypes.CDLL(str(path)).openblas_set_num_threads_local
                except (OSError, AttributeError):
                    continue
                fn.restype, fn.argtypes = ctypes.c_int, [ctypes.c_int]
                _state["set"] = fn
                break
            # after the setter: a thread that reads "loaded" without the lock must
            # find the setter already there, not None while it is looked up
            _state["loaded"] = True
    return _state["set"]


def from_now() -> None:
    """A convolution runs on oneDNN's threads: runs keep OpenBLAS on one thread."""
    _state["wanted"] = True


def wanted() -> bool:
    """Whether CPU executables run with OpenBLAS on one thread (`from_now`)."""
    return _state["wanted"]


@contextmanager
def single_threaded() -> Iterator[None]:
    """The calling thread's OpenBLAS on one thread inside, as it was after."""
    fn = _setter()
    if fn is None:
        yield
        return
    before = fn(1)
    try:
        yield
    finally:
        fn(before)
