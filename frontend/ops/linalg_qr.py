"""MindSpore 2.10's QR family and least squares: `ops.geqrf`, `ops.orgqr`,
`ops.qr` and `ops.lstsq`, on linalg_core.py's Householder reflectors.

The reflectors are LAPACK's (geqrf's dlarfg: R's diagonal is -sign(alpha) ||x||,
tau = 0 where the column below the diagonal is exactly zero), so Q and R have
MindSpore's signs, not only its span. `lstsq(input, A)` is MindSpore's least
squares with `input` the (m, n) matrix and `A` the right-hand side: for m >= n
R x = Q^T A from input's QR; for m < n the minimum-norm solution Q (R^T)^-1 A
from the QR of input^T. `ormqr` is left out: MindSpore 2.10 has no CPU kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import linalg_core as core
from mindjit.frontend.ops.array import reshape
from mindjit.frontend.ops.axes import matrix_transpose
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.math import add, matmul, mul
from mindjit.frontend.ops.promotion import constant, is_tensor


def _float_matrix(x: Any, prim: str, arg: str, floats: tuple) -> Any:
    if not is_tensor(x) or x.dtype not in floats:
        got = f"Tensor[{x.dtype}]" if is_tensor(x) else type(x).__name__
        names = ", ".join(f"Tensor[{str(d).capitalize()}]" for d in floats)
        raise TypeError(
            f"For primitive[{prim}], the input argument[{arg}] must be a type of {{{names}}}, "
            f"but got {got}."
        )
    if len(x.shape) < 2:
        raise ValueError(
            f"For primitive[{prim}], the rank of {arg} must be greater than or equal to 2, but "
            f"got {len(x.shape)}."
        )
    return x


def _batch_eye(x: Any, rows: int, cols: int) -> Any:
    """The (rows, cols) identity, broadcast over x's leading axes."""
    eye = constant(np.eye(rows, cols), x.dtype)
    if len(x.shape) == 2:
        return eye
    zeros = mul(reshape(core.entry(core.row(x, 0), 0), (*x.shape[:-2], 1, 1)), 0.0)
    return add(zeros, eye)


def geqrf(input: Any) -> tuple[Any, Any]:  # noqa: A002 - MindSpore's name
    """`ops.geqrf(input)`: LAPACK's QR in one matrix (R on and above the diagonal,
    the reflectors below) and tau (..., min(m, n))."""
    x = _float_matrix(input, "Geqrf", "a", (D.float32, D.float64))
    return core.householder(x)


def orgqr(input: Any, input2: Any) -> Any:  # noqa: A002
    """`ops.orgqr(input, input2)`: the first n columns of Q = H_0 ... H_{k-1}
    from geqrf's (..., m, n) result and tau (..., k), m >= n >= k."""
    prim = "Orgqr"
    x = _float_matrix(input, prim, "x", (D.float32, D.float64))
    if not is_tensor(input2) or input2.dtype != x.dtype:
        raise TypeError(
            f"For primitive[{prim}], the input argument[tau] must be a type of "
            f"{{Tensor[Float32], Tensor[Float64]}} like x, but got {getattr(input2, 'dtype', input2)}."
        )
    m, n = x.shape[-2], x.shape[-1]
    if m < n:
        raise ValueError(
            f"For Orgqr, x.shape[-2] must be greater than or equal to x.shape[-1], while "
            f"x.shape[-2] is {m} and x.shape[-1] is {n}."
        )
    k = input2.shape[-1]
    if len(input2.shape) != len(x.shape) - 1 or k > n:
        raise ValueError(
            f"For Orgqr, tau must be (..., k) with k <= {n}, got {tuple(input2.shape)}"
        )
    return core.apply_reflectors(x, input2, _batch_eye(x, m, n), left=True, transpose=False)


def qr(input: Any, mode: str = "reduced") -> tuple[Any, Any]:  # noqa: A002
    """`ops.qr(input, mode='reduced')`: Q (..., m, k) and R (..., k, n), k = min(m, n),
    or with mode='complete' Q (..., m, m) and R (..., m, n)."""
    if mode not in ("reduced", "complete"):
        raise TypeError(f"For qr, the arg mode must be 'reduced' or 'complete', but got {mode}.")
    if not is_tensor(input) or not input.dtype.is_float:
        raise TypeError(
            f"For qr, the input must be a float Tensor, got {getattr(input, 'dtype', input)}"
        )
    if len(input.shape) < 2:
        raise ValueError("The input matrix must be at least two dimensions")
    x, dtype = (
        (cast_to(input, D.float32), D.float16) if input.dtype == D.float16 else (input, input.dtype)
    )
    m, n = x.shape[-2], x.shape[-1]
    k = min(m, n)
    packed, tau = core.householder(x)
    cols = m if mode == "complete" else k
    q = core.apply_reflectors(packed, tau, _batch_eye(x, m, cols), left=True, transpose=False)
    r = mul(
        matmul(constant(np.eye(cols, m), x.dtype), packed),
        constant(np.triu(np.ones((cols, n))), x.dtype),
    )
    if dtype != x.dtype:
        q, r = cast_to(q, dtype), cast_to(r, dtype)
    return q, r


def lstsq(input: Any, A: Any) -> Any:  # noqa: A002, N803 - MindSpore's names
    """`ops.lstsq(input, A)`: the least-squares solution X (n, k) of input X = A for
    a 2-D (m, n) input and A (m, k) or (m,); the minimum-norm one for m < n."""
    prim = "Lstsq"
    floats = (D.float16, D.float32, D.float64)
    for arg, t in (("x", input), ("a", A)):
        if not is_tensor(t) or t.dtype not in floats:
            got = f"Tensor[{t.dtype}]" if is_tensor(t) else type(t).__name__
            raise TypeError(
                f"For primitive[{prim}], the input argument[{arg}] must be a type of "
                f"{{Tensor[Float16], Tensor[Float32], Tensor[Float64]}}, but got {got}."
            )
    if len(input.shape) != 2:
        raise ValueError(
            f"For '{prim}', the dimension of x must be equal to 2, but got x_dim: {len(input.shape)}."
        )
    if len(A.shape) not in (1, 2):
        raise ValueError(
            f"For '{prim}', the dimension of A must be equal to 2 or 1, but got A_dim: {len(A.shape)}."
        )
    if input.shape[0] != A.shape[0]:
        raise ValueError(
            f"For '{prim}', the length of x_dim[0] must be equal to the length of a_dims[0]. But "
            f"got x_dim[0]: {input.shape[0]},  a_dims[0]: {A.shape[0]}."
        )
    if input.dtype != A.dtype:
        raise TypeError(f"For '{prim}', x and a must have the same dtype")
    dtype = input.dtype
    x = cast_to(input, D.float32) if dtype == D.float16 else input
    b = cast_to(A, x.dtype) if A.dtype != x.dtype else A
    if len(b.shape) == 1:
        b = reshape(b, (b.shape[0], 1))
    m, n = x.shape
    if m >= n:
        packed, tau = core.householder(x)
        qtb = core.apply_reflectors(packed, tau, b, left=True, transpose=True)
        r = matmul(constant(np.eye(n, m), x.dtype), packed)
        out = core.triangular_solve(r, matmul(constant(np.eye(n, m), x.dtype), qtb), lower=False)
    else:
        packed, tau = core.householder(matrix_transpose(x))  # x^T = Q R, Q (n, m)
        r = matmul(constant(np.eye(m, n), x.dtype), packed)
        y = core.triangular_solve(matrix_transpose(r), b, lower=True)  # R^T y = b
        pad = matmul(constant(np.eye(n, m), x.dtype), y)
        out = core.apply_reflectors(packed, tau, pad, left=True, transpose=False)
    return out if out.dtype == dtype else cast_to(out, dtype)


__all__ = ["geqrf", "lstsq", "orgqr", "qr"]
