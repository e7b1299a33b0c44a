"""Collectives between data-parallel replica actors, through Ray's object store.

The same interface as the in-process `ReplicaComm` (backend/cpu/collectives.py:
`rank`, `group_size`, `all_reduce`, `all_gather`, `broadcast`, calls numbered
per step) and the same results to the bit: rank 0 gathers every rank's value
for the k-th collective, combines them in rank order with the very functions
the in-process hub uses, puts the result in the object store once and hands
its reference to every other rank (each reads it zero-copy). An all-reduce of
SCATTER_MIN_BYTES or more (DistributedGradReducer's fused gradient buffer: 33.6 MB
for the benchmark's MLP) is a reduce-scatter then an all-gather instead: rank r
combines the r-th of N contiguous chunks, so the combining and the object-store
copies are spread over the ranks instead of all landing on rank 0 while the others
wait (each element is still combined in rank order: the same bits). A broadcast
goes from its root to every rank directly. Ray's collective library needs torch or
cupy; this needs nothing but actor calls (measured: an all-reduce of 1 MB,
~8 ms for N=2 and ~14 ms for N=4 on this machine).

A mismatch (another kind of collective or another shape at the same number on
two ranks) is an error naming both, as in one process; a rank that died makes
the driver abort the survivors' waits (mailbox.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mindjit.backend.cpu.collectives import REDUCTIONS, gather_in_rank_order, reduce_in_rank_order
from mindjit.backend.cpu.errors import ExecutionError

#: an all-reduce of at least this many bytes is a reduce-scatter then an all-gather
#: (every rank combines 1/N of it) rather than rank 0 combining all of it
SCATTER_MIN_BYTES = 1 << 16


def _disagree(number: int, rank: int, what: tuple, other: int, theirs: tuple) -> ExecutionError:
    """Two ranks called different collectives (kind, dtype or shape) at `number`."""
    return ExecutionError(
        f"data-parallel replicas disagree at collective {number} of the step: rank "
        f"{rank} calls {what[0]} of {what[2]}{list(what[1])}, rank {other} {theirs[0]} "
        f"of {theirs[2]}{list(theirs[1])}"
    )


class RayComm:
    """One replica's collectives (see the module doc); fresh every step."""

    def __init__(self, rank: int, group_size: int, peers: list[Any], take: Callable[[str], Any]):
        self.rank, self.group_size = rank, group_size
        self._peers, self._take = peers, take
        self._calls = 0
        self.sent: list[Any] = []  # the deliveries' refs (checked at the end of the step)

    def _number(self) -> int:
        n = self._calls
        self._calls += 1
        return n

    def _send(self, rank: int, tag: str, value: Any) -> None:
        self.sent.append(self._peers[rank].deliver.remote(tag, value))

    def _exchange(
        self, key: str, value: Any, combine: Callable[[list[np.ndarray]], np.ndarray]
    ) -> np.ndarray:
        number, mine = self._number(), np.asarray(value)
        if self.rank != 0:
            self._send(0, f"c{number}/{self.rank}", (key, mine))
            return self._take(f"r{number}")
        values = [mine]
        for rank in range(1, self.group_size):
            their_key, theirs = self._take(f"c{number}/{rank}")
            theirs = np.asarray(theirs)
            what, their_what = (
                (key, mine.shape, mine.dtype),
                (their_key, theirs.shape, theirs.dtype),
            )
            if their_what != what:
                raise _disagree(number, 0, what, rank, their_what)
            values.append(theirs)
        result = combine(values)
        self._share(number, result)
        return result

    def _share(self, number: int, result: np.ndarray) -> None:
        import ray  # the optional extra: this runs in a Ray actor only

        ref = ray.put(result)  # once; every rank reads the same object
        for rank in range(1, self.group_size):
            self._send(rank, f"r{number}", ref)

    def all_reduce(self, key: str, array: Any, op: str) -> np.ndarray:
        if op not in REDUCTIONS:
            raise ExecutionError(f"unknown reduction '{op}' (sum, max, min, prod)")
        mine = np.asarray(array)
        if mine.nbytes < SCATTER_MIN_BYTES or mine.size < self.group_size:
            return self._exchange(key, mine, reduce_in_rank_order(op))
        return self._reduce_scatter_gather(key, mine, reduce_in_rank_order(op))

    def _reduce_scatter_gather(
        self, key: str, mine: np.ndarray, combine: Callable[[list[np.ndarray]], np.ndarray]
    ) -> np.ndarray:
        """Rank r owns the r-th of `group_size` contiguous chunks: every rank sends
        each owner its chunk, the owner combines them in rank order (the same
        elementwise operations, in the same order, as one rank combining whole
        arrays: the same bits) and shares its combined chunk with every rank."""
        import ray  # the optional extra: this runs in a Ray actor only

        number, flat = self._number(), mine.reshape(-1)
        bounds = np.linspace(0, flat.size, self.group_size + 1).astype(np.int64)
        chunk = [flat[bounds[r] : bounds[r + 1]] for r in range(self.group_size)]
        what = (key, mine.shape, mine.dtype)
        for rank in range(self.group_size):
            if rank != self.rank:
                self._send(rank, f"c{number}/{self.rank}", (what, chunk[rank]))
        values = []
        for rank in range(self.group_size):
            if rank == self.rank:
                values.append(chunk[rank])
                continue
            theirs, part = self._take(f"c{number}/{rank}")
            if theirs != what:
                raise _disagree(number, self.rank, what, rank, theirs)
            values.append(part)
        combined = combine(values)
        self._share_chunk(number, combined)
        out = np.empty_like(flat)
        for rank in range(self.group_size):
            piece = combined if rank == self.rank else ray.get(self._take(f"r{number}/{rank}")[0])
            out[bounds[rank] : bounds[rank + 1]] = piece
        return out.reshape(mine.shape)

    def _share_chunk(self, number: int, combined: np.ndarray) -> None:
        import ray  # the optional extra: this runs in a Ray actor only

        ref = ray.put(combined)  # once; every rank reads the same object
        for rank in range(self.group_size):
            if rank != self.rank:
                # in a tuple, so Ray hands the reference over unresolved: the receiver
                # reads the object zero-copy straight into its result
                self._send(rank, f"r{number}/{self.rank}", (ref,))

    def all_gather(self, key: str, array: Any) -> np.ndarray:
        return self._exchange(key, array, gather_in_rank_order)

    def broadcast(self, key: str, array: Any, root: int) -> np.ndarray:
        if not 0 <= root < self.group_size:
            raise ExecutionError(
                f"broadcast from root rank {root}, but the group has ranks 0..{self.group_size - 1}"
            )
        number = self._number()
        if self.rank == root:
            value = np.array(array, copy=True)
            for rank in range(self.group_size):
                if rank != root:
                    self._send(rank, f"r{number}", value)
            return value
        return self._take(f"r{number}")
