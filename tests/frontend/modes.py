"""Running one test in PyNative and in graph mode: `run` calls `fn` eagerly or
compiles it through a plain Python function (the `mode` fixture is in conftest.py)."""

from __future__ import annotations

from typing import Any

import mindjit as ms


def run(fn: Any, mode: int, *args: Any) -> Any:
    """`fn(*args)`, compiled as a graph (through a plain Python function) in graph mode."""
    if mode != ms.GRAPH_MODE:
        return fn(*args)

    def graph(*a):
        return fn(*a)

    return ms.jit(graph)(*args)
