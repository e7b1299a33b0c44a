"""`ops.group_norm` and the per-instance normalization `nn.InstanceNorm*d` uses,
as compositions of reductions: each (sample, group) normalized by its own mean
and biased variance, then scaled and shifted per channel."""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import cast, reshape
from mindjit.frontend.ops.math import rsqrt
from mindjit.frontend.ops.reduce import reduce_mean
from mindjit.frontend.ops.split import require_tensor


def _channel_view(p: Any, rank: int, dtype: D.DType) -> Any:
    """A (C,) Parameter as (C, 1, ..., 1) in `dtype`, to broadcast over (N, C, *)."""
    if p.dtype != dtype:
        p = cast(p, dtype)
    return reshape(p, (p.shape[0],) + (1,) * (rank - 2))


def normalize_groups(x: Any, groups: int, eps: float) -> Any:
    """(x - mean) / sqrt(var + eps) over each sample's `groups` channel groups."""
    flat = reshape(x, (x.shape[0], groups, -1))
    mean = reduce_mean(flat, 2, True)
    centred = flat - mean
    var = reduce_mean(centred * centred, 2, True)
    return reshape(centred * rsqrt(var + eps), x.shape)


def affine(y: Any, weight: Any, bias: Any) -> Any:
    rank = len(y.shape)
    if weight is not None:
        y = y * _channel_view(weight, rank, y.dtype)
    if bias is not None:
        y = y + _channel_view(bias, rank, y.dtype)
    return y


def group_norm(
    input: Any, num_groups: int, weight: Any = None, bias: Any = None, eps: float = 1e-5
) -> Any:
    """`ops.group_norm(input, num_groups, weight=None, bias=None, eps=1e-5)`: input
    (N, C, *) normalized over groups of C / num_groups channels; weight and bias (C,)."""
    name = "group_norm"
    x = require_tensor(input, name)
    if isinstance(num_groups, bool) or not isinstance(num_groups, int):
        raise TypeError(
            f"For '{name}', the 'num_groups' must be an int, but got {type(num_groups).__name__}."
        )
    if not isinstance(eps, float):
        raise TypeError(f"For '{name}', the 'eps' must be a float, but got {type(eps).__name__}.")
    if not x.dtype.is_float:
        raise TypeError(f"For '{name}', the dtype of 'input' must be float, but got {x.dtype}.")
    if len(x.shape) < 2:
        raise ValueError(
            f"For '{name}', the rank of 'input' must be at least 2, but got shape {x.shape}."
        )
    c = x.shape[1]
    if num_groups < 1:
        raise ValueError(
            f"For '{name}', the 'num_groups' must be at least 1, but got {num_groups}."
        )
    if c % num_groups:
        raise ValueError(
            f"For '{name}', the channel (the second dim of 'input') {c} must be divisible by "
            f"'num_groups' {num_groups}."
        )
    for what, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.shape) != (c,):
            raise ValueError(
                f"For '{name}', the shape of '{what}' must be ({c},), but got {p.shape}."
            )
    return affine(normalize_groups(x, num_groups, float(eps)), weight, bias)


__all__ = ["affine", "group_norm", "normalize_groups"]
