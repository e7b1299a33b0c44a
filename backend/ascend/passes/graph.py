"""The kernel graph of one `func.func` after ascend-select-kernels: memory roots,
ordering dependencies and sizes, shared by execution order, memory planning and
stream assignment (and the serializer).

Memory roots: a view's memory is its operand's, a Load's (or an entry argument
bound to a Parameter, `{mindjit.global = @w}`) is Parameter @w's, written
`("param", "w")`; every other value is its own root.

An op must run after (its *dependencies*):
- the producers of the roots it reads (for a Parameter: its last writer before);
- every reader of a Parameter since its last write, when it writes that
  Parameter (a Load without TensorMove reads the memory when its reader runs);
- the previous op with side effects, when it has side effects (Assign, Print,
  Assert, float status, Send and Receive, control flow or calls doing any of
  those; graph calls): sends and receives keep their program order, which the
  pipeline split chose so that the stages never wait for each other in a cycle;
- the float-status hidden state: each float-status kernel after every f16/f32
  computing kernel since the previous float-status kernel, and each such kernel
  after the previous float-status kernel (MindSpore orders these with Depend,
  which lowering turned into program order).
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    ModuleOp,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue

from mindjit.backend.ascend.passes.kernel_table import COMM_KERNELS
from mindjit.backend.cpu.types import dtype_of
from mindjit.dialects.ascend import KernelOp, ViewOp

Root = Any  # an SSAValue, or ("param", symbol)
ANY_PARAM = ("param", "\0any")

FLOAT_STATUS_KERNELS = frozenset(
    {"NPUAllocFloatStatus", "NPUClearFloatStatus", "NPUGetFloatStatus"}
)
SIDE_EFFECT_KERNELS = frozenset({"Assign", "Print", "Assert", *FLOAT_STATUS_KERNELS, *COMM_KERNELS})
EFFECT_OPS_IN_CODE = frozenset({"ml_program.global_store", "cf.assert", "func.call"})


def element_bytes(t: Attribute) -> int:
    """Bytes of one element of a tensor (or of a scalar) as the device stores it:
    the numpy dtype the executors use (i1 is one byte, index eight)."""

    return dtype_of(t).itemsize


def is_dynamic(t: Attribute) -> bool:
    """A tensor with a dynamic dim: a loop's record (`tensor<?x...>`, mindir.stack_*),
    whose capacity only the run knows: a run-time allocation, not a planned buffer."""
    return isinstance(t, TensorType) and any(d < 0 for d in t.get_shape())


def value_bytes(t: Attribute) -> int:
    """The bytes the memory plan gives a value: 0 for a dynamic one (`is_dynamic`)."""
    if isinstance(t, TensorType):
        count = 1
        for d in t.get_shape():
            if d < 0:
                return 0
            count *= d
        return count * element_bytes(t)
    return element_bytes(t)


def aligned(size: int, align: int) -> int:
    return max(align, (size + align - 1) // align * align) if align > 1 else max(1, size)


def bound_param(arg: BlockArgument) -> str | None:
    """The Parameter an entry argument is bound to (`{mindjit.global = @w}`)."""
    owner = arg.block.parent_op()
    if not isinstance(owner, func.FuncOp) or owner.arg_attrs is None:
        return None
    attrs = owner.arg_attrs.data[arg.index].data
    ref = attrs.get("mindjit.global")
    return ref.root_reference.data if isinstance(ref, SymbolRefAttr) else None


def root_of(v: SSAValue) -> Root:
    while True:
        if isinstance(v, OpResult) and isinstance(v.op, ViewOp):
            v = v.op.source
            continue
        if isinstance(v, OpResult) and v.op.name in (
            "ml_program.global_load",
            "ml_program.global_load_const",
        ):
            symbol = v.op.properties["global"].root_reference.data  # type: ignore[union-attr]
            kind = "param" if v.op.name == "ml_program.global_load" else "const_param"
            return (kind, symbol)
        if isinstance(v, BlockArgument) and (symbol := bound_param(v)) is not None:
            return ("param", symbol)
        return v


def is_param(root: Root) -> bool:
    return isinstance(root, tuple) and root[0] == "param"


def code_params(kernel: KernelOp) -> tuple[set[str], set[str]]:
    """Parameters the kernel's code loads and stores itself (control-flow kernels)."""
    reads, writes = set(), set()
    for op in kernel.body.walk():
        if op.name == "ml_program.global_load":
            reads.add(op.properties["global"].root_reference.data)  # type: ignore[union-attr]
        elif op.name == "ml_program.global_store":
            writes.add(op.properties["global"].root_reference.data)  # type: ignore[union-attr]
    return reads, writes


def has_side_effects(op: Operation) -> bool:
    if isinstance(op, func.CallOp):
        return True
    if isinstance(op, KernelOp):
        if op.kernel_name in SIDE_EFFECT_KERNELS:
            return True
        return any(inner.name in EFFECT_OPS_IN_CODE for inner in op.body.walk())
    return False


def computes_floats(op: Operation) -> bool:
    """A kernel whose f16/f32 results can raise the float-status overflow flag."""
    if not isinstance(op, KernelOp) or op.kernel_name in FLOAT_STATUS_KERNELS:
        return False
    return any(
        isinstance(
            (r.type.get_element_type() if isinstance(r.type, TensorType) else r.type),
            Float16Type | Float32Type,
        )
        for r in op.outputs
    )


def is_item(op: Operation) -> bool:
    """Ops that run: kernels and graph calls (views, Loads and constants do not)."""
    return isinstance(op, KernelOp | func.CallOp)


class KernelGraph:
    """One graph's runnable ops, what they read and write, and their dependencies."""

    def __init__(self, fn: func.FuncOp):
        self.fn = fn
        self.items: list[Operation] = [op for op in fn.body.block.ops if is_item(op)]
        self.position = {op: i for i, op in enumerate(self.items)}
        self.reads: list[set[Root]] = []
        self.writes: list[set[Root]] = []
        for op in self.items:
            reads, writes = self._effects(op)
            self.reads.append(reads)
            self.writes.append(writes)
        self.deps: list[set[int]] = self._dependencies()

    def _effects(self, op: Operation) -> tuple[set[Root], set[Root]]:
        reads = {root_of(v) for v in op.operands}
        writes: set[Root] = set(op.results)
        if isinstance(op, KernelOp):
            code_reads, code_writes = code_params(op)
            reads |= {("param", s) for s in code_reads}
            writes |= {("param", s) for s in code_writes}
            if op.writes_symbol is not None:
                writes.add(("param", op.writes_symbol))
        else:  # a graph call may read and write any Parameter
            reads.add(ANY_PARAM)
            writes.add(ANY_PARAM)
        return reads, writes

    def _dependencies(self) -> list[set[int]]:
        producer: dict[Root, int] = {}
        last_writer: dict[str, int] = {}  # param symbol -> item
        readers: dict[str, list[int]] = {}  # param symbol -> readers since last write
        any_writer: int | None = None
        all_readers: list[int] = []
        last_effect: int | None = None
        float_status = any(
            isinstance(op, KernelOp) and op.kernel_name in FLOAT_STATUS_KERNELS for op in self.items
        )
        last_status: int | None = None
        since_status: list[int] = []
        deps: list[set[int]] = []
        for i, op in enumerate(self.items):
            d: set[int] = set()
            for root in self.reads[i]:
                if is_param(root):
                    if root == ANY_PARAM:
                        d |= set(last_writer.values())
                    elif root[1] in last_writer:
                        d.add(last_writer[root[1]])
                    if any_writer is not None:
                        d.add(any_writer)
                elif root in producer:
                    d.add(producer[root])
            for root in self.writes[i]:
                if not is_param(root):
                    continue
                if root == ANY_PARAM:
                    d |= set(all_readers) | set(last_writer.values())
                else:
                    d |= set(readers.get(root[1], ()))
                    if root[1] in last_writer:
                        d.add(last_writer[root[1]])
            effect = has_side_effects(op)
            if effect and last_effect is not None:
                d.add(last_effect)
            is_status = isinstance(op, KernelOp) and op.kernel_name in FLOAT_STATUS_KERNELS
            guarded = (
                float_status
                and not is_status
                and (computes_floats(op) or isinstance(op, func.CallOp))
            )
            if float_status and is_status:
                d |= set(since_status)
            if (is_status or guarded) and last_status is not None:
                d.add(last_status)
            d.discard(i)
            deps.append(d)
            # record what this op did
            for r in op.results:
                producer[r] = i
            for root in self.reads[i]:
                if is_param(root) and root != ANY_PARAM:
                    readers.setdefault(root[1], []).append(i)
                    all_readers.append(i)
            for root in self.writes[i]:
                if root == ANY_PARAM:
                    any_writer = i
                    readers.clear()
                    all_readers = [i]
                elif is_param(root):
                    last_writer[root[1]] = i
                    readers[root[1]] = []
            if effect:
                last_effect = i
            if is_status:
                last_status, since_status = i, []
            elif guarded:
                since_status.append(i)
        return deps

    def order_only(self, i: int) -> bool:
        """The item may move freely in time: pure, no Parameter writes, and not
        ordered against the float status."""
        op = self.items[i]
        if has_side_effects(op) or any(is_param(r) for r in self.writes[i]):
            return False
        data = {
            self.position[v.op]
            for v in map(root_of, op.operands)
            if isinstance(v, OpResult) and v.op in self.position
        }
        return self.deps[i] <= data


def graphs_of(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.body.block.ops if isinstance(op, func.FuncOp) and op.body.blocks]
