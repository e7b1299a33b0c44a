"""What each mindir pointwise op computes on one element, as scalar arith/math ops.

These are the bodies of the linalg.generic ops the elementwise lowerings build,
keyed by op class: a new elementwise op gets its semantics here (and with it a
lowering, see elementwise.py). Semantics per element type:

- float: addf subf mulf divf math.powf maximumf minimumf (NaN-propagating, like
  numpy's maximum/minimum) negf math.absf; compares are ordered (olt ole ogt oge
  oeq) except not_equal, which is unordered (une) so NaN != NaN as in numpy.
- signed integers: addi subi muli; `div` is divsi, which truncates toward zero
  (C and MindSpore's Div on ints, *not* numpy's floor division); pow is
  math.ipowi; maxsi minsi; neg is `0 - x`; abs is math.absi; compares are signed.
- unsigned integers (`ui8` ... `ui64`, MindSpore's uint8 ...): the same ops with
  the unsigned forms where the sign matters: divui, maxui minui, compares ult ule
  ugt uge, abs is the value itself; add/sub/mul/neg wrap as for signed.
- i1 (bool): compares are unsigned (false < true); logical ops are andi/ori and
  xori with true.
- cast: sitofp/fptosi (toward zero), extf/truncf, extsi/trunci; to i1 is
  `x != 0` (cmpf une / cmpi ne), from i1 is uitofp/extui (true -> 1); from an
  unsigned type uitofp/extui, to one fptoui; between integers of one width a
  bitcast (int8 -1 is uint8 255, as numpy's astype).

Where the sign lives: the lowered IR keeps MindSpore's element types (`ui8`
tensors, `ui8` scalars in linalg bodies), and the *op* says how to read the
bits (divui, cmpi ult, uitofp ...). MLIR's arith verifier wants signless
operands, xDSL's does not; the CPU executor runs either (numpy's uint8 natively,
the *ui ops on a signed view). So dropping the sign is a pure type rewrite with
no op changed, done where a consumer needs signless: backend/iree/signless.py
for IREE (its inputs and results are viewed at the call). Keeping `ui8` here
means the CPU executor, the device's kernel selection and the cache see the
real dtype, with no boundary views or signature side tables.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, IntegerType, Signedness, f32, i1
from xdsl.ir import Attribute, Operation, SSAValue

from mindjit.dialects import mindir as M
from mindjit.passes.mindir_to_tensor.builders import Emitter


def _is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def _width(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    return t.bitwidth  # type: ignore[attr-defined]


def is_unsigned(t: Attribute) -> bool:
    """An unsigned integer type (`ui8` ...), read as unsigned by the ops built here."""
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.UNSIGNED


def int_extremes(t: IntegerType) -> tuple[int, int]:
    """The smallest and largest value of integer type `t`."""
    width = t.width.data
    if is_unsigned(t):
        return 0, 2**width - 1
    return -(2 ** (width - 1)), 2 ** (width - 1) - 1


def int_compare(predicate: str, t: Attribute) -> str:
    """A signed cmpi predicate (`slt` ...) in the form type `t` needs (`ult` for
    unsigned types)."""
    if predicate[0] == "s" and is_unsigned(t):
        return "u" + predicate[1:]
    return predicate


# --- binary ------------------------------------------------------------------------

#: float semantics of the binary ops that are one arith/math op
FLOAT_BINARY: dict[type[Operation], Callable[[SSAValue, SSAValue], Operation]] = {
    M.AddOp: arith.AddfOp,
    M.SubOp: arith.SubfOp,
    M.MulOp: arith.MulfOp,
    M.DivOp: arith.DivfOp,
    M.PowOp: math.PowFOp,
    M.MaximumOp: arith.MaximumfOp,
    M.MinimumOp: arith.MinimumfOp,
    M.Atan2Op: math.Atan2Op,
}
#: integer (and i1) semantics of the same, and the logical ops
INT_BINARY: dict[type[Operation], Callable[[SSAValue, SSAValue], Operation]] = {
    M.AddOp: arith.AddiOp,
    M.SubOp: arith.SubiOp,
    M.MulOp: arith.MuliOp,
    M.DivOp: arith.DivSIOp,
    M.PowOp: math.IPowIOp,
    M.MaximumOp: arith.MaxSIOp,
    M.MinimumOp: arith.MinSIOp,
    M.LogicalAndOp: arith.AndIOp,
    M.LogicalOrOp: arith.OrIOp,
    M.BitwiseAndOp: arith.AndIOp,
    M.BitwiseOrOp: arith.OrIOp,
    M.BitwiseXorOp: arith.XOrIOp,
    M.LeftShiftOp: arith.ShLIOp,
    M.RightShiftOp: arith.ShRSIOp,
}
#: the unsigned forms of the INT_BINARY entries where the sign matters
UINT_BINARY: dict[type[Operation], Callable[[SSAValue, SSAValue], Operation]] = {
    M.DivOp: arith.DivUIOp,
    M.MaximumOp: arith.MaxUIOp,
    M.MinimumOp: arith.MinUIOp,
    M.RightShiftOp: arith.ShRUIOp,
}
#: compares: (float predicate, signed integer predicate, i1 predicate)
COMPARES: dict[type[Operation], tuple[str, str, str]] = {
    M.LessOp: ("olt", "slt", "ult"),
    M.LessEqualOp: ("ole", "sle", "ule"),
    M.GreaterOp: ("ogt", "sgt", "ugt"),
    M.GreaterEqualOp: ("oge", "sge", "uge"),
    M.EqualOp: ("oeq", "eq", "eq"),
    M.NotEqualOp: ("une", "ne", "ne"),
}


def scalar_op(e: Emitter, cls: type[Operation], *operands: SSAValue) -> SSAValue:
    """`cls(*operands)` whose result has the first operand's type, built with
    `create` (6 us) instead of the IRDL constructor (18 us): linalg bodies are most
    of the ops a lowering makes."""
    return e.value(cls.create(operands=list(operands), result_types=[operands[0].type]))


def _sigmoid_grad(e: Emitter, y: SSAValue, dy: SSAValue) -> SSAValue:  # dy * (y * (1 - y))
    one = e.scalar(y.type, 1.0)
    return scalar_op(
        e, arith.MulfOp, dy, scalar_op(e, arith.MulfOp, y, scalar_op(e, arith.SubfOp, one, y))
    )


def _tanh_grad(e: Emitter, y: SSAValue, dy: SSAValue) -> SSAValue:  # dy * (1 - y * y)
    one = e.scalar(y.type, 1.0)
    return scalar_op(
        e, arith.MulfOp, dy, scalar_op(e, arith.SubfOp, one, scalar_op(e, arith.MulfOp, y, y))
    )


#: float-only binary ops that are a few arith ops on one element: the bprop primitives
#: mindir-grad emits, one mindir op whose formula is one linalg body (the ops in the
#: order mindir-grad's three-op form computed them, so the values are the same)
FLOAT_COMPOSITE: dict[type[Operation], Callable[[Emitter, SSAValue, SSAValue], SSAValue]] = {
    M.SigmoidGradOp: _sigmoid_grad,
    M.TanhGradOp: _tanh_grad,
}
#: every binary op with a scalar semantics here (atan2 and the composites are
#: float-only: no int entry)
BINARY: tuple[type[Operation], ...] = (
    *dict.fromkeys([*INT_BINARY, *FLOAT_BINARY, *FLOAT_COMPOSITE]),
    *COMPARES,
)


def binary(op: type[Operation], e: Emitter, x: SSAValue, y: SSAValue) -> SSAValue:
    """What binary op class `op` computes on scalars of one element type (compares
    give i1)."""
    t = x.type
    predicates = COMPARES.get(op)
    if predicates is not None:
        if _is_float(t):
            return e.value(arith.CmpfOp(x, y, predicates[0]))
        unsigned = t == i1 or is_unsigned(t)
        return e.value(arith.CmpiOp(x, y, predicates[2] if unsigned else predicates[1]))
    composite = FLOAT_COMPOSITE.get(op)
    if composite is not None:
        return composite(e, x, y)
    if _is_float(t):
        return scalar_op(e, FLOAT_BINARY[op], x, y)
    if is_unsigned(t):
        if op in UINT_BINARY:
            return e.value(UINT_BINARY[op](x, y))
        if op is M.PowOp:  # math.ipowi takes signless only: the same bits, wrapped alike
            signless = IntegerType(_width(t))
            xs, ys = (e.value(arith.BitcastOp(v, signless)) for v in (x, y))
            return e.value(arith.BitcastOp(e.value(math.IPowIOp(xs, ys)), t))
    return scalar_op(e, INT_BINARY[op], x, y)


# --- unary -------------------------------------------------------------------------

UnaryRule = Callable[[Emitter, SSAValue], SSAValue]
#: what each unary op computes on one element
UNARY: dict[type[Operation], UnaryRule] = {}


def _unary(*ops: type[Operation]) -> Callable[[UnaryRule], UnaryRule]:
    def add(rule: UnaryRule) -> UnaryRule:
        for op in ops:
            UNARY[op] = rule
        return rule

    return add


#: the unary float ops that are one math op on elements of their own type
MATH_UNARY: dict[type[Operation], type[Operation]] = {
    M.ExpOp: math.ExpOp,
    M.LogOp: math.LogOp,
    M.TanhOp: math.TanhOp,
    M.SinOp: math.SinOp,
    M.CosOp: math.CosOp,
    M.ErfOp: math.ErfOp,
    M.FloorOp: math.FloorOp,
    M.CeilOp: math.CeilOp,
    M.RoundOp: math.RoundEvenOp,
    M.SqrtOp: math.SqrtOp,
    M.Log1pOp: math.Log1pOp,
    M.Expm1Op: math.ExpM1Op,
}
for _mindir_op, _math_op in MATH_UNARY.items():
    _unary(_mindir_op)(lambda e, x, _op=_math_op: scalar_op(e, _op, x))
_unary(M.LogicalNotOp)(lambda e, x: e.value(arith.XOrIOp(x, e.scalar(i1, True))))


@_unary(M.AbsOp)
def _abs(e: Emitter, x: SSAValue) -> SSAValue:
    if _is_float(x.type):
        return e.value(math.AbsFOp(x))
    return x if is_unsigned(x.type) else e.value(math.AbsIOp(x))


_unary(M.ReluOp)(lambda e, x: binary(M.MaximumOp, e, x, e.scalar(x.type, 0)))


@_unary(M.NegOp)
def _neg(e: Emitter, x: SSAValue) -> SSAValue:
    if _is_float(x.type):
        return scalar_op(e, arith.NegfOp, x)
    return e.value(arith.SubiOp(e.scalar(x.type, 0), x))


@_unary(M.SigmoidOp)
def _sigmoid(e: Emitter, x: SSAValue) -> SSAValue:  # 1 / (1 + exp(-x))
    one = e.scalar(x.type, 1.0)
    denom = scalar_op(e, arith.AddfOp, one, scalar_op(e, math.ExpOp, scalar_op(e, arith.NegfOp, x)))
    return scalar_op(e, arith.DivfOp, one, denom)


@_unary(M.HSwishOp)
def _hswish(e: Emitter, x: SSAValue) -> SSAValue:  # x * min(max(x + 3, 0), 6) / 6
    t = x.type
    three, zero, six = e.scalar(t, 3.0), e.scalar(t, 0.0), e.scalar(t, 6.0)
    shifted = e.value(arith.AddfOp(x, three))
    clipped = e.value(arith.MinimumfOp(e.value(arith.MaximumfOp(shifted, zero)), six))
    return e.value(arith.DivfOp(e.value(arith.MulfOp(x, clipped)), six))


def unary(op: type[Operation], e: Emitter, x: SSAValue) -> SSAValue:
    return UNARY[op](e, x)


def select(e: Emitter, cond: SSAValue, x: SSAValue, y: SSAValue) -> SSAValue:
    return e.value(arith.SelectOp(cond, x, y))


def add_all(e: Emitter, values: Sequence[SSAValue]) -> SSAValue:
    """x0 + x1 + ... left to right (addn)."""
    total = values[0]
    for v in values[1:]:
        total = binary(M.AddOp, e, total, v)
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
            return e.value(arith.TruncFOp(e.value(arith.ExtFOp(x, f32)), to))
        return e.value(arith.ExtFOp(x, to) if _width(to) > _width(src) else arith.TruncFOp(x, to))
    if _is_float(src):
        return e.value(arith.FPToUIOp(x, to) if is_unsigned(to) else arith.FPToSIOp(x, to))
    if _is_float(to):
        return e.value(arith.UIToFPOp(x, to) if is_unsigned(src) else arith.SIToFPOp(x, to))
    if _width(to) > _width(src):
        return e.value(arith.ExtUIOp(x, to) if is_unsigned(src) else arith.ExtSIOp(x, to))
    if _width(to) == _width(src):  # int8 <-> uint8: the same bits
        return e.value(arith.BitcastOp(x, to))
    return e.value(arith.TruncIOp(x, to))
