"""`ops.cast`, and the casts other ops make of their inputs.

Kept below the ops that cast (array.py, the float-only math, promotion's
`cast_to` users): core.py and promotion.py build the cast, they do not import it
back.
"""

from __future__ import annotations

from typing import Any

from mindjit.dialects import mindir as M
from mindjit.frontend import dtype as D
from mindjit.frontend.dispatch import current_graph
from mindjit.frontend.grad_tape import recording
from mindjit.frontend.ops.core import one, run
from mindjit.frontend.ops.promotion import as_operand, constant, is_tensor, result_dtype
from mindjit.frontend.tensor import Parameter, Tensor


def cast(input: Any, dtype: Any) -> Any:
    """`ops.cast(x, ms.float16)`: convert the elements (same tensor if already that dtype)."""
    x = as_operand(input, "'cast' input")
    if not is_tensor(x):
        x = Tensor(x)
    target = D.to_dtype(dtype)
    if x.dtype == target and not (isinstance(x, Parameter) and recording()):
        return snapshot(x)
    # a no-op cast of a Parameter on the PyNative grad tape is a real (identity) cast:
    # its snapshot would be a new tensor the tape cannot trace back to the Parameter
    return run(("cast", target.name), one(M.CastOp, to=target.mlir), x)


def snapshot(x: Any) -> Any:
    """A no-op cast returns its input, except that an eager Parameter gives its current
    value: the result must not change when the Parameter is assigned later."""

    if isinstance(x, Parameter) and current_graph() is None:
        return x.value()
    return x


def cast_to(x: Any, dtype: D.DType) -> Any:
    """`x` as a tensor of `dtype` (numbers become constants, tensors are cast if needed)."""
    if is_tensor(x):
        return x if x.dtype == dtype else cast(x, dtype)
    return constant(x, dtype)


def float_input(x: Any) -> Any:
    """Float-only math (exp, mean ...) computes int and bool tensors in float32."""
    return x if x.dtype.is_float else cast(x, D.float32)


def promote(*args: Any, what: str = "op") -> list[Any]:
    """Convert numbers and cast tensors so all `args` share one dtype."""
    ops = [as_operand(a, f"{what} input") for a in args]
    target = result_dtype(*ops)
    return [cast_to(a, target) for a in ops]
