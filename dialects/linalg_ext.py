"""MLIR's `linalg` dialect, completed: xDSL 0.74 lacks `linalg.pooling_nchw_sum`.

xDSL ships `linalg.pooling_nchw_max` but not its sum sibling, which
convert-mindir-to-tensor needs for `mindir.avg_pool2d` (the sum of each window,
then a division by the window's count). Defined here as upstream specifies it
(LinalgNamedStructuredOps.yaml): inputs (the NCHW tensor, a KH x KW window whose
values are unused), one output, `strides` and `dilations`, body `out + in`, the
same indexing maps as pooling_nchw_max.

`Linalg` below is xDSL's dialect plus this op, under the same name; like
ml_program_ext, mindjit's contexts register it in place of xDSL's
(`mindjit.dialects.context.mindjit_dialect_overrides`). Drop this file once the
pinned xDSL defines the op.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat
from xdsl.dialects.linalg import Linalg as UpstreamLinalg
from xdsl.dialects.linalg.abstract_ops import PoolingOperation
from xdsl.dialects.linalg.ops import PoolingNchwMaxOp, YieldOp
from xdsl.ir import BlockArgument, Dialect, Region, SSAValue
from xdsl.irdl import irdl_op_definition


@irdl_op_definition
class PoolingNchwSumOp(PoolingOperation):
    """The sum of each window (MLIR's linalg.pooling_nchw_sum)."""

    name = "linalg.pooling_nchw_sum"
    get_default_indexing_maps = PoolingNchwMaxOp.get_default_indexing_maps

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        arg_types = cls.body_arg_types((*inputs, *outputs))
        add = arith.AddfOp if isinstance(arg_types[-1], AnyFloat) else arith.AddiOp

        @Builder.implicit_region(arg_types)
        def hidden_region(args: tuple[BlockArgument, ...]) -> None:
            YieldOp(add(args[2], args[0]))

        return hidden_region


Linalg = Dialect(
    "linalg",
    [*UpstreamLinalg.operations, PoolingNchwSumOp],
    list(UpstreamLinalg.attributes),
)
