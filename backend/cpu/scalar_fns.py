"""arith/math ops as numpy callables, chosen once per op at plan time.

Tables are keyed by xDSL op class. The same callable works on numpy scalars (ops outside linalg bodies) and on
whole arrays (linalg bodies evaluated vectorised), and keeps the MLIR element
type: integer ops wrap like their width, `divsi` truncates toward zero, the
`*ui` ops see their operands as unsigned, i1 is numpy bool.
"""

from __future__ import annotations

from collections.abc import Callable
from math import erf as _exact_erf
from typing import Any

import numpy as np
from xdsl.dialects import arith, math
from xdsl.ir import Operation

from mindjit.backend.cpu.errors import unsupported
from mindjit.backend.cpu.types import dtype_of, is_tensor, signed_twin, unsigned_twin

Fn = Callable[..., Any]


def _divsi(a: Any, b: Any) -> Any:
    """Signed division rounding toward zero (numpy's // floors)."""
    return np.floor_divide(a - np.fmod(a, b), b)


def _ceildivsi(a: Any, b: Any) -> Any:
    return np.negative(np.floor_divide(np.negative(a), b))


def _rsqrt(x: Any) -> Any:
    return np.reciprocal(np.sqrt(x))


def _round_half_away(x: Any) -> Any:
    """math.round: halfway cases away from zero (np.round rounds to even)."""
    return np.copysign(np.floor(np.abs(x) + x.dtype.type(0.5)), x)


def _fma(a: Any, b: Any, c: Any) -> Any:
    return a * b + c


_ERF_EXACT = np.frompyfunc(_exact_erf, 1, 1)


def _erf(x: Any) -> Any:
    """erf to ~1e-7 relative in float64 math (numpy has no erf); f64 is exact."""
    if x.dtype == np.float64:
        return np.asarray(_ERF_EXACT(x), dtype=np.float64)[()]
    z = np.asarray(x, dtype=np.float64)
    a = np.abs(z)
    t = 1.0 / (1.0 + 0.5 * a)
    poly = -1.26551223 + t * (
        1.00002368
        + t
        * (
            0.37409196
            + t
            * (
                0.09678418
                + t
                * (
                    -0.18628806
                    + t
                    * (
                        0.27886807
                        + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))
                    )
                )
            )
        )
    )
    erfc = t * np.exp(-a * a + poly)
    z2 = z * z
    taylor = z * (
        1.1283791670955126
        + z2
        * (
            -0.37612638903183754
            + z2
            * (
                0.11283791670955126
                + z2
                * (
                    -0.026866170645131252
                    + z2 * (0.005223977625442188 + z2 * -0.0008548327023450852)
                )
            )
        )
    )
    result = np.where(a < 0.5, taylor, np.copysign(1.0 - erfc, z))
    return result.astype(x.dtype)[()]


FLOAT_BINARY: dict[type[Operation], Fn] = {
    arith.AddfOp: np.add,
    arith.SubfOp: np.subtract,
    arith.MulfOp: np.multiply,
    arith.DivfOp: np.divide,
    arith.MaximumfOp: np.maximum,
    arith.MinimumfOp: np.minimum,
    arith.MaxnumfOp: np.fmax,
    arith.MinnumfOp: np.fmin,
    math.PowFOp: np.power,
    math.Atan2Op: np.arctan2,
    math.CopySignOp: np.copysign,
}

FLOAT_UNARY: dict[type[Operation], Fn] = {
    arith.NegfOp: np.negative,
    math.AbsFOp: np.abs,
    math.ExpOp: np.exp,
    math.Exp2Op: np.exp2,
    math.ExpM1Op: np.expm1,
    math.LogOp: np.log,
    math.Log2Op: np.log2,
    math.Log10Op: np.log10,
    math.Log1pOp: np.log1p,
    math.SqrtOp: np.sqrt,
    math.RsqrtOp: _rsqrt,
    math.CbrtOp: np.cbrt,
    math.TanhOp: np.tanh,
    math.SinOp: np.sin,
    math.CosOp: np.cos,
    math.TanOp: np.tan,
    math.SinhOp: np.sinh,
    math.CoshOp: np.cosh,
    math.AsinOp: np.arcsin,
    math.AcosOp: np.arccos,
    math.AtanOp: np.arctan,
    math.AsinhOp: np.arcsinh,
    math.AcoshOp: np.arccosh,
    math.AtanhOp: np.arctanh,
    math.FloorOp: np.floor,
    math.CeilOp: np.ceil,
    math.TruncOp: np.trunc,
    math.RoundEvenOp: np.rint,
    math.RoundOp: _round_half_away,
    math.ErfOp: _erf,
}

INT_BINARY: dict[type[Operation], Fn] = {
    arith.AddiOp: np.add,
    arith.SubiOp: np.subtract,
    arith.MuliOp: np.multiply,
    arith.AndIOp: np.bitwise_and,
    arith.OrIOp: np.bitwise_or,
    arith.XOrIOp: np.bitwise_xor,
    arith.MaxSIOp: np.maximum,
    arith.MinSIOp: np.minimum,
    arith.DivSIOp: _divsi,
    arith.RemSIOp: np.fmod,
    arith.FloorDivSIOp: np.floor_divide,
    arith.CeilDivSIOp: _ceildivsi,
    arith.ShLIOp: np.left_shift,
    arith.ShRSIOp: np.right_shift,
    math.IPowIOp: np.power,
}

# Same ops on i1 (numpy bool): add/sub are xor, mul is and, signed max is and.
BOOL_BINARY: dict[type[Operation], Fn] = {
    arith.AddiOp: np.bitwise_xor,
    arith.SubiOp: np.bitwise_xor,
    arith.MuliOp: np.bitwise_and,
    arith.AndIOp: np.bitwise_and,
    arith.OrIOp: np.bitwise_or,
    arith.XOrIOp: np.bitwise_xor,
    arith.MaxSIOp: np.bitwise_and,
    arith.MinSIOp: np.bitwise_or,
    arith.MaxUIOp: np.bitwise_or,
    arith.MinUIOp: np.bitwise_and,
}

UINT_BINARY: dict[type[Operation], Fn] = {
    arith.DivUIOp: np.floor_divide,
    arith.RemUIOp: np.remainder,
    arith.MaxUIOp: np.maximum,
    arith.MinUIOp: np.minimum,
    arith.ShRUIOp: np.right_shift,
    arith.CeilDivUIOp: lambda a, b: np.floor_divide(a + b - a.dtype.type(1), b),
}

CAST_OPS = frozenset(
    {
        arith.ExtFOp,
        arith.TruncFOp,
        arith.SIToFPOp,
        arith.UIToFPOp,
        arith.FPToSIOp,
        arith.FPToUIOp,
        arith.ExtSIOp,
        arith.ExtUIOp,
        arith.TruncIOp,
        arith.IndexCastOp,
        arith.BitcastOp,
    }
)

_CMPF: dict[str, Fn] = {
    "oeq": np.equal,
    "ogt": np.greater,
    "oge": np.greater_equal,
    "olt": np.less,
    "ole": np.less_equal,
    "one": lambda a, b: np.less(a, b) | np.greater(a, b),
    "ord": lambda a, b: ~(np.isnan(a) | np.isnan(b)),
    "ueq": lambda a, b: ~(np.less(a, b) | np.greater(a, b)),
    "ugt": lambda a, b: ~np.less_equal(a, b),
    "uge": lambda a, b: ~np.less(a, b),
    "ult": lambda a, b: ~np.greater_equal(a, b),
    "ule": lambda a, b: ~np.greater(a, b),
    "une": np.not_equal,
    "uno": lambda a, b: np.isnan(a) | np.isnan(b),
    "true": lambda a, b: np.ones(np.broadcast(a, b).shape, np.bool_)[()],
    "false": lambda a, b: np.zeros(np.broadcast(a, b).shape, np.bool_)[()],
}
_CMPF_NAMES = arith.CMPF_COMPARISON_OPERATIONS  # by predicate number
_CMPI_NAMES = arith.CMPI_COMPARISON_OPERATIONS
_ORDER: dict[type[Operation], Fn] = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}

ELEMENTWISE_OPS = frozenset(
    set(FLOAT_BINARY)
    | set(FLOAT_UNARY)
    | set(INT_BINARY)
    | set(UINT_BINARY)
    | CAST_OPS
    | {arith.CmpfOp, arith.CmpiOp, arith.SelectOp, math.AbsIOp, math.FmaOp, math.FPowIOp}
)


#: float32 functions that replace FLOAT_UNARY's for float32 operands, registered by a
#: code generator that computes the same function inside its loop nests (codegen_llvm:
#: tanh_f32.py's tanh), so every path of a process gives the same bits; each entry
#: makes the function when an op is planned (so its kernel can start compiling)
FLOAT32_UNARY: dict[type[Operation], Callable[[], Fn]] = {}


def scalar_fn(op: Operation, vectorized: bool) -> Fn:
    """The numpy callable computing `op` from its operand values.

    `vectorized`: operands may be arrays broadcast against each other (linalg
    bodies); otherwise `arith.select` picks one operand instead of np.where.
    """
    name = type(op)
    out = dtype_of(op.results[0].type, op)
    src = dtype_of(op.operands[0].type, op)
    if name in CAST_OPS:
        return _cast_fn(op, name, src, out)
    if name == arith.CmpfOp:
        return _CMPF[_CMPF_NAMES[op.predicate.value.data]]
    if name == arith.CmpiOp:
        return _cmpi_fn(_CMPI_NAMES[op.predicate.value.data], src)
    if name == arith.SelectOp:
        return _select_fn(op, vectorized)
    if name == math.FmaOp:
        return _fma
    if name == math.FPowIOp:
        return lambda a, b: np.power(a, b.astype(a.dtype))
    if src == np.float32 and out == np.float32 and name in FLOAT32_UNARY:
        return FLOAT32_UNARY[name]()
    if src.kind == "f":
        fn = FLOAT_BINARY.get(name) or FLOAT_UNARY.get(name)
    elif src == np.bool_:
        fn = BOOL_BINARY.get(name)
    elif name == math.AbsIOp:
        fn = np.abs
    elif name in UINT_BINARY:
        fn = _unsigned(UINT_BINARY[name], src)
    else:
        fn = INT_BINARY.get(name)
    if fn is None:
        raise unsupported(op, f"no kernel for element type {src}")
    return fn


def _unsigned(fn: Fn, dtype: np.dtype) -> Fn:
    """Run `fn` on the unsigned view of signless integers, give back signless."""
    if dtype.kind == "u":
        return fn
    udt = unsigned_twin(dtype)
    return lambda a, b: fn(a.view(udt), b.view(udt)).view(dtype)


def _cmpi_fn(pred: str, dtype: np.dtype) -> Fn:
    cmp = _ORDER[pred[1:] if pred[0] in "su" else pred]
    if pred[0] == "u" and dtype.kind == "i":
        udt = unsigned_twin(dtype)
        return lambda a, b: cmp(a.view(udt), b.view(udt))
    if pred[0] == "s" and dtype.kind == "u":
        sdt = signed_twin(dtype)
        return lambda a, b: cmp(a.view(sdt), b.view(sdt))
    if dtype == np.bool_ and pred[0] == "s":
        # signed i1: true is -1, so the order is reversed
        return lambda a, b: cmp(b, a)
    return cmp


def _select_fn(op: Operation, vectorized: bool) -> Fn:
    if vectorized or is_tensor(op.operands[0].type):
        return np.where
    return lambda c, a, b: a if c else b


def _cast_fn(op: Operation, name: type[Operation], src: np.dtype, out: np.dtype) -> Fn:
    """Casts keep MLIR's meaning: ui casts see unsigned bits, extsi of i1 gives -1."""
    if name == arith.BitcastOp:
        if src.itemsize != out.itemsize or np.bool_ in (src, out):
            raise unsupported(op, f"bitcast {src} -> {out}")
        return lambda x: x.view(out)
    if name in (arith.UIToFPOp, arith.ExtUIOp) and src.kind == "i":
        usrc = unsigned_twin(src)
        return lambda x: x.view(usrc).astype(out)
    if name == arith.ExtSIOp and src == np.bool_:
        return lambda x: np.negative(x.astype(out))
    if out == np.bool_ and src != np.bool_:
        return lambda x: np.bitwise_and(x, src.type(1)).astype(np.bool_)
    if name == arith.FPToUIOp and out.kind == "i":
        uout = unsigned_twin(out)
        return lambda x: x.astype(uout).view(out)
    return lambda x: x.astype(out)
