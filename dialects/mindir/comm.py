"""Point-to-point communication between pipeline stages: MindSpore's Send/Receive.

`mindir-pipeline-split` (issue 26) cuts a train step into one graph per stage
and puts a send / receive pair, matched by `sr_tag`, on every tensor crossing a
stage boundary. Both are IO side effects exactly like `mindir.print`: an
`!mindir.io` operand and result and the SideEffectIO trait, so auto-monad,
depend-order and CSE/DCE order and keep them the way they keep prints. The
receive carries its static type itself (MindSpore's Receive takes shape and
dtype), since nothing flows into it but the IO state.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir.effects import SideEffectIO
from mindjit.dialects.mindir.types import MonadIOType


def _non_negative(op: IRDLOperation, *names: str) -> None:
    for name in names:
        attr = op.attributes[name]
        assert isinstance(attr, IntegerAttr)
        if attr.value.data < 0:
            raise VerifyException(f"{name} must be >= 0, got {attr.value.data}")


@irdl_op_definition
class SendOp(IRDLOperation):
    """`%io1 = mindir.send %x, %io0 {sr_tag = 3 : i64, dest_rank = 1 : i64} : T`."""

    name = "mindir.send"
    input = operand_def(TensorType)
    io = operand_def(MonadIOType)
    result = result_def(MonadIOType)
    sr_tag = attr_def(IntegerAttr)
    dest_rank = attr_def(IntegerAttr)
    traits = traits_def(SideEffectIO())
    assembly_format = "$input `,` $io attr-dict `:` type($input)"

    @classmethod
    def get(cls, x: SSAValue, io: SSAValue, sr_tag: int, dest_rank: int) -> SendOp:
        return cls.create(
            operands=[x, io],
            result_types=[MonadIOType()],
            attributes={
                "sr_tag": IntegerAttr(sr_tag, i64),
                "dest_rank": IntegerAttr(dest_rank, i64),
            },
        )

    def verify_(self) -> None:
        _non_negative(self, "sr_tag", "dest_rank")


@irdl_op_definition
class ReceiveOp(IRDLOperation):
    """`%y, %io1 = mindir.receive %io0 {sr_tag = 3 : i64, src_rank = 0 : i64} : T`."""

    name = "mindir.receive"
    io = operand_def(MonadIOType)
    result = result_def(TensorType)
    io_out = result_def(MonadIOType)
    sr_tag = attr_def(IntegerAttr)
    src_rank = attr_def(IntegerAttr)
    traits = traits_def(SideEffectIO())
    assembly_format = "$io attr-dict `:` type($result)"

    @classmethod
    def get(cls, io: SSAValue, type_: Attribute, sr_tag: int, src_rank: int) -> ReceiveOp:
        return cls.create(
            operands=[io],
            result_types=[type_, MonadIOType()],
            attributes={"sr_tag": IntegerAttr(sr_tag, i64), "src_rank": IntegerAttr(src_rank, i64)},
        )

    def verify_(self) -> None:
        _non_negative(self, "sr_tag", "src_rank")
        t = self.result.type
        assert isinstance(t, TensorType)
        if not t.has_static_shape():
            raise VerifyException(f"the received tensor must have a static shape, got {t}")


COMM_OPS = (SendOp, ReceiveOp)
