"""What each mindir pointwise op computes on one element, as scalar arith/math ops.

These are the bodies of the linalg.generic ops built by the elementwise patterns.
Semantics per element type:

- float: addf subf mulf divf math.powf maximumf minimumf (NaN-propagating, like
  numpy's maximum/minimum) negf math.absf; compares are ordered (olt ole ogt oge
  oeq) except not_equal, which is unordered (une) so NaN != NaN as in numpy.
- signed integers: addi subi muli; `div` is divsi, which truncates toward zero
  (C and MindSpore's Div on ints, *not* numpy's floor division); pow is
  math.ipowi; maxsi minsi; neg is `0 - x`; abs is math.absi; compares are signed.
- i1 (bool): compares are unsigned (false < true); logical ops are andi/ori and
  xori with true.
- cast: sitofp/fptosi (toward zero), extf/truncf, extsi/trunci; to i1 is
  `x != 0` (cmpf une / cmpi ne), from i1 is uitofp/extui (true -> 1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, IntegerType, i1
from xdsl.ir import Attribute, SSAValue

from mindjit.passes.mindir_to_tensor.builders import Emitter


def _is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def _width(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    return t.bitwidth  # type: ignore[attr-defined]


# --- binary ------------------------------------------------------------------------

_FLOAT_BINARY: dict[str, Callable[[SSAValue, SSAValue], object]] = {
    "add": arith.AddfOp,
    "sub": arith.SubfOp,
    "mul": arith.MulfOp,
    "div": arith.DivfOp,
    "pow": math.PowFOp,
    "maximum": arith.MaximumfOp,
    "minimum": arith.MinimumfOp,
}
_INT_BINARY: dict[str, Callable[[SSAValue, SSAValue], object]] = {
    "add": arith.AddiOp,
    "sub": arith.SubiOp,
    "mul": arith.MuliOp,
    "div": arith.DivSIOp,
    "pow": math.IPowIOp,
    "maximum": arith.MaxSIOp,
    "minimum": arith.MinSIOp,
    "logical_and": arith.AndIOp,
    "logical_or": arith.OrIOp,
}
_FLOAT_COMPARE = {
    "less": "olt",
    "less_equal": "ole",
    "greater": "ogt",
    "greater_equal": "oge",
    "equal": "oeq",
    "not_equal": "une",
}
_SIGNED_COMPARE = {
    "less": "slt",
    "less_equal": "sle",
    "greater": "sgt",
    "greater_equal": "sge",
    "equal": "eq",
    "not_equal": "ne",
}
_BOOL_COMPARE = {
    **_SIGNED_COMPARE,
    "less": "ult",
    "less_equal": "ule",
    "greater": "ugt",
    "greater_equal": "uge",
}

BINARY_KINDS = frozenset({*_INT_BINARY, *_FLOAT_COMPARE})
UNARY_KINDS = frozenset(
    {"logical_not", "neg", "abs", "relu", "exp", "log", "tanh", "sigmoid", "sqrt", "hswish"}
)


def binary(kind: str, e: Emitter, x: SSAValue, y: SSAValue) -> SSAValue:
    """`x <kind> y` on scalars of one element type (compares give i1)."""
    t = x.type
    if kind in _FLOAT_COMPARE:
        if _is_float(t):
            return e.value(arith.CmpfOp(x, y, _FLOAT_COMPARE[kind]))
        table = _BOOL_COMPARE if t == i1 else _SIGNED_COMPARE
        return e.value(arith.CmpiOp(x, y, table[kind]))
    table = _FLOAT_BINARY if _is_float(t) else _INT_BINARY
    return e.value(table[kind](x, y))  # type: ignore[arg-type]


# --- unary -------------------------------------------------------------------------

_MATH_UNARY = {"exp": math.ExpOp, "log": math.LogOp, "tanh": math.TanhOp, "sqrt": math.SqrtOp}


def unary(kind: str, e: Emitter, x: SSAValue) -> SSAValue:
    t = x.type
    if kind in _MATH_UNARY:
        return e.value(_MATH_UNARY[kind](x))
    if kind == "logical_not":
        return e.value(arith.XOrIOp(x, e.scalar(i1, True)))
    if kind == "neg":
        if _is_float(t):
            return e.value(arith.NegfOp(x))
        return e.value(arith.SubiOp(e.scalar(t, 0), x))
    if kind == "abs":
        return e.value(math.AbsFOp(x) if _is_float(t) else math.AbsIOp(x))
    if kind == "relu":
        return binary("maximum", e, x, e.scalar(t, 0))
    if kind == "sigmoid":  # 1 / (1 + exp(-x))
        one = e.scalar(t, 1.0)
        denom = e.value(arith.AddfOp(one, e.value(math.ExpOp(e.value(arith.NegfOp(x))))))
        return e.value(arith.DivfOp(one, denom))
    if kind == "hswish":  # x * min(max(x + 3, 0), 6) / 6
        three, zero, six = e.scalar(t, 3.0), e.scalar(t, 0.0), e.scalar(t, 6.0)
        shifted = e.value(arith.AddfOp(x, three))
        clipped = e.value(arith.MinimumfOp(e.value(arith.MaximumfOp(shifted, zero)), six))
        return e.value(arith.DivfOp(e.value(arith.MulfOp(x, clipped)), six))
    raise ValueError(f"unknown unary kind {kind}")


def select(e: Emitter, cond: SSAValue, x: SSAValue, y: SSAValue) -> SSAValue:
    return e.value(arith.SelectOp(cond, x, y))


def add_all(e: Emitter, values: Sequence[SSAValue]) -> SSAValue:
    """x0 + x1 + ... left to right (addn)."""
    total = values[0]
    for v in values[1:]:
        total = binary("add", e, total, v)
    return total


# --- cast --------------------------------------------------------------------------


def cast(e: Emitter, x: SSAValue, to: Attribute) -> SSAValue:
    """Convert one element to `to` (see the module docstring for the rules)."""
    src = x.type
    if src == to:
        return x
    if to == i1:
        zero = e.scalar(src, 0)
        if _is_float(src):
            return e.value(arith.CmpfOp(x, zero, "une"))
        return e.value(arith.CmpiOp(x, zero, "ne"))
    if src == i1:
        return e.value(arith.UIToFPOp(x, to) if _is_float(to) else arith.ExtUIOp(x, to))
    if _is_float(src) and _is_float(to):
        if _width(src) == _width(to):  # f16 <-> bf16: through f32
            from xdsl.dialects.builtin import f32

            return e.value(arith.TruncFOp(e.value(arith.ExtFOp(x, f32)), to))
        return e.value(arith.ExtFOp(x, to) if _width(to) > _width(src) else arith.TruncFOp(x, to))
    if _is_float(src):
        return e.value(arith.FPToSIOp(x, to))
    if _is_float(to):
        return e.value(arith.SIToFPOp(x, to))
    if _width(to) > _width(src):
        return e.value(arith.ExtSIOp(x, to))
    return e.value(arith.TruncIOp(x, to))
