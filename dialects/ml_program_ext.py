"""MLIR's `ml_program` dialect, completed: xDSL 0.74 lacks global_load / global_store.

xDSL ships `ml_program.global` and `ml_program.global_load_const` only. The
stateful lowering of convert-mindir-to-tensor needs MLIR's mutable-global ops,
defined here as upstream specifies them (MLProgramOps.td):

    %v = ml_program.global_load @w : tensor<2xf32>
    ml_program.global_store @w = %v : tensor<2xf32>

Property `global` (a symbol ref to an `ml_program.global`), assembly format
`$global : type($result) attr-dict` / `$global = $value : type($value) attr-dict`,
a read (write) effect on the global, and MLIR's symbol-use checks with MLIR's
messages: the global must exist, have the loaded/stored type, and be mutable
to be stored to.

`MLProgram` below is xDSL's dialect plus these ops, under the same name. It is
not in the `xdsl.universe` entry point (xDSL already owns the name there);
`mindjit.dialects.context.mindjit_dialect_overrides` hands it to the contexts
mindjit builds (`make_context`, ms-opt) in place of xDSL's.
Drop this file once the pinned xDSL defines the two ops.
"""

from __future__ import annotations

from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.dialects.ml_program import GlobalLoadConstantOp, GlobalOp
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from mindjit.ir.symbols import lookup_symbol


def _lookup_global(op: IRDLOperation, ref: SymbolRefAttr) -> GlobalOp:
    target = lookup_symbol(op, ref)
    if not isinstance(target, GlobalOp):
        raise VerifyException(f"undefined global: {ref}")
    return target


@irdl_op_definition
class GlobalLoadOp(IRDLOperation):
    """`%v = ml_program.global_load @w : T`: non-atomic load of a (mutable) global."""

    name = "ml_program.global_load"
    global_ = prop_def(SymbolRefAttr, prop_name="global")
    result = result_def()
    traits = traits_def(MemoryReadEffect())
    assembly_format = "$global `:` type($result) attr-dict"

    def __init__(self, global_: SymbolRefAttr | str, result_type: Attribute):
        if isinstance(global_, str):
            global_ = SymbolRefAttr(global_)
        super().__init__(properties={"global": global_}, result_types=[result_type])

    @classmethod
    def get(cls, global_: SymbolRefAttr, result_type: Attribute) -> GlobalLoadOp:
        """The same op without IRDL's argument processing: a lowering emits one per
        Parameter use, thousands in a large model."""
        return cls.create(properties={"global": global_}, result_types=[result_type])

    def verify_(self) -> None:
        self.verify_target()

    def verify_target(self) -> None:
        """The op's own check (also run by `fast_verify`)."""
        target = _lookup_global(self, self.global_)
        if target.type != self.result.type:
            raise VerifyException(
                f"cannot load from global typed {target.type} as {self.result.type}"
            )


@irdl_op_definition
class GlobalStoreOp(IRDLOperation):
    """`ml_program.global_store @w = %v : T`: non-atomic store to a mutable global."""

    name = "ml_program.global_store"
    global_ = prop_def(SymbolRefAttr, prop_name="global")
    value = operand_def()
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$global `=` $value `:` type($value) attr-dict"

    def __init__(self, global_: SymbolRefAttr | str, value: SSAValue):
        if isinstance(global_, str):
            global_ = SymbolRefAttr(global_)
        super().__init__(properties={"global": global_}, operands=[value])

    def verify_(self) -> None:
        target = _lookup_global(self, self.global_)
        if target.is_mutable is None:
            raise VerifyException(f"cannot store to an immutable global {self.global_}")
        if target.type != self.value.type:
            raise VerifyException(
                f"cannot store to a global typed {target.type} from {self.value.type}"
            )


MLProgram = Dialect(
    "ml_program",
    [GlobalOp, GlobalLoadConstantOp, GlobalLoadOp, GlobalStoreOp],
)
