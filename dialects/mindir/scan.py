"""mindir's scans: `cumsum` and `cumprod` along one axis (MindSpore's CumSum and
CumProd primitives).

`out[..., i, ...]` is the sum (product) of `x[..., j, ...]` for `j <= i`; with
`exclusive`, for `j < i` (the first element is 0, or 1); with `reverse`, for
`j >= i` (or `j > i`): the scan runs from the end of the axis. The result has
the input's type; the input has rank >= 1 (the frontend reshapes a scalar).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, TensorType, i64
from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.elementwise import check_element_kind
from mindjit.dialects.mindir.format import FALSE, TypedOp, bool_attr, int_prop


class ScanOp(TypedOp):
    """`cumsum`/`cumprod {axis, exclusive, reverse}` of a numeric tensor of rank >= 1."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr, IntegerAttr(0, i64))
    exclusive = prop_def(IntegerAttr, FALSE)
    reverse = prop_def(IntegerAttr, FALSE)
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        x = S.tensor_of(operand_types[0], "input")
        check_element_kind(cls.name, "numeric", x.get_element_type())
        if not x.get_shape():
            raise VerifyException(f"{cls.name} needs an input of rank >= 1, got {x}")
        S.normalize_axis(int_prop(props, "axis"), len(x.get_shape()))
        return x

    @classmethod
    def get(cls, x: SSAValue, axis: int = 0, exclusive: bool = False, reverse: bool = False):
        return cls.make(
            [x],
            {
                "axis": IntegerAttr(axis, i64),
                "exclusive": bool_attr(exclusive),
                "reverse": bool_attr(reverse),
            },
        )

    def scan_axis(self) -> int:
        return self.axis.value.data % len(S.tensor_of(self.input.type).get_shape())

    def is_exclusive(self) -> bool:
        return bool(self.exclusive.value.data)

    def is_reverse(self) -> bool:
        return bool(self.reverse.value.data)


@irdl_op_definition
class CumSumOp(ScanOp):
    """Running sums along `axis` (MindSpore's CumSum)."""

    name = "mindir.cumsum"


@irdl_op_definition
class CumProdOp(ScanOp):
    """Running products along `axis` (MindSpore's CumProd)."""

    name = "mindir.cumprod"


SCAN_OPS = (CumSumOp, CumProdOp)
