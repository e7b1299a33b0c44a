"""A graph cut into pipeline stages, run with one Ray actor per stage.

What `Compiled.build_backend` gives for a split graph when the distributed
engine is "ray" (group.py has what every actor group shares: state, faults).
Each stage graph's own module (backend/ascend/stage_modules.py: its graph, its
callees and its globals) goes to its actor once; every actor learns which
actor receives each channel tag (the stage whose module loads that channel).
Every stage gets all the call's inputs (the graph's arguments are every
stage's), and each returns the graph's results it computes
(`mindir.pipeline_results`). The order each stage runs its micro-batches in is
in its graph (mindir-pipeline-schedule): the actors just run them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from mindjit.backend.ascend.stage_modules import stage_module
from mindjit.backend.cpu.executable import caller_inputs
from mindjit.backend.cpu.pipeline_run import PipelinePlan
from mindjit.backend.ray.group import ActorGroup, module_member
from mindjit.support.config import DistributedSettings


class RayPipelineExecutable(ActorGroup):
    """Stage graphs on Ray actors (see the module doc)."""

    what = "pipeline stage"

    def __init__(
        self,
        module: ModuleOp,
        entry: str,
        plan: PipelinePlan,
        settings: DistributedSettings,
        stage_backend: str = "numpy",
    ):
        self.module, self.plan = module, plan
        members = [module_member(stage_module(module, g), g) for g, _ in plan.stages]
        receiver_of = {tag: k for k, m in enumerate(members) for tag in m.receives}
        super().__init__(entry, members, settings, stage_backend, receiver_of)

    def signature(self, name: str) -> tuple[list[Any], list[Any]]:
        self._check_entry(name)
        by_name = {
            op.sym_name.data: op for op in self.module.body.block.ops if isinstance(op, func.FuncOp)
        }
        outputs: list[Any] = [None] * self.plan.n_results
        for graph, indices in self.plan.stages:
            for i, t in zip(indices, by_name[graph].function_type.outputs.data):
                outputs[i] = t
        return caller_inputs(by_name[self.plan.stages[0][0]]), outputs

    def _inputs(self, args: Sequence[Any]) -> list[list[Any]]:
        shared = [self.ray.put(np.asarray(a)) for a in args]  # once for every stage
        return [shared] * len(self.members)

    def _outputs(self, outputs: list[list[Any]]) -> tuple[np.ndarray, ...]:
        combined: list[Any] = [None] * self.plan.n_results
        for (_, indices), values in zip(self.plan.stages, outputs):
            for i, value in zip(indices, values):
                combined[i] = np.array(value)  # writable, the caller's
        return tuple(combined)
