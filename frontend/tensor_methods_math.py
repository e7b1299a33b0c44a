"""`TensorMethodsMath`: MindSpore 2.10's Tensor methods for linear algebra, special
functions and bitwise ops (issue 38), each calling its functional op in
frontend/ops (math_aliases.py, ...): one mixin of its own so the family's methods
sit together and the other mixins keep their size.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.tensor_method_support import ops_module


class TensorMethodsMath:
    __slots__ = ()

    # --- other names (frontend/ops/math_aliases.py, other_names.py)
    def inv(self) -> Any:
        return ops_module().inv(self)

    def approximate_equal(self, other: Any, tolerance: float = 1e-5) -> Any:
        return ops_module().approximate_equal(self, other, tolerance)

    def ldexp(self, other: Any) -> Any:
        return ops_module().ldexp(self, other)

    def nextafter(self, other: Any) -> Any:
        return ops_module().nextafter(self, other)

    # --- linear algebra (frontend/ops/linalg.py, linalg_qr.py)
    def det(self) -> Any:
        return ops_module().det(self)

    def matrix_determinant(self) -> Any:
        return ops_module().matrix_determinant(self)

    def slogdet(self) -> Any:
        return ops_module().slogdet(self)

    def log_matrix_determinant(self) -> Any:
        return ops_module().log_matrix_determinant(self)

    def logdet(self) -> Any:
        return ops_module().logdet(self)

    def inverse(self) -> Any:
        return ops_module().inverse(self)

    def cholesky(self, upper: bool = False) -> Any:
        return ops_module().cholesky(self, upper)

    def cholesky_inverse(self, upper: bool = False) -> Any:
        return ops_module().cholesky_inverse(self, upper)

    def cholesky_solve(self, input2: Any, upper: bool = False) -> Any:
        return ops_module().cholesky_solve(self, input2, upper)

    def lu_solve(self, LU_data: Any, LU_pivots: Any) -> Any:  # noqa: N803 - MindSpore's names
        return ops_module().lu_solve(self, LU_data, LU_pivots)

    def qr(self, some: bool = True) -> Any:
        return ops_module().qr(self, "reduced" if some else "complete")

    def geqrf(self) -> Any:
        return ops_module().geqrf(self)

    def orgqr(self, input2: Any) -> Any:
        return ops_module().orgqr(self, input2)

    def lstsq(self, A: Any) -> Any:  # noqa: N803 - MindSpore's name
        return ops_module().lstsq(self, A)

    def svd(self, full_matrices: bool = False, compute_uv: bool = True) -> Any:
        return ops_module().svd(self, full_matrices, compute_uv)

    # --- bitwise and integer numbers (frontend/ops/bitwise.py)
    def bitwise_and(self, other: Any) -> Any:
        return ops_module().bitwise_and(self, other)

    def bitwise_or(self, other: Any) -> Any:
        return ops_module().bitwise_or(self, other)

    def bitwise_xor(self, other: Any) -> Any:
        return ops_module().bitwise_xor(self, other)

    def bitwise_left_shift(self, other: Any) -> Any:
        return ops_module().bitwise_left_shift(self, other)

    def bitwise_right_shift(self, other: Any) -> Any:
        return ops_module().bitwise_right_shift(self, other)

    def invert(self) -> Any:
        return ops_module().invert(self)

    def gcd(self, other: Any) -> Any:
        return ops_module().gcd(self, other)

    def lcm(self, other: Any) -> Any:
        return ops_module().lcm(self, other)

    # --- special functions (frontend/ops/bessel.py, special_gamma.py, special_igamma.py)
    def i0(self) -> Any:
        return ops_module().i0(self)

    def digamma(self) -> Any:
        return ops_module().digamma(self)

    def erfinv(self) -> Any:
        return ops_module().erfinv(self)

    def mvlgamma(self, p: int) -> Any:
        return ops_module().mvlgamma(self, p)

    def igamma(self, other: Any) -> Any:
        return ops_module().igamma(self, other)

    def igammac(self, other: Any) -> Any:
        return ops_module().igammac(self, other)
