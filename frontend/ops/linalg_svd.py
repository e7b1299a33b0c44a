"""MindSpore 2.10's singular values and the norms and pseudo-inverse built on them:
`ops.svd`, `ops.pinv`, `ops.matrix_norm`, `ops.vector_norm`, composed of mindir ops.

The SVD is one-sided Jacobi (Hestenes): plane rotations of column pairs of A
(of A^T when it is wide) until every pair is orthogonal, in the round-robin
order that rotates n/2 disjoint pairs at once (n - 1 rounds of whole-matrix steps
per sweep, batched over the leading axes: O(n) ops per sweep, not O(n^2)); the singular values are the columns' norms,
sorted descending, U the normalized columns, V the accumulated rotations. A
graph runs a fixed number of sweeps (8 for float32, 12 for float64: Jacobi
converges quadratically, a few sweeps past the first ones are exact to the
last bit for the small matrices these ops take); PyNative stops after the first
sweep that rotates nothing (the same values). Singular values are unique, so
`pinv`, and the 'nuc', 2 and -2 matrix norms are MindSpore's; singular vectors
are unique up to the sign of each (u, v) pair, which is not LAPACK's choice:
U diag(S) V^T and S are MindSpore's, the signs may differ. A zero singular
value's U column is zero in the reduced form (LAPACK completes it to an
orthonormal basis); `full_matrices=True` completes U's (and V's) columns with
Householder QR.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.ops import linalg_core as core
from mindjit.frontend.ops.array import concat, expand_dims, transpose
from mindjit.frontend.ops.axes import matrix_transpose
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.core import normalize_axis
from mindjit.frontend.ops.gather_ops import one_hot
from mindjit.frontend.ops.math import (
    abs,
    add,
    div,
    equal,
    greater,
    greater_equal,
    less_equal,
    matmul,
    maximum,
    mul,
    select,
    sqrt,
    sub,
)
from mindjit.frontend.ops.promotion import constant, is_tensor
from mindjit.frontend.ops.reduce import reduce_max, reduce_sum
from mindjit.frontend.ops.sort import sort
from mindjit.frontend.ops.statistics import _matrix_norm, _vector_norm

_INF = float("inf")


def _rounds(n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The round-robin tournament of n (even) columns: n - 1 rounds of n/2 disjoint
    pairs, every pair once; each round as the selection matrices (n, n/2) of its
    pairs' first and second columns."""
    others = list(range(1, n))
    rounds = []
    for r in range(n - 1):
        order = [0, *others[r:], *others[:r]]
        sx, sy = np.zeros((n, n // 2)), np.zeros((n, n // 2))
        for i in range(n // 2):
            p, q = sorted((order[i], order[n - 1 - i]))
            sx[p, i], sy[q, i] = 1.0, 1.0
        rounds.append((sx, sy))
    return rounds


def _jacobi(a: Any) -> tuple[Any, Any]:
    """(A V, V) with the columns of A V orthogonal, for (..., m, n) a, m >= n: each
    round rotates n/2 disjoint column pairs at once (a zero column pads an odd n)."""
    n = a.shape[-1]
    width = n + n % 2
    if width != n:
        a = matmul(a, constant(np.eye(n, width), a.dtype))
    v = add(mul(reduce_sum(a, (-2, -1), True), 0.0), constant(np.eye(width), a.dtype))
    eps = 1e-15 if a.dtype == D.float64 else 1e-7
    sweeps = 12 if a.dtype == D.float64 else 8
    eager = current_graph() is None
    rounds = [(constant(sx, a.dtype), constant(sy, a.dtype), sx, sy) for sx, sy in _rounds(width)]
    for _ in range(sweeps):
        rotated = False
        for sx, sy, sx_np, sy_np in rounds:
            x, y = matmul(a, sx), matmul(a, sy)  # (..., m, n/2): the pairs' columns
            alpha = reduce_sum(mul(x, x), -2)
            beta = reduce_sum(mul(y, y), -2)
            gamma = reduce_sum(mul(x, y), -2)
            done = less_equal(abs(gamma), mul(sqrt(mul(alpha, beta)), eps))
            if eager:
                if bool(done.asnumpy().all()):
                    continue
                rotated = True
            g = select(done, 1.0, gamma)
            zeta = div(sub(beta, alpha), mul(g, 2.0))
            sgn = select(greater_equal(zeta, 0.0), 1.0, -1.0)
            t = div(sgn, add(abs(zeta), sqrt(add(mul(zeta, zeta), 1.0))))
            t = select(done, 0.0, t)
            c = expand_dims(div(1.0, sqrt(add(mul(t, t), 1.0))), -2)
            s = mul(c, expand_dims(t, -2))
            back_x = constant(sx_np.T, a.dtype)
            back_y = constant(sy_np.T, a.dtype)
            a = _rotate_pairs(a, x, y, c, s, back_x, back_y)
            vx, vy = matmul(v, sx), matmul(v, sy)
            v = _rotate_pairs(v, vx, vy, c, s, back_x, back_y)
        if eager and not rotated:
            break
    if width != n:  # the padding column stays zero: drop it (and its row and column of V)
        a = matmul(a, constant(np.eye(width, n), a.dtype))
        v = matmul(
            matmul(constant(np.eye(n, width), a.dtype), v), constant(np.eye(width, n), a.dtype)
        )
    return a, v


def _rotate_pairs(a: Any, x: Any, y: Any, c: Any, s: Any, back_x: Any, back_y: Any) -> Any:
    """a with each pair's columns (x, y) -> (c x - s y, s x + c y)."""
    new_x = sub(mul(x, c), mul(y, s))
    new_y = add(mul(x, s), mul(y, c))
    rest = sub(a, add(matmul(x, back_x), matmul(y, back_y)))
    return add(rest, add(matmul(new_x, back_x), matmul(new_y, back_y)))


def _permute_columns(x: Any, order: Any) -> Any:
    """x[..., :, order] for int order (..., n): x @ P with P[j, k] = (order[k] == j)."""
    n = order.shape[-1]
    hot = cast_to(one_hot(cast_to(order, D.int64), n, 1.0, 0.0), x.dtype)  # (..., k, j)
    return matmul(x, matrix_transpose(hot))


def _complete(u: Any) -> Any:
    """An orthonormal (..., m, m) basis whose first k columns are u's (..., m, k)."""
    m, k = u.shape[-2], u.shape[-1]
    if k == m:
        return u
    packed, tau = core.householder(u)
    eye = add(mul(reduce_sum(u, (-2, -1), True), 0.0), constant(np.eye(m), u.dtype))
    q = core.apply_reflectors(packed, tau, eye, left=True, transpose=False)
    return concat((u, matmul(q, constant(np.eye(m)[:, k:], u.dtype))), -1)


def _svd(x: Any, full: bool) -> tuple[Any, Any, Any]:
    """(s, u, v) of (..., m, n) x, s descending."""
    m, n = x.shape[-2], x.shape[-1]
    wide = m < n
    a = matrix_transpose(x) if wide else x
    av, v = _jacobi(a)
    sigma = sqrt(reduce_sum(mul(av, av), -2))
    s, order = sort(sigma, -1, True)
    av, v = _permute_columns(av, order), _permute_columns(v, order)
    u = div(av, expand_dims(select(equal(s, 0.0), 1.0, s), -2))
    if full:
        u = _complete(u)
    return (s, v, u) if wide else (s, u, v)


def _float_matrices(x: Any, name: str) -> Any:
    if not is_tensor(x) or x.dtype not in (D.float32, D.float64):
        got = x.dtype.name if is_tensor(x) else type(x).__name__
        raise TypeError(
            f"For {name}, the dtype of 'input' must be in (float32, float64, complex64, "
            f"complex128), but got {got.capitalize() if got else got}"
        )
    if len(x.shape) < 2:
        raise ValueError(
            f"For {name}, the rank of 'input' must be great equal than 2, but get shape: "
            f"{', '.join(str(d) for d in x.shape)}"
        )
    return x


def svd(input: Any, full_matrices: bool = False, compute_uv: bool = True) -> Any:  # noqa: A002
    """`ops.svd(input, full_matrices=False, compute_uv=True)`: (s, u, v) with input =
    u diag(s) v^T, s descending (..., k); u (..., m, k) and v (..., n, k), or
    (..., m, m) and (..., n, n) with full_matrices; only s without compute_uv."""
    x = _float_matrices(input, "Svd")
    s, u, v = _svd(x, bool(full_matrices) and bool(compute_uv))
    return (s, u, v) if compute_uv else s


def singular_values(x: Any) -> Any:
    """x's singular values, descending (what ops.norm's 'nuc', 2, -2 need)."""
    return _svd(x, False)[0]


def pinv(x: Any, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Any:
    """`ops.pinv(x, *, atol=None, rtol=None, hermitian=False)`: the Moore-Penrose
    pseudo-inverse (..., n, m), singular values at or below max(atol, rtol * s_max)
    taken as 0 (rtol: eps * max(m, n) when both are None)."""
    name = "pinv"
    if not is_tensor(x) or x.dtype not in (D.float32, D.float64):
        got = f"mindspore.{x.dtype.name}" if is_tensor(x) else type(x).__name__
        raise TypeError(
            f"For '{name}', the 'x' should be one of [mindspore.float32, mindspore.float64], "
            f"but got '{got}'."
        )
    if len(x.shape) < 2:
        raise ValueError(f"For '{name}', 'x' must be at least 2-D, got {tuple(x.shape)}")
    if not isinstance(hermitian, bool):
        raise TypeError(f"For '{name}', 'hermitian' must be a bool, got {type(hermitian)}")
    m, n = x.shape[-2], x.shape[-1]
    s, u, v = _svd(x, False)
    if rtol is None:
        rtol = 0.0 if atol is not None else float(np.finfo(x.dtype.numpy).eps) * max(m, n)
    cutoff = mul(reduce_max(s, -1, True), rtol)
    if atol is not None:
        cutoff = maximum(cutoff, atol)
    keep = greater(s, cutoff)
    inv_s = select(keep, div(1.0, select(keep, s, 1.0)), 0.0)
    return matmul(mul(v, expand_dims(inv_s, -2)), matrix_transpose(u))


def _axes(name: str, axis: Any, rank: int) -> tuple[int, ...]:
    if isinstance(axis, int) and not isinstance(axis, bool):
        axis = (axis,)
    if not isinstance(axis, tuple) or not all(
        isinstance(d, int) and not isinstance(d, bool) for d in axis
    ):
        raise TypeError(f"For {name} , the dim must be tuple or int, but got {type(axis)}")
    out = []
    for d in axis:
        if not -rank <= d < rank:
            raise ValueError("For norm, the dim is out of range.")
        out.append(normalize_axis(d, rank, name))
    return tuple(out)


def _norm_input(name: str, x: Any, dtype: Any) -> Any:
    if not is_tensor(x):
        raise TypeError(f"For {name}, the input must be a Tensor, but got {type(x)}")
    if dtype is not None:
        x = cast_to(x, D.to_dtype(dtype))
    if not x.dtype.is_float:
        x = cast_to(x, D.float32)
    return x


def vector_norm(
    x: Any,
    ord: Any = 2,
    axis: Any = None,
    keepdims: bool = False,
    *,
    dtype: Any = None,  # noqa: A002
) -> Any:
    """`ops.vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None)`: the
    ord-norm over `axis` (all axes by default); ord any number, inf or -inf."""
    name = "vector_norm"
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise ValueError(
            f"For {name}, the ord mode must be in [0, 2, float('inf'), -float('inf')] or must "
            f"be int or float, but got {ord}."
        )
    t = _norm_input(name, x, dtype)
    rank = len(t.shape)
    axes = tuple(range(rank)) if axis is None else _axes(name, axis, rank)
    return _vector_norm(t, ord, axes, bool(keepdims))


def matrix_norm(
    A: Any,
    ord: Any = "fro",
    axis: Any = (-2, -1),
    keepdims: bool = False,
    *,
    dtype: Any = None,  # noqa: A002, N803
) -> Any:
    """`ops.matrix_norm(A, ord='fro', axis=(-2, -1), keepdims=False, *, dtype=None)`:
    'fro', 'nuc', 1, -1, 2, -2, inf or -inf over the two axes."""
    name = "matrix_norm"
    if ord not in ("fro", "nuc", 1, -1, 2, -2, _INF, -_INF) or isinstance(ord, bool):
        raise ValueError(
            f"For {name}, the ord mode must be in [2, -2, 1, -1, float('inf'), float('-inf'), "
            f"'fro', 'nuc'] but got {ord}."
        )
    t = _norm_input(name, A, dtype)
    rank = len(t.shape)
    if rank < 2:
        raise ValueError("For norm, the dim is out of range.")
    axes = _axes(name, axis, rank)
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ValueError(f"For {name}, 'axis' must be two different axes, got {axis}")
    if ord not in ("nuc", 2, -2):
        return _matrix_norm(t, ord, axes, bool(keepdims))
    rest = [d for d in range(rank) if d not in axes]
    moved = t if list(axes) == [rank - 2, rank - 1] else transpose(t, (*rest, *axes))
    s = singular_values(moved)
    if ord == "nuc":
        out = reduce_sum(s, -1)
    else:
        out = s[..., 0] if ord == 2 else s[..., -1]
    if keepdims:
        for d in sorted(axes):
            out = expand_dims(out, d)
    return out


__all__ = ["matrix_norm", "pinv", "svd", "vector_norm"]
