"""A program nested deeper than the stack allows: a located error, never a RecursionError.

Compiling and running a graph happen inside `support.deep_stack` (the recursion
limit raised as far as the C stack safely takes, 4096 frames on an 8 MiB
stack). Regions nest once per level of tensor `if`/`while` and every consumer
recurses per level, so the frontend refuses more than `max_nesting()` levels at
the user's line (`check_nesting`). Anything else that still runs out (user
functions calling each other hundreds deep) fails with a `FrontendError` at the
user's line instead of Python's `RecursionError` and its thousand-line
traceback (`guarded`). The line is the innermost one the failed recursion was
at, read from the traceback's frames: an evaluator's current AST node, else the
location of an op being compiled or run (ops carry the user's line), else the
function's `def`.
"""

from __future__ import annotations

import ast
import traceback
from typing import Any

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation

from mindjit.frontend.graph.errors import FrontendError
from mindjit.ir.locations import loc_of_op
from mindjit.support.deep_stack import deep_stack, frame_budget

#: Python frames one level of nested regions costs its deepest consumer: measured,
#: 6 in the frontend, 5 in the CPU planner, 7-8 in xDSL's parser (the device's
#: kernel code is parsed at its first run), ~4 in xDSL's verifier and printer.
FRAMES_PER_LEVEL = 10


def max_nesting() -> int:
    """The levels of tensor `if`/`while` one graph may nest: 409 on an 8 MiB stack."""
    return frame_budget() // FRAMES_PER_LEVEL


def check_nesting(ev: Any) -> None:
    """Refuse one more level of regions past `max_nesting()`, at the current line."""
    if ev.tensor_branch_depth > (limit := max_nesting()):
        loc = ev.graph.location
        line = loc.line.data if isinstance(loc, FileLineColLoc) else None
        raise FrontendError(
            f"'if'/'while' on tensors nest more than {limit} deep here (an elif is one "
            f"level deeper); graph mode compiles at most {limit} levels, what the stack "
            "safely allows; use fewer nested branches",
            ev.source.file,
            line,
        )


class guarded:  # noqa: N801 - used as a function: `with guarded(fn, "compile"):`
    """Run the block with room for deep nesting (`deep_stack`); a RecursionError
    becomes a FrontendError located in the user's code (`doing`: "compile", "run")."""

    __slots__ = ("doing", "fn", "limit", "stack")

    def __init__(self, fn: Any, doing: str):
        self.fn, self.doing, self.stack = fn, doing, deep_stack()

    def __enter__(self) -> None:
        self.limit = self.stack.__enter__()

    def __exit__(self, kind: type | None, exc: BaseException | None, tb: object) -> None:
        self.stack.__exit__()
        if isinstance(exc, RecursionError):
            file, line = _innermost_line(exc, self.fn)
            raise FrontendError(
                f"the program is nested too deeply to {self.doing}: it needs more than "
                f"{self.limit} nested Python calls, as many as the stack safely allows",
                file,
                line,
            ) from None


def _innermost_line(exc: RecursionError, fn: Any) -> tuple[str | None, int | None]:
    if isinstance(exc, FrontendError) and exc.line is not None:  # located by the evaluator
        return exc.user_location()
    found: tuple[str | None, int | None] = (None, None)
    for frame, _ in traceback.walk_tb(exc.__traceback__):  # outermost first
        local = frame.f_locals
        ev, node = local.get("self"), local.get("node")
        source = getattr(ev, "source", None)
        if isinstance(node, ast.AST) and hasattr(node, "lineno") and source is not None:
            found = (source.file, node.lineno)
            continue
        op = local.get("op")
        if isinstance(op, Operation) and (loc := loc_of_op(op)) is not None:
            if loc.file.endswith(".py"):
                found = (loc.file, loc.line)
    if found[0] is None:
        code = getattr(fn, "__code__", None)
        if code is not None:
            found = (code.co_filename, code.co_firstlineno)
    return found


__all__ = ["FRAMES_PER_LEVEL", "check_nesting", "guarded", "max_nesting"]
