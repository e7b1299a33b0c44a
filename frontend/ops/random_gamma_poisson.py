"""Gamma and Poisson samples on the default generator (ops/random.py):
`ops.random_gamma`, `ops.gamma`, `ops.random_poisson`, `ops.poisson`.

Both distributions are sampled by rejection, which loops until acceptance. A
compiled graph has static shapes and no data-dependent loop here, so every
element runs a fixed number of rounds (`ROUNDS`) and keeps its first accepted
candidate; the chance that all rounds reject is below 1e-12 per element (each
round accepts with probability > 0.9), and then the last candidate is kept.

- Gamma(alpha): Marsaglia and Tsang's method with d = alpha - 1/3 (alpha >= 1),
  and Gamma(alpha + 1) * u^(1/alpha) for alpha < 1; `gamma` divides by beta (a
  rate).
- Poisson(rate): for rate < 10 the inverse CDF over the first 64 terms (the tail
  beyond is < 1e-20); for rate >= 10 Hoermann's PTRS rejection. Both are
  computed and selected per element, since the rates are values.

Uniform and normal draws come from `uniform_real`, so `ms.set_seed` gives the
same samples in graph mode as in PyNative, and new ones at every call.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.gather_ops import known
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.random import uniform_real
from mindjit.frontend.ops.random_sampling import _normal, _seed, _shape
from mindjit.frontend.ops.reduce import reduce_sum
from mindjit.frontend.ops.scan import cumsum
from mindjit.frontend.ops.special import lgamma
from mindjit.frontend.tensor import Tensor

ROUNDS = 12
_TERMS = 64


def _first_accepted(candidates: list[tuple[Any, Any]]) -> Any:
    """The first candidate whose flag is True (the last one if none is)."""
    value = candidates[-1][0]
    for cand, ok in reversed(candidates[:-1]):
        value = fmath.select(ok, cand, value)
    return value


def sample_gamma(alpha: Any, shape: tuple[int, ...], seed: int) -> Any:
    """float32 Gamma(alpha, 1) samples of `shape` (alpha float32, broadcast to it)."""
    a = array.broadcast_to(alpha, shape) if tuple(alpha.shape) != shape else alpha
    small = fmath.less(a, 1.0)
    boosted = fmath.select(small, fmath.add(a, 1.0), a)
    d = fmath.sub(boosted, 1.0 / 3.0)
    c = fmath.div(1.0, fmath.sqrt(fmath.mul(d, 9.0)))
    candidates = []
    for _ in range(ROUNDS):
        x = _normal(shape, seed)
        u = uniform_real(shape, seed)
        v = fmath.add(fmath.mul(c, x), 1.0)
        v = fmath.mul(fmath.mul(v, v), v)
        positive = fmath.greater(v, 0.0)
        safe_v = fmath.select(positive, v, 1.0)
        bound = fmath.add(
            fmath.mul(fmath.mul(x, x), 0.5),
            fmath.mul(d, fmath.add(fmath.sub(1.0, safe_v), fmath.log(safe_v))),
        )
        ok = fmath.logical_and(positive, fmath.less(fmath.log(fmath.sub(1.0, u)), bound))
        candidates.append((fmath.mul(d, safe_v), ok))
    g = _first_accepted(candidates)
    u = fmath.sub(1.0, uniform_real(shape, seed))  # (0, 1]
    shrink = fmath.exp(fmath.div(fmath.log(u), fmath.select(small, a, 1.0)))
    return fmath.select(small, fmath.mul(g, shrink), g)


def _poisson_small(lam: Any, shape: tuple[int, ...], seed: int) -> Any:
    """Inverse CDF over k = 0 .. 63 (for rates below 10)."""
    k = np.arange(_TERMS, dtype=np.float32)
    lam_k = array.expand_dims(lam, -1)
    logp = fmath.sub(
        fmath.sub(fmath.mul(Tensor(k), fmath.log(lam_k)), lam_k),
        Tensor(np.array([math.lgamma(i + 1) for i in range(_TERMS)], np.float32)),
    )
    cdf = cumsum(fmath.exp(logp), -1)
    u = array.expand_dims(uniform_real(shape, seed), -1)
    return array.cast(reduce_sum(array.cast(fmath.less_equal(cdf, u), D.int32), -1), D.float32)


def _poisson_ptrs(lam: Any, shape: tuple[int, ...], seed: int) -> Any:
    """Hoermann's transformed rejection (PTRS), for rates of 10 and more."""
    slam = fmath.sqrt(lam)
    loglam = fmath.log(lam)
    b = fmath.add(fmath.mul(slam, 2.53), 0.931)
    a = fmath.add(fmath.mul(b, 0.02483), -0.059)
    inv_alpha = fmath.add(fmath.div(1.1328, fmath.sub(b, 3.4)), 1.1239)
    vr = fmath.sub(0.9277, fmath.div(3.6224, fmath.sub(b, 2.0)))
    candidates = []
    for _ in range(ROUNDS):
        uu = fmath.sub(uniform_real(shape, seed), 0.5)
        v = fmath.sub(1.0, uniform_real(shape, seed))  # (0, 1]
        us = fmath.maximum(fmath.sub(0.5, fmath.abs(uu)), 1e-7)
        k = fmath.floor(
            fmath.add(
                fmath.mul(fmath.add(fmath.div(fmath.mul(a, 2.0), us), b), uu), fmath.add(lam, 0.43)
            )
        )
        quick = fmath.logical_and(fmath.greater_equal(us, 0.07), fmath.less_equal(v, vr))
        bad = fmath.logical_or(
            fmath.less(k, 0.0), fmath.logical_and(fmath.less(us, 0.013), fmath.greater(v, us))
        )
        lhs = fmath.add(
            fmath.log(v),
            fmath.sub(
                fmath.log(inv_alpha), fmath.log(fmath.add(fmath.div(a, fmath.mul(us, us)), b))
            ),
        )
        rhs = fmath.sub(
            fmath.sub(fmath.mul(k, loglam), lam), lgamma(fmath.add(fmath.maximum(k, 0.0), 1.0))
        )
        ok = fmath.logical_or(
            quick, fmath.logical_and(fmath.logical_not(bad), fmath.less_equal(lhs, rhs))
        )
        candidates.append((fmath.maximum(k, 0.0), ok))
    return _first_accepted(candidates)


def sample_poisson(rate: Any, shape: tuple[int, ...], seed: int) -> Any:
    """float32 Poisson(rate) samples of `shape` (rate broadcast to it)."""
    lam = array.cast(rate, D.float32)
    lam = array.broadcast_to(lam, shape) if tuple(lam.shape) != shape else lam
    large = fmath.greater_equal(lam, 10.0)
    small_rate = fmath.select(large, 1.0, fmath.maximum(lam, 1e-30))
    large_rate = fmath.select(large, lam, 10.0)
    return fmath.select(
        large, _poisson_ptrs(large_rate, shape, seed), _poisson_small(small_rate, shape, seed)
    )


def _shape_tensor(shape: Any, name: str) -> tuple[int, ...]:
    if not is_tensor(shape):
        raise TypeError(f"For {name}, input[0] only support tensor!")
    if shape.dtype not in (D.int32, D.int64):
        raise TypeError(f"For {name}, 'shape' must be an int32 or int64 Tensor, got {shape.dtype}")
    values = known(shape)
    if values is None:
        raise ValueError(f"For {name}, 'shape' must be a constant in GRAPH_MODE")
    return _shape(tuple(int(v) for v in values.reshape(-1)), "shape", name)


def _param(value: Any, name: str, what: str, dtypes: tuple[D.DType, ...]) -> Any:
    if not is_tensor(value) or value.dtype not in dtypes:
        got = getattr(value, "dtype", type(value).__name__)
        raise TypeError(f"For '{name}', '{what}' must be a Tensor of {dtypes}, but got {got}")
    return value


def random_gamma(shape: Any, alpha: Any, seed: Any = None) -> Any:
    """`ops.random_gamma(shape, alpha, seed=None)`: Gamma(alpha, 1) samples, shape
    shape + alpha.shape, alpha's dtype."""
    name = "RandomGamma"
    dims = _shape_tensor(shape, name)
    a = _param(alpha, name, "alpha", (D.float16, D.float32, D.float64))
    out = dims + tuple(a.shape)
    g = sample_gamma(array.cast(a, D.float32), out, _seed(seed, name))
    return array.cast(g, a.dtype)


def gamma(shape: Any, alpha: Any, beta: Any, seed: Any = None) -> Any:
    """`ops.gamma(shape, alpha, beta, seed=None)`: Gamma(alpha) / beta (beta a rate),
    shape `shape` broadcast with alpha's and beta's; float32."""
    name = "gamma"
    if not isinstance(shape, tuple):
        raise TypeError(f"For '{name}', 'shape' must be a tuple, but got {shape!r}")
    dims = _shape(shape, "shape", name)
    a = _param(alpha, name, "alpha", (D.float32,))
    b = _param(beta, name, "beta", (D.float32,))
    try:
        out = tuple(np.broadcast_shapes(dims, tuple(np.broadcast_shapes(a.shape, b.shape))))
    except ValueError:
        raise ValueError(
            f"For 'Gamma', broadcast_alpha_beta.shape and shape.shape need to broadcast, got "
            f"{tuple(np.broadcast_shapes(a.shape, b.shape))} and {dims}"
        ) from None
    return fmath.div(sample_gamma(a, out, _seed(seed, name)), b)


def random_poisson(shape: Any, rate: Any, seed: Any = None, dtype: Any = D.float32) -> Any:
    """`ops.random_poisson(shape, rate, seed=None, dtype=mstype.float32)`: Poisson(rate)
    counts, shape shape + rate.shape, in `dtype`."""
    name = "RandomPoisson"
    dims = _shape_tensor(shape, name)
    r = _param(rate, name, "rate", (D.float16, D.float32, D.float64, D.int32, D.int64))
    target = D.to_dtype(dtype)
    if target not in (D.float16, D.float32, D.float64, D.int32, D.int64):
        raise TypeError(f"For '{name}', 'dtype' must be a float or int32/int64, got {target}")
    out = dims + tuple(r.shape)
    return array.cast(sample_poisson(r, out, _seed(seed, name)), target)


def poisson(shape: Any, mean: Any, seed: Any = None) -> Any:
    """`ops.poisson(shape, mean, seed=None)`: Poisson(mean) counts as float32, shape
    `shape` broadcast with mean's."""
    name = "poisson"
    if not isinstance(shape, tuple):
        raise TypeError(f"For '{name}', 'shape' must be a tuple, but got {shape!r}")
    dims = _shape(shape, "shape", name)
    m = _param(mean, name, "mean", (D.float32,))
    out = tuple(np.broadcast_shapes(dims, tuple(m.shape)))
    return sample_poisson(m, out, _seed(seed, name))


__all__ = ["gamma", "poisson", "random_gamma", "random_poisson"]
