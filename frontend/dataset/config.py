"""`mindjit.dataset.config`: the pipeline's seed and worker count.

The seed starts at MindSpore's default (5489, `std::mt19937::default_seed`) and
`ms.set_seed` sets it too, as in MindSpore. Unlike MindSpore, an unset seed is
not replaced by a random one: every shuffle is reproducible from run to run,
as the weight initializers are (frontend/nn/init.py). A random transform
(`vision.RandomCrop` ...) draws from the pipeline's generator inside `map`, and
from `eager_rng()` when called directly; `set_seed` restarts both.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend.dataset.validate import UINT32_MAX, check_value, pos_int32, type_check

DEFAULT_SEED = 5489
_state: dict[str, Any] = {"seed": DEFAULT_SEED, "num_parallel_workers": 8, "eager_rng": None}


def set_seed(seed: Any) -> None:
    """The seed of every shuffle made from now on (an int in [0, 2**32 - 1])."""
    type_check(seed, (int,), "seed")
    check_value(seed, 0, UINT32_MAX, "seed")
    _state["seed"] = int(seed)
    _state["eager_rng"] = None


def eager_rng() -> np.random.Generator:
    """The generator of random transforms called outside a pipeline, seeded from
    the seed and restarted by `set_seed` (a pipeline's iterator has its own)."""
    if _state["eager_rng"] is None:
        _state["eager_rng"] = np.random.default_rng(_state["seed"])
    return _state["eager_rng"]


def get_seed() -> int:
    return _state["seed"]


def set_num_parallel_workers(num: Any) -> None:
    """Kept for scripts that set it; the pipeline runs in the calling thread."""
    _state["num_parallel_workers"] = pos_int32(num, "num")


def get_num_parallel_workers() -> int:
    return _state["num_parallel_workers"]
