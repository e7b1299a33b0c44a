"""The inputs MindSpore 2.10's reference values were printed for (issue 38's tests):
`g(seed, *shape)` is float32 normal from `default_rng(seed)`, generated the same way
in the MindSpore script that printed the values pasted into the tests."""

from __future__ import annotations

import numpy as np


def g(seed: int, *shape: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)
