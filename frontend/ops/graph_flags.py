"""`C.add_flags(fn=None, **flags)`: MindSpore's decorator that attaches flags to a
function's graph (`@C.add_flags(has_effect=True)`). The flags are kept where
MindSpore keeps them, in `fn._func_graph_flags` (merged with earlier ones), and
the function is returned unchanged; mindjit's compiler reads none of them (its
effects and reuse are found from the program itself), so code that sets them
runs as written.
"""

from __future__ import annotations

from typing import Any


def add_flags(fn: Any = None, **flags: Any) -> Any:
    """`add_flags(fn, **flags)` -> fn with the flags recorded; `add_flags(**flags)`
    -> a decorator doing that."""

    def deco(target: Any) -> Any:
        if not hasattr(target, "_func_graph_flags"):
            target._func_graph_flags = {}
        target._func_graph_flags.update(flags)
        return target

    return deco if fn is None else deco(fn)


__all__ = ["add_flags"]
