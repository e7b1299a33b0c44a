"""The optional native libraries the numpy executor calls through ctypes (oneMKL
in gemm.py, oneDNN in dnnl.py): where their PyPI wheel put the shared library,
and the timed trial that decides, per shape, whether a library's kernel or
numpy's runs. One of each, so the two libraries are found and chosen alike."""

from __future__ import annotations

import importlib.metadata
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def wheel_library(distribution: str, prefix: str) -> Path | None:
    """The first file of the installed `distribution` whose name starts with
    `prefix` (e.g. `libmkl_rt.so`), resolved; None when it is not installed."""
    try:
        dist = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if file.name.startswith(prefix):
            path = Path(str(dist.locate_file(file))).resolve()
            if path.is_file():
                return path
    return None


def fastest(
    ways: Sequence[Callable[[], object]],
    rounds: int,
    budget: float,
    margin: float,
    errors: tuple[type[BaseException], ...] = (),
    results: list | None = None,
) -> tuple[int | None, float]:
    """Which of `ways` (the reference first) to run: up to `rounds` timed rounds of
    every way in turn (fewer once `budget` seconds are spent), each way's first
    timed run right after its warm-up run. Returns the index of the fastest other
    way when its best time is below `margin` times the reference's, else None;
    and the seconds spent. A way that raises one of `errors` is never chosen.
    `results`, when given, receives each way's last return value (None for a
    failed way), so a trial on a call's own operands gives that call its result.

    Warm-up then timed, way by way, not all warm-ups first: whatever a way's
    first run pays once (a threaded library's pool waking after the runs of the
    ways before it, fresh scratchpad pages) lands in its warm-up, and its timed
    run follows at once.
    """
    best = [float("inf")] * len(ways)
    last: list = [None] * len(ways)
    failed: set[int] = set()
    start = time.perf_counter()
    for rnd in range(rounds):
        for i, way in enumerate(ways):
            if i in failed:
                continue
            try:
                if rnd == 0:
                    way()
                t = time.perf_counter()
                last[i] = way()
                best[i] = min(best[i], time.perf_counter() - t)
            except errors:
                failed.add(i)
                best[i], last[i] = float("inf"), None
        if time.perf_counter() - start > budget:
            break
    spent = time.perf_counter() - start
    if results is not None:
        results[:] = last
    if len(ways) < 2:
        return None, spent
    pick = min(range(1, len(ways)), key=best.__getitem__)
    return (pick if best[pick] < margin * best[0] else None), spent
