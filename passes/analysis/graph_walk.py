"""Walking a module's graphs without its declarations.

A model's module is mostly declarations: one `mindir.parameter` (after lowering,
`ml_program.global`) per Parameter, thousands for a large model, next to a few
graphs. Most passes only look inside graphs, and a full `module.walk()` per pass
spends more on stepping over the declarations than on the graphs. `walk_graphs`
steps over the module's top-level declarations by class and walks everything
else (functions, nested modules) in full, in `walk()` order.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.ml_program import GlobalOp
from xdsl.ir import Operation

from mindjit.dialects.mindir.effects import ParameterOp
from mindjit.ir.walk import block_ops, walk_ops

#: Top-level ops with no graph inside, a large model has thousands of (exact
#: classes: they have no subclasses, and a class test is cheaper than isinstance).
DECLARATIONS: tuple[type[Operation], ...] = (ParameterOp, GlobalOp)


def top_level_graphs(
    module: ModuleOp, skip: tuple[type[Operation], ...] = DECLARATIONS
) -> list[Operation]:
    """The top-level ops of `module` but its `skip` ops (by exact class), in order."""
    skipped = frozenset(skip)
    return [op for op in block_ops(module.body.block) if type(op) not in skipped]


def walk_graphs(
    module: ModuleOp, skip: tuple[type[Operation], ...] = DECLARATIONS
) -> Iterator[Operation]:
    """Every op of `module` but the module itself and its top-level `skip` ops, in
    `walk()` order. Each graph is listed before its ops are handed out (`walk_ops`,
    a third of the cost of `op.walk()`'s nested generators)."""
    for op in top_level_graphs(module, skip):
        yield from walk_ops(op)
