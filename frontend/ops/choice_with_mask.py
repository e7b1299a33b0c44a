"""`ops.choice_with_mask(input_x, count=256, seed=None)`: MindSpore's
RandomChoiceWithMask, `count` coordinates of True elements of a bool tensor
drawn at random without replacement, with a mask of the valid rows.

The result's shape is static ((count, rank) int32 and (count,) bool) although
which rows are valid depends on the values, so it composes static-shape ops and
runs in both modes on computed inputs too: each element gets a uniform key from
the default generator, a False element's key is moved above every True one, the
argsort of the keys puts the True elements first in random order, and the first
`count` are turned into coordinates. Rows past the number of True elements are
zeros with a False mask, as MindSpore's are. MindSpore's own random stream is
not reproduced (its draws are its kernel's); the distribution is the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import array
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.gather_ops import gather
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.random import uniform_real
from mindjit.frontend.ops.random_sampling import _seed
from mindjit.frontend.ops.sort import argsort
from mindjit.frontend.tensor import Tensor


def _check(input_x: Any, count: Any, seed: Any) -> None:
    name = "RandomChoiceWithMask"
    if not is_tensor(input_x):
        raise TypeError(f"For '{name}', the 'input_x' must be a Tensor, but got {type(input_x)}.")
    if input_x.dtype != D.bool_:
        raise TypeError(
            f"For primitive[{name}], the input argument[input_x] must be a type of "
            f"{{Tensor[Bool]}}, but got Tensor[{input_x.dtype}]."
        )
    if not 1 <= input_x.ndim <= 5:
        raise ValueError(
            f"For '{name}', input[0] rank should be between 1 and 5, but got:{input_x.ndim}"
        )
    if isinstance(count, bool) or not isinstance(count, int):
        raise TypeError(
            f"For '{name}', the type of 'count' should be 'int', but got type "
            f"'{type(count).__name__}'."
        )
    if count < 1:
        raise ValueError(
            f"For '{name}', the 'count' must be int and must > 0, but got '{count}' with type 'int'."
        )
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise TypeError(
            f"For 'choice_with_mask', the 'seed' must be int, but got '{type(seed).__name__}'"
        )


def choice_with_mask(input_x: Any, count: int = 256, seed: Any = None) -> tuple[Any, Any]:
    """`ops.choice_with_mask(input_x, count=256, seed=None)`: (index, mask): up to
    `count` coordinates of True elements in random order, int32 (count, rank), and
    which rows are valid, bool (count,)."""
    _check(input_x, count, seed)
    shape = tuple(input_x.shape)
    n, rank = int(np.prod(shape)), len(shape)
    flat = array.reshape(input_x, (n,))
    keys = uniform_real((n,), _seed(seed, "choice_with_mask"))
    keys = fmath.select(flat, keys, keys + 2.0)  # the True elements first
    k = min(count, n)
    order = argsort(keys)
    if k < n:
        order = order[:k]
    order = array.cast(order, D.int32)
    mask = gather(flat, order, 0)
    strides = [int(np.prod(shape[d + 1 :])) for d in range(rank)]
    coords = [
        (order // s) % dim if s > 1 else order % dim for s, dim in zip(strides, shape, strict=True)
    ]
    index = array.stack(coords, 1) * array.expand_dims(array.cast(mask, D.int32), 1)
    if count > k:
        index = array.concat((index, Tensor(np.zeros((count - k, rank), np.int32))), 0)
        mask = array.concat((mask, Tensor(np.zeros((count - k,), np.bool_))), 0)
    return index, mask


__all__ = ["choice_with_mask"]
