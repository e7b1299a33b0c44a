"""Weight initializers (`'normal'`, `'zeros'`, ... or a Tensor/array/number).

Random initializers draw from one numpy generator with a fixed seed, so a
script builds the same weights on every run (MindSpore's are seeded too);
`set_seed` restarts the sequence.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.tensor import Tensor

DEFAULT_SEED = 0
_rng = np.random.default_rng(DEFAULT_SEED)


def set_seed(seed: int) -> None:
    global _rng
    _rng = np.random.default_rng(seed)


def _fans(shape: tuple[int, ...]) -> tuple[int, int]:
    if len(shape) < 2:
        n = shape[0] if shape else 1
        return n, n
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def initializer(init: Any, shape: tuple[int, ...], dtype: Any = D.float32) -> Tensor:
    """A Tensor of `shape` and `dtype` filled as `init` says."""
    target = D.to_dtype(dtype)
    if isinstance(init, Tensor) or isinstance(init, np.ndarray):
        arr = np.asarray(init.asnumpy() if isinstance(init, Tensor) else init)
        if tuple(arr.shape) != tuple(shape):
            raise ValueError(f"init has shape {tuple(arr.shape)}, expected {tuple(shape)}")
        return Tensor(arr.astype(target.numpy))
    if isinstance(init, bool) or not isinstance(init, str | int | float):
        raise TypeError(f"unsupported initializer {init!r}")
    if not isinstance(init, str):
        return Tensor(np.full(shape, init, dtype=target.numpy))
    name = init.lower().replace("_", "")
    if name in ("zeros", "zero"):
        arr = np.zeros(shape)
    elif name in ("ones", "one"):
        arr = np.ones(shape)
    elif name == "normal":
        arr = _rng.normal(0.0, 0.01, shape)
    elif name == "uniform":
        arr = _rng.uniform(-0.07, 0.07, shape)
    elif name == "heuniform":  # He uniform with a = sqrt(5), MindSpore's Dense default
        fan_in, _ = _fans(tuple(shape))
        bound = math.sqrt(6.0 / ((1 + 5.0) * fan_in))
        arr = _rng.uniform(-bound, bound, shape)
    elif name == "xavieruniform":
        fan_in, fan_out = _fans(tuple(shape))
        bound = math.sqrt(6.0 / (fan_in + fan_out))
        arr = _rng.uniform(-bound, bound, shape)
    else:
        raise ValueError(f"unknown initializer '{init}'")
    return Tensor(np.asarray(arr).astype(target.numpy))
