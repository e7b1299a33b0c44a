"""Parameters bound to graph arguments: MindSpore's top graph takes its Parameters as inputs.

In MindSpore the Parameters of the top graph are inputs of that graph (with
their default values), not nodes. mindir writes the same thing as a `!mindir.ref`
argument of an entry graph carrying the argument attribute `mindir.parameter`:

    mindir.parameter @w : tensor<4xf32> = dense<...>
    func.func @Net_construct(%x: tensor<4xf32>,
                             %w: !mindir.ref<tensor<4xf32>> {mindir.parameter = @w}) ...

Such a *bound* argument is Parameter @w itself, exactly like `mindir.get_parameter
@w`: every analysis resolves both to the symbol (`parameter_symbol` in
passes/analysis/effects.py), so loads and
assigns through either are loads and assigns of @w. The frontend binds every
Parameter the entry graph uses, which makes a lazy-inline call site one node
(its refs are graph inputs) at every stage of the compiler, instead of one
getter per Parameter per call site.

Rules (checked by `verify_parameter_args`, run by mindjit's verifier): the
argument is a `!mindir.ref<T>` of a graph with a body, the symbol names a
`mindir.parameter` of type T, and one graph binds a symbol at most once. A graph
with bound arguments is an entry point: nothing may call it (`check_not_called`).

After convert-mindir-to-tensor the argument is a tensor carrying the Parameter's
value, marked `{mindjit.global = @w}`: executors pass global @w's buffer there.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, SymbolRefAttr
from xdsl.ir import Attribute, BlockArgument, Operation
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir.effects import ParameterOp
from mindjit.dialects.mindir.types import RefType
from mindjit.ir.walk import block_ops

#: The argument attribute binding a `!mindir.ref` argument of a graph to a Parameter.
PARAMETER_ARG_ATTR = "mindir.parameter"
#: After lowering: the tensor argument an executor fills with a global's value.
GLOBAL_ARG_ATTR = "mindjit.global"


def arg_symbol(fn: func.FuncOp, index: int, attr: str = PARAMETER_ARG_ATTR) -> str | None:
    """The symbol argument `index` of `fn` is bound to by `attr`, or None."""
    attrs = fn.arg_attrs
    if attrs is None or index >= len(attrs.data):
        return None
    entry = attrs.data[index]
    value = entry.data.get(attr) if isinstance(entry, DictionaryAttr) else None
    return value.root_reference.data if isinstance(value, SymbolRefAttr) else None


def _entry(attrs: Attribute, name: str) -> Attribute | None:
    """`attrs[name]` if `attrs` is a dictionary holding it (one test for the usual
    miss: an immutabledict's `get` is three Python calls, and entry graphs have
    thousands of argument dictionaries)."""
    if not isinstance(attrs, DictionaryAttr) or name not in attrs.data:
        return None
    return attrs.data[name]


def bound_symbol(arg: BlockArgument) -> str | None:
    """The Parameter `arg` is bound to, when it is an entry-block argument of a graph
    marked `{mindir.parameter = @w}`; else None."""
    fn = arg.block.parent_op()
    if not isinstance(fn, func.FuncOp) or fn.arg_attrs is None:
        return None
    if fn.body.blocks.first is not arg.block:
        return None
    return arg_symbol(fn, arg.index)


def bound_symbols(fn: func.FuncOp, attr: str = PARAMETER_ARG_ATTR) -> dict[int, str]:
    """Argument index -> bound symbol, for every bound argument of `fn`."""
    if fn.arg_attrs is None:
        return {}
    found: dict[int, str] = {}
    for i, entry in enumerate(fn.arg_attrs.data):  # one loop: the entry graph has thousands
        value = _entry(entry, attr)
        if isinstance(value, SymbolRefAttr):
            found[i] = value.root_reference.data
    return found


def verify_parameter_args(fn: func.FuncOp) -> None:
    """The rules of the module doc, for the bound arguments of `fn`."""
    if fn.arg_attrs is None:
        return
    inputs = fn.function_type.inputs.data
    parameters = _module_parameters(fn)
    has_body = bool(fn.body.blocks)
    seen: dict[str, int] = {}
    for i, entry in enumerate(fn.arg_attrs.data):
        value = _entry(entry, PARAMETER_ARG_ATTR)
        if value is None:
            continue
        # the usual case in one test (an entry graph has thousands of these)
        if has_body and type(value) is SymbolRefAttr and not value.nested_references.data:
            name = value.root_reference.data
            t = inputs[i]
            target = parameters.get(name) if type(t) is RefType else None
            if (
                target is not None
                and (target.type is t.tensor or target.type == t.tensor)  # type: ignore[attr-defined]
                and name not in seen
            ):
                seen[name] = i
                continue
        _raise_for_argument(fn, i, value, has_body, parameters, seen)


def _raise_for_argument(
    fn: func.FuncOp,
    i: int,
    value: Attribute,
    has_body: bool,
    parameters: dict[str, ParameterOp],
    seen: dict[str, int],
) -> None:
    """The first rule argument `i` breaks, as a VerifyException."""

    where = f"argument {i} of @{fn.sym_name.data}"
    if not isinstance(value, SymbolRefAttr) or value.nested_references.data:
        raise VerifyException(
            f"{where}: '{PARAMETER_ARG_ATTR}' must name a mindir.parameter (@name), got {value}"
        )
    name = value.root_reference.data
    if not has_body:
        raise VerifyException(f"{where} is bound to @{name}, but only a graph with a body can be")
    t: Attribute = fn.function_type.inputs.data[i]
    if not isinstance(t, RefType):
        raise VerifyException(
            f"{where} is bound to Parameter @{name} but is {t}, not a !mindir.ref"
        )
    target = parameters.get(name) or SymbolTable.lookup_symbol(fn, value)
    if not isinstance(target, ParameterOp):
        raise VerifyException(f"{where} is bound to @{name}, which is not a mindir.parameter")
    if target.type != t.tensor:
        raise VerifyException(f"{where} is {t} but Parameter @{name} has type {target.type}")
    raise VerifyException(
        f"arguments {seen[name]} and {i} of @{fn.sym_name.data} are both bound to Parameter @{name}"
    )


def _module_parameters(fn: func.FuncOp) -> dict[str, ParameterOp]:
    """Symbol -> declaration, for the Parameters declared in the module `fn` is at
    the top of (the usual case, with thousands of bound arguments); else empty."""
    table = fn.parent_op()
    if not isinstance(table, ModuleOp):
        return {}
    return {
        op.properties["sym_name"].data: op  # type: ignore[attr-defined]
        for op in block_ops(table.body.block)
        if type(op) is ParameterOp
    }


def check_not_called(call: Operation, callee: Operation | None) -> None:
    """A graph with bound arguments is an entry point: calling it is refused."""
    if isinstance(callee, func.FuncOp) and bound_symbols(callee):
        raise VerifyException(
            f"@{callee.sym_name.data} takes Parameters as bound arguments "
            f"({{{PARAMETER_ARG_ATTR} = @...}}): it is an entry graph and cannot be called"
        )
