"""A module's size as MindSpore counts graph nodes.

`mindir.parameter` / `mindir.get_parameter` (and, after lowering,
`ml_program.global`) are graph inputs, not nodes; the module and the graphs
themselves are containers. Every other op is a node, including those inside
`mindir.if` / `mindir.while` regions and a `func.call` (a call site whose refs
come from get_parameter ops costs one node).
"""

from __future__ import annotations

from xdsl.ir import Operation

from mindjit.ir.walk import walk_ops

NOT_NODES = frozenset(
    {
        "builtin.module",
        "func.func",
        "mindir.parameter",
        "mindir.get_parameter",
        "ml_program.global",
    }
)


def count_ops_and_nodes(root: Operation) -> tuple[int, int]:
    """The ops inside `root` (not counting it) and its graph nodes, in one walk
    (a large module is slow to walk)."""
    ops = nodes = 0
    for op in walk_ops(root):  # not root.walk(): its generators nest as deep as the regions
        ops += 1
        nodes += op.name not in NOT_NODES
    return ops - 1, nodes


def graph_nodes(root: Operation) -> int:
    """The number of graph nodes in `root` (see the module doc)."""
    return count_ops_and_nodes(root)[1]
