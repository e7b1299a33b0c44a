"""mindir's reductions: `reduce_sum`, `reduce_mean`, `reduce_max` over `axis`
(empty: every axis), keeping the reduced axes as size 1 with `keep_dims`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType, i64
from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.elementwise import check_element_kind
from mindjit.dialects.mindir.format import FALSE, TypedOp, bool_attr, bool_prop, ints_prop


def i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


class ReduceOp(TypedOp):
    """Reduce over `axis` (empty: all axes), keeping reduced axes as size 1 if `keep_dims`."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(DenseArrayBase.constr(i64), i64_array([]))
    keep_dims = prop_def(IntegerAttr, FALSE)
    traits = traits_def(Pure())
    ALLOWED: ClassVar[str] = "numeric"

    @classmethod
    def infer_result(cls, operand_types, props):
        x = S.tensor_of(operand_types[0], "input")
        check_element_kind(cls.name, cls.ALLOWED, x.get_element_type())
        shape = S.reduce_shape(
            x.get_shape(), ints_prop(props, "axis"), bool_prop(props, "keep_dims")
        )
        return S.tensor_type(shape, x.get_element_type())

    @classmethod
    def get(cls, x: SSAValue, axis: Sequence[int] = (), keep_dims: bool = False):
        return cls.make([x], {"axis": i64_array(axis), "keep_dims": bool_attr(keep_dims)})

    def reduced_axes(self) -> tuple[int, ...]:
        """The reduced axes, normalized and sorted (all axes when `axis` is empty)."""
        rank = len(self.input.type.get_shape())  # type: ignore[union-attr]
        axes = ints_prop(dict(self.properties), "axis")
        return tuple(sorted({a % rank for a in axes})) if axes else tuple(range(rank))


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    name = "mindir.reduce_sum"


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    name = "mindir.reduce_mean"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    name = "mindir.reduce_max"


REDUCE_OPS = (ReduceSumOp, ReduceMeanOp, ReduceMaxOp)
