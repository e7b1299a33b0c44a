"""What the evaluator hands its helpers: the signals statements return and the scope.

`FunctionEvaluator` (evaluator.py) runs a function's statements; control flow,
loop flags, raises and nested functions (control_flow.py, loop_flags.py,
raises.py, functional.py) are its helpers and are imported by it. They need
these few types of its interface, not the evaluator itself: kept here, the
helpers import them at module level and the evaluator stays at the top of the
graph layer's imports. A helper that must run a nested function makes its
evaluator with `type(ev)` from the one it is given.
"""

from __future__ import annotations

import copy
from typing import Any


class Return:
    """A `return` reached: the value travels up to the function."""

    def __init__(self, value: Any):
        self.value = value


class LoopSignal:
    def __init__(self, name: str):
        self.name = name


BREAK, CONTINUE = LoopSignal("break"), LoopSignal("continue")
Signal = Return | LoopSignal | None


class Env(dict):
    """Local variables of the function being traced."""

    parent: Env | None = None  # the scope a branch copy was made from

    def branch_copy(self) -> Env:
        """A copy for one branch of a tensor `if`: lists are copied so that an append
        in one branch does not show in the other."""
        out = Env()
        out.parent = self
        for k, v in self.items():
            out[k] = copy.copy(v) if isinstance(v, list) else v
        return out
