"""ascend-select-kernels: every tensor-level op becomes a device kernel (`ascend.kernel`).

Each computing op of a graph is wrapped into one `ascend.kernel` whose region
is the op itself (its code) and whose properties are kernel selection's choice
(see backend/ascend/passes/kernel_table.py): the kernel type, the unit (cube for
matrix products, vector for elementwise, reductions and data movement, AI CPU
for scalars, control flow, prints, asserts, and for dtypes the AI Core has no
kernel for), the dtype and the format (ND). What is not a kernel:

- inits and scalar constants (`tensor.empty`, a `linalg.fill` of a constant,
  scalar `arith.constant`, an unsigned one's bitcast) are copied into the code of each kernel using them,
  as a device kernel initialises its own output; left alone only when a
  non-kernel uses them (then an init becomes a `Fill` kernel);
- tensor constants stay `arith.constant`: the model file's constants;
- reshapes (`tensor.expand_shape`, `collapse_shape`, `reshape`, a no-op
  `tensor.cast`) become `ascend.view`: the same memory, no kernel;
- `ml_program.global_load` of a Parameter stays: a Load reads the Parameter's
  memory in place;
- `ml_program.global_store @p = %v` becomes an `Assign` kernel `writes @p`;
- a send/receive channel (`@__mindjit_channel_<sr_tag>`, from mindir.send /
  mindir.receive) is no Parameter: its store becomes a `Send` kernel `writes
  @channel`, its load a `Receive` kernel giving a tensor of its own (planned
  like any kernel result), both on the communication unit `comm` and marked
  `{ascend.channel = @channel}` (DEVICE.md, "Send and receive");
- `func.call` of a graph stays (cell reuse decides), of a runtime declaration
  (float status, print) becomes its kernel; a call of a graph inside control
  flow (a lazy-inline Block in a tensor `if` or `while`) is inlined first: the
  control-flow op is one AI CPU kernel, whose code holds only that op's region
  and the declarations and globals it uses, not other graphs.

An op the device has no kernel for is an error located at the op.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, tensor
from xdsl.dialects.builtin import IndexType, ModuleOp, StringAttr, SymbolRefAttr, TensorType
from xdsl.dialects.ml_program import GlobalLoadConstantOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mindjit.backend.ascend.passes.kernel_table import (
    CHANNEL_ATTR,
    RUNTIME_KERNELS,
    TENSOR_KERNELS,
    channel_of,
    comm_kernel,
    element_type,
    generic_kernel,
    scalar_kernel,
    unit_supports,
)
from mindjit.dialects.ascend import KernelOp, ViewOp, YieldOp
from mindjit.dialects.ml_program_ext import GlobalLoadOp
from mindjit.ir.locations import op_error
from mindjit.passes.mindir_inline import inline_call

VIEW_OPS: frozenset[type[Operation]] = frozenset(
    {tensor.ExpandShapeOp, tensor.CollapseShapeOp, tensor.ReshapeOp}
)
KEPT_OPS: frozenset[type[Operation]] = frozenset(
    {func.ReturnOp, GlobalLoadOp, GlobalLoadConstantOp}
)


def _is_scalar_constant(op: Operation) -> bool:
    """A scalar `arith.constant`, or the bitcast of one that gives an unsigned
    constant (`arith.constant` takes signless integers only, mindir_to_tensor/builders.py)."""
    if not op.results or isinstance(op.results[0].type, TensorType):
        return False
    if op.name == "arith.bitcast":
        owner = op.operands[0].owner
        return isinstance(owner, Operation) and _is_scalar_constant(owner)
    return op.name == "arith.constant"


def is_init(op: Operation) -> bool:
    """An op a kernel can recompute itself: a scalar constant, an empty tensor or
    a fill of a constant into one."""
    if _is_scalar_constant(op) or op.name == "tensor.empty":
        return True
    if op.name == "linalg.fill":
        return all(isinstance(v.owner, Operation) and is_init(v.owner) for v in op.operands)
    return False


def _is_view(op: Operation) -> bool:
    if type(op) in VIEW_OPS:
        return isinstance(op.results[0].type, TensorType)
    if op.name == "tensor.cast":
        src, dst = op.operands[0].type, op.results[0].type
        return isinstance(src, TensorType) and src == dst
    return False


def runtime_kind(op: Operation, module: ModuleOp) -> str | None:
    """The `mindjit.runtime` kind of the declaration a func.call reaches, if any."""
    if not isinstance(op, func.CallOp):
        return None
    callee = _lookup(module, op.callee.root_reference.data)
    kind = callee.attributes.get("mindjit.runtime") if callee is not None else None
    return kind.data if isinstance(kind, StringAttr) else None


def _lookup(module: ModuleOp, name: str) -> func.FuncOp | None:
    for op in module.body.block.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op
    return None


def select(op: Operation, module: ModuleOp) -> tuple[str, str, Attribute]:
    """(kernel type, unit, dtype) for an op that becomes a kernel."""
    kind = runtime_kind(op, module)
    if (comm := comm_kernel(op)) is not None:
        name, unit = comm
    elif kind is not None:
        if kind not in RUNTIME_KERNELS:
            raise op_error(op, f"the Ascend-like device has no kernel for runtime '{kind}'")
        name, unit = RUNTIME_KERNELS[kind]
    elif op.name in ("linalg.generic", "linalg.reduce"):
        name, unit = generic_kernel(op)
    elif type(op) in TENSOR_KERNELS:
        name, unit = TENSOR_KERNELS[type(op)]
    elif (scalar := scalar_kernel(op)) is not None and not any(
        isinstance(r.type, TensorType) for r in op.results
    ):
        name, unit = scalar
    elif op.name == "linalg.fill" or op.name == "tensor.empty":
        name, unit = "Fill", "vector"
    else:
        raise op_error(
            op,
            f"the Ascend-like device has no kernel for '{op.name}' (kernel selection "
            "supports the tensor-level ops convert-mindir-to-tensor produces)",
        )
    typed = [*op.results, *op.operands]
    dtype = element_type(typed[0].type)  # every op that becomes a kernel has a value
    data = [v for v in typed if not isinstance(v.type, IndexType)]  # offsets, sizes: scalars
    if unit != "aicpu" and not all(unit_supports(unit, element_type(v.type)) for v in data):
        unit = "aicpu"  # MindSpore's fallback: an AI CPU kernel for these dtypes
    return name, unit, dtype


def free_values(op: Operation) -> list[SSAValue]:
    """Values `op` (with its regions) uses but does not define, in first-use order."""
    seen: dict[SSAValue, None] = {}
    for inner in op.walk():
        for v in inner.operands:
            owner = v.owner
            inside = (
                op.is_ancestor(owner)
                if isinstance(owner, Operation)
                else owner.parent_op() is not None and op.is_ancestor(owner.parent_op())  # type: ignore[union-attr]
            )
            if not inside and v not in seen:
                seen[v] = None
    return list(seen)


def wrap(op: Operation, module: ModuleOp) -> KernelOp:
    """Replace `op` by a kernel whose code is `op` plus the inits it uses."""
    name, unit, dtype = select(op, module)
    writes = None
    if op.name == "ml_program.global_store":
        writes = op.properties["global"].root_reference.data  # type: ignore[union-attr]
    inputs: list[SSAValue] = []
    block = Block()
    mapping: dict[SSAValue, SSAValue] = {}

    def bring(v: SSAValue) -> SSAValue:
        """The value inside the code: a cloned init or a new kernel input."""
        if v in mapping:
            return mapping[v]
        owner = v.owner
        if isinstance(owner, Operation) and is_init(owner):
            for operand in owner.operands:
                bring(operand)
            clone = owner.clone(value_mapper=mapping)
            block.add_op(clone)
            for old, new in zip(owner.results, clone.results):
                mapping[old] = new
            return mapping[v]
        arg = block.insert_arg(v.type, len(block.args))
        inputs.append(v)
        mapping[v] = arg
        return arg

    for v in free_values(op):
        bring(v)
    if writes is not None:
        results: list[SSAValue] = [mapping[op.operands[0]]]
    else:
        clone = op.clone(value_mapper=mapping)
        block.add_op(clone)
        results = list(clone.results)
    block.add_op(YieldOp(results))
    kernel = KernelOp(
        name,
        unit,
        dtype,
        inputs,
        [] if writes is not None else [r.type for r in op.results],
        Region(block),
        writes=writes,
    )
    kernel.location = getattr(op, "location", None)  # type: ignore[attr-defined]
    for name_, value in op.attributes.items():
        if name_.startswith("mindjit.") or name_.startswith("mindir."):
            kernel.attributes[name_] = value
    if (channel := channel_of(op)) is not None:
        kernel.attributes[CHANNEL_ATTR] = SymbolRefAttr(channel)
    return kernel


def select_graph(fn: func.FuncOp, module: ModuleOp) -> None:
    rewriter = Rewriter()
    for op in list(fn.body.block.ops):
        if (type(op) in KEPT_OPS and channel_of(op) is None) or is_init(op):
            continue
        if op.name == "arith.constant":
            continue  # a tensor constant: the model's constant data
        if isinstance(op, func.CallOp) and runtime_kind(op, module) is None:
            continue  # a graph call: cell reuse decides
        if _is_view(op):
            view = ViewOp(op.operands[0], op.results[0].type)
            rewriter.replace_op(op, view)
            continue
        kernel = wrap(op, module)
        rewriter.insert_op(kernel, InsertPoint.before(op))
        for old, new in zip(op.results, kernel.outputs):
            old.replace_all_uses_with(new)
        rewriter.erase_op(op)
    # inits nothing needs any more are gone; those a non-kernel uses become Fill kernels
    for op in reversed(list(fn.body.block.ops)):
        if not is_init(op):
            continue
        if all(not r.uses for r in op.results):
            rewriter.erase_op(op)
        elif not _is_scalar_constant(op):
            kernel = wrap(op, module)
            rewriter.insert_op(kernel, InsertPoint.before(op))
            for old, new in zip(op.results, kernel.outputs):
                old.replace_all_uses_with(new)
            rewriter.erase_op(op)


def inline_calls_in_control_flow(module: ModuleOp) -> None:
    """Inline every call of a graph nested in a region (an if's or while's), callees'
    own calls too, and erase the graphs no call is left to."""
    graphs = {
        fn.sym_name.data: fn
        for fn in module.body.block.ops
        if isinstance(fn, func.FuncOp) and fn.body.blocks
    }

    def nested_calls() -> list[func.CallOp]:
        return [
            op
            for fn in graphs.values()
            for op in fn.walk()
            if isinstance(op, func.CallOp)
            and op.parent_op() is not fn
            and op.callee.root_reference.data in graphs
        ]

    inlined: set[str] = set()
    while calls := nested_calls():  # a callee's calls are nested once it is inlined
        for call in calls:
            name = call.callee.root_reference.data
            inline_call(call, graphs[name])
            inlined.add(name)
    called = {op.callee.root_reference.data for op in module.walk() if isinstance(op, func.CallOp)}
    for name in inlined - called:
        graphs[name].detach()
        graphs[name].erase()


@dataclass(frozen=True)
class AscendSelectKernelsPass(ModulePass):
    name = "ascend-select-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        inline_calls_in_control_flow(op)
        for fn in list(op.body.block.ops):
            if isinstance(fn, func.FuncOp) and fn.body.blocks:
                if any(isinstance(o, KernelOp) for o in fn.body.block.ops):
                    continue  # already selected
                select_graph(fn, op)
