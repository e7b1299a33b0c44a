"""Arguments bound to Parameters in convert-mindir-to-tensor (see
`mindjit.dialects.mindir.parameter_args`; the plan of which ones are written is made by
`refs.check_and_plan`).

A bound argument whose Parameter is written anywhere is accessed as a global
(`access_as_globals`): its uses go through a `get_parameter` made at the graph's
start, so they lower exactly as get_parameter does. One whose Parameter nothing
writes becomes its tensor value in place (`read_only_as_values`). Either way the
argument stays, marked `{mindjit.global = @w}` afterwards
(`mark_global_arguments`) for executors to fill.
"""

from __future__ import annotations

from collections.abc import Iterable

from immutabledict import immutabledict
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, TensorType
from xdsl.ir import Attribute, BlockArgument, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir.parameter_args import (
    GLOBAL_ARG_ATTR,
    PARAMETER_ARG_ATTR,
    bound_symbol,
)
from mindjit.dialects.mindir.types import RefType
from mindjit.ir.compat.block_args import retype_arg
from mindjit.ir.compat.unchecked_attrs import unchecked


def _tensor_of(t: Attribute) -> TensorType:
    assert isinstance(t, RefType)
    return t.tensor


def read_only_as_values(fn: func.FuncOp, indices: Iterable[int]) -> None:
    """A bound argument whose Parameter nothing writes becomes the Parameter's value
    in place: its Loads are the argument itself and calls get it as it is (what
    the ref-argument lowering would do, without making a new argument per Parameter)."""
    args = fn.body.blocks[0].args
    for i in indices:
        arg = args[i]
        _loads_to_value(arg, arg)
        retype_arg(arg, _tensor_of(arg.type))


def _loads_to_value(ref: SSAValue, arg: BlockArgument) -> None:
    """The Loads of `ref` become `arg`; a depend of a ref orders nothing after
    lowering (block order is the order), so its users take `arg` too."""
    for use in list(ref.uses):
        user = use.operation
        if use.index != 0:
            continue
        if isinstance(user, mindir.DependOp):
            _loads_to_value(user.result, arg)
            user.result.replace_all_uses_with(arg)
            Rewriter.erase_op(user)
        elif isinstance(user, mindir.LoadOp):
            user.result.replace_all_uses_with(arg)
            Rewriter.erase_op(user)


def access_as_globals(fn: func.FuncOp, indices: Iterable[int]) -> None:
    """Route the uses of these bound arguments through a `get_parameter` of their
    Parameter (the argument stays, unused: the signature does not depend on writes)."""
    block = fn.body.blocks[0]
    for i in indices:
        arg = block.args[i]
        symbol = bound_symbol(arg)
        assert symbol is not None
        getter = mindir.GetParameterOp.get(symbol, _tensor_of(arg.type))
        getter.location = fn.location  # type: ignore[assignment]
        getter.result.name_hint = arg.name_hint
        Rewriter.insert_op(getter, InsertPoint.at_start(block))
        arg.replace_all_uses_with(getter.result)


def mark_global_arguments(fn: func.FuncOp, bound: dict[int, str]) -> None:
    """After lowering a bound argument (`bound`: index -> symbol, see `bound_symbols`)
    is a tensor an executor fills from the global."""
    if not bound:
        return
    assert fn.arg_attrs is not None
    entries = list(fn.arg_attrs.data)
    for i in bound:
        old = entries[i].data
        if len(old) == 1:  # the frontend's entries: nothing else to keep
            fields = {GLOBAL_ARG_ATTR: old[PARAMETER_ARG_ATTR]}
        else:
            fields = {k: v for k, v in old.items() if k != PARAMETER_ARG_ATTR}
            fields[GLOBAL_ARG_ATTR] = old[PARAMETER_ARG_ATTR]
        # string keys to attributes taken from a verified dictionary: valid as built
        entries[i] = unchecked(DictionaryAttr, data=immutabledict(fields))
    # dictionaries in place of dictionaries: the array stays valid
    fn.arg_attrs = unchecked(ArrayAttr, data=tuple(entries))
