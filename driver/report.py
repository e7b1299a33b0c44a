"""What each stage of a compile did: op and node counts and seconds.

The demo, the benchmarks and users read a compiled program's `report`; graph
nodes are counted as MindSpore counts them (passes/analysis/graph_nodes.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from xdsl.dialects.builtin import ModuleOp

from mindjit.passes.analysis.graph_nodes import count_ops_and_nodes

#: The stage that closes the mindir pipeline.
MINDIR_END = "verify-mindir"


class Stage(NamedTuple):
    name: str
    ops: int  # every op in the module after the stage
    seconds: float
    nodes: int  # graph nodes as MindSpore counts them


@dataclass
class StageReport:
    stages: list[Stage] = field(default_factory=list)

    def add(self, name: str, module: ModuleOp | None, seconds: float) -> None:
        if module is None:
            self.stages.append(Stage(name, 0, seconds, 0))
            return
        ops, nodes = count_ops_and_nodes(module)
        self.stages.append(Stage(name, ops, seconds, nodes))

    @property
    def compile_seconds(self) -> float:
        return sum(s.seconds for s in self.stages)

    @property
    def mindir_peak_nodes(self) -> int:
        """The most graph nodes any mindir pass saw (frontend output to verify-mindir)."""
        names = [s.name for s in self.stages]
        end = names.index(MINDIR_END) if MINDIR_END in names else len(names)
        return max((s.nodes for s in self.stages[: end + 1]), default=0)
