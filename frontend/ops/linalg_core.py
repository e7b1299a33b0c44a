"""The dense linear-algebra algorithms behind `ops.det`, `ops.inverse`,
`ops.cholesky`, `ops.qr` ... (frontend/ops/linalg.py, linalg_qr.py), written as
compositions of mindir ops.

mindir has no LAPACK-like op, and none is needed: each algorithm is a loop of n
(the matrix size, static in every graph) whole-matrix steps, each a handful of
elementwise ops, a matmul and a compare, batched over the leading axes:

- `lu`: Doolittle elimination with partial pivoting (the row with the largest
  |value| in the column, the first on ties, as LAPACK's getrf), the row swap a
  permutation matrix built from a one-hot of the argmax;
- `gauss_jordan`: the same pivoting on [A | B], giving A^-1 B;
- `triangular_solve`: forward or back substitution, one row per step;
- `cholesky_lower`: the column-by-column Cholesky–Banachiewicz update;
- `householder`: LAPACK's geqrf (dlarfg's reflector: beta = -sign(alpha) ||x||,
  tau = 0 where the column below the diagonal is exactly zero), and
  `apply_reflectors`, which multiplies by Q or Q^T on either side (orgqr, ormqr).

So PyNative and graph mode run the same ops, the gradient is the composition's
(checked against finite differences; MindSpore's det/inverse/cholesky/qr
gradients are the same functions'), and every engine that runs matmul and
select runs these. The cost is O(n) ops per call and O(n^4) work for the swaps:
meant for the small matrices these names are used on. Divisions are guarded
(a zero pivot divides by 1) so that a singular input gives infinities or zeros
where LAPACK does, never a NaN from an unused branch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend.ops.array import concat, expand_dims, reshape
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.gather_ops import one_hot
from mindjit.frontend.ops.index_reduce import argmax
from mindjit.frontend.ops.math import (
    abs,
    add,
    div,
    equal,
    greater_equal,
    matmul,
    mul,
    select,
    sqrt,
    sub,
)
from mindjit.frontend.ops.promotion import constant
from mindjit.frontend.ops.reduce import reduce_sum


def _const(values: Any, like: Any) -> Any:
    return constant(np.asarray(values, np.float64), like.dtype)


def column(a: Any, k: int) -> Any:
    """a[..., :, k] as (..., m)."""
    return reduce_sum(mul(a, _const(np.eye(a.shape[-1])[k], a)), -1)


def row(a: Any, k: int) -> Any:
    """a[..., k, :] as (..., n)."""
    return reduce_sum(mul(a, _const(np.eye(a.shape[-2])[:, k : k + 1], a)), -2)


def entry(v: Any, k: int) -> Any:
    """v[..., k] of a (..., n) vector, as (...)."""
    n = v.shape[-1]
    return reduce_sum(mul(v, _const(np.eye(n)[k], v)), -1)


def outer(u: Any, v: Any) -> Any:
    """u[..., :, None] * v[..., None, :]."""
    return mul(expand_dims(u, -1), expand_dims(v, -2))


def eye_like(a: Any, n: int) -> Any:
    return _const(np.eye(n), a)


def _pivot_swap(a: Any, k: int) -> tuple[Any, Any]:
    """The permutation matrix that swaps row k with the row >= k of largest |a[:, k]|
    (the first on ties), and the swap's sign (+1 none, -1 one)."""
    m = a.shape[-2]
    below = _const(np.arange(m) >= k, a)
    scores = select(greater_equal(below, 1.0), abs(column(a, k)), -1.0)
    hot = cast_to(one_hot(argmax(scores, -1), m, 1.0, 0.0), a.dtype)  # (..., m)
    ek = _const(np.eye(m)[k], a)
    eye = eye_like(a, m)
    swap = add(
        sub(sub(eye, _const(np.outer(np.eye(m)[k], np.eye(m)[k]), a)), outer(hot, hot)),
        add(outer(ek, hot), outer(hot, ek)),
    )
    sign = sub(mul(entry(hot, k), 2.0), 1.0)
    return swap, sign


def _safe(x: Any) -> Any:
    """x, with 1 where x is 0 (a divisor that never makes a NaN)."""
    return select(equal(x, 0.0), 1.0, x)


def lu(a: Any) -> tuple[Any, Any, Any, Any]:
    """(P, L, U, sign) with P a = L U for square (..., n, n) a: P a permutation
    matrix, L unit lower, U upper triangular, sign = det(P)."""
    n = a.shape[-1]
    perm = eye_like(a, n) + 0 * a
    low = 0 * a
    sign = reduce_sum(0 * a, (-2, -1)) + 1.0
    for k in range(n):
        swap, s = _pivot_swap(a, k)
        a, low, perm = matmul(swap, a), matmul(swap, low), matmul(swap, perm)
        sign = mul(sign, s)
        pivot = entry(row(a, k), k)
        factors = mul(column(a, k), _const(np.arange(n) > k, a))
        factors = div(factors, expand_dims(_safe(pivot), -1))
        a = sub(a, outer(factors, row(a, k)))
        low = add(low, outer(factors, _const(np.eye(n)[k], a)))
    upper = mul(a, _const(np.triu(np.ones((n, n))), a))
    return perm, add(low, eye_like(a, n)), upper, sign


def gauss_jordan(a: Any, b: Any) -> Any:
    """a^-1 b for square (..., n, n) a and (..., n, m) b, by Gauss-Jordan elimination
    with partial pivoting."""
    n, m = a.shape[-1], b.shape[-1]
    aug = concat((a, b), -1)
    for k in range(n):
        swap, _ = _pivot_swap(aug, k)
        aug = matmul(swap, aug)
        pivot_row = row(aug, k)
        pivot_row = div(pivot_row, expand_dims(_safe(entry(pivot_row, k)), -1))
        others = mul(column(aug, k), _const(1.0 - np.eye(n)[k], aug))
        aug = sub(aug, outer(others, pivot_row))
        keep = _const(1.0 - np.eye(n)[k], aug)
        aug = add(mul(aug, expand_dims(keep, -1)), outer(_const(np.eye(n)[k], aug), pivot_row))
    return matmul(aug, _const(np.eye(n + m)[:, n:], aug))


def triangular_solve(t: Any, b: Any, lower: bool, unit_diagonal: bool = False) -> Any:
    """x with t x = b, t (..., n, n) lower or upper triangular (its other triangle
    ignored), b (..., n, m): substitution, one row per step."""
    n = t.shape[-1]
    x = 0 * b
    for i in range(n) if lower else reversed(range(n)):
        t_row = row(t, i)
        mask = np.arange(n) < i if lower else np.arange(n) > i
        done = matmul(expand_dims(mul(t_row, _const(mask, t_row)), -2), x)  # (..., 1, m)
        xi = sub(expand_dims(row(b, i), -2), done)
        if not unit_diagonal:
            xi = div(xi, expand_dims(expand_dims(entry(t_row, i), -1), -1))
        x = add(x, mul(_const(np.eye(n)[:, i : i + 1], x), xi))
    return x


def cholesky_lower(a: Any) -> Any:
    """L with a = L L^T, from a's lower triangle (a symmetric positive definite)."""
    n = a.shape[-1]
    low = 0 * a
    for j in range(n):
        lj = row(low, j)
        v = sub(column(a, j), reshape(matmul(low, expand_dims(lj, -1)), lj.shape))
        d = entry(v, j)
        col = mul(div(v, expand_dims(sqrt(d), -1)), _const(np.arange(n) >= j, v))
        low = add(low, outer(col, _const(np.eye(n)[j], v)))
    return low


def householder(a: Any) -> tuple[Any, Any]:
    """LAPACK geqrf for (..., m, n) a: R on and above the diagonal, the reflectors'
    vectors (their leading 1 implied) below, and tau (..., min(m, n))."""
    m, n = a.shape[-2], a.shape[-1]
    taus = []
    for k in range(min(m, n)):
        x = column(a, k)
        rows_below = _const(np.arange(m) > k, x)
        ek = _const(np.eye(m)[k], x)
        alpha = entry(x, k)
        s = reduce_sum(mul(mul(x, x), rows_below), -1)
        flat = equal(s, 0.0)
        norm = sqrt(select(flat, 1.0, add(mul(alpha, alpha), s)))
        beta = select(flat, alpha, mul(select(greater_equal(alpha, 0.0), -1.0, 1.0), norm))
        tau = select(flat, 0.0, div(sub(beta, alpha), select(flat, 1.0, beta)))
        scale = expand_dims(select(flat, 1.0, sub(alpha, beta)), -1)
        v = add(mul(div(x, scale), rows_below), ek)
        later = _const(np.arange(n) >= k, a)
        proj = mul(reshape(matmul(expand_dims(v, -2), a), (*a.shape[:-2], n)), later)
        a = sub(a, mul(expand_dims(expand_dims(tau, -1), -1), outer(v, proj)))
        above = mul(column(a, k), _const(np.arange(m) < k, x))  # R's column, kept
        packed = add(add(mul(v, rows_below), mul(ek, expand_dims(beta, -1))), above)
        keep_col = _const(1.0 - np.eye(n)[k], a)
        a = add(mul(a, keep_col), outer(packed, _const(np.eye(n)[k], a)))
        taus.append(expand_dims(tau, -1))
    tau = concat(taus, -1) if taus else reshape(0 * reduce_sum(a, (-2, -1)), (*a.shape[:-2], 0))
    return a, tau


def reflector(packed: Any, i: int) -> Any:
    """The i-th Householder vector of a geqrf result: 1 at i, packed[i+1:, i] below."""
    m = packed.shape[-2]
    below = _const(np.arange(m) > i, packed)
    return add(mul(column(packed, i), below), _const(np.eye(m)[i], packed))


def apply_reflectors(packed: Any, tau: Any, c: Any, left: bool, transpose: bool) -> Any:
    """Q c, Q^T c (left) or c Q, c Q^T, Q = H_0 H_1 ... H_{k-1}, H_i = I - tau_i v_i v_i^T."""
    k = tau.shape[-1]
    forward = left == transpose  # Q^T c = H_{k-1} ... H_0 c; c Q = c H_0 ... H_{k-1}
    for i in range(k) if forward else reversed(range(k)):
        v = reflector(packed, i)
        t = expand_dims(expand_dims(entry(tau, i), -1), -1)
        if left:
            proj = matmul(expand_dims(v, -2), c)  # (..., 1, p)
            c = sub(c, mul(t, mul(expand_dims(v, -1), proj)))
        else:
            proj = matmul(c, expand_dims(v, -1))  # (..., p, 1)
            c = sub(c, mul(t, mul(proj, expand_dims(v, -2))))
    return c
