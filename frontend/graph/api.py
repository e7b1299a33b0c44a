"""Entry points the public API calls to compile and run in graph mode."""

from __future__ import annotations

from typing import Any


def should_compile_cell(cell: Any) -> bool:
    """A Cell runs as a graph in GRAPH_MODE, or when its construct is @jit."""
    from mindjit.frontend.context import GRAPH_MODE, get_context

    return get_context("mode") == GRAPH_MODE or getattr(cell.construct, "__ms_jit__", False)


def run_cell(cell: Any, args: tuple, kwargs: dict) -> Any:
    raise NotImplementedError("graph mode is being written")


def compile_cell(cell: Any, args: tuple) -> None:
    raise NotImplementedError("graph mode is being written")
