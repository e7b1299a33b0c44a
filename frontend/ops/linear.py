"""Matrix products with a bias or a scaled sum, and cosine similarity:
`ops.dense`, `ops.addmm`, `ops.baddbmm`, `ops.cosine_similarity` (compositions of
matmul, add, mul and reductions, so gradients and both modes follow)."""

from __future__ import annotations

from typing import Any

from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.math import _tensor, add, div, matmul, maximum, mul, sqrt
from mindjit.frontend.ops.reduce import reduce_sum


def _number(value: Any, what: str, name: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"For '{name}', the '{what}' must be an int or a float, but got {value!r}")
    return value


def dense(input: Any, weight: Any, bias: Any = None) -> Any:  # noqa: A002
    """`ops.dense(input, weight, bias=None)`: input @ weight.T + bias; input (*, in),
    weight (out, in) (or (in,): one output without the axis), bias (out,) or ()."""
    name = "dense"
    x, w = _tensor(input, name), _tensor(weight, name)
    if len(w.shape) not in (1, 2):
        raise ValueError(f"For '{name}', the 'weight' must be 1-D or 2-D, but got {tuple(w.shape)}")
    if not x.shape or x.shape[-1] != w.shape[-1]:
        raise ValueError(
            f"For '{name}', the last axis of 'input' {tuple(x.shape)} must equal the last axis "
            f"of 'weight' {tuple(w.shape)}"
        )
    out = matmul(x, w, False, len(w.shape) == 2)
    return out if bias is None else add(out, bias)


def addmm(input: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:  # noqa: A002
    """`ops.addmm(input, mat1, mat2, *, beta=1, alpha=1)`: beta * input + alpha * mat1 @ mat2."""
    return _scaled_sum("addmm", input, mat1, mat2, beta, alpha, 2)


def baddbmm(input: Any, batch1: Any, batch2: Any, beta: Any = 1, alpha: Any = 1) -> Any:  # noqa: A002
    """`ops.baddbmm(input, batch1, batch2, beta=1, alpha=1)`: beta * input + alpha *
    batch1 @ batch2, batch1 (b, n, m) and batch2 (b, m, p)."""
    return _scaled_sum("baddbmm", input, batch1, batch2, beta, alpha, 3)


def _scaled_sum(name: str, input: Any, a: Any, b: Any, beta: Any, alpha: Any, rank: int) -> Any:  # noqa: A002
    a, b = _tensor(a, name), _tensor(b, name)
    if len(a.shape) != rank or len(b.shape) != rank:
        raise ValueError(
            f"For '{name}', the matrices must be {rank}-D, but got shapes {tuple(a.shape)} and "
            f"{tuple(b.shape)}"
        )
    if a.shape[-1] != b.shape[-2] or a.shape[:-2] != b.shape[:-2]:
        raise ValueError(
            f"For '{name}', cannot multiply shapes {tuple(a.shape)} and {tuple(b.shape)}"
        )
    beta = _number(beta, "beta", name)
    alpha = _number(alpha, "alpha", name)
    product = matmul(a, b)
    if alpha != 1:
        product = mul(product, alpha)
    if beta == 0:  # input is ignored (NaN in it does not propagate)
        return product
    scaled = _tensor(input, name) if beta == 1 else mul(_tensor(input, name), beta)
    return add(scaled, product)


def cosine_similarity(x1: Any, x2: Any, dim: int = 1, eps: float = 1e-08) -> Any:
    """`ops.cosine_similarity(x1, x2, dim=1, eps=1e-08)`: sum(x1 x2) /
    sqrt(max(sum(x1^2) sum(x2^2), eps^2)) along `dim` (x1, x2 broadcast)."""
    name = "cosine_similarity"
    a, b = _tensor(x1, name), _tensor(x2, name)
    if not a.dtype.is_float or not b.dtype.is_float:
        raise TypeError(
            f"For '{name}', 'x1' and 'x2' must be float tensors, but got {a.dtype} and {b.dtype}"
        )
    if isinstance(eps, bool) or not isinstance(eps, int | float):
        raise TypeError(f"For '{name}', the 'eps' must be a float, but got {eps!r}")
    rank = max(len(a.shape), len(b.shape))
    axis = normalize_axis(dim, rank, name)
    dot = reduce_sum(mul(a, b), axis)
    norms = mul(reduce_sum(mul(a, a), axis), reduce_sum(mul(b, b), axis))
    return div(dot, sqrt(maximum(norms, float(eps) * float(eps))))


__all__ = ["addmm", "baddbmm", "cosine_similarity", "dense"]
