"""MindSpore 2.10's vector products and series, composed of the ops mindjit has (so
both modes and gradients follow): `ops.cross`, `ops.inner`, `ops.vander`,
`ops.trapz`, and `ops.logspace` (a constant, as `ops.linspace` is).

Where MindSpore 2.10 prints something else, mindjit computes the mathematical value:
its CPU `Cross` reads garbage when the operands broadcast, and its float64 `logspace`
is only float16-accurate (`logspace(0., 1., 3, dtype=float64)[1]` is 3.162109375).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import broadcast_to, concat, reshape
from mindjit.frontend.ops.cast import cast_to, promote
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.creation import _scalar
from mindjit.frontend.ops.math import add, matmul, mul, sub
from mindjit.frontend.ops.promotion import constant, is_tensor
from mindjit.frontend.ops.reduce import reduce_sum
from mindjit.frontend.ops.split import slice_axis


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def cross(input: Any, other: Any, dim: Any = None) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.cross(input, other, dim=None)`: the 3-vector cross product along `dim`
    (None: the first axis of size 3); the operands share a dtype and broadcast."""
    if not is_tensor(input) or not is_tensor(other):
        raise TypeError("For 'Cross', 'input' and 'other' must be Tensors")
    if input.dtype != other.dtype:
        raise TypeError(
            f"For 'Cross', the inputs must have one dtype, but got {input.dtype} and {other.dtype}"
        )
    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(other.shape)))
    a, b = broadcast_to(input, shape), broadcast_to(other, shape)
    if dim is None:
        if 3 not in shape:
            raise ValueError(f"For 'Cross', the size of inputs dim must contain 3, but got {shape}")
        d = shape.index(3)
    else:
        d = normalize_axis(dim, len(shape), "Cross")
        if shape[d] != 3:
            raise ValueError(f"For 'Cross', dimension {dim} must be 3, but got {shape[d]}.")
    ax = [slice_axis(a, d, i, i + 1) for i in range(3)]
    bx = [slice_axis(b, d, i, i + 1) for i in range(3)]
    parts = [
        sub(mul(ax[(i + 1) % 3], bx[(i + 2) % 3]), mul(ax[(i + 2) % 3], bx[(i + 1) % 3]))
        for i in range(3)
    ]
    return concat(parts, d)


def inner(input: Any, other: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.inner(input, other)`: sums of products over the last axes; the shape is
    input.shape[:-1] + other.shape[:-1] (a 0-d operand multiplies)."""
    if not is_tensor(input) or not is_tensor(other):
        raise TypeError("For 'inner', 'input' and 'other' must be Tensors")
    a, b = promote(input, other, what="inner")
    if len(a.shape) == 0 or len(b.shape) == 0:
        return mul(a, b)
    k = a.shape[-1]
    if b.shape[-1] != k:
        raise ValueError(
            "For 'inner', the last dimension of 'input' and 'other' must be the same, "
            f"but got input.shape: {tuple(a.shape)} and other.shape: {tuple(b.shape)}."
        )
    out = tuple(a.shape[:-1]) + tuple(b.shape[:-1])
    product = matmul(reshape(a, (-1, k)), reshape(b, (-1, k)), transpose_b=True)
    return reshape(product, out)


def vander(x: Any, N: Any = None) -> Any:  # noqa: N803 - MindSpore's name
    """`ops.vander(x, N=None)`: columns x**(N-1), ..., x**1, x**0 of a 1-D tensor
    (N defaults to len(x)); a bool tensor counts in int64."""
    if not is_tensor(x):
        raise TypeError(f"For vander, x must be Tensor, but got {type(x)}")
    if len(x.shape) != 1:
        raise ValueError(f"For vander, x must be 1-D, but got dimension = {len(x.shape)}")
    n = x.shape[0] if N is None else N
    if not _is_int(n):
        raise TypeError(f"For vander, N must be an integer, but got {type(n)}.")
    if n <= 0:
        raise ValueError(f"For vander, N must be greater than 0, but got {n}.")
    t = cast_to(x, D.int64) if x.dtype.is_bool else x
    column = reshape(t, (-1, 1))
    powers = [constant(np.ones((t.shape[0], 1)), t.dtype)]
    for _ in range(n - 1):
        powers.append(mul(powers[-1], column))
    return concat(powers[::-1], 1)


def trapz(y: Any, x: Any = None, *, dx: float = 1.0, dim: int = -1) -> Any:
    """`ops.trapz(y, x=None, *, dx=1.0, dim=-1)`: the trapezoid-rule integral of `y`
    along `dim`, at sample points `x` (1-D, or y's shape) or spaced `dx` apart."""
    if not is_tensor(y):
        raise TypeError(f"For `trapz`, the input `y` must be Tensor, but get {type(y)}.")
    rank = len(y.shape)
    if not _is_int(dim) or not -rank <= dim < rank:
        raise ValueError(f"dim {dim} is out of bounds for array of dimension {rank}")
    d = dim % rank
    t = cast_to(y, D.float32) if not y.dtype.is_float else y
    n = t.shape[d]
    heights = mul(add(slice_axis(t, d, 1, n), slice_axis(t, d, 0, n - 1)), 0.5)
    if x is None:
        return mul(reduce_sum(heights, d), dx)
    if not is_tensor(x):
        raise TypeError(f"For `trapz`, the input `x` must be Tensor, but get {type(x)}.")
    xs = cast_to(x, t.dtype)
    if len(xs.shape) == 1:
        if xs.shape[0] != n:
            raise RuntimeError("There must be one `x` value for each sample point")
        xs = reshape(xs, tuple(n if a == d else 1 for a in range(rank)))
    elif xs.shape[d] != n:
        raise RuntimeError("There must be one `x` value for each sample point")
    widths = sub(slice_axis(xs, d, 1, n), slice_axis(xs, d, 0, n - 1))
    return reduce_sum(mul(heights, widths), d)


def logspace(start: Any, end: Any, steps: Any, base: Any = 10, *, dtype: Any = D.float32) -> Any:
    """`ops.logspace(start, end, steps, base=10, *, dtype=mstype.float32)`: `steps`
    values base**start ... base**end (a constant); start and end are floats or 0-d
    Tensors, `base` an int, `dtype` a float type (MindSpore 2.10's rules)."""
    name = "LogSpace"
    for what, v in (("start", start), ("end", end)):
        if not is_tensor(v) and not isinstance(v, float):
            raise TypeError(
                f"The primitive[{name}]'s input arguments[end, start] must be all tensor and "
                f"those type must be same. But got input argument[{what}]: {type(v).__name__}"
            )
    if not _is_int(base):
        raise TypeError(f"For '{name}', the type of 'base' should be 'int', but got {type(base)}.")
    if not _is_int(steps) or steps < 0:
        raise ValueError(f"For '{name}', the 'steps' must be int and must >= 0, but got {steps!r}.")
    target = D.to_dtype(dtype)
    if not target.is_float:
        raise TypeError(
            f"For '{name}', the 'dtype' should be one of [mindspore.float16, mindspore.float32, "
            f"mindspore.float64], but got '{target}'."
        )
    a, b = float(_scalar(start, "start", name)), float(_scalar(end, "end", name))
    values = np.power(float(base), np.linspace(a, b, steps))
    return constant(values, target)
