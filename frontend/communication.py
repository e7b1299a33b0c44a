"""`mindjit.communication` (MindSpore's `mindspore.communication`): the data-parallel
group a script asks about.

    from mindjit.communication import init, get_rank, get_group_size
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True, device_num=4)
    init()
    get_group_size()   # 4

MindSpore's launcher (msrun) starts N processes and `init()` joins them; mindjit
runs the N replicas itself, one call of the train step feeding each 1/N of the
batch (backend/cpu/replica_run.py). So the group's size is the context's
`device_num` (the one place N is said; design decision), and:

- `init(backend_name=None)` checks the name against the device target as
  MindSpore does ("hccl" for Ascend, "nccl" for GPU, "mccl" for CPU; None picks
  it), sets `GlobalComm.BACKEND` and `GlobalComm.WORLD_COMM_GROUP`, and marks the
  group initialized. Replicas run in DATA_PARALLEL mode with or without it.
- `get_group_size()` is 1 before `init()` (MindSpore's stand-alone answer) and
  `device_num` after it; `get_rank()` is this process's rank, the context's
  `global_rank` (0): the Python code runs once for all replicas, so a graph
  that must differ by rank uses the collectives, not `get_rank()`.
- The only group is the world group (`hccl_world_group`, `nccl_world_group` or
  `mccl_world_group`, any of the three); another name is a ValueError naming the
  groups there are (MindSpore's `create_group` is not supported).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.dispatch import current_graph
from mindjit.support import config

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"
WORLD_GROUPS = (HCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP)
_BACKENDS = {"Ascend": "hccl", "GPU": "nccl", "CPU": "mccl"}
_WORLD_OF = {
    "hccl": HCCL_WORLD_COMM_GROUP,
    "nccl": NCCL_WORLD_COMM_GROUP,
    "mccl": MCCL_WORLD_COMM_GROUP,
}


class GlobalComm:
    """MindSpore's `GlobalComm`: the backend, the world group's name, whether `init()` ran."""

    BACKEND = "hccl"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False
    CHECK_ENVS = True


def init(backend_name: str | None = None) -> None:
    """Join the data-parallel group (see the module doc)."""
    target = config.device_target()
    if backend_name is None:
        backend_name = _BACKENDS[target]
    if not isinstance(backend_name, str):
        raise TypeError(
            "For 'init', the argument 'backend_name' must be a string, "
            f"but got the type : {type(backend_name)}"
        )
    if backend_name not in _WORLD_OF:
        raise RuntimeError(
            "For 'init', the argument 'backend_name' must be one of 'hccl', 'nccl' and 'mccl', "
            f"but got 'backend_name' : {backend_name}"
        )
    if backend_name != "mccl" and backend_name != _BACKENDS[target]:
        raise RuntimeError(
            f"For 'init', the argument 'backend_name' should be '{_BACKENDS[target]}' to init "
            f"'{target}', but got '{backend_name}'."
        )
    GlobalComm.BACKEND = backend_name
    GlobalComm.WORLD_COMM_GROUP = _WORLD_OF[backend_name]
    GlobalComm.INITED = True


def release() -> None:
    """Leave the group: `get_group_size()` is 1 again."""
    GlobalComm.INITED = False


def check_group(group: Any, api: str) -> str:
    """`group` if it names the world group (TypeError / ValueError as MindSpore)."""
    if not isinstance(group, str):
        raise TypeError(
            f"For '{api}', the argument 'group' must be type of string, "
            f"but got 'group' type : {type(group)}."
        )
    if group not in WORLD_GROUPS:
        raise ValueError(
            f"For '{api}', the group '{group}' does not exist: mindjit's data-parallel "
            f"replicas form one group, the world group ({', '.join(WORLD_GROUPS)})"
        )
    return group


def get_rank(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """This process's rank in the group (the context's `global_rank`, 0 by default)."""
    check_group(group, "get_rank")
    return config.get_auto_parallel_context("global_rank")


def get_local_rank(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    check_group(group, "get_local_rank")
    return config.get_auto_parallel_context("global_rank")


def get_group_size(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    """N: `device_num` after `init()`, 1 before (MindSpore's stand-alone answer)."""
    check_group(group, "get_group_size")
    return config.device_num() if GlobalComm.INITED else 1


def get_local_rank_size(group: str = GlobalComm.WORLD_COMM_GROUP) -> int:
    check_group(group, "get_local_rank_size")
    return get_group_size(group)


def graph_group_size() -> int:
    """N for a collective being built: the replicas of the graph-mode call being
    traced, 1 in PyNative (one process: every collective is the identity)."""
    return config.data_parallel_replicas() if current_graph() is not None else 1


__all__ = [
    "GlobalComm",
    "HCCL_WORLD_COMM_GROUP",
    "MCCL_WORLD_COMM_GROUP",
    "NCCL_WORLD_COMM_GROUP",
    "get_group_size",
    "get_local_rank",
    "get_local_rank_size",
    "get_rank",
    "init",
    "release",
]
