"""Ordering and state ops in convert-mindir-to-tensor.

Lowered here:
- `depend(value, attach...)` -> `value`: the ordering it records has been made
  explicit by the passes before this one (mindir-depend-order), and the lowered
  program runs in block order.
- `tensor_move(x)` -> `linalg.copy ins(x) outs(tensor.empty)`: a real copy that
  stays visible in the IR (an identity linalg.generic would be folded away by
  MLIR's canonicalizer; linalg.copy on tensors is not).
- `update_state` and `get_parameter` are erased once nothing uses their value
  (after the depends, loads and assigns that consumed them are gone); see
  `erase_dead_state`.

Parameters, Load/Assign and print are lowered before the pattern walk by
`lower_state` (convert_mindir_to_tensor_state).

- The Ascend float-status ops (`npu_alloc/clear/get_float_status`) become a
  zero `tensor<8xf32>` constant: the CPU has no sticky overflow flags, so on
  this target the status always reads "no overflow" (all zeros), the value
  MindSpore's CPU kernels give too. Their order is kept by the `depend`s around
  them until here; the Ascend device backend implements the real status.

`DEVICE_OPS` lists ops this pass refuses (none today); `reject_unsupported`
raises a located error for them before anything is rewritten.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType, f32
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from mindjit.dialects import mindir
from mindjit.dialects import mindir_shapes as S
from mindjit.dialects.diagnostics import op_error
from mindjit.passes.convert_mindir_to_tensor_builders import Emitter

PASS_NAME = "convert-mindir-to-tensor"

#: Ops only a device backend implements; the CPU lowering refuses them by name.
DEVICE_OPS: dict[type[Operation], str] = {}


def unsupported_message(op: Operation) -> str | None:
    reason = DEVICE_OPS.get(type(op))
    if reason is None:
        return None
    return f"'{op.name}' cannot be lowered by {PASS_NAME} yet: {reason}"


def reject_unsupported(module: ModuleOp) -> None:
    """Fail at the first op this pass cannot lower, before changing anything."""
    for op in module.walk():
        if (message := unsupported_message(op)) is not None:
            raise op_error(op, message)


class LowerDepend(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: mindir.DependOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, [], [op.value])


class LowerTensorMove(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: mindir.TensorMoveOp, rewriter: PatternRewriter) -> None:
        if not op.result.uses:  # not Pure (so CSE keeps copies apart), but a dead copy is no copy
            rewriter.erase(op)
            return
        e = Emitter(rewriter, op.location)
        t = S.tensor_of(op.input.type)
        init = e.empty(t.get_shape(), t.get_element_type())
        rewriter.replace(op, [], [e.value(linalg.CopyOp([op.input], [init]))])


class LowerFloatStatus(RewritePattern):
    """npu_*_float_status -> dense<0.0> : tensor<8xf32> (no overflow flags on the CPU)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(
            op,
            mindir.NPUAllocFloatStatusOp
            | mindir.NPUClearFloatStatusOp
            | mindir.NPUGetFloatStatusOp,
        ):
            return
        zeros = DenseIntOrFPElementsAttr.from_list(TensorType(f32, [8]), [0.0] * 8)
        new = arith.ConstantOp(zeros)
        new.location = op.location
        rewriter.replace(op, new)


class EraseDeadUpdateState(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: mindir.UpdateStateOp, rewriter: PatternRewriter) -> None:
        if not op.result.uses:
            rewriter.erase(op)


EFFECT_PATTERNS: tuple[RewritePattern, ...] = (
    LowerDepend(),
    LowerTensorMove(),
    LowerFloatStatus(),
    EraseDeadUpdateState(),
)

#: Pure bookkeeping ops that vanish once their users are lowered.
_DEAD_WHEN_UNUSED = (
    mindir.UpdateStateOp,
    mindir.GetParameterOp,
    mindir.DependOp,
    mindir.MakeTupleOp,
    mindir.TupleGetItemOp,
)


def erase_dead_state(module: ModuleOp) -> None:
    """Erase unused update_state / get_parameter / depend / make_tuple /
    tuple_get_item and state placeholders (see convert_mindir_to_tensor_tuples), users before definitions."""
    from mindjit.passes.convert_mindir_to_tensor_tuples import is_state_placeholder

    for op in list(module.walk(reverse=True)):
        if (isinstance(op, _DEAD_WHEN_UNUSED) or is_state_placeholder(op)) and all(
            not r.uses for r in op.results
        ):
            op.detach()
            op.erase()
