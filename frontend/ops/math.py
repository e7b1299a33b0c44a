"""Elementwise math, comparisons, logical ops, select and matmul (MindSpore 2.x signatures).

Every binary op promotes its operands first (see promotion.py), so the mindir
op always sees one element type. Float-only math (exp, log, tanh, sigmoid,
sqrt, hswish, true division) computes integer inputs in float32.
"""

from __future__ import annotations

from typing import Any

from mindjit.dialects import mindir as M
from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import reshape
from mindjit.frontend.ops.cast import cast_to, float_input, promote
from mindjit.frontend.ops.core import one, require_numeric, run
from mindjit.frontend.ops.promotion import as_operand, constant, default_dtype, is_tensor


def _tensor(x: Any, name: str) -> Any:
    x = as_operand(x, f"'{name}' input")
    if not is_tensor(x):
        x = constant(x, default_dtype(x))
    return x


def _binary(name: str, op_cls: Any, x: Any, y: Any, numeric: bool = True) -> Any:
    a, b = promote(x, y, what=name)
    if numeric:
        require_numeric(a, name)
    return run((name,), one(op_cls), a, b)


def _unary(name: str, op_cls: Any, x: Any, float_only: bool = False) -> Any:
    t = _tensor(x, name)
    require_numeric(t, name)
    if float_only:
        t = float_input(t)
    return run((name,), one(op_cls), t)


# --- arithmetic ----------------------------------------------------------------------


def add(input: Any, other: Any) -> Any:
    a, b = promote(input, other, what="add")
    if a.dtype.is_bool:  # bool + bool is logical or, as in MindSpore
        return run(("logical_or",), one(M.LogicalOrOp), a, b)
    return run(("add",), one(M.AddOp), a, b)


def addn(x: Any) -> Any:
    """The sum of a tuple or list of tensors of one shape and dtype (`mindir.addn`)."""
    if not isinstance(x, tuple | list) or not x:
        raise TypeError("For 'addn', the input must be a non-empty tuple or list of tensors")
    items = promote(*x, what="addn")
    if len({tuple(t.shape) for t in items}) != 1:
        shapes = ", ".join(str(tuple(t.shape)) for t in items)
        raise ValueError(f"For 'addn', the tensors must have one shape, got {shapes}")

    def build(e: Any, v: list[Any]) -> Any:
        return e.value(M.AddNOp.get(e.value(M.MakeTupleOp.get(v))))

    return run(("addn", len(items)), build, *items)


def sub(input: Any, other: Any) -> Any:
    return _binary("sub", M.SubOp, input, other)


def mul(input: Any, other: Any) -> Any:
    a, b = promote(input, other, what="mul")
    if a.dtype.is_bool:  # bool * bool is logical and
        return run(("logical_and",), one(M.LogicalAndOp), a, b)
    return run(("mul",), one(M.MulOp), a, b)


def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Any:
    """True division (ints are divided in float32); rounding_mode 'trunc' or 'floor'."""
    if rounding_mode is None:
        a, b = promote(input, other, what="div")
        if not a.dtype.is_float:
            a, b = cast_to(a, D.float32), cast_to(b, D.float32)
        return run(("div",), one(M.DivOp), a, b)
    if rounding_mode == "trunc":
        return _trunc_div(input, other)
    if rounding_mode == "floor":
        return floor_divide(input, other)
    raise ValueError(
        f"For 'div', rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}"
    )


def _trunc_div(x: Any, y: Any) -> Any:
    a, b = promote(x, y, what="div")
    require_numeric(a, "div")
    q = run(("div",), one(M.DivOp), a, b)  # ints: mindir.div truncates toward zero
    if a.dtype.is_float:
        q = cast_to(cast_to(q, D.int64), a.dtype)
    return q


def floor_divide(input: Any, other: Any) -> Any:
    """`x // y`: the quotient rounded toward negative infinity."""
    a, b = promote(input, other, what="floor_divide")
    require_numeric(a, "floor_divide")
    q = _trunc_div(a, b)
    # the truncated quotient is one too big when the exact quotient is negative and inexact
    inexact = not_equal(mul(q, b), a)
    negative = less(mul(a, b), 0) if a.dtype.is_float else not_equal(less(a, 0), less(b, 0))
    return sub(q, cast_to(logical_and(inexact, negative), a.dtype))


def remainder(input: Any, other: Any) -> Any:
    """`x % y` with the sign of y (Python's and MindSpore's floor mod)."""
    a, b = promote(input, other, what="remainder")
    return sub(a, mul(floor_divide(a, b), b))


def neg(input: Any) -> Any:
    return _unary("neg", M.NegOp, input)


def abs(input: Any) -> Any:  # noqa: A001 - MindSpore's name
    return _unary("abs", M.AbsOp, input)


def pow(input: Any, exponent: Any) -> Any:  # noqa: A001 - MindSpore's name
    return _binary("pow", M.PowOp, input, exponent)


def maximum(input: Any, other: Any) -> Any:
    return _binary("maximum", M.MaximumOp, input, other)


def minimum(input: Any, other: Any) -> Any:
    return _binary("minimum", M.MinimumOp, input, other)


def square(input: Any) -> Any:
    t = _tensor(input, "square")
    return mul(t, t)


def exp(input: Any) -> Any:
    return _unary("exp", M.ExpOp, input, float_only=True)


def log(input: Any) -> Any:
    return _unary("log", M.LogOp, input, float_only=True)


def tanh(input: Any) -> Any:
    return _unary("tanh", M.TanhOp, input, float_only=True)


def sin(input: Any) -> Any:
    return _unary("sin", M.SinOp, input, float_only=True)


def cos(input: Any) -> Any:
    return _unary("cos", M.CosOp, input, float_only=True)


def erf(input: Any) -> Any:
    return _unary("erf", M.ErfOp, input, float_only=True)


def _rounding(name: str, op_cls: Any, input: Any) -> Any:
    """floor/ceil/round: integers are already whole (returned as they are)."""
    x = _tensor(input, name)
    if x.dtype.is_bool:
        raise TypeError(f"For '{name}', the input must be a number tensor, got {x.dtype}")
    return x if not x.dtype.is_float else _unary(name, op_cls, x)


def floor(input: Any) -> Any:
    return _rounding("floor", M.FloorOp, input)


def ceil(input: Any) -> Any:
    return _rounding("ceil", M.CeilOp, input)


def round(input: Any, *, decimals: int = 0) -> Any:  # noqa: A001 - MindSpore's name
    """`ops.round(input, *, decimals=0)`: halfway cases to even, as MindSpore."""
    if isinstance(decimals, bool) or not isinstance(decimals, int):
        raise TypeError(f"For 'round', 'decimals' must be an int, got {decimals!r}")
    if decimals == 0:
        return _rounding("round", M.RoundOp, input)
    scale = 10.0**decimals
    return div(_rounding("round", M.RoundOp, mul(input, scale)), scale)


def sigmoid(input: Any) -> Any:
    return _unary("sigmoid", M.SigmoidOp, input, float_only=True)


def sqrt(x: Any) -> Any:
    return _unary("sqrt", M.SqrtOp, x, float_only=True)


def rsqrt(input: Any) -> Any:
    return div(1.0, sqrt(input))


def reciprocal(input: Any) -> Any:
    return div(1.0, float_input(_tensor(input, "reciprocal")))


def relu(input: Any) -> Any:
    return _unary("relu", M.ReluOp, input)


def hswish(x: Any) -> Any:
    """x * relu6(x + 3) / 6."""
    return _unary("hswish", M.HSwishOp, x, float_only=True)


# --- comparison ------------------------------------------------------------------------


def _compare(name: str, op_cls: Any, x: Any, y: Any) -> Any:
    a, b = promote(x, y, what=name)
    return run((name,), one(op_cls), a, b)


def equal(input: Any, other: Any) -> Any:
    return _compare("equal", M.EqualOp, input, other)


def not_equal(input: Any, other: Any) -> Any:
    return _compare("not_equal", M.NotEqualOp, input, other)


def less(input: Any, other: Any) -> Any:
    return _compare("less", M.LessOp, input, other)


def less_equal(input: Any, other: Any) -> Any:
    return _compare("less_equal", M.LessEqualOp, input, other)


def greater(input: Any, other: Any) -> Any:
    return _compare("greater", M.GreaterOp, input, other)


def greater_equal(input: Any, other: Any) -> Any:
    return _compare("greater_equal", M.GreaterEqualOp, input, other)


ne, lt, le, gt, ge = not_equal, less, less_equal, greater, greater_equal


# --- logical ------------------------------------------------------------------------------


def _bool(x: Any, name: str) -> Any:
    t = _tensor(x, name)
    return t if t.dtype.is_bool else cast_to(t, D.bool_)


def logical_and(input: Any, other: Any) -> Any:
    return run(
        ("logical_and",),
        one(M.LogicalAndOp),
        _bool(input, "logical_and"),
        _bool(other, "logical_and"),
    )


def logical_or(input: Any, other: Any) -> Any:
    return run(
        ("logical_or",), one(M.LogicalOrOp), _bool(input, "logical_or"), _bool(other, "logical_or")
    )


def logical_not(input: Any) -> Any:
    return run(("logical_not",), one(M.LogicalNotOp), _bool(input, "logical_not"))


def logical_xor(input: Any, other: Any) -> Any:
    return not_equal(_bool(input, "logical_xor"), _bool(other, "logical_xor"))


# --- select and matmul -----------------------------------------------------------------------


def select(cond: Any, x: Any, y: Any) -> Any:
    """`ops.select(cond, x, y)`: x where cond else y (x or y may be numbers)."""
    c = _bool(cond, "select")
    a, b = promote(x, y, what="select")
    return run(("select",), one(M.SelectOp), c, a, b)


where = select


def matmul(input: Any, other: Any, transpose_a: bool = False, transpose_b: bool = False) -> Any:
    """`ops.matmul(a, b)` with numpy's 1-D rules: a 1-D operand is a row (lhs) or column (rhs)."""

    a, b = promote(input, other, what="matmul")
    require_numeric(a, "matmul")
    ra, rb = len(a.shape), len(b.shape)
    if ra == 0 or rb == 0:
        raise ValueError("For 'matmul', the inputs must not be scalars")
    a2 = reshape(a, (1, a.shape[0])) if ra == 1 else a
    b2 = reshape(b, (b.shape[0], 1)) if rb == 1 else b
    ta, tb = bool(transpose_a and ra > 1), bool(transpose_b and rb > 1)
    out = run(("matmul", ta, tb), one(M.MatMulOp, transpose_a=ta, transpose_b=tb), a2, b2)
    if ra == 1 or rb == 1:
        shape = tuple(out.shape)
        if ra == 1:
            shape = shape[:-2] + shape[-1:]
        if rb == 1:
            shape = shape[:-1]
        out = reshape(out, shape)
    return out


def bmm(input_x: Any, mat2: Any) -> Any:
    """`ops.bmm(input_x, mat2)`: batched matmul of two tensors of rank >= 3 and one rank."""
    a, b = _tensor(input_x, "bmm"), _tensor(mat2, "bmm")
    if len(a.shape) < 3 or len(a.shape) != len(b.shape):
        raise ValueError(
            f"For 'bmm', 'input_x' and 'mat2' must have the same rank >= 3, got shapes "
            f"{tuple(a.shape)} and {tuple(b.shape)}"
        )
    return matmul(a, b)
