"""Data-parallel replicas as Ray actors: N copies of one program, a slice of the batch each.

What `Compiled.build_backend` gives in DATA_PARALLEL mode with device_num=N > 1
when the distributed engine is "ray"; the in-process `ReplicaExecutable`
(backend/cpu/replica_run.py) with its threads replaced by actors, and its hub
by comm.py's collectives through the object store. The same inputs and
outputs: `split_batch` gives replica k its slice (a batch N does not divide is
the same ValueError, raised before any actor runs), `combine_outputs` makes
one call's results (a 0-d float is the replicas' mean, a batch is
concatenated). Every replica holds every Parameter, and all are equal after a
step (the gradients are all-reduced in rank order); replica k returns every N-th
of the globals the step writes, so no one replica copies them all out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from mindjit.backend.cpu.executable import caller_inputs
from mindjit.backend.cpu.replica_run import batch_scaled, combine_outputs, split_batch
from mindjit.backend.ray.group import ActorGroup, module_member
from mindjit.support.config import DistributedSettings


class RayReplicaExecutable(ActorGroup):
    """N replicas on Ray actors (see the module doc)."""

    what = "data-parallel replica"

    def __init__(
        self,
        module: ModuleOp,
        entry: str,
        replicas: int,
        settings: DistributedSettings,
        stage_backend: str = "numpy",
    ):
        self.module, self.replicas = module, replicas
        whole = module_member(module, entry)
        # replica k returns every N-th stored global: all replicas hold the same values
        # (the gradients are all-reduced in rank order, the same bits everywhere), so
        # the step's return copies (33.6 MB for the benchmark's MLP) are shared out
        members = [replace(whole, stores=whole.stores[k::replicas]) for k in range(replicas)]
        super().__init__(entry, members, settings, stage_backend)

    def _group(self) -> int:
        return self.replicas

    def signature(self, name: str) -> tuple[list[Any], list[Any]]:
        self._check_entry(name)
        fn = next(
            op
            for op in self.module.body.block.ops
            if isinstance(op, func.FuncOp) and op.sym_name.data == name
        )
        inputs = [batch_scaled(t, self.replicas) for t in caller_inputs(fn)]
        return inputs, [batch_scaled(t, self.replicas) for t in fn.function_type.outputs.data]

    def _inputs(self, args: Sequence[Any]) -> list[list[Any]]:
        return [[self.ray.put(a) for a in own] for own in split_batch(args, self.replicas)]

    def _outputs(self, outputs: list[list[Any]]) -> tuple[np.ndarray, ...]:
        return tuple(np.array(v) for v in combine_outputs(outputs))
