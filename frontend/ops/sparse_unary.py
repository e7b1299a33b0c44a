"""The elementwise ops on sparse tensors: `ops.coo_abs` ... `ops.coo_tanh` and
`ops.csr_abs` ... `ops.csr_tanh` (MindSpore 2.10's sparse_unary_func).

Each applies the dense op to the stored `values` and keeps the pattern (the
indices, indptr and shape), so a zero stays an implicit zero even where the op
of zero is not zero (coo_cos, coo_exp ...), exactly as MindSpore defines them.
They are generated from one table (name -> the dense op); results take the
dense op's dtype rules (coo_sqrt of int32 values is float32, coo_isnan bool).
A non-sparse input is MindSpore's TypeError ("Expects COOTensor for coo_abs").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mindjit.frontend.ops import activations, math_extras, math_functions, other_names
from mindjit.frontend.ops import math as fmath
from mindjit.frontend.ops.sparse_csr import CSRTensor
from mindjit.frontend.ops.sparse_tensor import COOTensor


def _inv(x: Any) -> Any:
    """MindSpore's `inv`: 1 / x; for integers C's truncating division (1, -1 or 0)."""
    if x.dtype.is_float:
        return fmath.reciprocal(x)
    unit = fmath.equal(fmath.abs(x), 1)
    return fmath.select(unit, x, fmath.mul(x, 0))


#: the dense op behind each name (MindSpore's sparse_unary_func uses the same ones)
DENSE: dict[str, Callable[[Any], Any]] = {
    "abs": fmath.abs,
    "acos": math_functions.acos,
    "acosh": math_extras.acosh,
    "asin": math_functions.asin,
    "asinh": math_extras.asinh,
    "atan": math_functions.atan,
    "atanh": math_extras.atanh,
    "ceil": fmath.ceil,
    "cos": fmath.cos,
    "cosh": math_functions.cosh,
    "exp": fmath.exp,
    "expm1": math_functions.expm1,
    "floor": fmath.floor,
    "inv": _inv,
    "isfinite": math_functions.isfinite,
    "isinf": math_functions.isinf,
    "isnan": math_functions.isnan,
    "log": fmath.log,
    "log1p": math_functions.log1p,
    "neg": fmath.neg,
    "relu": fmath.relu,
    "relu6": activations.relu6,
    "round": fmath.round,
    "sigmoid": fmath.sigmoid,
    "sin": fmath.sin,
    "sinh": math_functions.sinh,
    "softsign": other_names.softsign,
    "sqrt": fmath.sqrt,
    "square": fmath.square,
    "tan": math_functions.tan,
    "tanh": fmath.tanh,
}


def _coo(op: str, dense: Callable[[Any], Any]) -> Callable[[Any], Any]:
    name = f"coo_{op}"

    def fn(x: Any) -> Any:
        if not isinstance(x, COOTensor):
            raise TypeError(f"Expects COOTensor for {name}")
        return COOTensor(x.indices, dense(x.values), x.shape)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"`ops.{name}(x)`: `{op}` of a COOTensor's values, the same indices and shape."
    return fn


def _csr(op: str, dense: Callable[[Any], Any]) -> Callable[[Any], Any]:
    name = f"csr_{op}"

    def fn(x: Any) -> Any:
        if not isinstance(x, CSRTensor):
            raise TypeError(f"Expects CSRTensor for {name}")
        return CSRTensor(x.indptr, x.indices, dense(x.values), x.shape)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"`ops.{name}(x)`: `{op}` of a CSRTensor's values, the same indptr, indices, shape."
    )
    return fn


FUNCTIONS: dict[str, Callable[[Any], Any]] = {}
for _op, _dense in DENSE.items():
    FUNCTIONS[f"coo_{_op}"] = _coo(_op, _dense)
    FUNCTIONS[f"csr_{_op}"] = _csr(_op, _dense)
globals().update(FUNCTIONS)

__all__ = sorted(FUNCTIONS)  # noqa: PLE0605 - generated from the table above
