"""`mindir.matmul`: the (batched) matrix product, batch dimensions broadcast."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.elementwise import check_element_kind
from mindjit.dialects.mindir.format import FALSE, TypedOp, bool_attr, bool_prop


@irdl_op_definition
class MatMulOp(TypedOp):
    """`matmul(a, b) {transpose_a, transpose_b}`: (batched) matrix product, batch dims broadcast."""

    name = "mindir.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    transpose_a = prop_def(IntegerAttr, FALSE)
    transpose_b = prop_def(IntegerAttr, FALSE)
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        a, b = (S.tensor_of(t, w) for t, w in zip(operand_types, ("lhs", "rhs")))
        element = S.same_element_type([a, b], cls.name)
        check_element_kind(cls.name, "numeric", element)
        shape = S.matmul_shape(
            a.get_shape(),
            b.get_shape(),
            bool_prop(props, "transpose_a"),
            bool_prop(props, "transpose_b"),
        )
        return S.tensor_type(shape, element)

    @classmethod
    def get(
        cls, a: SSAValue, b: SSAValue, transpose_a: bool = False, transpose_b: bool = False
    ) -> MatMulOp:
        return cls.make(
            [a, b],
            {
                "transpose_a": bool_attr(transpose_a),
                "transpose_b": bool_attr(transpose_b),
            },
        )
