"""More random ops on the default generator (ops/random.py): `ops.rand_like`,
`ops.randn_like`, `ops.randint_like`, `ops.randperm`, `ops.bernoulli`,
`ops.shuffle`, `ops.laplace`, `ops.standard_laplace`,
`ops.multinomial_with_replacement`.

All are made of `uniform_real` draws, so `ms.set_seed` gives the same numbers in
graph mode as in PyNative and a new sample at every call. Two ops of MindSpore's
are *stateless* in their seed: `randperm(n, seed, offset)` with seed != 0 and
`multinomial_with_replacement(x, seed, offset, ...)` give the same result for the
same (seed, offset) at every call; they draw from a counter-based stream keyed by
(seed, offset) instead of the generator's state. MindSpore's own numbers are
other (its Philox); the distributions, shapes and dtypes are MindSpore's.

- a permutation is the argsort of n uniform draws (randperm, shuffle);
- Laplace: -sign(u) log(1 - 2|u|) for u uniform in [-0.5, 0.5);
- multinomial_with_replacement: categorical.py's inverse CDF (with replacement)
  or top-k of log(u) / w (without).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.dialects import mindir as M
from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.categorical import multinomial
from mindjit.frontend.ops.core import run
from mindjit.frontend.ops.gather_ops import _tensor, gather, known
from mindjit.frontend.ops.nn_functional import softmax
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.random import uniform_real
from mindjit.frontend.ops.random_sampling import _normal, _seed, _shape
from mindjit.frontend.ops.reduce import reduce_sum
from mindjit.frontend.ops.scan import cumsum
from mindjit.frontend.ops.sort import sort, topk
from mindjit.frontend.tensor import Tensor


def keyed_uniform(shape: tuple[int, ...], key: int, offset: int) -> Any:
    """float32 uniform in [0, 1) of `shape`, fixed by (key, offset): the generator's
    hash on constants, so the state is neither read nor advanced."""
    k = Tensor(np.array(np.uint32(key & 0xFFFFFFFF).view(np.int32)))
    o = Tensor(np.array(np.uint32(offset & 0xFFFFFFFF).view(np.int32)))

    def build(e, v):
        return e.value(M.UniformRealOp.get(v[0], v[1], shape, 0, 0))

    return run(("uniform_real", shape, 0, 0), build, k, o)


def _like(input: Any, name: str) -> Any:  # noqa: A002
    return _tensor(input, name, "input")


def rand_like(input: Any, seed: Any = None, *, dtype: Any = None) -> Any:  # noqa: A002
    """`ops.rand_like(input, seed=None, *, dtype=None)`: uniform in [0, 1), input's
    shape, input's dtype by default (a float type)."""
    x = _like(input, "rand_like")
    target = x.dtype if dtype is None else D.to_dtype(dtype)
    if not target.is_float:
        raise ValueError(f"For 'rand_like', the 'dtype' must be a float type, but got {target}.")
    return array.cast(uniform_real(tuple(x.shape), _seed(seed, "rand_like")), target)


def randn_like(input: Any, seed: Any = None, *, dtype: Any = None) -> Any:  # noqa: A002
    """`ops.randn_like(input, seed=None, *, dtype=None)`: standard normal of input's
    shape; float32 by default (MindSpore's, whatever input's dtype)."""
    x = _like(input, "randn_like")
    target = D.float32 if dtype is None else D.to_dtype(dtype)
    if not target.is_float:
        raise ValueError(f"For 'randn_like', the 'dtype' must be a float type, but got {target}.")
    return array.cast(_normal(tuple(x.shape), _seed(seed, "randn_like")), target)


def randint_like(input: Any, low: int, high: int, seed: Any = None, *, dtype: Any = None) -> Any:  # noqa: A002
    """`ops.randint_like(input, low, high, seed=None, *, dtype=None)`: integers in [low,
    high) of input's shape; input's dtype by default (an int type)."""
    name = "randint_like"
    x = _like(input, name)
    target = x.dtype if dtype is None else D.to_dtype(dtype)
    if target.is_float or target.is_bool:
        raise ValueError(f"For '{name}', the 'dtype' must be an int type, but got {target}.")
    for what, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"For '{name}', the '{what}' must be an int, but got {v!r}")
    if high <= low:
        raise ValueError(f"For '{name}', 'low' must be less than 'high', got {low} and {high}")
    u = uniform_real(tuple(x.shape), _seed(seed, name))
    return array.cast(fmath.floor(fmath.add(fmath.mul(u, float(high - low)), float(low))), target)


def _permutation(n: int, u: Any) -> Any:
    """The int32 argsort of n draws: a uniformly random permutation of 0 .. n-1."""
    return sort(u)[1] if n > 1 else Tensor(np.zeros((n,), np.int32))


def randperm(n: Any, seed: int = 0, offset: int = 0, dtype: Any = D.int64) -> Any:
    """`ops.randperm(n, seed=0, offset=0, dtype=mstype.int64)`: a random permutation
    of 0 .. n-1; with seed != 0 the same (seed, offset) gives the same permutation."""
    name = "RandpermV2"
    if is_tensor(n):
        value = known(n)
        if value is None:
            raise ValueError(f"For '{name}', 'n' must be a constant in GRAPH_MODE")
        n = int(value.reshape(-1)[0])
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"For '{name}', the input 'n' must be an int, but got {n!r}")
    if n <= 0:
        raise ValueError(f"For '{name}', the input 'n' must be greater than 0, but got data: {n}.")
    for what, v in (("seed", seed), ("offset", offset)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"For '{name}', '{what}' must be an int, but got {v!r}")
    if offset < 0:
        raise ValueError(f"For '{name}', 'offset' must be >= 0, but got {offset}")
    target = D.to_dtype(dtype)
    if target.is_bool:
        raise TypeError(f"For '{name}', 'dtype' must be a number type, but got {target}")
    if not target.is_float and n - 1 > np.iinfo(target.numpy).max:
        raise ValueError(
            f"For '{name}', the value of 'n' is {n}, it's too lagrge for input 'dtype'. "
        )
    u = uniform_real((n,)) if seed == 0 else keyed_uniform((n,), seed, offset)
    return array.cast(_permutation(n, u), target)


def shuffle(x: Any, seed: Any = None) -> Any:
    """`ops.shuffle(x, seed=None)`: x's slices along axis 0 in a random order."""
    t = _tensor(x, "shuffle", "x")
    if not t.shape or t.shape[0] <= 1:
        return t
    n = t.shape[0]
    order = _permutation(n, uniform_real((n,), _seed(seed, "shuffle")))
    return gather(t, order, 0)


def bernoulli(input: Any, p: Any = 0.5, seed: Any = None) -> Any:  # noqa: A002
    """`ops.bernoulli(input, p=0.5, seed=None)`: 1 with probability p, else 0, in
    input's shape and dtype; p a float or a Tensor of input's shape (or one element)."""
    name = "bernoulli"
    x = _tensor(input, name, "input")
    if is_tensor(p):
        if tuple(p.shape) != tuple(x.shape) and p.size != 1:
            raise ValueError(
                "For 'Bernoulli', 'x' and 'p' should have same shape or 'p' have a size of 1."
            )
        values = known(p)
        if values is not None and ((values < 0) | (values > 1)).any():
            raise ValueError(f"For bernoulli, p should be in [0, 1], but got {values}.")
        prob = array.cast(p if p.shape == x.shape else array.reshape(p, ()), D.float32)
    else:
        if isinstance(p, bool) or not isinstance(p, int | float):
            raise TypeError(f"For '{name}', 'p' must be a float or a Tensor, but got {p!r}")
        if not 0 <= p <= 1:
            raise ValueError(f"For bernoulli, p should be in [0, 1], but got {p}.")
        prob = float(p)
    u = uniform_real(tuple(x.shape), _seed(seed, name))
    return array.cast(fmath.less(u, prob), x.dtype)


def _laplace(shape: tuple[int, ...], seed: int) -> Any:
    u = fmath.sub(uniform_real(shape, seed), 0.5)
    magnitude = fmath.log(fmath.sub(1.0, fmath.mul(fmath.abs(u), 2.0)))
    return fmath.select(fmath.greater_equal(u, 0.0), fmath.neg(magnitude), magnitude)


def _shape_arg(shape: Any, name: str) -> tuple[int, ...]:
    if is_tensor(shape) and known(shape) is None:
        raise ValueError(f"For '{name}', 'shape' must be a constant in GRAPH_MODE")
    return _shape(shape, "shape", name)


def standard_laplace(shape: Any, seed: Any = None) -> Any:
    """`ops.standard_laplace(shape, seed=None)`: float32 Laplace(0, 1) samples."""
    return _laplace(_shape_arg(shape, "standard_laplace"), _seed(seed, "standard_laplace"))


def laplace(shape: Any, mean: Any, lambda_param: Any, seed: Any = None) -> Any:
    """`ops.laplace(shape, mean, lambda_param, seed=None)`: mean + lambda_param *
    Laplace(0, 1), of `shape` broadcast with mean's and lambda_param's; float32."""
    name = "laplace"
    dims = _shape_arg(shape, name)
    for what, v in (("mean", mean), ("lambda_param", lambda_param)):
        if not is_tensor(v):
            raise TypeError(f"For '{name}', '{what}' must be a Tensor, but got {v!r}")
    out_shape = tuple(np.broadcast_shapes(dims, tuple(mean.shape), tuple(lambda_param.shape)))
    z = _laplace(out_shape, _seed(seed, name))
    out = fmath.add(fmath.mul(z, array.cast(lambda_param, D.float32)), array.cast(mean, D.float32))
    return out if tuple(out.shape) == out_shape else array.broadcast_to(out, out_shape)


def _int_arg(v: Any, name: str, what: str) -> int:
    if is_tensor(v):
        value = known(v)
        if value is None:
            raise ValueError(f"For '{name}', '{what}' must be a constant in GRAPH_MODE")
        v = value.reshape(-1)[0].item()
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"For '{name}', '{what}' must be an int, but got {v!r}")
    return v


def multinomial_with_replacement(
    x: Any, seed: Any, offset: Any, numsamples: int, replacement: bool = False
) -> Any:
    """`ops.multinomial_with_replacement(x, seed, offset, numsamples, replacement=False)`:
    int64 category indices drawn from the rows of the 1-D or 2-D `x` (weights), the
    same for the same (seed, offset)."""
    name = "MultinomialWithReplacement"
    probs = _tensor(x, name, "x")
    if not probs.dtype.is_float:
        raise TypeError(f"For '{name}', 'x' must be a float tensor, but got {probs.dtype}")
    if len(probs.shape) not in (1, 2):
        raise ValueError(f"For '{name}', 'x' must be 1-D or 2-D, but got {len(probs.shape)}-D")
    s, o = _int_arg(seed, name, "seed"), _int_arg(offset, name, "offset")
    k = _int_arg(numsamples, name, "numsamples")
    if k <= 0:
        raise ValueError(f"For '{name}', 'numsamples' must be positive, but got {k}")
    if not isinstance(replacement, bool):
        raise TypeError(f"For '{name}', 'replacement' must be a bool, but got {replacement!r}")
    rows = (probs.shape[0],) if len(probs.shape) == 2 else ()
    n = probs.shape[-1]
    w = array.cast(probs, D.float32)
    if not replacement:
        if k > n:
            raise ValueError(
                f"For '{name}', 'numsamples' ({k}) must not exceed the number of categories "
                f"({n}) without replacement"
            )
        u = keyed_uniform(rows + (n,), s, o)
        keys = fmath.div(fmath.log(u), fmath.add(w, 1e-6))
        return array.cast(topk(keys, k)[1], D.int64)
    cdf = cumsum(w, -1)
    total = cdf[..., n - 1 : n]
    u = keyed_uniform(rows + (k,), s, o)
    target = array.expand_dims(fmath.mul(u, total), -1)
    below = fmath.less_equal(array.expand_dims(cdf, -2), target)
    index = reduce_sum(array.cast(below, D.int32), -1)
    last = reduce_sum(array.cast(fmath.less(cdf, total), D.int32), -1, True)
    return array.cast(fmath.minimum(index, last), D.int64)


def random_categorical(logits: Any, num_sample: int, seed: int = 0, dtype: Any = D.int64) -> Any:
    """`ops.random_categorical(logits, num_sample, seed=0, dtype=mstype.int64)`: for
    each row of the 2-D `logits`, num_sample category indices drawn with
    probabilities softmax(row)."""
    name = "RandomCategorical"
    x = _tensor(logits, name, "logits")
    if not x.dtype.is_float or len(x.shape) != 2:
        raise ValueError(
            f"For '{name}', 'logits' must be a 2-D float Tensor, got {x.dtype} {x.shape}"
        )
    if isinstance(num_sample, bool) or not isinstance(num_sample, int) or num_sample <= 0:
        raise ValueError(f"For '{name}', 'num_sample' must be a positive int, got {num_sample!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"For '{name}', 'seed' must be an int, got {seed!r}")
    target = D.to_dtype(dtype)
    if target not in (D.int16, D.int32, D.int64):
        raise TypeError(f"For '{name}', 'dtype' must be int16, int32 or int64, got {target}")
    probs = softmax(array.cast(x, D.float32), -1)
    return array.cast(multinomial(probs, num_sample, True, seed or None), target)


__all__ = [
    "bernoulli",
    "random_categorical",
    "laplace",
    "multinomial_with_replacement",
    "rand_like",
    "randint_like",
    "randn_like",
    "randperm",
    "shuffle",
    "standard_laplace",
]
