"""The communication object collectives run with, and its in-process implementation.

The interface (what backend/cpu/kernels_collective.py calls; the Ray engine
implements the same over actors): the executor's `comm` attribute is None (one
process, MindSpore's stand-alone mode: every collective is the identity) or an
object with

    comm.rank                          this replica's rank, 0..group_size-1
    comm.group_size                    N
    comm.all_reduce(key, array, op)    -> the elementwise op ("sum", "max", "min",
                                          "prod") of every rank's array, in rank order
    comm.all_gather(key, array)        -> the ranks' arrays concatenated on axis 0
    comm.broadcast(key, array, root)   -> rank `root`'s array

`key` is the runtime call's kind (`all_reduce_sum`, ...); the object numbers the
calls itself, so the k-th collective of a step on one replica meets the k-th on
every other (all replicas run one compiled program, hence the same calls in the
same order). A key or shape that differs between replicas at the same number is
an error naming both, never a wrong sum. A step uses a fresh object (or
`reset()`), so numbering starts at 0 each step. Every rank gets a bit-identical
result: it is computed once, in rank order (a sum is ((x0 + x1) + x2) + ...),
and each rank gets its own copy.

`ReplicaHub` is the in-process implementation: N threads, one per replica,
meet at each collective like at a barrier; the last to arrive combines. A
replica that fails calls `finished(failed=True)` and every replica waiting
raises `ReplicaAborted` instead of waiting forever; a replica that ends its
step while others wait in a collective it never reached is an error too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from mindjit.backend.cpu.errors import ExecutionError

#: MindSpore's ReduceOp values -> how two ranks' values combine.
REDUCTIONS: dict[str, np.ufunc] = {
    "sum": np.add,
    "max": np.maximum,
    "min": np.minimum,
    "prod": np.multiply,
}


class Communicator(Protocol):
    """What `exe.comm` must be (the module doc); `ReplicaComm` is the in-process one."""

    rank: int
    group_size: int

    def all_reduce(self, key: str, array: Any, op: str) -> np.ndarray: ...

    def all_gather(self, key: str, array: Any) -> np.ndarray: ...

    def broadcast(self, key: str, array: Any, root: int) -> np.ndarray: ...


class ReplicaAborted(ExecutionError):
    """A replica stopped waiting in a collective because another replica failed."""


@dataclass
class _Round:
    """The k-th collective of a step: what each rank gave, and the result."""

    key: str
    values: list[np.ndarray | None]
    result: np.ndarray | None = None
    taken: int = 0
    ranks: set[int] = field(default_factory=set)


class ReplicaHub:
    """Where N in-process replicas' collectives meet (see the module doc)."""

    def __init__(self, group_size: int):
        self.group_size = group_size
        self._cond = threading.Condition()
        self._rounds: dict[int, _Round] = {}
        self._done: set[int] = set()  # ranks whose step has ended
        self._failed = False

    def exchange(
        self,
        rank: int,
        number: int,
        key: str,
        value: Any,
        combine: Callable[[list[np.ndarray]], np.ndarray],
    ) -> np.ndarray:
        """Give `value` to collective `number`; returns the combined result. `value`
        is read only while every rank waits here (the last to arrive combines), so
        it is not copied."""
        mine = np.asarray(value)
        with self._cond:
            if self._failed:
                raise ReplicaAborted("another data-parallel replica failed")
            r = self._rounds.get(number)
            if r is None:
                r = self._rounds[number] = _Round(key, [None] * self.group_size)
            first = next((v for v in r.values if v is not None), None)
            if r.key != key or (
                first is not None and (first.shape, first.dtype) != (mine.shape, mine.dtype)
            ):
                self._failed = True
                self._cond.notify_all()
                theirs = (
                    f"{r.key} of {first.dtype}{list(first.shape)}" if first is not None else r.key
                )
                raise ExecutionError(
                    f"data-parallel replicas disagree at collective {number} of the step: rank "
                    f"{rank} calls {key} of {mine.dtype}{list(mine.shape)}, another rank {theirs}"
                )
            r.values[rank] = mine
            r.ranks.add(rank)
            if len(r.ranks) == self.group_size:
                r.result = combine(r.values)  # type: ignore[arg-type]
                self._cond.notify_all()
            while r.result is None:
                if self._failed:
                    raise ReplicaAborted("another data-parallel replica failed")
                gone = sorted(self._done - r.ranks)
                if gone:
                    self._failed = True
                    self._cond.notify_all()
                    raise ExecutionError(
                        f"data-parallel replica {gone[0]} ended its step without reaching "
                        f"collective {number} ({key}) that rank {rank} waits in"
                    )
                self._cond.wait()
            r.taken += 1
            if r.taken == self.group_size:
                del self._rounds[number]
            return r.result if r.taken == self.group_size else r.result.copy()

    def finished(self, rank: int, failed: bool) -> None:
        """Replica `rank`'s step has ended (`failed`: with an error)."""
        with self._cond:
            self._done.add(rank)
            self._failed = self._failed or failed
            self._cond.notify_all()

    def comm(self, rank: int) -> ReplicaComm:
        return ReplicaComm(self, rank)


def reduce_in_rank_order(op: str) -> Callable[[list[np.ndarray]], np.ndarray]:
    combine = REDUCTIONS[op]

    def reduce(values: list[np.ndarray]) -> np.ndarray:
        if len(values) == 1:
            return np.array(values[0], copy=True)
        out = combine(values[0], values[1])  # not a copy of the first, then a combine
        for v in values[2:]:
            combine(out, v, out=out)
        return out

    return reduce


def gather_in_rank_order(values: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(values, axis=0)


class ReplicaComm:
    """One replica's view of a `ReplicaHub`: the interface of the module doc."""

    def __init__(self, hub: ReplicaHub, rank: int):
        self.hub = hub
        self.rank = rank
        self.group_size = hub.group_size
        self._calls = 0

    def reset(self) -> None:
        self._calls = 0

    def _number(self) -> int:
        n = self._calls
        self._calls += 1
        return n

    def all_reduce(self, key: str, array: Any, op: str) -> np.ndarray:
        if op not in REDUCTIONS:
            raise ExecutionError(f"unknown reduction '{op}' (sum, max, min, prod)")
        return self.hub.exchange(self.rank, self._number(), key, array, reduce_in_rank_order(op))

    def all_gather(self, key: str, array: Any) -> np.ndarray:
        return self.hub.exchange(self.rank, self._number(), key, array, gather_in_rank_order)

    def broadcast(self, key: str, array: Any, root: int) -> np.ndarray:
        if not 0 <= root < self.group_size:
            raise ExecutionError(
                f"broadcast from root rank {root}, but the group has ranks 0..{self.group_size - 1}"
            )
        return self.hub.exchange(self.rank, self._number(), key, array, lambda vs: vs[root].copy())
