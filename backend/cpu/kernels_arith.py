"""Plan builders for arith/math ops outside linalg bodies, and arith.constant.

Constants become slot-template entries (free at run time); ops whose operands
are all constants are folded at plan time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import arith
from xdsl.ir import Operation

from mindjit.backend.cpu.registry import register
from mindjit.backend.cpu.scalar_fns import ELEMENTWISE_OPS, Fn, scalar_fn
from mindjit.backend.cpu.steps import call_step
from mindjit.backend.cpu.types import dense_array, is_tensor, scalar_value, static_shape

if TYPE_CHECKING:
    from mindjit.backend.cpu.compiler import FunctionCompiler


@register(arith.ConstantOp)
def build_constant(c: FunctionCompiler, op: Operation) -> None:
    result = op.results[0]
    attr = op.value
    if is_tensor(result.type):
        array = dense_array(attr, result.type, op)
        c.constant(result, array, splat=_splat_of(array))
    else:
        c.constant(result, scalar_value(attr, result.type, op))


def _splat_of(array: np.ndarray) -> Any | None:
    """The single value of an all-equal constant (to elide neutral inits)."""
    if array.size == 0 or array.size > (1 << 20):
        return None
    first = array.reshape(-1)[0]
    return first[()] if bool(np.all(array == first)) else None


@register(*sorted(ELEMENTWISE_OPS, key=lambda cls: cls.name))
def build_elementwise(c: FunctionCompiler, op: Operation) -> None:
    """An arith/math op on scalars (or whole tensors): one numpy call."""
    fn = scalar_fn(op, vectorized=False)
    result = op.results[0]
    if is_tensor(result.type) and static_shape(result.type, op) == ():
        fn = _as_array(fn)
    if all(c.is_known(v) for v in op.operands):
        with np.errstate(all="ignore"):
            value = fn(*[c.known(v) for v in op.operands])
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
        c.constant(result, value)
        return
    ins = [c.read(v) for v in op.operands]
    if not is_tensor(result.type):
        out = c.define(result)
    elif type(op) is arith.BitcastOp:
        out = c.define(result, like=op.operands)
    elif type(op) is arith.SelectOp and not is_tensor(op.operands[0].type):
        out = c.define(result, like=op.operands[1:])
    else:
        out = c.define(result, fresh=True)
    c.emit(call_step(fn, ins, out))


def _as_array(fn: Fn) -> Fn:
    """ufuncs turn 0-d arrays into scalars; tensor<T> values must stay arrays."""
    return lambda *a: np.asarray(fn(*a))
