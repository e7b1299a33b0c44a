"""`Branch`: a block being traced (a branch of an if, a loop body, a vmap body).

Control flow, loop flags, gradients and vmap all trace a nested region the same
way: move the graph's insertion point into a new block, run the Python that
emits its ops, and count the nesting depth `too_deep` bounds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.ir import Block
from xdsl.rewriter import InsertPoint

from mindjit.frontend.graph import too_deep


class Branch:
    """A block being traced, entered by moving the graph's insertion point into it."""

    def __init__(self, ev: Any, arg_types: list = ()):  # type: ignore[assignment]
        self.ev = ev
        self.block = Block(arg_types=list(arg_types))

    def run(self, fn: Callable[[], Any]) -> Any:
        builder = self.ev.graph.emitter.builder
        saved = builder.insertion_point
        builder.insertion_point = InsertPoint.at_end(self.block)
        self.ev.tensor_branch_depth += 1
        try:
            too_deep.check_nesting(self.ev)
            return fn()
        finally:
            self.ev.tensor_branch_depth -= 1
            builder.insertion_point = saved
