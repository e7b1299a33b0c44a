"""A module's size as MindSpore counts graph nodes.

`mindir.parameter` / `mindir.get_parameter` (and, after lowering,
`ml_program.global`) are graph inputs, not nodes; the module and the graphs
themselves are containers. Every other op is a node, including those inside
`mindir.if` / `mindir.while` regions and a `func.call` (a call site whose refs
come from get_parameter ops costs one node).
"""

from __future__ import annotations

from xdsl.ir import Operation

NOT_NODES = frozenset(
    {
        "builtin.module",
        "func.func",
        "mindir.parameter",
        "mindir.get_parameter",
        "ml_program.global",
    }
)


def graph_nodes(root: Operation) -> int:
    """The number of graph nodes in `root` (see the module doc)."""
    return sum(1 for op in root.walk() if op.name not in NOT_NODES)
