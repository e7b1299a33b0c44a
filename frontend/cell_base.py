"""`CellBase`: what the graph compiler knows of a Cell, below both.

`nn.Cell` (frontend/nn/cell.py) runs its `construct` through the graph compiler
in graph mode, and the compiler treats a Cell specially (a sub-Cell call is a
graph of its own, a lazy-inline Cell's graph is shared, `self.training` is
folded, a PipelineCell's micro-batches mark the entry graph). The compiler
knows Cells by this base class, so it does not import `nn`, and `nn` imports
the compiler at module level: one direction, no cycle (issue 37).

The training registry is here too: the set of Cells in training mode is part
of every compiled program's key.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

#: the live Cells in training mode, and a counter bumped when a Cell enters or
#: leaves it: graph mode folds `self.training`, so the set is part of the key of
#: every compiled program (frontend/graph/api.py) and `set_train(False)` makes the
#: next call use (or compile) the eval program.
_TRAINING_CELLS: weakref.WeakSet = weakref.WeakSet()
_TRAINING_CHANGES = itertools.count()
_token: list[Any] = [None, -1, -1]  # token, change number, set size


def set_training(cell: Any, mode: bool) -> None:
    object.__setattr__(cell, "training", mode)
    if mode != (cell in _TRAINING_CELLS):
        (_TRAINING_CELLS.add if mode else _TRAINING_CELLS.discard)(cell)
        _token[1] = -1


def training_token() -> frozenset[int]:
    """The ids of the live Cells in training mode (recomputed only after a change:
    a train step pays one comparison)."""
    size = len(_TRAINING_CELLS)  # a dead Cell leaves the set and changes its size
    if _token[1] == -1 or _token[2] != size:
        _token[:] = [frozenset(map(id, _TRAINING_CELLS)), next(_TRAINING_CHANGES), size]
    return _token[0]


class CellBase:
    """The base of `nn.Cell`; the graph compiler's `isinstance` checks use it."""

    __slots__ = ()

    def pipeline_micro_batches(self) -> int | None:
        """The micro-batches a pipeline Cell splits its batch into (`nn.PipelineCell`);
        None for any other Cell."""
        return None
