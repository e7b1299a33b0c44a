"""Which device kernel runs a tensor-level op: its type name, unit and dtype.

MindSpore's kernel selection picks, for each node, a kernel of the AI Core (cube
unit for matrix products, vector unit for the rest) when one exists for the
node's dtype, and falls back to an AI CPU kernel otherwise. This table does the
same for the tensor-level ops `convert-mindir-to-tensor` produces, keyed by xDSL
op class like every per-op rule (`mindjit.ir.rules`). Names are MindSpore's
primitive names so reports read like MindSpore's profiler.
"""

from __future__ import annotations

import functools

from xdsl.dialects import arith, cf, math, scf, tensor
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    Float32Type,
    IntegerType,
    Signedness,
    TensorType,
    UnknownLoc,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.traits import IsTerminator

from mindjit.backend.ascend.model import COMM_UNIT
from mindjit.dialects import mindir, ml_program_ext
from mindjit.dialects.linalg_ext import PoolingNchwSumOp
from mindjit.ir.locations import op_error
from mindjit.passes.mindir_to_tensor import scalar
from mindjit.passes.mindir_to_tensor.builders import Emitter
from mindjit.passes.mindir_to_tensor.state import CHANNEL_PREFIX

#: Send / Receive run on the communication unit `COMM_UNIT` ("comm"): the link
#: between devices (DEVICE.md).
SEND = "Send"
RECEIVE = "Receive"
COMM_KERNELS = frozenset({SEND, RECEIVE})
#: The discardable attribute naming a Send / Receive kernel's channel global.
CHANNEL_ATTR = "ascend.channel"

#: Element types each AI Core unit has kernels for (else: AI CPU fallback).
CUBE_DTYPES = (Float16Type, BFloat16Type, Float32Type)
VECTOR_INT_WIDTHS = (1, 8, 16, 32, 64)
#: Unsigned widths the vector unit has kernels for: Ascend's AI Core elementwise,
#: compare and cast kernels list uint8 (image data) but not uint16/32/64, which
#: MindSpore runs as AI CPU kernels.
VECTOR_UINT_WIDTHS = (8,)

#: Scalar ops of a linalg body -> the primitive they come from.
BODY_NAMES: dict[type[Operation], str] = {
    arith.AddfOp: "Add",
    arith.AddiOp: "Add",
    arith.SubfOp: "Sub",
    arith.SubiOp: "Sub",
    arith.MulfOp: "Mul",
    arith.MuliOp: "Mul",
    arith.DivfOp: "RealDiv",
    arith.DivSIOp: "Div",
    arith.DivUIOp: "Div",
    arith.FloorDivSIOp: "FloorDiv",
    arith.RemSIOp: "Mod",
    arith.RemUIOp: "Mod",
    arith.MaximumfOp: "Maximum",
    arith.MaxnumfOp: "Maximum",
    arith.MaxSIOp: "Maximum",
    arith.MaxUIOp: "Maximum",
    arith.MinimumfOp: "Minimum",
    arith.MinnumfOp: "Minimum",
    arith.MinSIOp: "Minimum",
    arith.MinUIOp: "Minimum",
    arith.NegfOp: "Neg",
    arith.CmpfOp: "Compare",
    arith.CmpiOp: "Compare",
    arith.SelectOp: "Select",
    arith.AndIOp: "LogicalAnd",
    arith.OrIOp: "LogicalOr",
    arith.XOrIOp: "LogicalXor",
    arith.ShLIOp: "LeftShift",
    arith.ShRUIOp: "RightShift",
    arith.ShRSIOp: "RightShift",
    arith.SIToFPOp: "Cast",
    arith.UIToFPOp: "Cast",
    arith.FPToSIOp: "Cast",
    arith.FPToUIOp: "Cast",
    arith.ExtFOp: "Cast",
    arith.TruncFOp: "Cast",
    arith.ExtSIOp: "Cast",
    arith.ExtUIOp: "Cast",
    arith.TruncIOp: "Cast",
    arith.BitcastOp: "Cast",
    math.ExpOp: "Exp",
    math.LogOp: "Log",
    math.Log1pOp: "Log1p",
    math.TanhOp: "Tanh",
    math.SqrtOp: "Sqrt",
    math.RsqrtOp: "Rsqrt",
    math.PowFOp: "Pow",
    math.FPowIOp: "Pow",
    math.IPowIOp: "Pow",
    math.ErfOp: "Erf",
    math.AbsFOp: "Abs",
    math.AbsIOp: "Abs",
    math.SinOp: "Sin",
    math.CosOp: "Cos",
    math.FloorOp: "Floor",
    math.CeilOp: "Ceil",
    math.RoundOp: "Round",
    math.RoundEvenOp: "Round",
    math.CopySignOp: "CopySign",
    math.Exp2Op: "Exp2",
    math.ExpM1Op: "Expm1",
    math.AtanOp: "Atan",
    math.Atan2Op: "Atan2",
    # an element read at computed indices: the generic is named by indexed_kernel
    # (Gather, ReverseV2, UnsortedSegmentSum), this name only joins a fused one
    tensor.ExtractOp: "Extract",
}

#: Scalar-only ops that need no kernel of their own inside a body.
QUIET_BODY_OPS: frozenset[type[Operation]] = frozenset(
    {arith.ConstantOp, linalg.YieldOp, linalg.IndexOp, arith.IndexCastOp}
)

#: Whole tensor ops -> (kernel type, unit) for a supported dtype.
TENSOR_KERNELS: dict[type[Operation], tuple[str, str]] = {
    linalg.MatmulOp: ("MatMul", "cube"),
    linalg.Conv2DNchwFchwOp: ("Conv2D", "cube"),
    linalg.Conv2DNgchwGfchwOp: ("Conv2D", "cube"),
    linalg.PoolingNchwMaxOp: ("MaxPool", "vector"),
    PoolingNchwSumOp: ("AvgPool", "vector"),
    linalg.TransposeOp: ("Transpose", "vector"),
    linalg.BroadcastOp: ("BroadcastTo", "vector"),
    linalg.FillOp: ("Fill", "vector"),
    linalg.CopyOp: ("TensorMove", "vector"),
    linalg.AddOp: ("Add", "vector"),
    linalg.SubOp: ("Sub", "vector"),
    linalg.MulOp: ("Mul", "vector"),
    linalg.MaxOp: ("Maximum", "vector"),
    linalg.MinOp: ("Minimum", "vector"),
    linalg.ExpOp: ("Exp", "vector"),
    linalg.LogOp: ("Log", "vector"),
    linalg.SqrtOp: ("Sqrt", "vector"),
    linalg.SelectOp: ("Select", "vector"),
    tensor.ExtractSliceOp: ("StridedSlice", "vector"),
    tensor.InsertSliceOp: ("TensorScatterUpdate", "vector"),
    tensor.ConcatOp: ("Concat", "vector"),
    tensor.PadOp: ("Pad", "vector"),
    tensor.SplatOp: ("Fill", "vector"),
    tensor.FromElementsOp: ("Pack", "aicpu"),
    tensor.ExtractOp: ("TensorToScalar", "aicpu"),
    tensor.InsertOp: ("ScalarToTensor", "aicpu"),
    # a loop's record (passes/mindir_to_tensor/stack.py): its capacity is a shape read,
    # a scalar for the host side, as MindSpore's TensorShape on the AI CPU; a slot
    # index (index_cast of the counter) is a scalar cast there too. The push and the
    # read stay vector kernels (TensorScatterUpdate, StridedSlice): they move one
    # item at an offset the kernel reads, as MindSpore's dynamic-shape AI Core
    # kernels take their offsets as operands (`select` does not count an `index`
    # scalar operand against the vector unit's dtypes).
    tensor.DimOp: ("TensorShape", "aicpu"),
    arith.IndexCastOp: ("ScalarCast", "aicpu"),
    scf.IfOp: ("If", "aicpu"),
    scf.WhileOp: ("While", "aicpu"),
    scf.ForOp: ("For", "aicpu"),
    cf.AssertOp: ("Assert", "aicpu"),
    ml_program_ext.GlobalStoreOp: ("Assign", "vector"),
}

#: linalg.generics naming their kernel with `library_call` (sort's lowering) -> kernel.
LIBRARY_KERNELS: dict[str, tuple[str, str]] = {
    "mindjit_sort_rank": ("Sort", "vector"),
    "mindjit_sort_rank_desc": ("Sort", "vector"),
    "mindjit_sort_place": ("InvertPermutation", "vector"),
    **{
        f"mindjit_cum{kind}{ex}{rev}": (name, "vector")
        for kind, name in (("sum", "CumSum"), ("prod", "CumProd"))
        for ex in ("", "_exclusive")
        for rev in ("", "_reverse")
    },
}

#: Reductions by their combiner.
REDUCE_NAMES = {
    "Add": "ReduceSum",
    "Mul": "ReduceProd",
    "Maximum": "ReduceMax",
    "Minimum": "ReduceMin",
    "LogicalAnd": "ReduceAll",
    "LogicalOr": "ReduceAny",
}

#: `mindjit.runtime` kinds of declarations a call may reach -> (kernel type, unit).
RUNTIME_KERNELS = {
    "float_status_alloc": ("NPUAllocFloatStatus", "vector"),
    "float_status_clear": ("NPUClearFloatStatus", "vector"),
    "float_status_get": ("NPUGetFloatStatus", "vector"),
    "print": ("Print", "aicpu"),
    # the collectives (HCCL's kernels): on the AI CPU unit, so a kernel's time is
    # its bytes over the AI CPU's bandwidth, a transfer's cost; the simulated
    # device runs one replica, where each is the identity (group of one)
    **{f"all_reduce_{r}": ("HcomAllReduce", "aicpu") for r in ("sum", "max", "min", "prod")},
    "all_gather": ("HcomAllGather", "aicpu"),
    "reduce_scatter_sum": ("HcomReduceScatter", "aicpu"),
    "broadcast": ("HcomBroadcast", "aicpu"),
}


def channel_of(op: Operation) -> str | None:
    """The channel global (`@__mindjit_channel_<sr_tag>`) a global_store (a
    mindir.send) or global_load (a mindir.receive) uses; None for a Parameter's."""
    if op.name not in ("ml_program.global_store", "ml_program.global_load"):
        return None
    name = op.properties["global"].root_reference.data  # type: ignore[union-attr]
    return name if name.startswith(CHANNEL_PREFIX) else None


def comm_kernel(op: Operation) -> tuple[str, str] | None:
    """A channel's store is a Send kernel, its load a Receive kernel, both on the
    communication unit; None for any other op."""
    if channel_of(op) is None:
        return None
    return (SEND if op.name == "ml_program.global_store" else RECEIVE), COMM_UNIT


def element_type(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, TensorType) else t


def unit_supports(unit: str, dtype: Attribute) -> bool:
    """Whether the AI Core unit has kernels for this element type."""
    if unit == "cube":
        return isinstance(dtype, CUBE_DTYPES)
    if unit == "vector":
        if isinstance(dtype, Float16Type | BFloat16Type | Float32Type):
            return True
        if not isinstance(dtype, IntegerType):
            return False
        if dtype.signedness.data == Signedness.UNSIGNED:
            return dtype.width.data in VECTOR_UINT_WIDTHS
        return dtype.width.data in VECTOR_INT_WIDTHS
    return True


def _no_kernel_name(op: Operation, where: str) -> str:
    """The error for a scalar arith/math op with no primitive name (no guessed name:
    the name picks the kernel's cost)."""
    return (
        f"the Ascend-like device has no kernel for '{op.name}' {where} "
        "(BODY_NAMES in backend/ascend/passes/kernel_table.py)"
    )


def body_names(op: Operation) -> list[str]:
    """The primitive names of a linalg body's computing ops, in order, deduplicated."""
    names: list[str] = []
    for inner in op.regions[0].block.ops if op.regions and op.regions[0].blocks else ():
        if inner.has_trait(IsTerminator) or type(inner) in QUIET_BODY_OPS:
            continue
        if isinstance(inner, arith.BitcastOp) and isinstance(inner.input.owner, arith.ConstantOp):
            continue  # an unsigned constant (a signless one bitcast): no Cast
        name = BODY_NAMES.get(type(inner))
        if name is None:
            raise op_error(inner, _no_kernel_name(inner, "in a linalg body"))
        if name not in names:
            names.append(name)
    return names


def generic_kernel(op: Operation) -> tuple[str, str]:
    """A linalg.generic or linalg.reduce: elementwise, reduction or contraction."""
    library = getattr(op, "library_call", None)
    if library is not None and library.data in LIBRARY_KERNELS:
        return LIBRARY_KERNELS[library.data]
    names = body_names(op)
    iterators = [a.data for a in getattr(op, "iterator_types", ())]
    reduces = op.name == "linalg.reduce" or "reduction" in [str(i) for i in iterators]
    if reduces and (arg := _arg_reduce_name(op, names)) is not None:
        return arg, "vector"
    if (indexed := indexed_kernel(op, reduces)) is not None:
        return indexed
    if reduces and {"Mul", "Add"} <= set(names):
        return "BatchMatMul", "cube"
    if reduces:
        combiner = names[-1] if names else "Add"
        return REDUCE_NAMES.get(combiner, "Reduce" + combiner), "vector"
    if not names:
        return "Identity", "vector"
    if names == ["Maximum"] and _relu_body(op):
        return "ReLU", "vector"
    if _uniform_real_body(op):
        return "UniformReal", "vector"
    composite = _composite_kernel(op)
    if composite is not None:
        return composite, "vector"
    return "_".join(names), "vector"


def is_segment_sum(op: Operation) -> bool:
    """mindir.unsorted_segment_sum's generic: a reduction whose body compares an
    index with a loop index (linalg.index) to pick what it adds."""
    iterators = [str(a.data) for a in getattr(op, "iterator_types", ())]
    if op.name != "linalg.generic" or "reduction" not in iterators:
        return False
    kinds = {type(inner) for inner in op.regions[0].block.ops}
    return {linalg.IndexOp, arith.CmpiOp, arith.SelectOp} <= kinds


def indexed_kernel(op: Operation, reduces: bool) -> tuple[str, str] | None:
    """Generics that move data by computed indices: a `tensor.extract` in the body
    at an index read from an input is MindSpore's Gather, at loop indices only
    (mindir.reverse) ReverseV2; the segment-sum reduction is UnsortedSegmentSum."""
    if reduces:
        return ("UnsortedSegmentSum", "vector") if is_segment_sum(op) else None
    block = op.regions[0].block if op.regions and op.regions[0].blocks else None
    extracts = [o for o in block.ops if isinstance(o, tensor.ExtractOp)] if block else []
    if not extracts:
        return None
    reads_input = any(isinstance(o, arith.IndexCastOp) for o in block.ops)  # type: ignore[union-attr]
    return ("Gather", "vector") if reads_input else ("ReverseV2", "vector")


#: mindir ops whose lowering is one composite body (FLOAT_COMPOSITE in
#: passes/mindir_to_tensor/scalar.py) -> MindSpore's kernel for them: a generic whose
#: body is exactly that op's is its kernel, not "Sub_Mul" (the device does not fuse,
#: so such a body is only ever the op's own)
COMPOSITE_KERNELS: dict[type[Operation], str] = {
    mindir.SigmoidGradOp: "SigmoidGrad",
    mindir.TanhGradOp: "TanhGrad",
}


def _body_signature(block: Block) -> tuple:
    """What a linalg body computes, independent of its SSA names: each op (constants
    aside) with its operands as block-argument index, constant value or earlier op."""
    seen: dict[SSAValue, int] = {}
    ops = []
    for inner in block.ops:
        if isinstance(inner, arith.ConstantOp):
            continue
        operands = []
        for v in inner.operands:
            if isinstance(v, BlockArgument) and v.block is block:
                operands.append(("arg", v.index))
            elif isinstance(v.owner, arith.ConstantOp):
                operands.append(("const", v.owner.value))
            else:
                operands.append(("op", seen.get(v, -1)))
        ops.append((inner.name, tuple(operands), tuple(inner.properties.items())))
        for r in inner.results:
            seen[r] = len(ops) - 1
    return tuple(ops)


@functools.cache
def _composite_signature(cls: type[Operation], element: Attribute) -> tuple:
    """The body `cls` lowers to on `element`s (two inputs and the output), built by
    the lowering's own rule."""
    block = Block(arg_types=[element, element, element])
    e = Emitter.at_end(block, UnknownLoc())
    result = scalar.FLOAT_COMPOSITE[cls](e, block.args[0], block.args[1])
    block.add_op(linalg.YieldOp(result))
    return _body_signature(block)


def _composite_kernel(op: Operation) -> str | None:
    """COMPOSITE_KERNELS' name for a generic whose body is one of those ops' bodies."""
    block = op.regions[0].block
    if len(block.args) != 3 or not isinstance(block.args[0].type, AnyFloat):
        return None
    signature = _body_signature(block)
    for cls, name in COMPOSITE_KERNELS.items():
        if signature == _composite_signature(cls, block.args[0].type):
            return name
    return None


def _relu_body(op: Operation) -> bool:
    """`max(x, 0.0)`: the body's maximum takes a zero constant (wherever it is defined)."""
    for inner in op.regions[0].block.ops:
        if type(inner) in (arith.MaximumfOp, arith.MaxnumfOp):
            for v in inner.operands:
                owner = v.owner
                value = getattr(owner, "value", None) if isinstance(owner, Operation) else None
                if owner is not None and getattr(owner, "name", "") == "arith.constant":
                    return float(value.value.data) == 0.0  # type: ignore[union-attr]
    return False


def _uniform_real_body(op: Operation) -> bool:
    """mindir.uniform_real's lowering: it yields `sitofp(h >> 8) * 2**-24` of an
    integer hash of `linalg.index` (the counter-based generator, one vector kernel
    like MindSpore's UniformReal / DropoutGenMask)."""
    block = op.regions[0].block
    last = block.last_op
    if last is None or not last.operands:
        return False
    mul = last.operands[0].owner
    if not isinstance(mul, arith.MulfOp):
        return False
    conv = mul.operands[0].owner
    if not isinstance(conv, arith.SIToFPOp) or not isinstance(
        conv.operands[0].owner, arith.ShRUIOp
    ):
        return False
    return any(isinstance(inner, linalg.IndexOp) for inner in block.ops)


def scalar_kernel(op: Operation) -> tuple[str, str] | None:
    """A scalar arith/math op outside any tensor op: an AI CPU scalar kernel."""
    name = BODY_NAMES.get(type(op))
    if name is None and op.name.split(".", 1)[0] in ("arith", "math"):
        raise op_error(op, _no_kernel_name(op, "as a scalar kernel"))
    if name is None:
        return None
    return "Scalar" + name, "aicpu"


def _arg_reduce_name(op: Operation, names: list[str]) -> str | None:
    """argmax/argmin's (value, index) reduction (passes/mindir_to_tensor/index_reduce.py):
    MindSpore's ArgMaxWithValue / ArgMinWithValue, by the direction of its first compare."""
    if len(op.results) != 2 or "Compare" not in names or "Select" not in names:
        return None
    for inner in op.regions[0].block.ops:
        if isinstance(inner, arith.CmpfOp | arith.CmpiOp):
            names_of = (
                arith.CMPF_COMPARISON_OPERATIONS
                if isinstance(inner, arith.CmpfOp)
                else arith.CMPI_COMPARISON_OPERATIONS
            )
            pred = names_of[inner.predicate.value.data]
            if pred in ("ogt", "sgt", "ugt"):
                return "ArgMaxWithValue"
            return "ArgMinWithValue" if pred in ("olt", "slt", "ult") else None
    return None
