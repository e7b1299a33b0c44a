"""Random tensors on the default generator (frontend/ops/random.py): `ops.rand`,
`ops.randn`, `ops.randint`, `ops.uniform`, `ops.normal`, `ops.standard_normal`,
and the primitives `ops.StandardNormal`, `ops.UniformReal`.

Every one is made of `uniform_real` draws (each advances the generator's offset
by one, an ordinary Assign), so `ms.set_seed` gives the same numbers in graph
mode as in PyNative, and a new sample at every call, exactly as dropout does.
Normal samples are Box-Muller of two uniform draws u1, u2 in [0, 1):
sqrt(-2 log(1 - u1)) * cos(2 pi u2) (1 - u1 is in (0, 1], so the log is finite).
Integers are floor(low + u * (high - low)), which stays below `high`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import broadcast_to, cast
from mindjit.frontend.ops.math import add, cos, floor, log, mul, sqrt, sub
from mindjit.frontend.ops.primitives import Primitive
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.random import _check_seed, uniform_real


def _shape(value: Any, what: str, name: str) -> tuple[int, ...]:
    if is_tensor(value) and hasattr(value, "asnumpy"):
        value = tuple(int(v) for v in value.asnumpy().reshape(-1))
    if isinstance(value, list):
        value = tuple(value)
    if not isinstance(value, tuple) or not all(
        isinstance(d, int | np.integer) and not isinstance(d, bool) for d in value
    ):
        raise TypeError(f"For '{name}', the '{what}' must be a tuple of ints, but got {value!r}")
    if any(d < 0 for d in value):
        raise ValueError(f"For '{name}', the '{what}' must not be negative, but got {value}")
    return tuple(int(d) for d in value)


def _size(size: tuple[Any, ...], name: str) -> tuple[int, ...]:
    """`f(2, 3)`, `f((2, 3))` and `f([2, 3])` alike."""
    if len(size) == 1 and isinstance(size[0], tuple | list):
        size = tuple(size[0])
    return _shape(tuple(size), "size", name)


def _seed(seed: Any, name: str) -> int:
    return 0 if seed is None else _check_seed(seed, "seed", name)


def _float_dtype(dtype: Any, name: str) -> D.DType:
    target = D.float32 if dtype is None else D.to_dtype(dtype)
    if not target.is_float:
        raise TypeError(f"For '{name}', the 'dtype' must be a float type, but got {target}")
    return target


def _normal(shape: tuple[int, ...], seed: int, seed2: int = 0) -> Any:
    """float32 standard normal samples of `shape` (Box-Muller of two draws)."""
    u1 = uniform_real(shape, seed, seed2)
    u2 = uniform_real(shape, seed, seed2)
    radius = sqrt(mul(log(sub(1.0, u1)), -2.0))
    return mul(radius, cos(mul(u2, 2.0 * math.pi)))


def rand(*size: Any, dtype: Any = None, seed: Any = None) -> Any:
    """`ops.rand(*size, dtype=None, seed=None)`: uniform in [0, 1), float32 by default."""
    target = _float_dtype(dtype, "rand")
    return cast(uniform_real(_size(size, "rand"), _seed(seed, "rand")), target)


def randn(*size: Any, dtype: Any = None, seed: Any = None) -> Any:
    """`ops.randn(*size, dtype=None, seed=None)`: standard normal, float32 by default."""
    target = _float_dtype(dtype, "randn")
    return cast(_normal(_size(size, "randn"), _seed(seed, "randn")), target)


def standard_normal(shape: Any, seed: Any = None) -> Any:
    """`ops.standard_normal(shape, seed=None)`: float32 standard normal samples."""
    return _normal(_shape(shape, "shape", "standard_normal"), _seed(seed, "standard_normal"))


def randint(low: Any, high: Any, size: Any, seed: Any = None, *, dtype: Any = None) -> Any:
    """`ops.randint(low, high, size, seed=None, *, dtype=None)`: integers in [low, high),
    int64 by default."""
    name = "randint"
    for what, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer):
            raise TypeError(f"For '{name}', the '{what}' must be an int, but got {v!r}")
    if not isinstance(size, tuple):
        raise TypeError(f"For '{name}', the 'size' must be a tuple, but got {size!r}")
    if high <= low:
        raise ValueError(f"For '{name}', 'low' must be less than 'high', got {low} and {high}")
    target = D.int64 if dtype is None else D.to_dtype(dtype)
    if target.is_float or target.is_bool:
        raise ValueError(f"For '{name}', the 'dtype' must be an int type, but got {target}")
    u = uniform_real(_shape(size, "size", name), _seed(seed, name))
    return cast(floor(add(mul(u, float(high - low)), float(low))), target)


def uniform(shape: Any, minval: Any, maxval: Any, seed: Any = None, dtype: Any = D.float32) -> Any:
    """`ops.uniform(shape, minval, maxval, seed=None, dtype=mstype.float32)`: uniform in
    [minval, maxval); int32 gives integers (minval, maxval scalars); the result's
    shape is `shape` broadcast with minval's and maxval's."""
    name = "uniform"
    dims = _shape(shape, "shape", name)
    target = D.to_dtype(dtype)
    if target not in (D.int32, D.float32):
        raise TypeError(f"For '{name}', the 'dtype' must be int32 or float32, but got {target}")
    for what, v in (("minval", minval), ("maxval", maxval)):
        if not is_tensor(v):
            raise TypeError(f"For '{name}', the '{what}' must be a Tensor, but got {v!r}")
        if v.dtype not in (D.int32, D.float32):
            raise TypeError(
                f"For '{name}', the dtype of '{what}' must be int32 or float32, but got {v.dtype}"
            )
    if minval.dtype != maxval.dtype:
        raise TypeError(
            f"For '{name}', 'minval' and 'maxval' must have the same dtype, but got "
            f"{minval.dtype} and {maxval.dtype}"
        )
    out_shape = tuple(np.broadcast_shapes(dims, tuple(minval.shape), tuple(maxval.shape)))
    lo, hi = cast(minval, D.float32), cast(maxval, D.float32)
    u = uniform_real(out_shape, _seed(seed, name))
    value = add(mul(u, sub(hi, lo)), lo)
    if target == D.int32:
        return cast(floor(value), D.int32)
    return value


def normal(shape: Any, mean: Any, stddev: Any, seed: Any = None) -> Any:
    """`ops.normal(shape, mean, stddev, seed=None)`: mean + stddev * N(0, 1), of `shape`
    broadcast with mean's and stddev's shapes; float32."""
    name = "normal"
    dims = _shape(shape, "shape", name)
    shapes = [tuple(v.shape) for v in (mean, stddev) if is_tensor(v)]
    out_shape = tuple(np.broadcast_shapes(dims, *shapes))
    m = cast(mean, D.float32) if is_tensor(mean) else float(mean)
    s = cast(stddev, D.float32) if is_tensor(stddev) else float(stddev)
    z = _normal(out_shape, _seed(seed, name))
    out = add(mul(z, s), m)
    if tuple(out.shape) != out_shape:
        out = broadcast_to(out, out_shape)
    return out


class _SeededSampler(Primitive):
    def __init__(self, seed: int = 0, seed2: int = 0):
        super().__init__()
        self.seed = _check_seed(seed, "seed", self.name)
        self.seed2 = _check_seed(seed2, "seed2", self.name)


class StandardNormal(_SeededSampler):
    """`StandardNormal(seed=0, seed2=0)(shape)`: float32 samples of N(0, 1)."""

    def __call__(self, shape: Any) -> Any:
        return _normal(_shape(shape, "shape", "StandardNormal"), self.seed, self.seed2)


class UniformReal(_SeededSampler):
    """`UniformReal(seed=0, seed2=0)(shape)`: float32 samples of U[0, 1)."""

    def __call__(self, shape: Any) -> Any:
        return uniform_real(_shape(shape, "shape", "UniformReal"), self.seed, self.seed2)


__all__ = [
    "StandardNormal",
    "UniformReal",
    "normal",
    "rand",
    "randint",
    "randn",
    "standard_normal",
    "uniform",
]
