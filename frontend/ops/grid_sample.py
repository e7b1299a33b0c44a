"""Spatial transformers: `ops.affine_grid` and `ops.grid_sample` (2-d and 3-d).

affine_grid: the normalized coordinates of every output pixel ((x, y[, z]),
x along W; -1 and 1 the corner pixels' centres with align_corners, their outer
edges without) times theta^T, one matmul with a constant base grid.

grid_sample reads the input at those coordinates, as PyTorch's grid_sampler
(whose CPU algorithm MindSpore's kernel follows): unnormalize, apply the
padding mode to the coordinate ('border' clips, 'reflection' reflects off the
edges), then 'bilinear' (trilinear for 5-d) weights of the 2^k neighbouring
pixels, or 'nearest' (round half to even). Each neighbour is one
gather_elements over the flattened spatial axes with run-time indices;
neighbours outside the input ('zeros') are masked. So it runs in graph mode,
and its gradient flows to the input (through the gathers) and to the grid
(through the weights; the floor of a coordinate has none).
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
    expand_dims,
    reshape,
    transpose,
    zeros_like,
)
from mindjit.frontend.ops.gather_ops import gather_elements
from mindjit.frontend.ops.indexing import getitem
from mindjit.frontend.ops.math import (
    abs,
    add,
    addn,
    div,
    floor,
    greater_equal,
    less,
    less_equal,
    logical_and,
    matmul,
    maximum,
    minimum,
    mul,
    round,
    select,
    sub,
)
from mindjit.frontend.ops.math_extras import fmod
from mindjit.frontend.ops.promotion import constant, is_tensor


def _base(sizes: tuple[int, ...], align_corners: bool) -> np.ndarray:
    """(prod(sizes), k + 1): (x, y[, z], 1) for every output position, row-major."""
    axes = []
    for n in sizes:
        if align_corners:
            axes.append(np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1))
        else:
            axes.append((np.arange(n) * 2 + 1) / n - 1)
    mesh = np.meshgrid(*axes, indexing="ij")  # along (D,) H, W
    coords = [m.reshape(-1) for m in reversed(mesh)]  # x (W) first
    return np.stack([*coords, np.ones(math.prod(sizes))], 1)


def affine_grid(theta: Any, size: Any, align_corners: bool = False) -> Any:
    """`ops.affine_grid(theta, size, align_corners=False)`: (N, H, W, 2) or (N, D, H, W, 3)."""
    name = "AffineGrid"
    if not is_tensor(theta):
        raise TypeError(f"For '{name}', 'theta' must be a Tensor, got {type(theta).__name__}")
    if not isinstance(size, tuple | list) or any(
        isinstance(v, bool) or not isinstance(v, int) for v in size
    ):
        raise TypeError(f"For '{name}', 'size' must be a tuple of ints, got {size!r}")
    if len(size) not in (4, 5):
        raise ValueError(
            f"For primitive[{name}], the size of 'output_size' must be in [4,5], but got "
            f"{len(size)}."
        )
    if not isinstance(align_corners, bool):
        raise TypeError(f"For '{name}', 'align_corners' must be a bool, got {align_corners!r}")
    k = len(size) - 2
    if tuple(theta.shape[1:]) != (k, k + 1):
        raise ValueError(
            f"For '{name}', 'theta' must be (N, {k}, {k + 1}) for an output size of {len(size)} "
            f"ints, got {tuple(theta.shape)}"
        )
    if size[0] != theta.shape[0]:
        raise ValueError(
            f"For '{name}', the output_size[0] must be equal to the shape[0] of theta, but got "
            f"the output_size[0] is {size[0]} and the shape[0] of theta is {theta.shape[0]}."
        )
    if not theta.dtype.is_float:
        raise TypeError(f"For '{name}', 'theta' must be float16, float32 or float64")
    base = constant(_base(tuple(size[2:]), align_corners), theta.dtype)  # (P, k + 1)
    grid = matmul(base, transpose(theta, (0, 2, 1)))  # (N, P, k)
    return reshape(grid, (size[0], *size[2:], k))


def _reflect(x: Any, twice_low: int, twice_high: int) -> Any:
    """x reflected into [twice_low / 2, twice_high / 2] (PyTorch's reflect_coordinates)."""
    if twice_low == twice_high:
        return zeros_like(x)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = abs(sub(x, low))
    extra = fmod(x, span)
    flips = floor(div(x, span))
    even = less(abs(sub(fmod(flips, 2.0), 0.0)), 0.5)
    return select(even, add(extra, low), add(sub(span, extra), low))


def _coordinate(c: Any, size: int, padding_mode: str, align_corners: bool) -> Any:
    """The input position (in pixels) a normalized coordinate reads, after padding."""
    if align_corners:
        x = mul(add(c, 1.0), (size - 1) / 2)
    else:
        x = div(sub(mul(add(c, 1.0), size), 1.0), 2.0)
    if padding_mode == "border":
        x = minimum(maximum(x, 0.0), float(size - 1))
    elif padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        x = minimum(maximum(x, 0.0), float(size - 1))
    return x


def grid_sample(
    input: Any,
    grid: Any,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: Any = None,
) -> Any:
    """`ops.grid_sample`: input (N, C, H, W) with grid (N, Ho, Wo, 2), or 5-d with 3."""
    x = input
    if not is_tensor(x) or not is_tensor(grid):
        raise TypeError("For 'grid_sample', 'input' and 'grid' must be Tensors")
    k = len(x.shape) - 2
    name = f"grid_sampler_{k}d"
    for what, value, options in (("interpolation_mode", mode, ("bilinear", "nearest")),
                                 ("padding_mode", padding_mode, ("zeros", "border", "reflection"))):  # fmt: skip
        if value not in options:
            raise ValueError(
                f"Failed to convert the value \"{value}\" of input '{what}' of '{name}' to enum."
            )
    if k not in (2, 3) or len(grid.shape) != k + 2 or grid.shape[0] != x.shape[0]:
        raise ValueError(
            f"For 'grid_sample', 'input' must be 4-D or 5-D and 'grid' (N, ..., {k}) of the same "
            f"rank and batch, got {tuple(x.shape)} and {tuple(grid.shape)}"
        )
    if grid.shape[-1] != k:
        raise ValueError(
            f"The {'forth' if k == 2 else 'fifth'} dimension of grid must be {k}, but got "
            f"{grid.shape[-1]}"
        )
    if not x.dtype.is_float or grid.dtype != x.dtype:
        raise TypeError(
            f"For 'grid_sample', 'input' and 'grid' must be float tensors of one dtype, got "
            f"{x.dtype} and {grid.dtype}"
        )
    align = bool(align_corners)
    n, c = x.shape[:2]
    sizes = tuple(x.shape[2:])  # (D,) H, W
    out_sizes = tuple(grid.shape[1:-1])
    points = math.prod(out_sizes)
    g = reshape(grid, (n, points, k))
    # the coordinate along spatial axis a (grid column k - 1 - a)
    coords = [
        _coordinate(
            getitem(g, (slice(None), slice(None), k - 1 - a)), sizes[a], padding_mode, align
        )  # fmt: skip
        for a in range(k)
    ]
    flat = reshape(x, (n, c, math.prod(sizes)))
    strides = [math.prod(sizes[a + 1 :]) for a in range(k)]

    def read(positions: list[Any]) -> Any:
        """input at integer positions (N, P) per axis, 0 outside the input."""
        inside = None
        index = None
        for a, p in enumerate(positions):
            ok = logical_and(greater_equal(p, 0.0), less_equal(p, float(sizes[a] - 1)))
            inside = ok if inside is None else logical_and(inside, ok)
            safe = cast(minimum(maximum(p, 0.0), float(sizes[a] - 1)), D.int32)
            term = mul(safe, strides[a]) if strides[a] != 1 else safe
            index = term if index is None else add(index, term)
        values = gather_elements(flat, 2, broadcast_to(expand_dims(index, 1), (n, c, points)))
        return select(
            broadcast_to(expand_dims(inside, 1), (n, c, points)), values, zeros_like(values)
        )

    if mode == "nearest":
        out = read([round(p) for p in coords])
    else:
        lows = [floor(p) for p in coords]
        fracs = [sub(p, lo) for p, lo in zip(coords, lows)]
        terms = []
        for corner in itertools.product((0, 1), repeat=k):
            positions = [add(lo, float(b)) if b else lo for lo, b in zip(lows, corner)]
            weight = None
            for f, b in zip(fracs, corner):
                w = f if b else sub(1.0, f)
                weight = w if weight is None else mul(weight, w)
            terms.append(mul(read(positions), expand_dims(weight, 1)))
        out = addn(terms)
    return reshape(out, (n, c, *out_sizes))
