"""`GraphValue`: a tensor inside a graph being compiled (an SSA value, no data).

It has a Tensor's static facts (shape, dtype) and its operators, which emit
mindir through the same op functions PyNative mode runs eagerly.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from mindjit.frontend import dtype as D
from mindjit.frontend.tensor_operators import TensorOperators


class GraphValue(TensorOperators):
    __slots__ = ("ssa",)

    def __init__(self, ssa: SSAValue):
        self.ssa = ssa

    @property
    def _type(self) -> TensorType:
        t = self.ssa.type
        if not isinstance(t, TensorType):
            raise TypeError(f"graph value of type {t} is not a tensor")
        return t

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._type.get_shape())

    @property
    def dtype(self) -> D.DType:
        return D.from_mlir(self._type.get_element_type())

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __bool__(self) -> bool:
        raise TypeError(
            "the truth value of a tensor is only known when the graph runs; "
            "use it in an `if`/`while` of the compiled function instead"
        )

    def __setitem__(self, index: Any, value: Any) -> None:
        raise TypeError(
            "item assignment on a tensor in a graph is a statement of the compiled "
            "function (x[i] = v rebinds x); it cannot be done by Python code the graph runs"
        )

    def __repr__(self) -> str:
        return f"GraphValue({self.ssa.type})"
