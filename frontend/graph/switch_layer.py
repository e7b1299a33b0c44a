"""MindSpore's switch_layer: a tuple or CellList of Cells indexed by a 0-d int tensor.

`self.layers[i](x)` with `i` a tensor is, in MindSpore's graph mode, a switch over
the Cells: the one `i` names runs. Indexing gives a `Switched` (nothing is
emitted yet); calling it emits each Cell's call in a branch of nested mindir.if
ops (`i == 0`, else `i == 1`, ...), whose results must agree in type, as the
branches of any tensor `if`. A negative `i` counts from the end, as in Python;
out of `[-n, n)` is an IndexError when the graph runs (a run-time check the
index depends on, so it cannot be dropped).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.cell_base import CellBase
from mindjit.frontend.graph import control_flow, raises
from mindjit.frontend.graph.branches import Branch
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as tensor_math


class Switched:
    """`items[index]` for a tensor `index`: called, the switch."""

    def __init__(self, items: tuple[Any, ...], index: GraphValue):
        self.items = items
        self.index = index


def _is_cell_sequence(obj: Any) -> bool:
    """A CellList or SequentialCell: a Cell that is a sequence of Cells."""
    kind = type(obj)
    return isinstance(obj, CellBase) and hasattr(kind, "__getitem__") and hasattr(kind, "__len__")


def is_switch(obj: Any, index: Any) -> bool:
    """A sequence of callables (Cells, functions) indexed by a tensor."""
    if not isinstance(index, GraphValue):
        return False
    if not (isinstance(obj, tuple | list) or _is_cell_sequence(obj)):
        return False
    items = tuple(obj)
    return bool(items) and all(callable(item) for item in items)


def select(ev: Any, node: ast.AST, obj: Any, index: GraphValue) -> Switched:
    if tuple(index.shape) != () or index.dtype.is_float or index.dtype.is_bool:
        raise ev.error(
            node,
            "a tuple or CellList of Cells is indexed by a tensor only with a 0-d int "
            f"tensor, got a {index.dtype} tensor of shape {tuple(index.shape)}",
            TypeError,
        )
    return Switched(tuple(obj), index)


def call(ev: Any, node: ast.AST, switched: Switched, call_one: Callable[[Any], Any]) -> Any:
    """Nested ifs, one per item; `call_one(item)` emits one item's call."""
    n = len(switched.items)
    checked = raises.checked_range(
        ev,
        switched.index,
        -n,
        n - 1,
        IndexError,
        f"index out of range for a sequence of {n} Cells (switch_layer)",
    )
    index = array.cast(checked, D.int32)
    index = tensor_math.select(index < 0, index + n, index)

    def branch_from(k: int) -> Any:
        if k == n - 1:
            return call_one(switched.items[k])
        then_b, else_b = Branch(ev), Branch(ev)
        then_value = then_b.run(lambda: call_one(switched.items[k]))
        else_value = else_b.run(lambda: branch_from(k + 1))
        return control_flow.emit_if(
            ev, node, index == k, then_value, else_value, then_b, else_b, "switch_layer output"
        )

    return branch_from(0)
