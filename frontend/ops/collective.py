"""MindSpore's collective primitives: `ops.AllReduce`, `ops.AllGather`,
`ops.ReduceScatter`, `ops.Broadcast` and `ops.ReduceOp`.

    allreduce = ops.AllReduce(ops.ReduceOp.SUM)     # in a Cell's __init__
    y = allreduce(x)                                # in construct

Each call emits one collective (dialects/mindir/collective.py). In a graph-mode
call with N data-parallel replicas (`communication.graph_group_size()`) the
replicas combine their values; in PyNative, or with one replica, a collective is
the identity (one process: MindSpore's stand-alone mode). AllGather's and
ReduceScatter's result shapes depend on N, so it is read when the graph is
traced, as MindSpore reads `get_group_size()` when the primitive is made.

Bad input raises what MindSpore raises: an `op` that is not a string, a `group`
that is not a string, a `root_rank` that is not an int: TypeError; an `op` that
is no ReduceOp, a group other than the world group: ValueError.
"""

from __future__ import annotations

from typing import Any

from mindjit.dialects import mindir as M
from mindjit.frontend.communication import GlobalComm, check_group, graph_group_size
from mindjit.frontend.ops.core import one, run
from mindjit.frontend.ops.primitives import Primitive
from mindjit.frontend.ops.promotion import is_tensor


class ReduceOp:
    """MindSpore's `ReduceOp`: how AllReduce combines the replicas' values."""

    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


_REDUCE_OPS = (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PROD)


def _tensor_input(name: str, x: Any) -> Any:
    if not is_tensor(x):
        raise TypeError(f"For '{name}', the input must be a Tensor, but got {type(x).__name__}.")
    if x.dtype.is_bool:
        raise TypeError(f"For '{name}', the input's dtype must not be bool.")
    return x


class _Collective(Primitive):
    def __init__(self, group: Any = GlobalComm.WORLD_COMM_GROUP):
        super().__init__()
        if not isinstance(group, str):
            raise TypeError(
                f"For '{self.name}', the 'group' must be str, but got {type(group).__name__}."
            )
        self.group = check_group(group, self.name)
        self.add_prim_attr("group", self.group)
        self.add_prim_attr("no_eliminate", True)


class AllReduce(_Collective):
    """`ops.AllReduce(op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP)`: every
    replica gets the elementwise `op` of all replicas' inputs."""

    def __init__(self, op: Any = ReduceOp.SUM, group: Any = GlobalComm.WORLD_COMM_GROUP):
        if not isinstance(op, str):
            raise TypeError(f"For 'AllReduce', the 'op' must be str, but got {type(op).__name__}.")
        if op not in _REDUCE_OPS:
            raise ValueError(
                f"For 'AllReduce', the 'op' must be one of ReduceOp's {list(_REDUCE_OPS)}, "
                f"but got '{op}'."
            )
        super().__init__(group)
        self.op = op
        self.add_prim_attr("op", op)

    def __call__(self, x: Any) -> Any:
        x = _tensor_input(self.name, x)
        return run(("all_reduce", self.op), one(M.AllReduceOp, op=self.op), x)


class AllGather(_Collective):
    """`ops.AllGather(group=...)`: the replicas' inputs concatenated on axis 0, in
    rank order (a result N times as long)."""

    def __call__(self, x: Any) -> Any:
        x = _tensor_input(self.name, x)
        if not x.shape:
            raise ValueError("For 'AllGather', the input must have rank >= 1, got a scalar.")
        n = graph_group_size()
        return run(("all_gather", n), one(M.AllGatherOp, rank_size=n), x)


class ReduceScatter(_Collective):
    """`ops.ReduceScatter(op=ReduceOp.SUM, group=...)`: the sum over replicas, cut
    on axis 0 into N blocks; rank r gets block r."""

    def __init__(self, op: Any = ReduceOp.SUM, group: Any = GlobalComm.WORLD_COMM_GROUP):
        if not isinstance(op, str):
            raise TypeError(
                f"For 'ReduceScatter', the 'op' must be str, but got {type(op).__name__}."
            )
        if op != ReduceOp.SUM:
            raise ValueError(f"For 'ReduceScatter', mindjit supports op 'sum' only, got '{op}'.")
        super().__init__(group)
        self.op = op

    def __call__(self, x: Any) -> Any:
        x = _tensor_input(self.name, x)
        n = graph_group_size()
        if not x.shape or x.shape[0] % n:
            raise ValueError(
                f"For 'ReduceScatter', the input's first dimension must be divisible by the "
                f"group size {n}, got shape {tuple(x.shape)}."
            )
        return run(("reduce_scatter", n), one(M.ReduceScatterOp, rank_size=n), x)


class Broadcast(_Collective):
    """`ops.Broadcast(root_rank, group=...)`: takes a tuple of tensors and gives the
    tuple of replica `root_rank`'s."""

    def __init__(self, root_rank: Any, group: Any = GlobalComm.WORLD_COMM_GROUP):
        if isinstance(root_rank, bool) or not isinstance(root_rank, int):
            raise TypeError(
                "For 'Broadcast', the type of 'root_rank' should be 'int', "
                f"but got type '{type(root_rank).__name__}'."
            )
        if root_rank < 0:
            raise ValueError(f"For 'Broadcast', 'root_rank' must be >= 0, got {root_rank}.")
        super().__init__(group)
        self.root_rank = root_rank
        self.add_prim_attr("root_rank", root_rank)

    def __call__(self, x: Any) -> Any:
        if not isinstance(x, tuple | list):
            raise TypeError(
                f"For 'Broadcast', the input must be a tuple of tensors, got {type(x).__name__}."
            )
        n = graph_group_size()
        if self.root_rank >= n and n > 1:
            raise ValueError(
                f"For 'Broadcast', 'root_rank' {self.root_rank} is not a rank of the group "
                f"of {n} replicas."
            )
        return tuple(
            run(
                ("broadcast", self.root_rank),
                one(M.BroadcastOp, root_rank=self.root_rank),
                _tensor_input(self.name, t),
            )
            for t in x
        )
