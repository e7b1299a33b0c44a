"""Fast verification of the ops a large model has thousands of.

A model with N lazy-inline Blocks of 12 Parameters has 12N `mindir.parameter`
declarations (after lowering: globals) and N calls; other graphs than the entry
reach Parameters through `get_parameter` ops (after lowering: global_loads); xDSL's generic IRDL verifier spends ~30 us on each, more than
the passes do. For these few op classes the checks IRDL would make (no operands,
regions or successors; exactly the declared properties, of the declared kinds;
one result of the declared type) are written out directly, followed by the op's
own check. Anything unusual falls back to the full verifier, so the verdict is
always the same, only faster.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
)
from xdsl.dialects.func import CallOp, CallOpSymbolUserOpInterface, FuncOp
from xdsl.dialects.ml_program import GlobalOp
from xdsl.ir import Operation

from mindjit.dialects.mindir.effects import GetParameterOp, ParameterOp
from mindjit.dialects.mindir.types import RefType
from mindjit.dialects.ml_program_ext import GlobalLoadOp
from mindjit.ir.compat.linked_ops import has_successors, raw_operands
from mindjit.ir.symbols import lookup_symbol


def _plain_leaf(op: Operation, n_results: int) -> bool:
    """No operands/regions/successors, `n_results` results, not ending a block."""
    block = op.parent
    return (
        not raw_operands(op)
        and not op.regions
        and not has_successors(op)
        and len(op.results) == n_results
        and (block is None or block.last_op is not op)
    )


def _props(op: Operation, kinds: dict[str, type | tuple[type, ...]]) -> bool:
    props = op.properties
    return len(props) == len(kinds) and all(
        isinstance(props.get(name), kind) for name, kind in kinds.items()
    )


_VALUE = (DenseIntOrFPElementsAttr, DenseResourceAttr)
_PARAMETER_PROPS = {"sym_name": StringAttr, "type": TensorType, "initial_value": _VALUE}
_GET_PARAMETER_PROPS = {"parameter": SymbolRefAttr}
_GLOBAL_LOAD_PROPS = {"global": SymbolRefAttr}


def _parameter(op: Operation) -> bool:
    assert isinstance(op, ParameterOp)
    props = op.properties
    value, t = props.get("initial_value"), props.get("type")
    # the frontend's declarations: exact classes, the value's type object is the op's
    if (
        len(props) == 3
        and type(props.get("sym_name")) is StringAttr
        and type(t) is TensorType
        and type(value) in _VALUE_CLASSES
        and value.type is t  # type: ignore[union-attr]
        and _plain_leaf(op, 0)
    ):
        return True
    if not (_plain_leaf(op, 0) and _props(op, _PARAMETER_PROPS)):
        return False
    op.verify_value()
    return True


_VALUE_CLASSES = frozenset(_VALUE)


def _get_parameter(op: Operation) -> bool:
    assert isinstance(op, GetParameterOp)
    if not (
        _plain_leaf(op, 1)
        and _props(op, _GET_PARAMETER_PROPS)
        and isinstance(op.results[0].type, RefType)
    ):
        return False
    op.verify_target()
    return True


def _global(op: Operation) -> bool:
    props = op.properties
    mutable, value = props.get("is_mutable"), props.get("value")
    return (
        _plain_leaf(op, 0)
        and _is(props.get("sym_name"), StringAttr)
        and _is(props.get("type"), TensorType)
        and _is(props.get("sym_visibility"), StringAttr)
        and _is(mutable, UnitAttr)  # immutable globals take the full path
        and len(props) == 4 + (value is not None)  # nothing but these five properties
    )


def _is(value: object, cls: type) -> bool:
    """isinstance, exact class first (attributes are ABCs: isinstance is slow on them)."""
    return type(value) is cls or isinstance(value, cls)


def _global_load(op: Operation) -> bool:
    assert isinstance(op, GlobalLoadOp)
    if not (_plain_leaf(op, 1) and _props(op, _GLOBAL_LOAD_PROPS)):
        return False
    op.verify_target()
    return True


_CALL_CHECK = CallOpSymbolUserOpInterface()


def _call(op: Operation) -> bool:
    """A `func.call` per lazy-inline call site: IRDL's checks (one flat callee
    property, no regions or successors; operands and results are variadic of any
    type), then the call's own (the callee's signature)."""
    props = op.properties
    callee = props.get("callee")
    block = op.parent
    if (
        op.regions
        or op.successors
        or (block is not None and block.last_op is op)
        or len(props) != 1
        or not isinstance(callee, SymbolRefAttr)
        or callee.nested_references.data
    ):
        return False
    _check_callee(op, callee)
    return True


def _check_callee(op: Operation, callee: SymbolRefAttr) -> None:
    """xDSL's call check (same messages), comparing the types by identity first: a
    model's call sites share their types with the callee's signature."""
    found = lookup_symbol(op, callee)
    if not isinstance(found, FuncOp):
        _CALL_CHECK.verify(op)  # xDSL's message for a missing or non-function callee
        return
    inputs, outputs = found.function_type.inputs.data, found.function_type.outputs.data
    operands, results = raw_operands(op), op.results
    if len(inputs) != len(operands) or len(outputs) != len(results):
        _CALL_CHECK.verify(op)
        return
    for want, value in zip(inputs, operands):
        got = value.type
        if got is not want and got != want:
            _CALL_CHECK.verify(op)
            return
    for want, result in zip(outputs, results):
        got = result.type
        if got is not want and got != want:
            _CALL_CHECK.verify(op)
            return


#: op class -> checker returning True when it verified the op (False: use the full path)
FAST_VERIFIERS: dict[type, Callable[[Operation], bool]] = {
    CallOp: _call,
    ParameterOp: _parameter,
    GetParameterOp: _get_parameter,
    GlobalOp: _global,
    GlobalLoadOp: _global_load,
}
