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
`lower_state` (mindir_to_tensor/state.py).

- The Ascend float-status ops (`npu_alloc/clear/get_float_status`) become
  calls of runtime declarations, one per kind, like print:
  `func.call @__mindjit_float_status_<kind>(%s) : (tensor<8xf32>) ->
  tensor<8xf32>` to `func.func private @__mindjit_float_status_<kind>(...)
  attributes {mindjit.runtime = "float_status_<kind>"}` (kind alloc, clear,
  get). The CPU executor emulates the device's overflow flag behind them (see
  backend/cpu/kernels_float_status). Calls are not pure, so they stay, in the
  block order mindir-depend-order fixed from the `depend`s around them.

`DEVICE_OPS` lists ops this pass refuses (none today); `reject_unsupported`
raises a located error for them before anything is rewritten.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.device import STATUS_TYPE
from mindjit.ir.locations import op_error
from mindjit.ir.walk import walk_ops
from mindjit.passes.analysis.graph_walk import top_level_graphs, walk_graphs
from mindjit.passes.mindir_to_tensor.builders import Emitter
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS
from mindjit.passes.mindir_to_tensor.state import RUNTIME_ATTR
from mindjit.passes.mindir_to_tensor.tuples import is_state_placeholder

PASS_NAME = "convert-mindir-to-tensor"

#: Ops only a device backend implements; the CPU lowering refuses them by name.
DEVICE_OPS: dict[type[Operation], str] = {}


def unsupported_message(op: Operation) -> str | None:
    if type(op) is mindir.VmapOp:
        return f"'mindir.vmap' must be rewritten by mindir-vmap before {PASS_NAME}"
    reason = DEVICE_OPS.get(type(op))
    if reason is None:
        return None
    return f"'{op.name}' cannot be lowered by {PASS_NAME} yet: {reason}"


def reject_unsupported(module: ModuleOp) -> None:
    """Fail at the first op this pass cannot lower, before changing anything."""
    for op in walk_graphs(module):
        if (message := unsupported_message(op)) is not None:
            raise op_error(op, message)


@LOWERINGS.register(mindir.DependOp)
def lower_depend(op: mindir.DependOp, rewriter: PatternRewriter) -> None:
    rewriter.replace(op, [], [op.value])


@LOWERINGS.register(mindir.TensorMoveOp)
def lower_tensor_move(op: mindir.TensorMoveOp, rewriter: PatternRewriter) -> None:
    if not op.result.uses:  # not Pure (so CSE keeps copies apart), but a dead copy is no copy
        rewriter.erase(op)
        return
    e = Emitter(rewriter, op.location)
    t = S.tensor_of(op.input.type)
    init = e.empty(t.get_shape(), t.get_element_type())
    rewriter.replace(op, [], [e.value(linalg.CopyOp([op.input], [init]))])


#: The float-status declarations' names and kinds.
FLOAT_STATUS_PREFIX = "__mindjit_float_status_"
FLOAT_STATUS_KINDS: dict[type[Operation], str] = {
    mindir.NPUAllocFloatStatusOp: "alloc",
    mindir.NPUClearFloatStatusOp: "clear",
    mindir.NPUGetFloatStatusOp: "get",
}


def float_status_runtime(kind: str) -> str:
    """The `mindjit.runtime` value of a float-status declaration."""
    return f"float_status_{kind}"


def _float_status_declaration(op: Operation, kind: str) -> str:
    """The module's declaration for `kind` (made on first use); returns its name."""
    module = op.get_toplevel_object()
    assert isinstance(module, ModuleOp)
    runtime = float_status_runtime(kind)
    taken: set[str] = set()
    anchor: Operation | None = None
    for existing in module.ops:
        if anchor is None and isinstance(existing, func.FuncOp) and existing.body.blocks:
            anchor = existing
        attr = existing.attributes.get(RUNTIME_ATTR)
        if (
            isinstance(existing, func.FuncOp)
            and isinstance(attr, StringAttr)
            and attr.data == runtime
        ):
            return existing.sym_name.data
        name = existing.properties.get("sym_name") or existing.attributes.get("sym_name")
        if isinstance(name, StringAttr):
            taken.add(name.data)
    name, n = f"{FLOAT_STATUS_PREFIX}{kind}", 0
    while name in taken:
        n += 1
        name = f"{FLOAT_STATUS_PREFIX}{kind}_{n}"
    inputs = [v.type for v in op.operands]
    decl = func.FuncOp.external(name, inputs, [STATUS_TYPE])
    decl.attributes[RUNTIME_ATTR] = StringAttr(runtime)
    decl.location = op.location  # type: ignore[assignment]
    where = (
        InsertPoint.before(anchor) if anchor is not None else InsertPoint.at_end(module.body.block)
    )
    Rewriter.insert_op(decl, where)
    return name


@LOWERINGS.register(*FLOAT_STATUS_KINDS)
def lower_float_status(op: Operation, rewriter: PatternRewriter) -> None:
    """npu_<kind>_float_status -> a call of the float-status runtime."""
    callee = _float_status_declaration(op, FLOAT_STATUS_KINDS[type(op)])
    call = func.CallOp(callee, list(op.operands), [STATUS_TYPE])
    call.location = op.location
    rewriter.replace(op, call)


@LOWERINGS.register(mindir.UpdateStateOp)
def erase_dead_update_state(op: mindir.UpdateStateOp, rewriter: PatternRewriter) -> None:
    if not op.result.uses:
        rewriter.erase(op)


#: Pure bookkeeping ops that vanish once their users are lowered (exact classes:
#: asked of every op, and isinstance on an op class is an ABC check, 5x slower).
_DEAD_WHEN_UNUSED = frozenset(
    {
        mindir.UpdateStateOp,
        mindir.GetParameterOp,
        mindir.DependOp,
        mindir.MakeTupleOp,
        mindir.TupleGetItemOp,
    }
)


def erase_dead_state(module: ModuleOp) -> None:
    """Erase unused update_state / get_parameter / depend / make_tuple /
    tuple_get_item and state placeholders (see mindir_to_tensor/tuples.py), users before definitions."""

    graphs = top_level_graphs(module)
    for op in [inner for fn in reversed(graphs) for inner in walk_ops(fn, reverse=True)]:
        if (type(op) in _DEAD_WHEN_UNUSED or is_state_placeholder(op)) and all(
            not r.uses for r in op.results
        ):
            op.detach()
            op.erase()
