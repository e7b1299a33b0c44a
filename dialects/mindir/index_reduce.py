"""mindir's index reductions: `argmax` and `argmin` along one axis.

MindSpore's Argmax/Argmin (and the index half of ArgMaxWithValue /
ArgMinWithValue): the position of the largest (smallest) element along `axis`,
the first one on ties and the first NaN if there is one (numpy's rule). The
result is an integer tensor of element type `index_type` (i32 or i64, MindSpore's
`output_type`), the input's shape without `axis`, or with it as size 1 under
`keep_dims`. The input has rank >= 1: the frontend answers a scalar's argmax (0)
itself.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, IntegerType, TensorType, TypeAttribute, i32, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.elementwise import check_element_kind
from mindjit.dialects.mindir.format import FALSE, TypedOp, bool_attr, bool_prop, int_prop


class ArgReduceOp(TypedOp):
    """`argmax`/`argmin {axis, keep_dims, index_type}` of a numeric tensor of rank >= 1."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr, IntegerAttr(-1, i64))
    keep_dims = prop_def(IntegerAttr, FALSE)
    index_type = prop_def(TypeAttribute, i32)
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        x = S.tensor_of(operand_types[0], "input")
        check_element_kind(cls.name, "numeric", x.get_element_type())
        shape = x.get_shape()
        if not shape:
            raise VerifyException(f"{cls.name} needs an input of rank >= 1, got {x}")
        axis = S.normalize_axis(int_prop(props, "axis", -1), len(shape))
        index = props.get("index_type", i32)
        if not (isinstance(index, IntegerType) and index.width.data in (32, 64)):
            raise VerifyException(f"{cls.name} index_type must be i32 or i64, got {index}")
        out = S.reduce_shape(shape, [axis], bool_prop(props, "keep_dims"))
        return S.tensor_type(out, index)

    @classmethod
    def get(cls, x: SSAValue, axis: int = -1, keep_dims: bool = False, index_type: Attribute = i32):
        return cls.make(
            [x],
            {
                "axis": IntegerAttr(axis, i64),
                "keep_dims": bool_attr(keep_dims),
                "index_type": index_type,
            },
        )

    def reduced_axis(self) -> int:
        """The reduced axis, normalized."""
        rank = len(S.tensor_of(self.input.type).get_shape())
        return self.axis.value.data % rank


@irdl_op_definition
class ArgMaxOp(ArgReduceOp):
    """Index of the first largest element along `axis` (MindSpore's Argmax)."""

    name = "mindir.argmax"


@irdl_op_definition
class ArgMinOp(ArgReduceOp):
    """Index of the first smallest element along `axis` (MindSpore's Argmin)."""

    name = "mindir.argmin"


INDEX_REDUCE_OPS = (ArgMaxOp, ArgMinOp)
