"""Which device kernel runs a tensor-level op: its type name, unit and dtype.

MindSpore's kernel selection picks, for each node, a kernel of the AI Core (cube
unit for matrix products, vector unit for the rest) when one exists for the
node's dtype, and falls back to an AI CPU kernel otherwise. This table does the
same for the tensor-level ops `convert-mindir-to-tensor` produces. Names are
MindSpore's primitive names so reports read like MindSpore's profiler.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation
from xdsl.traits import IsTerminator

#: Element types each AI Core unit has kernels for (else: AI CPU fallback).
CUBE_DTYPES = (Float16Type, BFloat16Type, Float32Type)
VECTOR_INT_WIDTHS = (1, 8, 16, 32, 64)

#: Scalar ops of a linalg body -> the primitive they come from.
BODY_NAMES = {
    "arith.addf": "Add",
    "arith.addi": "Add",
    "arith.subf": "Sub",
    "arith.subi": "Sub",
    "arith.mulf": "Mul",
    "arith.muli": "Mul",
    "arith.divf": "RealDiv",
    "arith.divsi": "Div",
    "arith.divui": "Div",
    "arith.floordivsi": "FloorDiv",
    "arith.remf": "Mod",
    "arith.remsi": "Mod",
    "arith.maximumf": "Maximum",
    "arith.maxnumf": "Maximum",
    "arith.maxsi": "Maximum",
    "arith.minimumf": "Minimum",
    "arith.minnumf": "Minimum",
    "arith.minsi": "Minimum",
    "arith.negf": "Neg",
    "arith.cmpf": "Compare",
    "arith.cmpi": "Compare",
    "arith.select": "Select",
    "arith.andi": "LogicalAnd",
    "arith.ori": "LogicalOr",
    "arith.xori": "LogicalXor",
    "arith.sitofp": "Cast",
    "arith.uitofp": "Cast",
    "arith.fptosi": "Cast",
    "arith.fptoui": "Cast",
    "arith.extf": "Cast",
    "arith.truncf": "Cast",
    "arith.extsi": "Cast",
    "arith.extui": "Cast",
    "arith.trunci": "Cast",
    "arith.bitcast": "Cast",
    "math.exp": "Exp",
    "math.log": "Log",
    "math.log1p": "Log1p",
    "math.tanh": "Tanh",
    "math.sqrt": "Sqrt",
    "math.rsqrt": "Rsqrt",
    "math.powf": "Pow",
    "math.fpowi": "Pow",
    "math.ipowi": "Pow",
    "math.erf": "Erf",
    "math.absf": "Abs",
    "math.absi": "Abs",
    "math.sin": "Sin",
    "math.cos": "Cos",
    "math.floor": "Floor",
    "math.ceil": "Ceil",
    "math.round": "Round",
    "math.roundeven": "Round",
    "math.copysign": "CopySign",
    "math.exp2": "Exp2",
    "math.expm1": "Expm1",
    "math.atan": "Atan",
    "math.atan2": "Atan2",
}

#: Scalar-only ops that need no kernel of their own inside a body.
QUIET_BODY_OPS = frozenset({"arith.constant", "linalg.yield", "linalg.index", "arith.index_cast"})

#: Whole tensor ops -> (kernel type, unit) for a supported dtype.
TENSOR_KERNELS: dict[str, tuple[str, str]] = {
    "linalg.matmul": ("MatMul", "cube"),
    "linalg.batch_matmul": ("BatchMatMul", "cube"),
    "linalg.transpose": ("Transpose", "vector"),
    "linalg.broadcast": ("BroadcastTo", "vector"),
    "linalg.fill": ("Fill", "vector"),
    "linalg.copy": ("TensorMove", "vector"),
    "linalg.add": ("Add", "vector"),
    "linalg.sub": ("Sub", "vector"),
    "linalg.mul": ("Mul", "vector"),
    "linalg.div": ("RealDiv", "vector"),
    "linalg.max": ("Maximum", "vector"),
    "linalg.min": ("Minimum", "vector"),
    "linalg.exp": ("Exp", "vector"),
    "linalg.log": ("Log", "vector"),
    "linalg.sqrt": ("Sqrt", "vector"),
    "linalg.select": ("Select", "vector"),
    "tensor.extract_slice": ("StridedSlice", "vector"),
    "tensor.insert_slice": ("TensorScatterUpdate", "vector"),
    "tensor.concat": ("Concat", "vector"),
    "tensor.pad": ("Pad", "vector"),
    "tensor.splat": ("Fill", "vector"),
    "tensor.from_elements": ("Pack", "aicpu"),
    "tensor.extract": ("TensorToScalar", "aicpu"),
    "tensor.insert": ("ScalarToTensor", "aicpu"),
    "scf.if": ("If", "aicpu"),
    "scf.while": ("While", "aicpu"),
    "scf.for": ("For", "aicpu"),
    "cf.assert": ("Assert", "aicpu"),
    "ml_program.global_store": ("Assign", "vector"),
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
}


def element_type(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, TensorType) else t


def unit_supports(unit: str, dtype: Attribute) -> bool:
    """Whether the AI Core unit has kernels for this element type."""
    if unit == "cube":
        return isinstance(dtype, CUBE_DTYPES)
    if unit == "vector":
        if isinstance(dtype, Float16Type | BFloat16Type | Float32Type):
            return True
        return isinstance(dtype, IntegerType) and dtype.width.data in VECTOR_INT_WIDTHS
    return True


def body_names(op: Operation) -> list[str]:
    """The primitive names of a linalg body's computing ops, in order, deduplicated."""
    names: list[str] = []
    for inner in op.regions[0].block.ops if op.regions and op.regions[0].blocks else ():
        if inner.has_trait(IsTerminator) or inner.name in QUIET_BODY_OPS:
            continue
        name = BODY_NAMES.get(inner.name, inner.name.split(".", 1)[1].capitalize())
        if name not in names:
            names.append(name)
    return names


def generic_kernel(op: Operation) -> tuple[str, str]:
    """A linalg.generic or linalg.reduce: elementwise, reduction or contraction."""
    names = body_names(op)
    iterators = [a.data for a in getattr(op, "iterator_types", ())]
    reduces = op.name == "linalg.reduce" or "reduction" in [str(i) for i in iterators]
    if reduces and {"Mul", "Add"} <= set(names):
        return "BatchMatMul", "cube"
    if reduces:
        combiner = names[-1] if names else "Add"
        return REDUCE_NAMES.get(combiner, "Reduce" + combiner), "vector"
    if not names:
        return "Identity", "vector"
    if names == ["Maximum"] and _relu_body(op):
        return "ReLU", "vector"
    return "_".join(names), "vector"


def _relu_body(op: Operation) -> bool:
    """`max(x, 0.0)`: the body's maximum takes a zero constant (wherever it is defined)."""
    for inner in op.regions[0].block.ops:
        if inner.name in ("arith.maximumf", "arith.maxnumf"):
            for v in inner.operands:
                owner = v.owner
                value = getattr(owner, "value", None) if isinstance(owner, Operation) else None
                if owner is not None and getattr(owner, "name", "") == "arith.constant":
                    return float(value.value.data) == 0.0  # type: ignore[union-attr]
    return False


def scalar_kernel(op: Operation) -> tuple[str, str] | None:
    """A scalar arith/math op outside any tensor op: an AI CPU scalar kernel."""
    name = BODY_NAMES.get(op.name)
    if name is None and op.name.split(".", 1)[0] in ("arith", "math"):
        name = op.name.split(".", 1)[1].capitalize()
    if name is None:
        return None
    return "Scalar" + name, "aicpu"
