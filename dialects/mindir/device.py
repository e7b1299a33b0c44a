"""Ascend float-status ops. Like MindSpore's they carry no side-effect attribute
and are ordered with `depend`; they are not Pure either, so CSE never merges two
reads of the status taken at different times."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType, f32
from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, result_def
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir.format import TypedOp

STATUS_TYPE = TensorType(f32, [8])


def _check_status(t, what: str) -> None:
    if t != STATUS_TYPE:
        raise VerifyException(f"{what} must be tensor<8xf32>, got {t}")


@irdl_op_definition
class NPUAllocFloatStatusOp(TypedOp):
    """`%s = mindir.npu_alloc_float_status : tensor<8xf32>`."""

    name = "mindir.npu_alloc_float_status"
    result = result_def(TensorType)
    assembly_format = "attr-dict `:` type($result)"

    @classmethod
    def infer_result(cls, operand_types, props):
        return STATUS_TYPE

    @classmethod
    def get(cls) -> NPUAllocFloatStatusOp:
        return cls.make([])


class _StatusOp(TypedOp):
    status = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def infer_result(cls, operand_types, props):
        _check_status(operand_types[0], "status operand")
        return STATUS_TYPE

    @classmethod
    def get(cls, status: SSAValue):
        return cls.make([status])


@irdl_op_definition
class NPUClearFloatStatusOp(_StatusOp):
    """`%s1 = mindir.npu_clear_float_status %s : tensor<8xf32>`."""

    name = "mindir.npu_clear_float_status"


@irdl_op_definition
class NPUGetFloatStatusOp(_StatusOp):
    """`%s1 = mindir.npu_get_float_status %s : tensor<8xf32>`."""

    name = "mindir.npu_get_float_status"


DEVICE_OPS = (NPUAllocFloatStatusOp, NPUClearFloatStatusOp, NPUGetFloatStatusOp)
