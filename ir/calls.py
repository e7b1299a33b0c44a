"""Building `func.call` ops cheaply: a model of N lazy-inline Blocks makes N calls.

The frontend makes each call, and several lowering steps change what a call
passes or returns (states added or dropped, refs turned into values, tuples
split); a result list cannot change in place, so the call is rebuilt. xDSL's
IRDL constructor costs ~50 us per call; `Operation.create` with the callee
property is the same op without that cost.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Attribute, SSAValue


def call_op(
    callee: SymbolRefAttr,
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    attributes: dict[str, Attribute] | None = None,
) -> func.CallOp:
    """`func.call @callee(operands) : result_types`."""
    return func.CallOp.create(
        operands=operands,
        result_types=result_types,
        properties={"callee": callee},
        attributes=attributes if attributes is not None else {},
    )


def rebuilt_call(
    op: func.CallOp, operands: Sequence[SSAValue], result_types: Sequence[Attribute]
) -> func.CallOp:
    """A new call of `op`'s callee with `op`'s location and discardable attributes."""
    call = call_op(op.callee, operands, result_types, dict(op.attributes))
    call.location = op.location
    return call
