"""Adaptive pooling over one and three spatial axes (`ops.adaptive_avg_pool1d`,
`adaptive_max_pool1d`, `adaptive_avg_pool3d`, `adaptive_max_pool3d`).

- 1-d: as MindSpore, a plain pool with stride L // out and kernel
  L - (out - 1) * stride over (N, C, 1, L), so L must be a multiple of the
  output size (MindSpore's ValueError otherwise).
- 3-d: the windows are boxes, so the average / maximum is separable: the 2-d
  adaptive pool of frontend/ops/adaptive_pool.py over (N, C * D, H, W), then
  again over (N, C, D, OH * OW) along D. `return_indices` gives the int32 flat
  index into D * H * W of the first maximum (frontend/ops/pool_indices.py).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.adaptive_pool import adaptive_avg_pool2d, adaptive_max_pool2d
from mindjit.frontend.ops.array import expand_dims, reshape, squeeze
from mindjit.frontend.ops.conv import pool2d
from mindjit.frontend.ops.math import _tensor
from mindjit.frontend.ops.pool_indices import adaptive_taps, argmax_indices


def adaptive_pool1d(kind: str, input: Any, output_size: Any, name: str) -> Any:
    """The 1-d adaptive pool of MindSpore (a stride L // out pool), (N, C, L) only."""
    if isinstance(output_size, bool) or not isinstance(output_size, int):
        raise TypeError(
            f"For '{name}', the type of 'output_size' should be 'int', but got type "
            f"'{type(output_size).__name__}'."
        )
    if output_size < 1:
        raise ValueError(f"For '{name}', the 'output_size' must be >= 1, but got {output_size}.")
    x = _tensor(input, name)
    if len(x.shape) != 3:
        raise ValueError(f"For {name} input must have 3 dim, but got {len(x.shape)}.")
    width, out = x.shape[2], output_size
    if width < out:
        raise ValueError(
            f"For {name} input's last dimension must be greater or equal to output size {out}, "
            f"but got {width}."
        )
    if width % out:
        raise ValueError(
            f"For {name} input's last dimension must be divisible by output size {out}, but "
            f"got {width}."
        )
    if not x.dtype.is_float:
        raise TypeError(
            f"For {name}, the input dtype must be float16 or float32, but got {x.dtype}."
        )
    stride = width // out
    kernel = width - (out - 1) * stride
    y = pool2d(kind, expand_dims(x, 2), (1, kernel), (1, stride), (0, 0, 0, 0), (1, 1), False,
               True, name)  # fmt: skip
    return squeeze(y, 2)


def adaptive_avg_pool1d(input: Any, output_size: int) -> Any:
    """`ops.adaptive_avg_pool1d(input, output_size)` over (N, C, L)."""
    return adaptive_pool1d("avg", input, output_size, "adaptive_avg_pool1d")


def adaptive_max_pool1d(input: Any, output_size: int) -> Any:
    """`ops.adaptive_max_pool1d(input, output_size)` over (N, C, L)."""
    return adaptive_pool1d("max", input, output_size, "adaptive_max_pool1d")


def output_dhw(output_size: Any, dhw: tuple[int, ...], prim: str, allow_none: bool) -> tuple:
    """`output_size` (an int or 3 ints or None) as (OD, OH, OW); None keeps the input's."""
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        sizes: tuple[Any, ...] = (output_size,) * 3
    elif isinstance(output_size, tuple | list):
        sizes = tuple(output_size)
        if len(sizes) != 3:
            raise ValueError(
                f"For primitive[{prim}], the length of output_size must be equal to 3, but got "
                f"{len(sizes)}."
            )
    else:
        raise TypeError(
            f"For '{prim}', 'output_size' must be an int or a tuple of 3 ints, got {output_size!r}"
        )
    out = []
    for size, keep in zip(sizes, dhw):
        if size is None and allow_none:
            out.append(keep)
        elif isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"For '{prim}', 'output_size' must hold ints, got {output_size!r}")
        elif size < 1:
            raise ValueError(f"For '{prim}', 'output_size' must be positive, got {output_size!r}")
        else:
            out.append(size)
    return tuple(out)


def _x5(input: Any, prim: str) -> tuple[Any, bool]:
    x = _tensor(input, prim)
    if len(x.shape) not in (4, 5):
        raise ValueError(
            f"For primitive[{prim}], the the rank of x must be in [4,5], but got {len(x.shape)}."
        )
    if not x.dtype.is_float:
        raise TypeError(f"For '{prim}', the input must be a float tensor, got {x.dtype}")
    return (x if len(x.shape) == 5 else expand_dims(x, 0)), len(x.shape) == 4


def _pool3d(pool2d_fn: Any, x: Any, size: tuple[int, int, int]) -> Any:
    n, c, d, h, w = x.shape
    od, oh, ow = size
    y = pool2d_fn(reshape(x, (n, c * d, h, w)), (oh, ow)) if (oh, ow) != (h, w) else x
    if od != d:
        y = pool2d_fn(reshape(y, (n, c, d, oh * ow)), (od, oh * ow))
    return reshape(y, (n, c, od, oh, ow))


def adaptive_avg_pool3d(input: Any, output_size: Any) -> Any:
    """`ops.adaptive_avg_pool3d(input, output_size)`: (N, C, D, H, W) or (C, D, H, W)."""
    prim = "AdaptiveAvgPool3D"
    x, batchless = _x5(input, prim)
    size = output_dhw(output_size, x.shape[2:], prim, True)
    out = _pool3d(adaptive_avg_pool2d, x, size)
    return squeeze(out, 0) if batchless else out


def adaptive_max_pool3d(input: Any, output_size: Any, return_indices: bool = False) -> Any:
    """`ops.adaptive_max_pool3d(input, output_size, return_indices=False)`; the indices
    (int32) are flat into D * H * W."""
    prim = "AdaptiveMaxPool3D"
    x, batchless = _x5(input, prim)
    size = output_dhw(output_size, x.shape[2:], prim, False)
    out = _pool3d(adaptive_max_pool2d, x, size)
    if not return_indices:
        return squeeze(out, 0) if batchless else out
    taps = [adaptive_taps(x.shape[2 + a], size[a]) for a in range(3)]
    index = argmax_indices(x, out, taps, D.int32)
    return (squeeze(out, 0), squeeze(index, 0)) if batchless else (out, index)
