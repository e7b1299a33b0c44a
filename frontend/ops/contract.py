"""Products and contractions as compositions: `ops.prod`, `ops.outer`, `ops.einsum`;
and `ops.all` / `ops.any` (MindSpore 2.x spellings of reduce_all / reduce_any).

- prod multiplies the reduced axes (moved to the front and merged into one) by
  halving: the first half times the second, a leftover row carried, until one row
  is left. That is n - 1 `mindir.mul`s in log2(n) steps, and its gradient is
  exact where the input has zeros (a cumprod-based product would divide by them).
- outer(x, y) is x[:, None] * y[None, :].
- einsum contracts its operands pairwise, left to right. Each pair is one
  `mindir.matmul`: letters both operands and the result keep are batch axes,
  letters both have and nothing later needs are contracted, the rest are the
  matmul's rows (first operand) and columns (second); a letter only one operand
  has and nothing later needs is summed out first. A letter repeated within one
  operand (a diagonal) and the ellipsis '...' are not supported
  (NotImplementedError).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import concat, full, reshape, transpose
from mindjit.frontend.ops.cast import cast_to, promote
from mindjit.frontend.ops.core import normalize_axes
from mindjit.frontend.ops.math import matmul, mul
from mindjit.frontend.ops.reduce import reduce_all, reduce_any, reduce_sum
from mindjit.frontend.ops.split import require_tensor, slice_axis


def _product_rows(x: Any) -> Any:
    """The product of `x`'s rows (axis 0), by halving."""
    while x.shape[0] > 1:
        n = x.shape[0]
        half = n // 2
        y = mul(slice_axis(x, 0, 0, half), slice_axis(x, 0, half, 2 * half))
        x = concat([y, slice_axis(x, 0, 2 * half, n)], 0) if n % 2 else y
    return reshape(x, tuple(x.shape[1:]))


def prod(input: Any, axis: Any = None, keep_dims: bool = False, dtype: Any = None) -> Any:
    """`ops.prod(input, axis=None, keep_dims=False, dtype=None)`: the product over
    `axis` (all axes by default)."""
    x = require_tensor(input, "prod")
    if dtype is not None:
        x = cast_to(x, D.to_dtype(dtype))
    elif x.dtype.is_bool:
        x = cast_to(x, D.int64)
    if not isinstance(keep_dims, bool):
        raise TypeError(f"For 'prod', 'keep_dims' must be a bool, got {keep_dims!r}")
    shape = tuple(x.shape)
    rank = len(shape)
    axes = normalize_axes(axis, rank, "prod") or tuple(range(rank))
    rest = tuple(a for a in range(rank) if a not in axes)
    out_shape = tuple(shape[a] for a in rest)
    n = 1
    for a in axes:
        n *= shape[a]
    if n == 0:
        out = full(out_shape, 1, dtype=x.dtype)
    else:
        moved = transpose(x, (*axes, *rest)) if rank else x
        out = _product_rows(reshape(moved, (n, *out_shape)))
    if keep_dims:
        out = reshape(out, tuple(1 if a in axes else d for a, d in enumerate(shape)))
    return out


def all(input: Any, axis: Any = None, keep_dims: bool = False) -> Any:  # noqa: A001
    """`ops.all(input, axis=None, keep_dims=False)`: logical and over `axis` (all axes
    by default); a Bool tensor."""
    return reduce_all(require_tensor(input, "all"), axis, keep_dims)


def any(input: Any, axis: Any = None, keep_dims: bool = False) -> Any:  # noqa: A001
    """`ops.any(input, axis=None, keep_dims=False)`: logical or over `axis`."""
    return reduce_any(require_tensor(input, "any"), axis, keep_dims)


def outer(input: Any, vec2: Any) -> Any:
    """`ops.outer(input, vec2)`: out[i, j] = input[i] * vec2[j] (two 1-D tensors)."""
    x, y = require_tensor(input, "outer"), require_tensor(vec2, "outer", "vec2")
    if len(x.shape) != 1 or len(y.shape) != 1:
        raise ValueError(
            f"For 'outer', 'input' and 'vec2' must be 1-D, got shapes "
            f"{tuple(x.shape)} and {tuple(y.shape)}"
        )
    return mul(reshape(x, (x.shape[0], 1)), reshape(y, (1, y.shape[0])))


# --- einsum ---------------------------------------------------------------------------------


def _parse(equation: str, count: int) -> tuple[list[str], str]:
    if not isinstance(equation, str):
        raise TypeError(f"For 'einsum', 'equation' must be a str, got {type(equation).__name__}")
    eq = equation.replace(" ", "")
    if "..." in eq:
        raise NotImplementedError("For 'einsum', the ellipsis '...' is not supported")
    lhs, arrow, out = eq.partition("->")
    inputs = lhs.split(",")
    if len(inputs) != count:
        raise ValueError(
            f"For 'einsum', the equation names {len(inputs)} operands, got {count} tensors"
        )
    letters = "".join(inputs)
    if not builtins.all(c.isalpha() for c in letters + out):
        raise ValueError(f"For 'einsum', the equation {equation!r} has invalid characters")
    if not arrow:
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    for term in (*inputs, out):
        if len(set(term)) != len(term):
            raise NotImplementedError(
                f"For 'einsum', a letter repeated within one term ({term!r}) is not supported"
            )
    missing = set(out) - set(letters)
    if missing:
        raise ValueError(f"For 'einsum', output letters {sorted(missing)} name no input axis")
    return inputs, out


def _sum_out(x: Any, term: str, keep: set[str]) -> tuple[Any, str]:
    """Sum the axes whose letter nothing else needs."""
    drop = tuple(i for i, c in enumerate(term) if c not in keep)
    if not drop:
        return x, term
    return reduce_sum(x, drop, False), "".join(c for c in term if c in keep)


def _permute(x: Any, term: str, order: str) -> Any:
    perm = tuple(term.index(c) for c in order)
    return x if perm == tuple(range(len(perm))) else transpose(x, perm)


def _contract(a: Any, ta: str, b: Any, tb: str, keep: set[str]) -> tuple[Any, str]:
    """One pairwise contraction: a matmul of (batch, rows, k) by (batch, k, cols)."""
    a, ta = _sum_out(a, ta, keep | set(tb))
    b, tb = _sum_out(b, tb, keep | set(ta))
    batch = [c for c in ta if c in tb and c in keep]
    inner = [c for c in ta if c in tb and c not in keep]
    rows = [c for c in ta if c not in tb]
    cols = [c for c in tb if c not in ta]
    size: dict[str, int] = {}
    for term, t in ((ta, a), (tb, b)):
        for c, d in zip(term, t.shape, strict=True):
            if size.setdefault(c, d) != d:
                raise ValueError(
                    f"For 'einsum', the axes named '{c}' have different sizes: {size[c]} and {d}"
                )

    def prod_of(cs: Sequence[str]) -> int:
        n = 1
        for c in cs:
            n *= size[c]
        return n

    nb, nm, nk, nn = prod_of(batch), prod_of(rows), prod_of(inner), prod_of(cols)
    a3 = reshape(_permute(a, ta, "".join(batch + rows + inner)), (nb, nm, nk))
    b3 = reshape(_permute(b, tb, "".join(batch + inner + cols)), (nb, nk, nn))
    out = matmul(a3, b3)
    term = "".join(batch + rows + cols)
    return reshape(out, tuple(size[c] for c in term)), term


def einsum(equation: str, *operands: Any) -> Any:
    """`ops.einsum(equation, *operands)` (also `einsum(equation, [a, b])`): sums of
    products named by letters, e.g. 'ij,jk->ik', 'bij,bjk->bik', 'i,j->ij', 'ii' is
    not supported (a diagonal)."""
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError("For 'einsum', at least one operand is needed")
    tensors = [require_tensor(t, "einsum", "operands") for t in operands]
    inputs, out = _parse(equation, len(tensors))
    for term, t in zip(inputs, tensors, strict=True):
        if len(term) != len(t.shape):
            raise ValueError(
                f"For 'einsum', the term {term!r} names {len(term)} axes but its operand has "
                f"shape {tuple(t.shape)}"
            )
    tensors = promote(*tensors, what="einsum") if len(tensors) > 1 else tensors
    acc, term = tensors[0], inputs[0]
    for i in range(1, len(tensors)):
        later = set(out).union(*inputs[i + 1 :])
        acc, term = _contract(acc, term, tensors[i], inputs[i], later)
    acc, term = _sum_out(acc, term, set(out))
    return _permute(acc, term, out)
