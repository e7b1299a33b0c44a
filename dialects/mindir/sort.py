"""mindir's sort: `%v, %i = mindir.sort %x {axis, descending}` (MindSpore's Sort).

The values of `x` sorted along `axis` (ascending, or descending), and for each
its position in `x` (`indices`, i32 as MindSpore's). The sort is stable: equal
elements keep their order in `x` in both directions, which is MindSpore's rule
(TopK: "the smaller index first"). NaN sorts as larger than every number (last
ascending, first descending), numpy's and MindSpore's CPU kernel's order.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, TensorType, i32, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.elementwise import check_element_kind
from mindjit.dialects.mindir.format import FALSE, bool_attr


@irdl_op_definition
class SortOp(IRDLOperation):
    """`sort {axis = -1, descending = false}` -> (values, i32 indices), stable."""

    name = "mindir.sort"
    input = operand_def(TensorType)
    values = result_def(TensorType)
    indices = result_def(TensorType)
    axis = prop_def(IntegerAttr, IntegerAttr(-1, i64))
    descending = prop_def(IntegerAttr, FALSE)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$input attr-dict `:` type($input) `->` `(` type($values) `,` type($indices) `)`"
    )

    @staticmethod
    def infer_types(x: Attribute, axis: int) -> tuple[TensorType, TensorType]:
        t = S.tensor_of(x, "input")
        check_element_kind(SortOp.name, "numeric", t.get_element_type())
        shape = t.get_shape()
        if not shape:
            raise VerifyException(f"{SortOp.name} needs an input of rank >= 1, got {t}")
        S.normalize_axis(axis, len(shape))
        return t, S.tensor_type(shape, i32)

    @classmethod
    def get(cls, x: SSAValue, axis: int = -1, descending: bool = False) -> SortOp:
        values, indices = cls.infer_types(x.type, axis)
        return cls.create(
            operands=[x],
            result_types=[values, indices],
            properties={
                "axis": IntegerAttr(axis, i64),
                "descending": bool_attr(descending),
            },
        )

    def verify_(self) -> None:
        expected = self.infer_types(self.input.type, self.axis.value.data)
        actual = (self.values.type, self.indices.type)
        if expected != actual:
            raise VerifyException(
                f"result types ({actual[0]}, {actual[1]}) do not match the inferred types "
                f"({expected[0]}, {expected[1]})"
            )

    def sorted_axis(self) -> int:
        return self.axis.value.data % len(S.tensor_of(self.input.type).get_shape())

    def is_descending(self) -> bool:
        return bool(self.descending.value.data)


SORT_OPS = (SortOp,)
