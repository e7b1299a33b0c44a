"""More elementwise math with MindSpore 2.x's signatures: log1p, expm1, log2, exp2,
tan, atan, atan2, asin, acos, sinh, cosh, and the float predicates isnan, isinf,
isfinite, with sign and nan_to_num.

Where an honest composition of mindir ops keeps float32 accuracy, the op is that
composition (so its gradient, batching and device kernels come for free); where
it does not, it is a mindir op of its own:

- log1p and expm1 are `mindir.log1p` / `mindir.expm1`: log(1 + x) and exp(x) - 1
  lose every digit for |x| < 1e-7 (1 + x rounds to 1);
- atan2 is `mindir.atan2`; atan(x) = atan2(x, 1) exactly, and asin / acos are
  atan2(x, sqrt((1 - x)(1 + x))) / atan2(sqrt((1 - x)(1 + x)), x), whose
  (1 - x)(1 + x) keeps the digits 1 - x * x loses near |x| = 1;
- sinh = (expm1(x) - expm1(-x)) / 2 (no cancellation for tiny x) and cosh =
  (exp(x) + exp(-x)) / 2, with exp(|x|) / 2 computed as exp(|x| / 2)^2 / 2 so
  both stay finite up to float's true overflow; tan = sin / cos, log2 = log(x) / ln 2, exp2 = 2 ** x;
- isnan is x != x (unordered compare), isinf is |x| == inf, isfinite is
  |x| < inf (false for NaN); an integer tensor is never NaN or infinite;
- sign is (x > 0) - (x < 0) in x's dtype, NaN kept where x is NaN.

Integer inputs to the float functions compute in float32, as MindSpore's do.
"""

from __future__ import annotations

import math as _math
from typing import Any

import numpy as np

from mindjit.dialects import mindir as M
from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import full_like
from mindjit.frontend.ops.cast import cast_to, float_input, promote
from mindjit.frontend.ops.core import one, run
from mindjit.frontend.ops.math import (
    _tensor,
    _unary,
    abs,
    add,
    cos,
    div,
    equal,
    exp,
    greater,
    less,
    log,
    maximum,
    minimum,
    mul,
    neg,
    not_equal,
    pow,
    select,
    sin,
    sqrt,
    sub,
)
from mindjit.frontend.ops.split import require_tensor


def _float(input: Any, name: str) -> Any:
    x = _tensor(input, name)
    if x.dtype.is_bool:
        raise TypeError(f"For '{name}', the input must be a number tensor, got {x.dtype}")
    return float_input(x)


def log1p(input: Any) -> Any:
    """`ops.log1p(input)`: log(1 + x), accurate for tiny x."""
    return _unary("log1p", M.Log1pOp, _float(input, "log1p"))


def expm1(input: Any) -> Any:
    """`ops.expm1(input)`: exp(x) - 1, accurate for tiny x."""
    return _unary("expm1", M.Expm1Op, _float(input, "expm1"))


def atan2(input: Any, other: Any) -> Any:
    """`ops.atan2(input, other)`: the angle of the point (other, input), in [-pi, pi]."""
    y, x = promote(input, other, what="atan2")
    if y.dtype.is_bool:
        raise TypeError(f"For 'atan2', the inputs must be number tensors, got {y.dtype}")
    y, x = float_input(y), float_input(x)
    return run(("atan2",), one(M.Atan2Op), y, x)


def atan(input: Any) -> Any:
    """`ops.atan(input)`: atan2(x, 1)."""
    x = _float(input, "atan")
    return atan2(x, 1.0)


def _one_minus_square(x: Any) -> Any:
    return sqrt(mul(sub(1.0, x), add(x, 1.0)))  # (1 - x)(1 + x): no cancellation near |x| = 1


def asin(input: Any) -> Any:
    """`ops.asin(input)`: in [-pi/2, pi/2]; NaN outside [-1, 1]."""
    x = _float(input, "asin")
    return atan2(x, _one_minus_square(x))


def acos(input: Any) -> Any:
    """`ops.acos(input)`: in [0, pi]; NaN outside [-1, 1]."""
    x = _float(input, "acos")
    return atan2(_one_minus_square(x), x)


def tan(input: Any) -> Any:
    """`ops.tan(input)`: sin(x) / cos(x)."""
    x = _float(input, "tan")
    return div(sin(x), cos(x))


def _half_exp(a: Any) -> tuple[Any, Any]:
    """exp(a) / 2 and exp(-a) / 2 for a >= 0, as (h / 2) * h and (1 / 2) / (h * h) with
    h = exp(a / 2): exp(a) / 2 stays finite up to a = ln(2 * max), not ln(max)."""
    h = exp(mul(a, 0.5))
    return mul(mul(h, 0.5), h), div(0.5, mul(h, h))


def sinh(input: Any) -> Any:
    """`ops.sinh(input)`: (expm1(x) - expm1(-x)) / 2 for |x| < 1 (no cancellation),
    sign(x) (exp(|x|) - exp(-|x|)) / 2 beyond (finite as far as sinh is). The small
    branch sees x clamped to [-1, 1], so the branch select drops never overflows."""
    x = _float(input, "sinh")
    a = abs(x)
    inner = minimum(maximum(x, -1.0), 1.0)
    small = mul(sub(expm1(inner), expm1(neg(inner))), 0.5)
    up, down = _half_exp(a)
    return select(less(a, 1.0), small, mul(sign(x), sub(up, down)))


def cosh(input: Any) -> Any:
    """`ops.cosh(input)`: (exp(|x|) + exp(-|x|)) / 2, finite as far as cosh is."""
    up, down = _half_exp(abs(_float(input, "cosh")))
    return add(up, down)


_INV_LN2 = 1.0 / _math.log(2.0)


def log2(input: Any) -> Any:
    """`ops.log2(input)`: log(x) / ln 2."""
    return mul(log(_float(input, "log2")), _INV_LN2)


def exp2(input: Any) -> Any:
    """`ops.exp2(input)`: 2 ** x (exact at integers)."""
    x = _float(input, "exp2")
    return pow(cast_to(2.0, x.dtype), x)


# --- predicates, sign, nan_to_num --------------------------------------------------------


def isnan(input: Any) -> Any:
    """`ops.isnan(input)`: a Bool tensor, true where x is NaN."""
    x = require_tensor(input, "isnan")
    if not x.dtype.is_float:
        return full_like(x, False, dtype=D.bool_)
    return not_equal(x, x)


def isinf(input: Any) -> Any:
    """`ops.isinf(input)`: a Bool tensor, true where x is +inf or -inf."""
    x = require_tensor(input, "isinf")
    if not x.dtype.is_float:
        return full_like(x, False, dtype=D.bool_)
    return equal(abs(x), float("inf"))


def isfinite(input: Any) -> Any:
    """`ops.isfinite(input)`: a Bool tensor, false where x is NaN or infinite."""
    x = require_tensor(input, "isfinite")
    if not x.dtype.is_float:
        return full_like(x, True, dtype=D.bool_)
    return less(abs(x), float("inf"))


def sign(input: Any) -> Any:
    """`ops.sign(input)`: -1, 0 or 1 in x's dtype (NaN stays NaN); its gradient is zero."""
    x = require_tensor(input, "sign")
    if x.dtype.is_bool:
        raise TypeError(f"For 'sign', the input must be a number tensor, got {x.dtype}")
    s = sub(cast_to(greater(x, 0), x.dtype), cast_to(less(x, 0), x.dtype))
    return select(not_equal(x, x), x, s) if x.dtype.is_float else s


def nan_to_num(
    input: Any, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None
) -> Any:
    """`ops.nan_to_num(input, nan=0.0, posinf=None, neginf=None)`: NaN, +inf and -inf
    replaced; an infinity's default is the largest (smallest) finite value of x's dtype."""
    x = require_tensor(input, "nan_to_num")
    for what, v in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)):
            raise TypeError(f"For 'nan_to_num', '{what}' must be a float or None, got {v!r}")
    if not x.dtype.is_float:
        return x
    big = float(np.finfo(x.dtype.numpy).max)
    hi = big if posinf is None else float(posinf)
    lo = -big if neginf is None else float(neginf)
    out = select(not_equal(x, x), float(0.0 if nan is None else nan), x)
    out = select(equal(x, float("inf")), hi, out)
    return select(equal(x, float("-inf")), lo, out)
