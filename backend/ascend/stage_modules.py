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
    by_name: dict[str, Operation] = {}
    for op in module.ops:
        name = op.properties.get("sym_name") or op.attributes.get("sym_name")
        if name is not None:
            by_name[name.data] = op  # type: ignore[attr-defined]
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
    copy = module.clone()
    for op in list(copy.ops):
        name = op.properties.get("sym_name") or op.attributes.get("sym_name")
        if name is not None and name.data not in keep:  # type: ignore[attr-defined]
            op.detach()
            op.erase()
    return copy
