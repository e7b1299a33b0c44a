"""Run-time checks of tensor values: `check_range` (mindir.check_range).

Some MindSpore kernels reject their inputs while they run (BinaryCrossEntropy's
logits must be in [0, 1]). In graph mode the values only exist when the graph
runs, so the check is an op of the graph: `mindir.check_range` returns its input
and fails with the message when an element is out of range (or NaN). In
PyNative mode the same op runs at once, through the same lowering and kernel, so
both modes raise the same `RuntimeCheckError` (a `RuntimeError`).

The checked value must be used: an op whose result nothing uses is dead code
and is removed, so callers compute from the value `check_range` returns.
"""

from __future__ import annotations

import math
from typing import Any

from mindjit.dialects.mindir.check import CheckRangeOp
from mindjit.frontend.ops.cast import float_input
from mindjit.frontend.ops.core import run
from mindjit.frontend.ops.promotion import as_operand, constant, default_dtype, is_tensor


def check_range(x: Any, min: float, max: float, message: str) -> Any:  # noqa: A002
    """`x` (as a float tensor), after checking `min <= x <= max` element by element
    when it runs; a NaN element fails too. A failure raises `RuntimeCheckError(message)`."""
    t = as_operand(x, "'check_range' input")
    if not is_tensor(t):
        t = constant(t, default_dtype(t))
    t = float_input(t)
    low, high = float(min), float(max)
    if math.isnan(low) or math.isnan(high) or low > high:
        raise ValueError(f"For 'check_range', need min <= max, got min={min!r}, max={max!r}")
    if not isinstance(message, str):
        raise TypeError(f"For 'check_range', the message must be a str, got {message!r}")

    def build(e: Any, v: list[Any]) -> Any:
        return e.value(CheckRangeOp.get(v[0], low, high, message))

    return run(("check_range", low, high, message), build, t)
