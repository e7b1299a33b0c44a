"""Max unpooling (`ops.max_unpool1d`, `max_unpool2d`, `max_unpool3d`), the inverse
placement of a max pooling's `return_indices`.

Each value x[n, c, ...] goes to position indices[n, c, ...] of the flattened
spatial output of channel (n, c), zeros elsewhere. The output is
unsorted_segment_sum over the ids (n * C + c) * P + index (P the output's
spatial size), so its gradient is a gather and the op runs in graph mode with
indices computed at run time. A position written twice gets the mean of its
values (a max pooling's duplicates hold one value, so that value); MindSpore's
CPU kernel keeps the last write, which differs only for duplicates of
different values. Output size per axis: (in - 1) * stride - 2 * padding +
kernel, or `output_size` within one stride of it. Known indices outside
[0, P) are MindSpore's RuntimeError.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import cast, expand_dims, ones_like, reshape, squeeze
from mindjit.frontend.ops.gather_ops import known, unsorted_segment_sum
from mindjit.frontend.ops.math import add, div, maximum
from mindjit.frontend.ops.promotion import constant, is_tensor


def _ints(value: Any, n: int, name: str, what: str, minimum: int) -> tuple[int, ...]:
    values = (value,) * n if isinstance(value, int) else value
    if (
        not isinstance(values, tuple | list)
        or len(values) != n
        or any(isinstance(v, bool) or not isinstance(v, int) for v in values)
    ):
        raise TypeError(
            f"For '{name}', '{what}' must be an int or a tuple of {n} ints, got {value!r}"
        )
    if min(values) < minimum:
        raise ValueError(f"For '{name}', '{what}' must be >= {minimum}, got {value!r}")
    return tuple(values)


def max_unpool(
    x: Any, indices: Any, dims: int, kernel_size, stride, padding, output_size, name: str
) -> Any:
    """The n-d max unpooling over the last `dims` axes of a (N, C, ...) or (C, ...) input."""
    prim = f"MaxUnpool{dims}D"
    if not is_tensor(x) or not is_tensor(indices):
        raise TypeError(f"For '{name}', 'x' and 'indices' must be Tensors")
    if indices.dtype not in (D.int32, D.int64):
        raise TypeError(f"For '{name}', 'indices' must be int32 or int64, got {indices.dtype}")
    rank = len(x.shape)
    if rank not in (dims + 1, dims + 2):
        raise ValueError(
            f"For '{name}', the input must be {dims + 1}-D or {dims + 2}-D, got shape "
            f"{tuple(x.shape)}"
        )
    if tuple(indices.shape) != tuple(x.shape):
        raise ValueError(
            f"For primitive[{prim}], the x_shape: {list(x.shape)} must be equal to "
            f"{list(indices.shape)}"
        )
    k = _ints(kernel_size, dims, name, "kernel_size", 1)
    s = k if stride is None or stride == 0 or stride == (0,) * dims else stride
    s = _ints(s, dims, name, "stride", 1)
    p = _ints(padding, dims, name, "padding", 0)
    size_in = tuple(x.shape[-dims:])
    out = tuple((size_in[a] - 1) * s[a] - 2 * p[a] + k[a] for a in range(dims))
    if output_size is not None and tuple(output_size) != ():
        if not isinstance(output_size, tuple | list):
            raise ValueError(f"For '{name}', 'output_size' must be a tuple, got {output_size!r}")
        wanted = tuple(output_size)[-dims:]
        if len(output_size) not in (dims, dims + 1, dims + 2) or any(
            not out[a] - s[a] <= wanted[a] <= out[a] + s[a] for a in range(dims)
        ):
            raise ValueError(
                f"{prim}: the output_size {tuple(output_size)} must be within one stride of "
                f"{out} on every spatial axis"
            )
        out = wanted
    batched = rank == dims + 2
    if not batched:
        x, indices = expand_dims(x, 0), expand_dims(indices, 0)
    n, c = x.shape[:2]
    spatial = math.prod(out)
    values = known(indices)
    if values is not None and values.size and ((values < 0) | (values >= spatial)).any():
        raise RuntimeError(
            f"{prim}: internal error, output_size {spatial} should be bigger than some indices, "
            f"now the value of argmax is {int(values.max())}."
        )
    base = constant((np.arange(n * c) * spatial).reshape(n, c, *([1] * dims)), D.int64)
    ids = reshape(add(cast(indices, D.int64), base), (-1,))
    flat = reshape(x if x.dtype.is_float else cast(x, D.float32), (-1,))
    total = n * c * spatial
    summed = unsorted_segment_sum(flat, ids, total)
    counts = unsorted_segment_sum(ones_like(flat), ids, total)
    y = reshape(div(summed, maximum(counts, 1.0)), (n, c, *out))
    y = y if y.dtype == x.dtype else cast(y, x.dtype)
    return y if batched else squeeze(y, 0)


def max_unpool1d(
    x: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
    output_size: Any = None,
) -> Any:  # fmt: skip
    """`ops.max_unpool1d`: (N, C, L) or (C, L)."""
    return max_unpool(x, indices, 1, kernel_size, stride, padding, output_size, "max_unpool1d")


def max_unpool2d(
    x: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
    output_size: Any = None,
) -> Any:  # fmt: skip
    """`ops.max_unpool2d`: (N, C, H, W) or (C, H, W)."""
    return max_unpool(x, indices, 2, kernel_size, stride, padding, output_size, "max_unpool2d")


def max_unpool3d(
    x: Any, indices: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
    output_size: Any = None,
) -> Any:  # fmt: skip
    """`ops.max_unpool3d`: (N, C, D, H, W) or (C, D, H, W)."""
    return max_unpool(x, indices, 3, kernel_size, stride, padding, output_size, "max_unpool3d")
