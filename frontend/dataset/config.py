"""`mindjit.dataset.config`: the pipeline's seed and worker count.

The seed starts at MindSpore's default (5489, `std::mt19937::default_seed`) and
`ms.set_seed` sets it too, as in MindSpore. Unlike MindSpore, an unset seed is
not replaced by a random one: every shuffle is reproducible from run to run,
as the weight initializers are (frontend/nn/init.py).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.dataset.validate import UINT32_MAX, check_value, pos_int32, type_check

DEFAULT_SEED = 5489
_state = {"seed": DEFAULT_SEED, "num_parallel_workers": 8}


def set_seed(seed: Any) -> None:
    """The seed of every shuffle made from now on (an int in [0, 2**32 - 1])."""
    type_check(seed, (int,), "seed")
    check_value(seed, 0, UINT32_MAX, "seed")
    _state["seed"] = int(seed)


def get_seed() -> int:
    return _state["seed"]


def set_num_parallel_workers(num: Any) -> None:
    """Kept for scripts that set it; the pipeline runs in the calling thread."""
    _state["num_parallel_workers"] = pos_int32(num, "num")


def get_num_parallel_workers() -> int:
    return _state["num_parallel_workers"]
