"""MindSpore 2.10's pairwise distances and covariance, composed of the ops mindjit has
(so both modes and gradients follow): `ops.cdist`, `ops.pdist`, `ops.cov`, `ops.renorm`.

`cdist` forms every difference x1[i] - x2[j] (B*P*R*M elements), then the p-norm:
p=0 counts the nonzero differences, p=inf takes the largest. `pdist` takes only the
pairs i < j (gathered with constant indices, so the zero distance of a row to itself
never reaches a square root's gradient). `cov` is numpy's and torch's weighted
covariance; a single variable gives a 0-d result.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import expand_dims, reshape, squeeze, transpose
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.gather_ops import gather
from mindjit.frontend.ops.math import (
    abs,
    div,
    greater,
    matmul,
    mul,
    not_equal,
    pow,
    select,
    sqrt,
    sub,
)
from mindjit.frontend.ops.promotion import constant, is_tensor
from mindjit.frontend.ops.reduce import reduce_max, reduce_sum


def _norm_last(d: Any, p: float) -> Any:
    """The p-norm of `d` over its last axis."""
    if p == 0.0:
        return reduce_sum(cast_to(not_equal(d, 0), d.dtype), -1)
    if math.isinf(p):
        return reduce_max(abs(d), -1)
    if p == 1.0:
        return reduce_sum(abs(d), -1)
    if p == 2.0:
        return sqrt(reduce_sum(mul(d, d), -1))
    return pow(reduce_sum(pow(abs(d), p), -1), 1.0 / p)


def _float_tensor(prim: str, x: Any, what: str) -> Any:
    if not is_tensor(x) or not x.dtype.is_float:
        got = x.dtype if is_tensor(x) else type(x).__name__
        raise TypeError(
            f"For Primitive[{prim}], the type of the {what} tensor must be "
            f"[Float16, Float32, Float64], but got {got}!"
        )
    return x


def _p(prim: str, p: Any) -> float:
    if isinstance(p, bool) or not isinstance(p, int | float):
        raise TypeError(f"For Primitive[{prim}], 'p' must be a float, but got {type(p)}")
    if p < 0:
        raise ValueError(f"For Primitive[{prim}], p must be a non-negative value, but got {p}.")
    return float(p)


def cdist(x1: Any, x2: Any, p: float = 2.0) -> Any:
    """`ops.cdist(x1, x2, p=2.0)`: the p-norm distance of every row of x1 (B, P, M)
    to every row of x2 (B, R, M): shape (B, P, R) (or (P, R) for 2-D inputs)."""
    name = "Cdist"
    a, b = _float_tensor(name, x1, "input_x"), _float_tensor(name, x2, "input_y")
    q = _p(name, p)
    if len(a.shape) not in (2, 3) or len(a.shape) != len(b.shape):
        raise ValueError(
            f"For Primitive[{name}], the inputs must both be 2-D or 3-D, but got shapes "
            f"{tuple(a.shape)} and {tuple(b.shape)}"
        )
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(
            f"For Primitive[{name}], the number of columns of 'x' must be the same as the "
            f"number of 'y', but got 'x_shape[{len(a.shape) - 1}]': {a.shape[-1]} and "
            f"'y_shape[{len(b.shape) - 1}]': {b.shape[-1]}"
        )
    if b.dtype != a.dtype:
        b = cast_to(b, a.dtype)
    d = sub(expand_dims(a, -2), expand_dims(b, -3))  # (..., P, R, M)
    return _norm_last(d, q)


def pdist(input: Any, p: float = 2.0) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.pdist(input, p=2.0)`: the p-norm distances of the pairs of rows i < j of a
    2-D tensor (N, M), in row-major order: N*(N-1)/2 of them."""
    name = "Pdist"
    if not is_tensor(input) or not input.dtype.is_float:
        got = input.dtype if is_tensor(input) else type(input).__name__
        raise TypeError(
            f"For primitive[{name}], the input argument[x] must be a type of "
            f"{{Tensor[Float16], Tensor[Float32], Tensor[Float64]}}, but got {got}."
        )
    q = _p(name, p)
    if len(input.shape) != 2:
        raise ValueError(
            f"For primitive[{name}], the x dim must be equal to 2, but got {len(input.shape)}."
        )
    first, second = np.triu_indices(input.shape[0], 1)
    if first.size == 0:
        return constant(np.zeros(0), input.dtype)
    rows_i = gather(input, constant(first.astype(np.int32), D.int32), 0)
    rows_j = gather(input, constant(second.astype(np.int32), D.int32), 0)
    return _norm_last(sub(rows_i, rows_j), q)


def cov(input: Any, *, correction: int = 1, fweights: Any = None, aweights: Any = None) -> Any:  # noqa: A002
    """`ops.cov(input, *, correction=1, fweights=None, aweights=None)`: the covariance
    of the variables in input's rows (a 1-D input is one variable), observations in
    its columns, weighted by the int `fweights` and float `aweights`."""
    name = "cov"
    if not is_tensor(input):
        raise TypeError(f"For {name}, the input must be a Tensor, but got {type(input)}")
    if len(input.shape) > 2:
        raise ValueError(
            f"For {name}, the input must have two or fewer dimensions, but got "
            f"{len(input.shape)} dimensions."
        )
    x = input if input.dtype.is_float else cast_to(input, D.float32)
    if len(x.shape) < 2:
        x = reshape(x, (1, -1))
    n = x.shape[1]
    w = None
    if fweights is not None:
        if not is_tensor(fweights) or fweights.dtype.is_float or fweights.dtype.is_bool:
            raise TypeError(
                f"For {name}, the dtype of fweights must be an integer type, but got type "
                f"{getattr(fweights, 'dtype', type(fweights).__name__)}"
            )
        w = cast_to(fweights, x.dtype)
    if aweights is not None:
        if not is_tensor(aweights) or not aweights.dtype.is_float:
            raise TypeError(
                f"For {name}, the dtype of aweights must be a float type, but got type "
                f"{getattr(aweights, 'dtype', type(aweights).__name__)}"
            )
        aw = cast_to(aweights, x.dtype)
        w = aw if w is None else mul(w, aw)
    if w is None:
        mean = div(reduce_sum(x, 1, True), n)
        norm: Any = n - correction
        centred = sub(x, mean)
        weighted = centred
    else:
        w_sum = reduce_sum(w)
        mean = div(reduce_sum(mul(x, w), 1, True), w_sum)
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = sub(w_sum, correction)
        else:
            norm = sub(w_sum, mul(div(reduce_sum(mul(w, aw)), w_sum), correction))
        centred = sub(x, mean)
        weighted = mul(centred, w)
    out = div(matmul(weighted, transpose(centred, (1, 0))), norm)
    return squeeze(out) if out.shape == (1, 1) else out


def renorm(input: Any, p: int, axis: int, maxnorm: float) -> Any:  # noqa: A002
    """`ops.renorm(input, p, axis, maxnorm)`: each slice along `axis` whose p-norm
    (over its other axes) exceeds `maxnorm` scaled down to norm `maxnorm`."""
    name = "Renorm"
    if not is_tensor(input) or not input.dtype.is_float:
        raise TypeError(f"For '{name}', the input must be a float Tensor, but got {input!r}")
    if isinstance(p, bool) or not isinstance(p, int | float) or p <= 0:
        raise RuntimeError(f"For '{name}', 'p' must be positive, but got {p}")
    if isinstance(maxnorm, bool) or not isinstance(maxnorm, int | float) or maxnorm < 0:
        raise RuntimeError(
            f"For '{name}', the attribute 'maxnorm' must be non-negative, but got {maxnorm}"
        )
    rank = len(input.shape)
    a = normalize_axis(axis, rank, name)
    perm = [a] + [d for d in range(rank) if d != a]
    rows = reshape(transpose(input, perm), (input.shape[a], -1))
    norms = _norm_last(rows, float(p))
    scale = select(greater(norms, maxnorm), div(constant(float(maxnorm), input.dtype), norms), 1.0)
    shape = tuple(input.shape[a] if d == a else 1 for d in range(rank))
    return mul(input, reshape(scale, shape))
