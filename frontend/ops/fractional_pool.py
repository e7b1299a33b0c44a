"""Fractional max pooling (`ops.fractional_max_pool2d` / `3d`, `nn.FractionalMaxPool2d`
/ `3d`), Graham's pseudo-random windows as MindSpore's (and PyTorch's) CPU kernels
draw them.

Per (sample, channel) and spatial axis, a number u in [0, 1) (`_random_samples`,
(N, C, 2) with u[0] for W and u[1] for H; (N, C, 3) with u[0] for D, u[1] for H,
u[2] for W, as MindSpore's kernels read them; drawn uniformly by the default
generator when not given, as MindSpore draws them with ops.rand) places the windows: with alpha = (in - k) / (out - 1), window i starts
at floor((i + u) alpha) - floor(u alpha), the last at in - k. Each output is
the maximum of the k-window there; its index (int64, flat into the spatial
elements) is the first maximum in row-major order.

The starts are run-time values (u is a tensor), so each kernel tap is a
gather_elements over the flattened spatial axes and the maximum a select
chain: graph mode works and the gradient goes to the chosen element.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import (
    broadcast_to,
    cast,
    concat,
    expand_dims,
    reshape,
    squeeze,
)
from mindjit.frontend.ops.gather_ops import gather_elements
from mindjit.frontend.ops.indexing import getitem
from mindjit.frontend.ops.math import add, floor, greater, mul, select, sub
from mindjit.frontend.ops.promotion import constant, is_tensor
from mindjit.frontend.ops.random import uniform_real


def _sizes(value: Any, dims: int, name: str, what: str) -> tuple[int, ...]:
    values = (value,) * dims if isinstance(value, int) else value
    if (
        not isinstance(values, tuple | list)
        or len(values) != dims
        or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in values)
    ):
        raise ValueError(
            f"For '{name}', '{what}' must be a positive int or a tuple of {dims}, got {value!r}"
        )
    return tuple(values)


def _output(size_in, output_size, output_ratio, dims: int, name: str) -> tuple[int, ...]:
    if output_size is None and output_ratio is None:
        raise ValueError(
            f"For {name}, 'output_size' and 'output_ratio' can not be Noneat the same time, but "
            "got None and None ."
        )
    if output_size is not None:
        return _sizes(output_size, dims, name, "output_size")
    ratio = (output_ratio,) * dims if isinstance(output_ratio, float | int) else output_ratio
    if not isinstance(ratio, tuple | list) or len(ratio) != dims:
        raise ValueError(f"For '{name}', 'output_ratio' must be a float or {dims} floats")
    for r in ratio:
        if isinstance(r, bool) or not isinstance(r, float) or not 0.0 < r < 1.0:
            raise ValueError(f"For '{name}', 'output_ratio' must be in (0, 1), got {output_ratio}")
    return tuple(int(size_in[a] * ratio[a]) for a in range(dims))


def _starts(u: Any, size: int, out: int, k: int) -> Any:
    """(N, C, out) int32 window starts for samples u (N, C)."""
    n, c = u.shape
    last = broadcast_to(constant(np.full((1, 1, 1), size - k, np.int32), D.int32), (n, c, 1))
    if out == 1:
        return last
    alpha = (size - k) / (out - 1)
    steps = constant(np.arange(out - 1, dtype=np.float64)[None, None, :], u.dtype)
    first = floor(mul(u, alpha))
    starts = sub(floor(mul(add(expand_dims(u, 2), steps), alpha)), expand_dims(first, 2))
    return concat((cast(starts, D.int32), last), 2)


def _sample(dims: int, axis: int) -> int:
    """Which of a plane's samples places the windows of spatial `axis`."""
    return dims - 1 - axis if dims == 2 else axis


def fractional_max_pool(
    input: Any, kernel_size: Any, output_size: Any, output_ratio: Any, return_indices: bool,
    samples: Any, dims: int, name: str,
) -> Any:  # fmt: skip
    """The n-d fractional max pool of a (N, C, ...) or (C, ...) input."""
    if not is_tensor(input):
        raise TypeError(f"For '{name}', 'input' must be a Tensor, got {type(input).__name__}")
    if not isinstance(return_indices, bool):
        raise TypeError(f"For '{name}', 'return_indices' must be a bool, got {return_indices!r}")
    x = input
    if len(x.shape) not in (dims + 1, dims + 2):
        raise ValueError(
            f"For '{name}', the input must be {dims + 1}-D or {dims + 2}-D, got {tuple(x.shape)}"
        )
    if not x.dtype.is_float:
        raise TypeError(f"For '{name}', the input must be a float tensor, got {x.dtype}")
    batched = len(x.shape) == dims + 2
    if not batched:
        x = expand_dims(x, 0)
    n, c = x.shape[:2]
    size_in = tuple(x.shape[2:])
    k = _sizes(kernel_size, dims, name, "kernel_size")
    out = _output(size_in, output_size, output_ratio, dims, name)
    for a in range(dims):
        if out[a] + k[a] - 1 > size_in[a]:
            raise ValueError(
                f"For '{name}', output_size {out} + kernel_size {k} - 1 must not exceed the "
                f"input's {size_in} on spatial axis {a}"
            )
    if samples is None:
        samples = uniform_real((n, c, dims))
    elif not is_tensor(samples) or tuple(samples.shape) != (n, c, dims):
        raise ValueError(
            f"For '{name}', '_random_samples' must be a Tensor of shape {(n, c, dims)}"
        )
    u = cast(samples, x.dtype) if samples.dtype != x.dtype else samples
    # u[..., 0] is the last axis (W), u[..., dims - 1] the first
    starts = [_starts(getitem(u, (slice(None), slice(None), _sample(dims, a))), size_in[a], out[a], k[a])
              for a in range(dims)]  # fmt: skip
    strides = [math.prod(size_in[a + 1 :]) for a in range(dims)]
    flat = reshape(x, (n, c, math.prod(size_in)))
    points = math.prod(out)
    best = index = None
    for tap in itertools.product(*[range(v) for v in k]):
        at = None
        for a in range(dims):
            pos = mul(add(starts[a], tap[a]), strides[a])  # (N, C, out_a)
            shape = [n, c] + [1] * dims
            shape[2 + a] = out[a]
            pos = reshape(pos, tuple(shape))
            at = pos if at is None else add(at, pos)
        at = reshape(broadcast_to(at, (n, c, *out)), (n, c, points))
        value = gather_elements(flat, 2, at)
        if best is None:
            best, index = value, at
        else:
            better = greater(value, best)
            best, index = select(better, value, best), select(better, at, index)
    best = reshape(best, (n, c, *out))
    index = cast(reshape(index, (n, c, *out)), D.int64)
    if not batched:
        best, index = squeeze(best, 0), squeeze(index, 0)
    return (best, index) if return_indices else best


def fractional_max_pool2d(
    input: Any, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
    return_indices: bool = False, _random_samples: Any = None,
) -> Any:  # fmt: skip
    """`ops.fractional_max_pool2d`: (N, C, H, W) or (C, H, W)."""
    return fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                               _random_samples, 2, "fractional_max_pool2d")  # fmt: skip


def fractional_max_pool3d(
    input: Any, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
    return_indices: bool = False, _random_samples: Any = None,
) -> Any:  # fmt: skip
    """`ops.fractional_max_pool3d`: (N, C, D, H, W) or (C, D, H, W)."""
    return fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                               _random_samples, 3, "fractional_max_pool3d")  # fmt: skip
