"""MindSpore 2.10's bitwise and integer-number ops: `ops.bitwise_and`,
`ops.bitwise_or`, `ops.bitwise_xor`, `ops.bitwise_left_shift`,
`ops.bitwise_right_shift`, `ops.invert`, `ops.population_count`, `ops.gcd`,
`ops.lcm`.

and/or/xor and the two shifts are mindir ops (`mindir.bitwise_and` ...,
arith.andi/ori/xori/shli/shrsi/shrui on every engine); the rest are compositions:

- a shift's amount is taken modulo 32 (64 for int64), and int8/int16/uint8/uint16
  shift in int32 and wrap back: what MindSpore's CPU kernel does (C's shift on
  x86: `1 << 32` is 1, `int8(-100) << 2` is 112), and it keeps the mindir op's
  amount in [0, width), where MLIR's shifts are defined;
- `invert` is -1 - x (signed) or MAX - x (unsigned): ~x in two's complement;
- `population_count` counts bits in int64 with the SWAR sums (mask, add, multiply
  by 0x0101...), on the input's bits zero-extended; uint8 results as MindSpore;
- `gcd` is Euclid's algorithm on |x|, |y|, unrolled for the dtype's worst case
  (Fibonacci numbers: 23 steps for int16, 46 for int32, 92 for int64); PyNative
  stops when every remainder is zero, with the same values. `lcm` is
  |x / gcd * y| (0 where either is 0).
"""

from __future__ import annotations

from typing import Any

from mindjit.dialects import mindir as M
from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.ops.cast import cast_to, promote
from mindjit.frontend.ops.core import one, run
from mindjit.frontend.ops.math import abs, equal, floor_divide, mul, remainder, select, sub
from mindjit.frontend.ops.promotion import constant, is_tensor

_INTS = (D.int8, D.int16, D.int32, D.int64, D.uint8, D.uint16, D.uint32, D.uint64)
_NARROW = (D.int8, D.int16, D.uint8, D.uint16)
_WIDTH = {D.int8: 8, D.int16: 16, D.int32: 32, D.int64: 64}
_WIDTH.update({D.uint8: 8, D.uint16: 16, D.uint32: 32, D.uint64: 64})


def _type_names(dtypes: tuple) -> str:
    return ", ".join(f"Tensor[{d.ms_name}]" for d in sorted(dtypes, key=lambda d: d.ms_name))


def _check(prim: str, arg: str, t: Any, dtypes: tuple) -> None:
    if t.dtype not in dtypes:
        raise TypeError(
            f"For primitive[{prim}], the input argument[{arg}] must be a type of "
            f"{{{_type_names(dtypes)}}}, but got Tensor[{t.dtype.ms_name}]."
        )


def _operands(prim: str, x: Any, y: Any, dtypes: tuple) -> tuple[Any, Any]:
    if not is_tensor(x) and not is_tensor(y):
        raise TypeError(f"For '{prim}', at least one input must be a Tensor")
    for arg, t in (("x", x), ("y", y)):
        if is_tensor(t):
            _check(prim, arg, t, dtypes)
        elif isinstance(t, float):
            raise TypeError(f"For '{prim}', the input '{arg}' must be an int, but got a float")
    a, b = promote(x, y, what=prim)
    return a, b


def _bitwise(prim: str, op: Any, x: Any, y: Any) -> Any:
    a, b = _operands(prim, x, y, (*_INTS, D.bool_))
    return run((prim,), one(op), a, b)


def bitwise_and(input: Any, other: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.bitwise_and(input, other)`: input & other (int or bool tensors)."""
    return _bitwise("BitwiseAnd", M.BitwiseAndOp, input, other)


def bitwise_or(input: Any, other: Any) -> Any:  # noqa: A002
    """`ops.bitwise_or(input, other)`: input | other (int or bool tensors)."""
    return _bitwise("BitwiseOr", M.BitwiseOrOp, input, other)


def bitwise_xor(input: Any, other: Any) -> Any:  # noqa: A002
    """`ops.bitwise_xor(input, other)`: input ^ other (int or bool tensors)."""
    return _bitwise("BitwiseXor", M.BitwiseXorOp, input, other)


def _shift(prim: str, op: Any, x: Any, y: Any) -> Any:
    for t in (x, y):
        if is_tensor(t) and t.dtype not in _INTS:
            raise TypeError(
                f"For '{prim}', the dtype of input should be one of [Int8, Int16, Int32, Int64, "
                f"UInt8, UInt16, UInt32, UInt64], but got {t.dtype.ms_name}."
            )
    if is_tensor(x) and is_tensor(y) and x.dtype != y.dtype:
        raise TypeError(
            f"For '{prim}', the dtype of two args should be same, but the first arg dtype "
            f"Tensor[{x.dtype.ms_name}] are not consistent with second arg dtype "
            f"Tensor[{y.dtype.ms_name}]"
        )
    a, b = _operands(prim, x, y, _INTS)
    dtype = a.dtype
    if dtype in _NARROW:  # C's promotion: shift in int32, wrap back
        a, b = cast_to(a, D.int32), cast_to(b, D.int32)
    width = 64 if a.dtype in (D.int64, D.uint64) else 32
    amount = run(("BitwiseAnd",), one(M.BitwiseAndOp), b, constant(width - 1, b.dtype))
    out = run((prim,), one(op), a, amount)
    return out if out.dtype == dtype else cast_to(out, dtype)


def bitwise_left_shift(input: Any, other: Any) -> Any:  # noqa: A002
    """`ops.bitwise_left_shift(input, other)`: input << other (int tensors)."""
    return _shift("LeftShift", M.LeftShiftOp, input, other)


def bitwise_right_shift(input: Any, other: Any) -> Any:  # noqa: A002
    """`ops.bitwise_right_shift(input, other)`: input >> other, arithmetic for signed
    types (int tensors)."""
    return _shift("RightShift", M.RightShiftOp, input, other)


def invert(x: Any) -> Any:
    """`ops.invert(x)`: ~x, bit by bit (int tensors)."""
    if not is_tensor(x):
        raise TypeError(
            f"For primitive[Invert], the input argument[x] must be a Tensor, got {type(x)}"
        )
    t = x
    _check("Invert", "x", t, _INTS)
    if t.dtype in (D.uint8, D.uint16, D.uint32, D.uint64):
        return sub(constant(2 ** _WIDTH[t.dtype] - 1, t.dtype), t)
    return sub(constant(-1, t.dtype), t)


def _and(x: Any, mask: int) -> Any:
    return run(("BitwiseAnd",), one(M.BitwiseAndOp), x, constant(mask, D.int64))


def _shr(x: Any, n: int) -> Any:
    return run(("RightShift",), one(M.RightShiftOp), x, constant(n, D.int64))


def population_count(input_x: Any) -> Any:
    """`ops.population_count(input_x)`: the number of 1 bits of each element, uint8."""
    if not is_tensor(input_x):
        raise TypeError(
            f"For primitive[PopulationCount], the input must be a Tensor, got {type(input_x)}"
        )
    t = input_x
    _check("PopulationCount", "input_x", t, _INTS)
    width = _WIDTH[t.dtype]
    x = cast_to(t, D.int64)  # sign-extended for signed types; uint64: the same bits
    if width < 64:
        x = _and(x, 2**width - 1)
    x = sub(x, _and(_shr(x, 1), 0x5555555555555555))
    x = run(
        ("add",), one(M.AddOp), _and(x, 0x3333333333333333), _and(_shr(x, 2), 0x3333333333333333)
    )
    x = _and(run(("add",), one(M.AddOp), x, _shr(x, 4)), 0x0F0F0F0F0F0F0F0F)
    x = _shr(mul(x, constant(0x0101010101010101, D.int64)), 56)  # wraps, as C's
    return cast_to(x, D.uint8)


_GCD_STEPS = {D.int16: 23, D.int32: 46, D.int64: 92}


def _gcd(a: Any, b: Any) -> Any:
    """gcd(|a|, |b|) by Euclid's algorithm, unrolled."""
    a, b = abs(a), abs(b)
    eager = current_graph() is None
    for _ in range(_GCD_STEPS[a.dtype]):
        zero = equal(b, 0)
        if eager and bool(zero.asnumpy().all()):
            break
        r = remainder(a, select(zero, constant(1, b.dtype), b))
        a, b = select(zero, a, b), select(zero, b, r)
    return a


def gcd(input: Any, other: Any) -> Any:  # noqa: A002
    """`ops.gcd(input, other)`: the greatest common divisor, elementwise (int16,
    int32, int64 tensors; gcd(0, 0) = 0)."""
    prim = "Gcd"
    for t in (input, other):
        if not is_tensor(t) or t.dtype not in _GCD_STEPS:
            got = t.dtype.ms_name if is_tensor(t) else type(t).__name__
            raise TypeError(
                f"For Primitive[{prim}], the type of the input tensor must be [Int16, Int32, "
                f"Int64], but got {got}!"
            )
    a, b = promote(input, other, what=prim)
    return _gcd(a, b)


def lcm(input: Any, other: Any) -> Any:  # noqa: A002
    """`ops.lcm(input, other)`: the least common multiple, elementwise (int32, int64;
    0 where either is 0)."""
    prim = "Lcm"
    for arg, t in (("x1", input), ("x2", other)):
        if is_tensor(t):
            _check(prim, arg, t, (D.int32, D.int64))
        elif isinstance(t, bool) or not isinstance(t, int):
            raise TypeError(f"For primitive[{prim}], the input argument[{arg}] must be an int")
    a, b = promote(input, other, what=prim)
    g = _gcd(a, b)
    zero = equal(g, 0)
    return abs(mul(floor_divide(a, select(zero, constant(1, g.dtype), g)), b))


__all__ = [
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "gcd",
    "invert",
    "lcm",
    "population_count",
]
