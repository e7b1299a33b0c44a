"""Collectives in convert-mindir-to-tensor: calls of the communication runtime.

    %s = mindir.all_reduce %g {op = "sum"} : tensor<10xf32>
      ->
    func.func private @__mindjit_all_reduce_sum(tensor<10xf32>) -> tensor<10xf32>
        attributes {mindjit.runtime = "all_reduce_sum"}
    %s = func.call @__mindjit_all_reduce_sum(%g) : (tensor<10xf32>) -> tensor<10xf32>

One private declaration per runtime kind and function type (like print's), the
kinds being `all_reduce_<op>` (op: sum, max, min, prod), `all_gather`,
`reduce_scatter_sum` and `broadcast`; a broadcast's root is an attribute of
the call (`mindjit.root_rank`), as print's format is. Upstream MLIR has no
collective on tensors, so a call is what IREE and the CPU executor can both be
given: the CPU executor runs it with the executor's communication object
(backend/cpu/kernels_collective.py), IREE as a host function of each call site
(backend/iree/collectives.py). Calls are not pure: nothing drops or merges them, and they run in
block order, which is the same order on every replica (one compiled program).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from mindjit.dialects import mindir
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS
from mindjit.passes.mindir_to_tensor.state import RUNTIME_ATTR

#: The collectives' declarations' names start with this (the runtime kind follows).
COLLECTIVE_PREFIX = "__mindjit_"
#: The call attribute holding a broadcast's root rank.
ROOT_RANK_ATTR = "mindjit.root_rank"


def runtime_kind(op: Operation) -> str:
    """The `mindjit.runtime` kind a collective lowers to."""
    if isinstance(op, mindir.AllReduceOp):
        return f"all_reduce_{op.op.data}"
    if isinstance(op, mindir.ReduceScatterOp):
        return f"reduce_scatter_{op.op.data}"
    if isinstance(op, mindir.AllGatherOp):
        return "all_gather"
    assert isinstance(op, mindir.BroadcastOp)
    return "broadcast"


def runtime_declaration(op: Operation, kind: str, ftype: FunctionType) -> str:
    """The name of the module's declaration of runtime `kind` with type `ftype`,
    declared before the first function on first use."""
    module = op.get_toplevel_object()
    assert isinstance(module, ModuleOp)
    taken: set[str] = set()
    anchor: Operation | None = None
    for existing in module.ops:
        if isinstance(existing, func.FuncOp):
            attr = existing.attributes.get(RUNTIME_ATTR)
            if (
                isinstance(attr, StringAttr)
                and attr.data == kind
                and existing.function_type == ftype
            ):
                return existing.sym_name.data
            if anchor is None and existing.body.blocks:
                anchor = existing
        name = existing.properties.get("sym_name") or existing.attributes.get("sym_name")
        if isinstance(name, StringAttr):
            taken.add(name.data)
    name, n = f"{COLLECTIVE_PREFIX}{kind}", 0
    while name in taken:
        n += 1
        name = f"{COLLECTIVE_PREFIX}{kind}_{n}"
    decl = func.FuncOp.external(name, list(ftype.inputs.data), list(ftype.outputs.data))
    decl.attributes[RUNTIME_ATTR] = StringAttr(kind)
    decl.location = op.location  # type: ignore[assignment]
    where = (
        InsertPoint.before(anchor) if anchor is not None else InsertPoint.at_end(module.body.block)
    )
    Rewriter.insert_op(decl, where)
    return name


@LOWERINGS.register(*mindir.COLLECTIVE_OPS)
def lower_collective(op: Operation, rewriter: PatternRewriter) -> None:
    types: list[Attribute] = [op.operands[0].type]
    ftype = FunctionType.from_lists(types, [op.results[0].type])
    callee = runtime_declaration(op, runtime_kind(op), ftype)
    call = func.CallOp(callee, [op.operands[0]], [op.results[0].type])
    if isinstance(op, mindir.BroadcastOp):
        call.attributes[ROOT_RANK_ATTR] = IntegerAttr(op.root_rank.value.data, i64)
    call.location = op.location
    rewriter.replace(op, call)
