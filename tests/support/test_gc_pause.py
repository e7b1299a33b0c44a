"""Compiling holds full garbage collections off, and only while it compiles."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn, ops
from mindjit.support.gc_pause import no_full_collections


def _collections_while(fn) -> list[int]:  # type: ignore[no-untyped-def]
    seen: list[int] = []

    def spy(phase: str, info: dict) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(spy)
    try:
        fn()
    finally:
        gc.callbacks.remove(spy)
    return seen


def _churn() -> None:
    """Enough long-lived and cyclic garbage to reach several full collections.

    CPython starts a full collection only when the objects that survived the
    younger ones exceed a quarter of those already long-lived: the test freezes the
    heap the suite built before it (`gc.freeze`), so a fixed churn does (it grew
    with that heap before: 27 s in an xdist worker)."""
    keep = []
    for i in range(300_000):
        a: list = [i]
        a.append(a)  # a cycle: only the collector frees it
        if i % 3 == 0:
            keep.append(a)


def test_young_collections_go_on_full_ones_wait():
    saved = gc.get_threshold()
    gc.freeze()  # the objects alive now stop counting as long-lived (see _churn) ...
    gc.collect()  # ... once a full collection has counted the long-lived again
    try:
        assert 2 in _collections_while(_churn)  # the default policy does full collections
        with no_full_collections():
            seen = _collections_while(_churn)
    finally:
        gc.unfreeze()
    assert seen and 2 not in seen and 0 in seen
    assert gc.get_threshold() == saved


def test_thresholds_come_back_after_an_error():
    saved = gc.get_threshold()
    with pytest.raises(RuntimeError), no_full_collections():
        raise RuntimeError("boom")
    assert gc.get_threshold() == saved


def test_a_compile_runs_under_it():
    class Net(nn.Cell):
        def construct(self, x):
            seen.append(gc.get_threshold())
            return ops.relu(x)

    seen: list = []
    saved = gc.get_threshold()
    ms.set_context(mode=ms.GRAPH_MODE)
    Net()(Tensor(np.ones(3, np.float32)))
    assert seen and seen[0][2] > saved[2] and seen[0][:2] == saved[:2]
    assert gc.get_threshold() == saved


def test_overlapping_pauses_in_threads_restore_the_thresholds():
    """Two threads' pauses that interleave (A in, B in, A out, B out) leave the
    thresholds as they found them, and full collections stay off until the last
    one leaves."""
    saved = gc.get_threshold()
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[tuple] = []

    def a() -> None:
        with no_full_collections():
            a_in.set()
            b_in.wait()
        a_out.set()

    def b() -> None:
        a_in.wait()
        with no_full_collections():
            b_in.set()
            a_out.wait()
            seen.append(gc.get_threshold())  # A has left, B still compiles

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen[0][2] > saved[2]
    assert gc.get_threshold() == saved
