"""`TensorOperators`: Python operators and tensor methods for Tensor and GraphValue.

Each operator calls the functional op from `mindjit.frontend.ops`, so `x + 1`
computes eagerly on a Tensor and emits `mindir.add` on a GraphValue, with the
same promotion and checks. Subclasses provide `shape` and `dtype`. The methods
are in tensor_methods.py, tensor_methods_more.py, tensor_methods_inplace.py and
tensor_methods_scatter.py (mixins of this class).
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.tensor_method_support import (
    is_operand,
    ops_module,
)
from mindjit.frontend.tensor_methods import TensorMethods
from mindjit.frontend.tensor_methods_inplace import TensorMethodsInPlace
from mindjit.frontend.tensor_methods_math import TensorMethodsMath
from mindjit.frontend.tensor_methods_more import TensorMethodsMore
from mindjit.frontend.tensor_methods_scatter import TensorMethodsScatter


class TensorOperators(
    TensorMethods, TensorMethodsMore, TensorMethodsInPlace, TensorMethodsScatter, TensorMethodsMath
):
    __slots__ = ()
    # numpy defers `ndarray + tensor` to our reflected methods
    __array_priority__ = 1000

    shape: Any
    dtype: Any

    # --- arithmetic ------------------------------------------------------------------
    def __add__(self, other: Any) -> Any:
        return ops_module().add(self, other)

    def __radd__(self, other: Any) -> Any:
        return ops_module().add(other, self)

    def __sub__(self, other: Any) -> Any:
        return ops_module().sub(self, other)

    def __rsub__(self, other: Any) -> Any:
        return ops_module().sub(other, self)

    def __mul__(self, other: Any) -> Any:
        return ops_module().mul(self, other)

    def __rmul__(self, other: Any) -> Any:
        return ops_module().mul(other, self)

    def __truediv__(self, other: Any) -> Any:
        return ops_module().div(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return ops_module().div(other, self)

    def __floordiv__(self, other: Any) -> Any:
        return ops_module().floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Any:
        return ops_module().floor_divide(other, self)

    def __mod__(self, other: Any) -> Any:
        return ops_module().remainder(self, other)

    def __rmod__(self, other: Any) -> Any:
        return ops_module().remainder(other, self)

    def __pow__(self, other: Any) -> Any:
        return ops_module().pow(self, other)

    def __rpow__(self, other: Any) -> Any:
        return ops_module().pow(other, self)

    def __matmul__(self, other: Any) -> Any:
        return ops_module().matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return ops_module().matmul(other, self)

    def __neg__(self) -> Any:
        return ops_module().neg(self)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return ops_module().abs(self)

    # --- logical (bool tensors) --------------------------------------------------------
    def _logical(self, other: Any, name: str, reflected: bool = False) -> Any:
        from mindjit.frontend.ops.promotion import result_dtype  # function-level: ops import Tensor

        if not result_dtype(self, other).is_bool:
            raise TypeError(
                f"'{name}' is only supported on bool tensors (bitwise ops are not supported)"
            )
        ops = ops_module()
        fn = {"&": ops.logical_and, "|": ops.logical_or, "^": ops.logical_xor}[name]
        return fn(other, self) if reflected else fn(self, other)

    def __and__(self, other: Any) -> Any:
        return self._logical(other, "&")

    def __rand__(self, other: Any) -> Any:
        return self._logical(other, "&", True)

    def __or__(self, other: Any) -> Any:
        return self._logical(other, "|")

    def __ror__(self, other: Any) -> Any:
        return self._logical(other, "|", True)

    def __xor__(self, other: Any) -> Any:
        return self._logical(other, "^")

    def __rxor__(self, other: Any) -> Any:
        return self._logical(other, "^", True)

    def __invert__(self) -> Any:
        if not self.dtype.is_bool:
            raise TypeError("'~' is only supported on bool tensors (bitwise not is not supported)")
        return ops_module().logical_not(self)

    # --- comparison -------------------------------------------------------------------
    def __lt__(self, other: Any) -> Any:
        return ops_module().less(self, other)

    def __le__(self, other: Any) -> Any:
        return ops_module().less_equal(self, other)

    def __gt__(self, other: Any) -> Any:
        return ops_module().greater(self, other)

    def __ge__(self, other: Any) -> Any:
        return ops_module().greater_equal(self, other)

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        if not is_operand(other):
            return False
        return ops_module().equal(self, other)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        if not is_operand(other):
            return True
        return ops_module().not_equal(self, other)

    def __hash__(self) -> int:
        return id(self)

    # --- indexing -----------------------------------------------------------------------
    def __getitem__(self, index: Any) -> Any:
        return ops_module().getitem(self, index)

    def __iter__(self) -> Any:
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))
