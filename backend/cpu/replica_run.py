"""Data-parallel replicas in one process: N executables of one program, one thread each.

With `set_auto_parallel_context(parallel_mode=DATA_PARALLEL, device_num=N)` a
graph-mode program is traced for one replica's slice of the batch, and
`ReplicaExecutable` runs it as N replicas (MindSpore runs N processes, each
fed its own slice by the dataset; here one call gets the whole batch):

- `run(name, *args)` splits every input of rank >= 1 along axis 0 into N equal
  slices (`split_batch`; a batch not divisible by N is a ValueError naming both),
  runs the N replicas at once, each with its own `ReplicaComm` on one
  `ReplicaHub` (backend/cpu/collectives.py), and combines the outputs
  (`combine_outputs`): a 0-d float output is the mean over replicas (for a mean
  loss, the whole batch's loss: N equal slices), an integer or bool 0-d output
  is replica 0's, an output of rank >= 1 is the replicas' concatenated along
  axis 0 (per-sample results come back in batch order).
- Each replica has its own globals (Parameters, optimizer state).
  `set_global` gives every replica the value (replica 0 may adopt the caller's
  array as the CPU executor does; the others get copies, so no two replicas
  write one buffer); `get_global` is replica 0's. With gradients all-reduced
  every replica applies the same update, so after a step they hold equal
  Parameters (the tests check it with `replica_globals`).
- `print_hook` is every replica's (each prints its own values, as N processes
  would); anything else (`stats`, `trace`, ...) is replica 0's.

Failures: a replica that raises ends the step for all (the others stop waiting
in their collective, `ReplicaAborted`); the first real error is raised again
with a note naming its rank.

The executables come from `make()` (the driver's factory): the CPU executor,
or IREE's (its collectives are host functions using the same `comm`,
backend/iree/collectives.py). A Ray engine replaces this class by
one with the same interface: `run`, `set_global`, `get_global`, `plan_for`,
`signature`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType

from mindjit.backend.cpu.collectives import ReplicaAborted, ReplicaHub


def split_batch(args: Sequence[Any], n: int) -> list[list[Any]]:
    """Every replica's inputs: each array of rank >= 1 cut along axis 0 into n
    equal slices, 0-d inputs given to all (ValueError when a batch does not divide)."""
    per: list[list[Any]] = [[] for _ in range(n)]
    for i, a in enumerate(args):
        shape = np.shape(a)
        if not shape:
            for p in per:
                p.append(a)
            continue
        if shape[0] % n:
            raise ValueError(
                f"data parallel with device_num={n} splits every batch input along axis 0 into "
                f"{n} equal slices, but input {i} has a batch of {shape[0]}, not divisible by {n}"
            )
        step = shape[0] // n
        for k in range(n):
            per[k].append(np.ascontiguousarray(a[k * step : (k + 1) * step]))
    return per


def combine_outputs(outputs: Sequence[Sequence[Any]]) -> tuple[Any, ...]:
    """The replicas' outputs as one call's (see the module doc)."""
    combined = []
    for values in zip(*outputs):
        first = np.asarray(values[0])
        if first.ndim == 0:
            if np.issubdtype(first.dtype, np.floating):
                total = np.float64(0.0)
                for v in values:
                    total = total + np.float64(v)
                combined.append(np.asarray(total / len(values), dtype=first.dtype))
            else:
                combined.append(first)
        else:
            combined.append(np.concatenate([np.asarray(v) for v in values], axis=0))
    return tuple(combined)


class ReplicaExecutable:
    """N replicas of one program run at once (see the module doc)."""

    def __init__(self, make: Callable[[], Any], replicas: int):
        if replicas < 2:
            raise ValueError(f"a replica runner needs at least 2 replicas, got {replicas}")
        self.replicas = [make() for _ in range(replicas)]
        self.group_size = replicas

    def __getattr__(self, name: str) -> Any:  # print_hook, stats, module ...: replica 0's
        if name == "replicas":
            raise AttributeError(name)
        return getattr(self.replicas[0], name)

    @property
    def backend(self) -> str:
        return self.replicas[0].backend

    @property
    def print_hook(self) -> Any:
        return self.replicas[0].print_hook

    @print_hook.setter
    def print_hook(self, hook: Any) -> None:
        """Every replica prints through `hook` (each its own values, as N processes)."""
        for r in self.replicas:
            r.print_hook = hook

    def plan_for(self, name: str) -> Any:
        plans = [r.plan_for(name) for r in self.replicas]
        return plans[0]

    def signature(self, name: str) -> tuple[list[Any], list[Any]]:
        """The whole batch's input types (a replica's, N times as long on axis 0)
        and the combined outputs' types."""
        inputs, outputs = self.replicas[0].signature(name)
        return [batch_scaled(t, self.group_size) for t in inputs], [
            batch_scaled(t, self.group_size) for t in outputs
        ]

    def set_global(self, name: str, value: Any) -> None:
        self.replicas[0].set_global(name, value)
        for r in self.replicas[1:]:
            r.set_global(name, np.array(value, copy=True))

    def get_global(self, name: str) -> Any:
        return self.replicas[0].get_global(name)

    def replica_globals(self, name: str) -> list[np.ndarray]:
        """Global @name in every replica (equal after a data-parallel step)."""
        return [r.get_global(name) for r in self.replicas]

    def run(self, name: str, *args: Any) -> tuple[Any, ...]:
        n = self.group_size
        per = split_batch(args, n)
        self.plan_for(name)  # planned here, not by racing threads
        hub = ReplicaHub(n)
        outputs: list[Any] = [None] * n
        errors: list[BaseException | None] = [None] * n

        def replica(k: int) -> None:
            exe = self.replicas[k]
            failed = True
            try:
                outputs[k] = exe.run(name, *per[k])
                failed = False
            except BaseException as exc:  # noqa: BLE001 - raised again below
                errors[k] = exc
            finally:
                hub.finished(k, failed)

        for k, exe in enumerate(self.replicas):
            exe.comm = hub.comm(k)
        try:
            threads = [threading.Thread(target=replica, args=(k,)) for k in range(1, n)]
            for t in threads:
                t.start()
            replica(0)
            for t in threads:
                t.join()
        finally:
            for exe in self.replicas:
                exe.comm = None
        real = [(k, e) for k, e in enumerate(errors) if e is not None]
        if real:
            k, exc = next(((k, e) for k, e in real if not isinstance(e, ReplicaAborted)), real[0])
            exc.add_note(f"(in data-parallel replica {k} of {n})")
            raise exc
        return combine_outputs(outputs)


def batch_scaled(t: Any, n: int) -> Any:
    if not isinstance(t, TensorType) or not t.get_shape():
        return t
    shape = list(t.get_shape())
    return TensorType(t.get_element_type(), [shape[0] * n, *shape[1:]])
