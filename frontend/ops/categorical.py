"""`ops.multinomial(input, num_samples, replacement=True, seed=None)`: category
indices drawn from the rows of `input` (weights: non-negative, finite, a nonzero
sum; they need not sum to one), int32, shape (num_samples,) for a 1-D input and
(rows, num_samples) for a 2-D one.

Made of the default generator's uniform draws (ops/random.py), so `ms.set_seed`
gives the same samples in graph mode as in PyNative, and a new sample at every
call:

- with replacement, inverse CDF: u * total (u uniform in [0, 1)) falls in
  category k when cdf[k - 1] <= u * total < cdf[k], so k is the number of
  categories whose cumulative weight is <= u * total; capped at the last
  category of nonzero weight (rounding can push u * total onto the total);
- without replacement, MindSpore's own method: the k largest of log(u) / (w + 1e-6),
  one u per category (Gumbel-top-k in disguise), so indices in a row are distinct
  and num_samples may not exceed the number of categories (ValueError).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.random import _check_seed, uniform_real
from mindjit.frontend.ops.reduce import reduce_sum
from mindjit.frontend.ops.scan import cumsum
from mindjit.frontend.ops.sort import topk
from mindjit.frontend.ops.split import require_tensor


def multinomial(input: Any, num_samples: int, replacement: bool = True, seed: Any = None) -> Any:
    """`ops.multinomial(input, num_samples, replacement=True, seed=None)`."""
    name = "multinomial"
    x = require_tensor(input, name)
    if not x.dtype.is_float:
        raise TypeError(f"For '{name}', 'input' must be a float32 tensor, but got {x.dtype}")
    if len(x.shape) not in (1, 2):
        raise ValueError(
            f"For '{name}', the dimension of inputs must be 1d or 2d, but got {len(x.shape)}."
        )
    if isinstance(num_samples, bool) or not isinstance(num_samples, int):
        raise TypeError(f"For '{name}', 'num_samples' must be an int, but got {num_samples!r}")
    if num_samples <= 0:
        raise ValueError(f"For '{name}', 'num_samples' must be positive, but got {num_samples}")
    if not isinstance(replacement, bool):
        raise TypeError(f"For '{name}', 'replacement' must be a bool, but got {replacement!r}")
    op_seed = 0 if seed is None else _check_seed(seed, "seed", name)
    weights = array.cast(x, D.float32)
    rows = (x.shape[0],) if len(x.shape) == 2 else ()
    n = x.shape[-1]
    if not replacement:
        if num_samples > n:
            raise ValueError(
                f"For '{name}', the 'num_samples' must be less than the last dimension of input "
                f"without 'replacement', but got 'num_samples': {num_samples} and "
                f"'replacement': {replacement}"
            )
        u = uniform_real(rows + (n,), op_seed)
        keys = fmath.div(fmath.log(u), fmath.add(weights, 1e-6))
        return array.cast(topk(keys, num_samples)[1], D.int32)
    cdf = cumsum(weights, -1)
    total = cdf[..., n - 1 : n]  # (..., 1)
    u = uniform_real(rows + (num_samples,), op_seed)
    target = array.expand_dims(fmath.mul(u, total), -1)  # (..., num_samples, 1)
    below = fmath.less_equal(array.expand_dims(cdf, -2), target)  # (..., num_samples, n)
    index = reduce_sum(array.cast(below, D.int32), -1)
    last = reduce_sum(array.cast(fmath.less(cdf, total), D.int32), -1, True)  # last nonzero
    return fmath.minimum(index, last)


__all__ = ["multinomial"]
