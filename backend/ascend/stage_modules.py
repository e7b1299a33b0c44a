"""One self-contained module per pipeline stage, for one device each.

A graph `mindir-pipeline-split` cut into stages is one lowered module holding
every stage graph, the graphs they call and every global. Device k gets the
module of its stage graph alone: that graph, the graphs it calls (transitively)
and the globals they use (its own Parameters and its channels), so its model
file holds its Parameters only and its memory plan is its own, as on a real
pipeline where each device loads the checkpoint slice of its stage.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.ir import Attribute, Operation


def _symbols_used(op: Operation) -> set[str]:
    """Every symbol an op or the ops in it refer to (calls, globals)."""
    found: set[str] = set()

    def visit(attr: Attribute) -> None:
        if isinstance(attr, SymbolRefAttr):
            found.add(attr.root_reference.data)

    for inner in op.walk():
        for attr in (*inner.properties.values(), *inner.attributes.values()):
            visit(attr)
    return found


def stage_module(module: ModuleOp, graph: str) -> ModuleOp:
    """A copy of `module` with graph @graph public and only what it uses."""
    by_name = {name: op for op in module.ops if (name := _symbol(op)) is not None}
    if graph not in by_name:
        raise KeyError(graph)
    keep: set[str] = set()
    todo = [graph]
    while todo:
        name = todo.pop()
        if name in keep or name not in by_name:
            continue
        keep.add(name)
        todo.extend(_symbols_used(by_name[name]) - keep)
    # only what the stage keeps is copied (not every stage, to delete all but one)
    kept = [op.clone() for op in module.ops if (name := _symbol(op)) is None or name in keep]
    copy = ModuleOp(kept)
    copy.attributes.update(module.attributes)
    return copy


def _symbol(op: Operation) -> str | None:
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return None if name is None else name.data  # type: ignore[attr-defined]
