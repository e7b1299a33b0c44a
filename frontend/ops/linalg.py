"""MindSpore 2.10's determinants, inverses and solves: `ops.det`, `ops.slogdet`,
`ops.logdet`, `ops.matrix_determinant`, `ops.log_matrix_determinant`,
`ops.inverse`, `ops.matrix_solve`, `ops.cholesky`, `ops.cholesky_inverse`,
`ops.cholesky_solve`, `ops.lu_solve`, `ops.lu_unpack`.
`Tensor.triangular_solve` is left out: MindSpore 2.10 lists it but its CPU call
fails (AttributeError in its registry); `ops.ormqr` too (no CPU kernel).

Each is a composition of the algorithms in linalg_core.py (so they run in both
modes, on every engine, with gradients). MindSpore's checks are kept: float
inputs only (int is a TypeError), at least 2-D square matrices (ValueError).
Where MindSpore's CPU kernels print infinities for float16 (det, cholesky,
matrix_solve), mindjit computes in float32 and rounds; `inverse` refuses float16
as MindSpore does. MindSpore's checks on the values are made in PyNative, where the
values are there: `cholesky` of a matrix that is not symmetric positive definite
is a RuntimeError, `matrix_solve` of a singular matrix a ValueError; a graph
cannot raise on data and gives NaNs or infinities there. A singular `inverse` is not
MindSpore's (it prints arbitrary finite values; mindjit infinities or NaNs).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.ops import linalg_core as core
from mindjit.frontend.ops.axes import matrix_transpose
from mindjit.frontend.ops.cast import cast_to
from mindjit.frontend.ops.contract import prod
from mindjit.frontend.ops.gather_ops import one_hot
from mindjit.frontend.ops.math import abs, add, log, matmul, mul, sub
from mindjit.frontend.ops.math_functions import sign
from mindjit.frontend.ops.promotion import constant, is_tensor
from mindjit.frontend.ops.reduce import reduce_sum

_FLOATS = (D.float16, D.float32, D.float64)


def _matrices(x: Any, prim: str, floats: tuple = _FLOATS, arg: str = "x") -> Any:
    """x, checked: a float tensor of rank >= 2 with square matrices."""
    if not is_tensor(x):
        raise TypeError(f"For primitive[{prim}], the input argument[{arg}] must be a Tensor")
    if x.dtype not in floats:
        names = ", ".join(f"Tensor[{str(d).capitalize()}]" for d in floats)
        raise TypeError(
            f"For primitive[{prim}], the input argument[{arg}] must be a type of {{{names}}}, "
            f"but got Tensor[{x.dtype}]."
        )
    rank = len(x.shape)
    if rank < 2:
        raise ValueError(
            f"For primitive[{prim}], the x rank must be greater than or equal to 2, but got {rank}."
        )
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"For primitive[{prim}], the row size must be equal to {x.shape[-2]}, but got "
            f"{x.shape[-1]}."
        )
    if x.shape[-1] == 0:
        raise ValueError(
            f"For primitive[{prim}], the row size must be greater than or equal to 1, but got 0."
        )
    return x


def _widen(x: Any) -> tuple[Any, Any]:
    """(x in float32 when float16, x's dtype): float16 is computed in float32."""
    return (cast_to(x, D.float32), D.float16) if x.dtype == D.float16 else (x, x.dtype)


def _back(y: Any, dtype: Any) -> Any:
    return y if y.dtype == dtype else cast_to(y, dtype)


def _diagonal(u: Any) -> Any:
    n = u.shape[-1]
    return reduce_sum(mul(u, constant(np.eye(n), u.dtype)), -1)


def _det(x: Any, prim: str) -> Any:
    a, dtype = _widen(_matrices(x, prim))
    _, _, upper, s = core.lu(a)
    return _back(mul(s, prod(_diagonal(upper), -1)), dtype)


def det(input: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.det(input)`: the determinants of the square matrices (..., n, n)."""
    return _det(input, "MatrixDeterminant")


def matrix_determinant(input: Any) -> Any:  # noqa: A002
    """`ops.matrix_determinant(input)`: `det`."""
    return _det(input, "MatrixDeterminant")


def _slogdet(x: Any) -> tuple[Any, Any]:
    a, dtype = _widen(_matrices(x, "LogMatrixDeterminant"))
    _, _, upper, s = core.lu(a)
    d = _diagonal(upper)
    return _back(mul(s, prod(sign(d), -1)), dtype), _back(reduce_sum(log(abs(d)), -1), dtype)


def slogdet(input: Any) -> tuple[Any, Any]:  # noqa: A002
    """`ops.slogdet(input)`: (sign, log |det|); a singular matrix gives (0, -inf)."""
    return _slogdet(input)


def log_matrix_determinant(input: Any) -> tuple[Any, Any]:  # noqa: A002
    """`ops.log_matrix_determinant(input)`: `slogdet`."""
    return _slogdet(input)


def logdet(input: Any) -> Any:  # noqa: A002
    """`ops.logdet(input)`: log(det(input)): NaN for a negative determinant."""
    return log(_det(input, "MatrixDeterminant"))


def inverse(input: Any) -> Any:  # noqa: A002
    """`ops.inverse(input)`: the inverses of the square float32/float64 matrices."""
    a = _matrices(input, "MatrixInverse", (D.float32, D.float64))
    n = a.shape[-1]
    eye = mul(constant(np.eye(n), a.dtype), add(mul(a, 0.0), 1.0))
    return core.gauss_jordan(a, eye)


def matrix_solve(matrix: Any, rhs: Any, adjoint: bool = False) -> Any:
    """`ops.matrix_solve(matrix, rhs, adjoint=False)`: x with matrix x = rhs
    (matrix^T x = rhs with adjoint), (..., n, n) and (..., n, k)."""
    prim = "MatrixSolve"
    a = _matrices(matrix, prim, arg="matrix type")
    if not is_tensor(rhs) or rhs.dtype != a.dtype:
        raise TypeError(f"For primitive[{prim}], 'rhs' must be a Tensor of {a.dtype}")
    if len(rhs.shape) != len(a.shape):
        raise ValueError(
            f"For primitive[{prim}], the dimension of 'matrix' must be equal to the dimension "
            f"of 'rhs' which is {len(rhs.shape)} , but got {len(a.shape)}."
        )
    if rhs.shape[-2] != a.shape[-1] or tuple(rhs.shape[:-2]) != tuple(a.shape[:-2]):
        raise ValueError(
            f"For primitive[{prim}], 'rhs' must be (..., {a.shape[-1]}, k) with the batch of "
            f"'matrix', got {tuple(rhs.shape)}"
        )
    if current_graph() is None and bool((np.linalg.det(a.asnumpy().astype(np.float64)) == 0).any()):
        raise ValueError(f"For '{prim}', the input 'matrix' is not invertible.")
    a, dtype = _widen(a)
    b = cast_to(rhs, a.dtype) if rhs.dtype != a.dtype else rhs
    if adjoint:
        a = matrix_transpose(a)
    return _back(core.gauss_jordan(a, b), dtype)


def _upper_flag(name: str, upper: Any) -> bool:
    if not isinstance(upper, bool):
        raise TypeError(f"For '{name}', 'upper' must be a bool, but got {type(upper).__name__}")
    return upper


def cholesky(input_x: Any, upper: bool = False) -> Any:
    """`ops.cholesky(input_x, upper=False)`: L with input_x = L L^T (or U with
    U^T U), for symmetric positive definite matrices."""
    name = "Cholesky"
    upper = _upper_flag(name, upper)
    if is_tensor(input_x) and len(input_x.shape) < 2:
        raise ValueError(
            f"For {name}, the dimension of input x must be greater than or equal to 2, but got "
            f"a {len(input_x.shape)}-D Tensor."
        )
    if is_tensor(input_x) and input_x.shape[-1] != input_x.shape[-2]:
        raise ValueError(
            f"For {name}, input x must be batch squares, but got batch {input_x.shape[-2]} x "
            f"{input_x.shape[-1]} matrices."
        )
    a, dtype = _widen(_matrices(input_x, name))
    if upper:  # U from the upper triangle: the transpose of the lower factor of a^T
        out = matrix_transpose(core.cholesky_lower(matrix_transpose(a)))
    else:
        out = core.cholesky_lower(a)
    if current_graph() is None:
        _check_positive_definite(a.asnumpy(), out.asnumpy())
    return _back(out, dtype)


def _check_positive_definite(a: np.ndarray, factor: np.ndarray) -> None:
    """MindSpore's RuntimeError (PyNative): a not symmetric, or not positive definite
    (a NaN or a zero on the factor's diagonal)."""
    diag = np.diagonal(factor, axis1=-2, axis2=-1)
    symmetric = np.allclose(a, np.swapaxes(a, -1, -2), rtol=1e-5, atol=1e-6)
    if not symmetric or not np.all(diag > 0):
        raise RuntimeError("Cholesky expects symmetric positive definite matrices as inputs.")


def _factor(name: str, x: Any) -> Any:
    if not is_tensor(x) or x.dtype not in (D.float32, D.float64):
        raise TypeError(f"For '{name}', the input must be a float32 or float64 Tensor")
    if len(x.shape) != 2 or x.shape[0] != x.shape[1]:
        raise ValueError(f"For '{name}', the input must be a square matrix, got {tuple(x.shape)}")
    return x


def cholesky_inverse(input_x: Any, upper: bool = False) -> Any:
    """`ops.cholesky_inverse(input_x, upper=False)`: (L L^T)^-1 from the lower
    factor L (or (U^T U)^-1 from the upper U)."""
    name = "CholeskyInverse"
    upper = _upper_flag(name, upper)
    f = _factor(name, input_x)
    low = matrix_transpose(f) if upper else f
    n = f.shape[-1]
    inv_low = core.triangular_solve(low, constant(np.eye(n), f.dtype), lower=True)
    return matmul(matrix_transpose(inv_low), inv_low)


def _cholesky_system(b: Any, low: Any) -> Any:
    y = core.triangular_solve(low, b, lower=True)
    return core.triangular_solve(matrix_transpose(low), y, lower=False)


def cholesky_solve(input: Any, input2: Any, upper: bool = False) -> Any:  # noqa: A002
    """`ops.cholesky_solve(input, input2, upper=False)`: x with A x = input, A =
    L L^T (input2 = L) or U^T U (input2 = U); rank 2 or 3."""
    name = "CholeskySolve"
    upper = _upper_flag(name, upper)
    for t in (input, input2):
        if not is_tensor(t) or t.dtype not in (D.float32, D.float64):
            raise TypeError(f"For primitive[{name}], the inputs must be float32 or float64")
    if input.dtype != input2.dtype:
        raise TypeError(f"For primitive[{name}], the input type must be same.")
    if len(input.shape) not in (2, 3):
        raise ValueError(
            f"For {name}, the rank of x1 must be 2 or 3, but got rank {len(input.shape)}"
        )
    if len(input2.shape) != len(input.shape) or input2.shape[-1] != input2.shape[-2]:
        raise ValueError(f"For {name}, x2 must be square matrices of x1's rank")
    if input.shape[-2] != input2.shape[-1]:
        raise ValueError(f"For {name}, x1 must have {input2.shape[-1]} rows")
    low = matrix_transpose(input2) if upper else input2
    return _cholesky_system(input, low)


def _swaps(pivots: Any, m: int, dtype: Any) -> Any:
    """P = S_0 S_1 ... S_{k-1} (S_i swaps rows i and pivots[i] - 1): a = P L U."""
    k = pivots.shape[-1]
    perm = None
    hot_all = cast_to(one_hot(cast_to(sub(pivots, 1), D.int64), m, 1.0, 0.0), dtype)  # (..., k, m)
    for i in range(k):
        hot = core.row(hot_all, i)
        ei = constant(np.eye(m)[i], dtype)
        swap = add(
            sub(
                sub(
                    constant(np.eye(m), dtype),
                    constant(np.outer(np.eye(m)[i], np.eye(m)[i]), dtype),
                ),
                core.outer(hot, hot),
            ),
            add(core.outer(ei, hot), core.outer(hot, ei)),
        )
        perm = swap if perm is None else matmul(perm, swap)
    return perm


def _lu_parts(data: Any, pivots: Any, name: str) -> tuple[Any, Any, Any]:
    if not is_tensor(data) or not data.dtype.is_float:
        raise TypeError(f"For '{name}', 'LU_data' must be a float Tensor")
    if not is_tensor(pivots) or pivots.dtype not in (D.int32, D.int64, D.int16, D.int8, D.uint8):
        raise TypeError(f"For '{name}', 'LU_pivots' must be an int Tensor")
    if len(data.shape) < 2:
        raise ValueError(
            f"For '{name}', LU_data's dimension must be greater than or equal to 2, but got: "
            f"{len(data.shape)}."
        )
    m, n = data.shape[-2], data.shape[-1]
    k = min(m, n)
    if pivots.shape[-1] != k or tuple(pivots.shape[:-1]) != tuple(data.shape[:-2]):
        raise ValueError(f"For '{name}', LU_pivots must have shape {(*data.shape[:-2], k)}")
    low = add(
        mul(data, constant(np.tril(np.ones((m, n)), -1), data.dtype)),
        constant(np.eye(m, n), data.dtype),
    )
    low = matmul(low, constant(np.eye(n, k), data.dtype))
    up = matmul(
        constant(np.eye(k, m), data.dtype),
        mul(data, constant(np.triu(np.ones((m, n))), data.dtype)),
    )
    return _swaps(pivots, m, data.dtype), low, up


def lu_unpack(
    LU_data: Any,
    LU_pivots: Any,
    unpack_data: bool = True,
    unpack_pivots: bool = True,  # noqa: N803
) -> tuple[Any, Any, Any]:
    """`ops.lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True)`:
    (P, L, U) with A = P L U from getrf's packed factors and 1-based pivots; a part
    not asked for is None."""
    perm, low, up = _lu_parts(LU_data, LU_pivots, "lu_unpack")
    return (
        perm if unpack_pivots else None,
        low if unpack_data else None,
        up if unpack_data else None,
    )


def lu_solve(b: Any, LU_data: Any, LU_pivots: Any) -> Any:  # noqa: N803
    """`ops.lu_solve(b, LU_data, LU_pivots)`: x with A x = b, A = P L U given by
    getrf's packed factors (..., n, n) and 1-based pivots (..., n)."""
    name = "LuSolve"
    if not is_tensor(b) or len(b.shape) < 2:
        raise ValueError(
            f"For '{name}', x's dimension must be greater than or equal to 2, but got: "
            f"{len(b.shape) if is_tensor(b) else 0}."
        )
    if not is_tensor(LU_data) or b.dtype != LU_data.dtype:
        raise TypeError(f"For '{name}', 'b' and 'LU_data' must have one float dtype")
    if LU_data.shape[-1] != LU_data.shape[-2] or b.shape[-2] != LU_data.shape[-1]:
        raise ValueError(f"For '{name}', LU_data must be (..., n, n) and b (..., n, k)")
    perm, low, up = _lu_parts(LU_data, LU_pivots, name)
    y = core.triangular_solve(
        low, matmul(matrix_transpose(perm), b), lower=True, unit_diagonal=True
    )
    return core.triangular_solve(up, y, lower=False)


__all__ = [
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "det",
    "inverse",
    "log_matrix_determinant",
    "logdet",
    "lu_solve",
    "lu_unpack",
    "matrix_determinant",
    "matrix_solve",
    "slogdet",
]
