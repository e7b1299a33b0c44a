"""`ops.nextafter(input, other)`: the next representable float after `input` toward
`other`, as a composition of elementwise mindir ops (mindir has no bitcast).

The float's spacing at |x| is 2^(e - p + 1), e = floor(log2 |x|) (clamped at the
smallest normal exponent: subnormals are evenly spaced), p the significand's bits
(24, 53); e is log2's estimate corrected by comparing 2^e with |x|, so it is exact.
Moving toward zero from a power of two takes half a spacing. Zero steps to the
smallest subnormal with the direction's sign, infinities to the largest finite
float, NaN in gives NaN, and x == other gives other.

IREE's CPU code flushes subnormals to zero, so there a step to or between
subnormals gives 0 (the numpy executor and the simulated device keep them).

MindSpore 2.10's float32 kernel computes in float64 and rounds back, which returns
x itself for every finite x != other (nextafter(1, 2) prints 1.0); mindjit gives
the float32 answer (1.0000001), as numpy's np.nextafter and MindSpore's float64 do.
"""

from __future__ import annotations

import math as _math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.array import broadcast_to
from mindjit.frontend.ops.math import (
    abs,
    add,
    div,
    equal,
    floor,
    greater,
    greater_equal,
    less,
    log,
    logical_and,
    logical_or,
    maximum,
    mul,
    not_equal,
    pow,
    select,
    sub,
)
from mindjit.frontend.ops.promotion import constant, is_tensor

#: dtype -> (significand bits, smallest normal exponent)
_FORMAT = {D.float32: (24, -126), D.float64: (53, -1022)}


def nextafter(input: Any, other: Any) -> Any:  # noqa: A002 - MindSpore's name
    """`ops.nextafter(input, other)`: the float after `input` toward `other`
    (float32/float64 tensors of one dtype, broadcast)."""
    prim = "NextAfter"
    for arg, t in (("x1", input), ("x2", other)):
        if not is_tensor(t) or t.dtype not in _FORMAT:
            got = f"Tensor[{t.dtype.ms_name}]" if is_tensor(t) else type(t).__name__
            raise TypeError(
                f"For primitive[{prim}], the input argument[{arg}] must be a type of "
                f"{{Tensor[Float32], Tensor[Float64]}}, but got {got}."
            )
    if input.dtype != other.dtype:
        raise TypeError(f"For primitive[{prim}], the input type must be same.")
    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(other.shape)))
    x, y = broadcast_to(input, shape), broadcast_to(other, shape)
    bits, emin = _FORMAT[x.dtype]
    info = np.finfo(x.dtype.numpy)
    tiny = float(info.smallest_subnormal)
    mag = abs(x)
    finite = less(mag, float("inf"))
    safe = select(logical_and(finite, greater(mag, 0.0)), mag, 1.0)  # NaN is not finite
    e = floor(div(log(safe), _math.log(2.0)))
    e = select(greater(pow(2.0, e), safe), sub(e, 1.0), e)
    e = select(greater_equal(safe, pow(2.0, add(e, 1.0))), add(e, 1.0), e)
    e = maximum(e, float(emin))
    spacing = pow(2.0, sub(e, float(bits - 1)))
    at_power = logical_and(equal(safe, pow(2.0, e)), greater(e, float(emin)))
    below = select(at_power, mul(spacing, 0.5), spacing)
    up = greater(y, x)  # the direction
    away = equal(up, greater(x, 0.0))  # moving away from zero
    stepped = select(away, add(safe, spacing), sub(safe, below))
    out = select(greater(x, 0.0), stepped, mul(stepped, -1.0))
    smallest = constant(tiny, x.dtype)  # a tensor: a Python float would be float32
    largest = constant(float(info.max), x.dtype)
    out = select(equal(x, 0.0), select(up, smallest, mul(smallest, -1.0)), out)
    out = select(finite, out, select(greater(x, 0.0), largest, mul(largest, -1.0)))
    out = select(equal(x, y), y, out)
    return select(logical_or(not_equal(x, x), not_equal(y, y)), float("nan"), out)


__all__ = ["nextafter"]
