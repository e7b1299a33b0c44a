"""Weight initializers (`'normal'`, `'zeros'`, ... or a Tensor/array/number).

Random initializers draw from one numpy generator with a fixed seed, so a
script builds the same weights on every run (MindSpore's are seeded too);
`set_seed` restarts the sequence.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.dataset import config as dataset_config
from mindjit.frontend.ops.random import reset_generator
from mindjit.frontend.tensor import Tensor

DEFAULT_SEED = 0
_rng = np.random.default_rng(DEFAULT_SEED)
_seed: int | None = None  # what set_seed was given (get_seed), None until then


def set_seed(seed: int) -> None:
    """`ms.set_seed(seed)`: the initializers' generator and the random ops'
    default generator (ops.dropout, nn.Dropout) restart from `seed`, and the
    dataset pipeline's shuffles use it (`mindjit.dataset.config.set_seed`)."""
    global _rng, _seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"The argument 'seed' must be type of int, but got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"The argument 'seed' must be greater than or equal to 0, but got {seed}")
    dataset_config.set_seed(int(seed))
    _rng = np.random.default_rng(int(seed))
    reset_generator(int(seed))
    _seed = int(seed)


def get_seed() -> int | None:
    """`ms.get_seed()`: the seed `set_seed` was given last, None if it was not called."""
    return _seed


def _fans(shape: tuple[int, ...]) -> tuple[int, int]:
    if len(shape) < 2:
        n = shape[0] if shape else 1
        return n, n
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


class Initializer:
    """MindSpore's `mindspore.common.initializer` classes: `fill(shape)` draws the
    values (from the seeded generator)."""

    def fill(self, shape: tuple[int, ...]) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


class Normal(Initializer):
    def __init__(self, sigma: float = 0.01, mean: float = 0.0):
        self.sigma, self.mean = float(sigma), float(mean)

    def fill(self, shape):
        return _rng.normal(self.mean, self.sigma, shape)


class Uniform(Initializer):
    def __init__(self, scale: float = 0.07):
        self.scale = float(scale)

    def fill(self, shape):
        return _rng.uniform(-self.scale, self.scale, shape)


class TruncatedNormal(Initializer):
    """N(mean, sigma) cut to [a, b] (redrawn outside it)."""

    def __init__(self, sigma: float = 0.01, mean: float = 0.0, a: float = -2.0, b: float = 2.0):
        self.sigma, self.mean, self.a, self.b = float(sigma), float(mean), float(a), float(b)

    def fill(self, shape):
        out = _rng.normal(self.mean, self.sigma, shape)
        bad = (out < self.a) | (out > self.b)
        while bad.any():
            out[bad] = _rng.normal(self.mean, self.sigma, int(bad.sum()))
            bad = (out < self.a) | (out > self.b)
        return out


def _gain(nonlinearity: str, negative_slope: float) -> float:
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "tanh":
        return 5.0 / 3
    return 1.0


def _fan(shape, mode: str) -> int:
    fan_in, fan_out = _fans(tuple(shape))
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    return fan_in if mode == "fan_in" else fan_out


class HeUniform(Initializer):
    def __init__(
        self, negative_slope: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu"
    ):
        self.negative_slope, self.mode, self.nonlinearity = (
            float(negative_slope),
            mode,
            nonlinearity,
        )

    def fill(self, shape):
        std = _gain(self.nonlinearity, self.negative_slope) / math.sqrt(_fan(shape, self.mode))
        bound = math.sqrt(3.0) * std
        return _rng.uniform(-bound, bound, shape)


class HeNormal(HeUniform):
    def fill(self, shape):
        std = _gain(self.nonlinearity, self.negative_slope) / math.sqrt(_fan(shape, self.mode))
        return _rng.normal(0.0, std, shape)


class XavierUniform(Initializer):
    def __init__(self, gain: float = 1.0):
        self.gain = float(gain)

    def fill(self, shape):
        fan_in, fan_out = _fans(tuple(shape))
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        return _rng.uniform(-bound, bound, shape)


class XavierNormal(XavierUniform):
    def fill(self, shape):
        fan_in, fan_out = _fans(tuple(shape))
        return _rng.normal(0.0, self.gain * math.sqrt(2.0 / (fan_in + fan_out)), shape)


class Constant(Initializer):
    def __init__(self, value: float):
        self.value = value

    def fill(self, shape):
        return np.full(shape, self.value)


class Zero(Constant):
    def __init__(self):
        super().__init__(0.0)


class One(Constant):
    def __init__(self):
        super().__init__(1.0)


def initializer(init: Any, shape: tuple[int, ...], dtype: Any = D.float32) -> Tensor:
    """A Tensor of `shape` and `dtype` filled as `init` says (a name, an
    `Initializer`, a Tensor, an array or a number)."""
    target = D.to_dtype(dtype)
    if isinstance(init, Initializer):
        return Tensor(np.asarray(init.fill(tuple(shape))).astype(target.numpy))
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
    elif name in _BY_NAME:
        arr = _BY_NAME[name]().fill(tuple(shape))
    else:
        raise ValueError(f"unknown initializer '{init}'")
    return Tensor(np.asarray(arr).astype(target.numpy))


#: initializer names (`weight_init='he_uniform'`), lower case without '_'.
#: 'heuniform' is He uniform with a = sqrt(5), MindSpore's Dense/Conv default.
_BY_NAME: dict[str, Any] = {
    "normal": Normal,
    "uniform": Uniform,
    "truncatednormal": TruncatedNormal,
    "heuniform": lambda: HeUniform(math.sqrt(5)),
    "henormal": HeNormal,
    "xavieruniform": XavierUniform,
    "xaviernormal": XavierNormal,
}
