"""mindir's tuples: `make_tuple`, `tuple_get_item`, and `addn` (the sum of a tuple)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, TensorType, TupleType, i64
from xdsl.ir import SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.elementwise import check_element_kind
from mindjit.dialects.mindir.format import TypedOp, int_prop


@irdl_op_definition
class MakeTupleOp(TypedOp):
    """`make_tuple(a, b, ...) -> tuple<...>`."""

    name = "mindir.make_tuple"
    elements = var_operand_def()
    result = result_def(TupleType)
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        return TupleType(ArrayAttr(tuple(operand_types)))

    @classmethod
    def get(cls, elements: Sequence[SSAValue]) -> MakeTupleOp:
        return cls.make(list(elements))


@irdl_op_definition
class TupleGetItemOp(TypedOp):
    """`tuple_get_item(t) {index}`: one element of a tuple."""

    name = "mindir.tuple_get_item"
    tuple = operand_def(TupleType)
    result = result_def()
    index = prop_def(IntegerAttr)
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        t = operand_types[0]
        if not isinstance(t, TupleType):
            raise VerifyException(f"tuple_get_item needs a tuple, got {t}")
        index = int_prop(props, "index")
        n = len(t.types.data)
        if not 0 <= index < n:
            raise VerifyException(f"index {index} is out of range for a tuple of {n} elements")
        return t.types.data[index]

    @classmethod
    def get(cls, t: SSAValue, index: int) -> TupleGetItemOp:
        return cls.make([t], {"index": IntegerAttr(index, i64)})


@irdl_op_definition
class AddNOp(TypedOp):
    """`addn(tuple)`: the sum of a tuple of tensors of one type."""

    name = "mindir.addn"
    inputs = operand_def(TupleType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        t = operand_types[0]
        if not isinstance(t, TupleType) or not t.types.data:
            raise VerifyException(f"addn needs a non-empty tuple of tensors, got {t}")
        types = [S.tensor_of(e, f"element #{i}") for i, e in enumerate(t.types.data)]
        if any(e != types[0] for e in types):
            raise VerifyException(
                "addn elements must all have one type, got " + ", ".join(map(str, types))
            )
        check_element_kind(cls.name, "numeric", types[0].get_element_type())
        return types[0]

    @classmethod
    def get(cls, t: SSAValue) -> AddNOp:
        return cls.make([t])


TUPLE_OPS = (MakeTupleOp, TupleGetItemOp, AddNOp)
