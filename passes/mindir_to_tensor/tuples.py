"""Tuples (and monads) in convert-mindir-to-tensor: split them at every boundary.

MLIR's upstream dialects have no tuple ops and no state monads, so both must
disappear where values cross a function, call or region boundary:

1. `flatten_tuples` (before the patterns) rewrites func.func arguments and
   results, func.call operands and results, func.return, mindir.if / mindir.while
   results, while-carried values, mindir.yield and mindir.condition operands:
   a tuple becomes its leaves, recursively, and a `!mindir.u` / `!mindir.io` state
   becomes nothing. Inside, a flattened tuple is rebuilt with `mindir.make_tuple`
   of the leaves, so every tuple value ends up built by a make_tuple and
   `tuple_get_item(make_tuple(...))` folds to the element (also through `depend`);
   a dropped state is stood in for by an operand-less
   `builtin.unrealized_conversion_cast`, which dies with the update_state and
   depend ops that used it. (States only carry ordering, and nothing needs them
   any more: Load/Assign/print were lowered in block order before this step by
   `lower_state`, mindir_to_tensor/state.py.)
2. `LowerAddN` turns `addn(make_tuple(x0, ..., xn))` into one elementwise generic
   with n + 1 inputs summing them.
3. What is left of make_tuple / tuple_get_item / the state placeholders is dead
   and erased; a tuple or state that still has a user is reported at that user
   (see `check_no_mindir`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    FunctionType,
    ModuleOp,
    TupleType,
    UnrealizedConversionCastOp,
)
from xdsl.dialects.ml_program import GlobalOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.types import MonadIOType, MonadUType, is_monad
from mindjit.dialects.ml_program_ext import GlobalLoadOp, GlobalStoreOp
from mindjit.ir.calls import rebuilt_call
from mindjit.ir.locations import op_error
from mindjit.passes.analysis.graph_walk import walk_graphs
from mindjit.passes.mindir_to_tensor import scalar
from mindjit.passes.mindir_to_tensor.builders import Emitter
from mindjit.passes.mindir_to_tensor.rules import LOWERINGS

#: The types split (tuples) or dropped (states) at boundaries; exact classes, so a
#: membership test is enough for the thousands of arguments of a large entry graph.
_SPLIT = frozenset({TupleType, MonadUType, MonadIOType})


def flat_types(t: Attribute) -> list[Attribute]:
    """The types a value of type `t` is passed as: tuple -> leaves, state -> none."""
    if type(t) not in _SPLIT:
        return [t]
    if isinstance(t, TupleType):
        return [leaf for e in t.types.data for leaf in flat_types(e)]
    if is_monad(t):
        return []
    return [t]


def _flat_all(types: Sequence[Attribute]) -> list[Attribute]:
    return [leaf for t in types for leaf in flat_types(t)]


def _splits(types: Sequence[Attribute]) -> bool:
    """Whether any of `types` is split or dropped at boundaries (a tuple or a state)."""
    return any(type(t) in _SPLIT for t in types)


def is_state_placeholder(op: Operation) -> bool:
    return (
        type(op) is UnrealizedConversionCastOp  # exact class: asked of every op
        and not op.operands
        and len(op.results) == 1
        and is_monad(op.results[0].type)
    )


def element_of(value: SSAValue, index: int) -> SSAValue | None:
    """The `index`-th element of a tuple value, when it can be seen statically."""
    owner = value.owner
    if isinstance(owner, mindir.MakeTupleOp):
        return owner.elements[index]
    if isinstance(owner, mindir.DependOp) and value is owner.result:
        return element_of(owner.value, index)
    if isinstance(owner, mindir.TupleGetItemOp):
        inner = element_of(owner.tuple, owner.index.value.data)
        return None if inner is None else element_of(inner, index)
    return None


def leaves(value: SSAValue, user: Operation) -> list[SSAValue]:
    """The values a (possibly nested) tuple value is passed as (none for a state)."""
    if is_monad(value.type):
        return []
    if not isinstance(value.type, TupleType):
        return [value]
    out: list[SSAValue] = []
    for i in range(len(value.type.types.data)):
        element = element_of(value, i)
        if element is None:
            raise op_error(
                user,
                f"cannot flatten the tuple used by '{user.name}': it is not built by mindir.make_tuple",
            )
        out.extend(leaves(element, user))
    return out


def _rebuild(
    builder: Builder, t: Attribute, values: Iterator[SSAValue], loc: Attribute
) -> SSAValue:
    """The value of type `t` made of the next leaves of `values` (make_tuple for tuples)."""
    if is_monad(t):
        placeholder = UnrealizedConversionCastOp.create(result_types=[t])  # one per call site
        placeholder.location = loc  # type: ignore[assignment]
        builder.insert(placeholder)
        return placeholder.results[0]
    if not isinstance(t, TupleType):
        return next(values)
    parts = [_rebuild(builder, e, values, loc) for e in t.types.data]
    op = mindir.MakeTupleOp.get(parts)
    op.location = loc  # type: ignore[assignment]
    builder.insert(op)
    return op.result


def _flatten_block_args(block: Block, loc: Attribute) -> None:
    """Replace each tuple (state) argument of `block` by its leaves (by nothing)."""
    builder = Builder(InsertPoint.at_start(block))
    pos = 0
    for arg in list(block.args):
        if type(arg.type) not in _SPLIT:
            pos += 1
            continue
        new = [block.insert_arg(t, pos + k) for k, t in enumerate(flat_types(arg.type))]
        pos += len(new)
        if arg.uses:
            arg.replace_all_uses_with(_rebuild(builder, arg.type, iter(new), loc))
        block.erase_arg(arg)


def _replace_results(op: Operation, new: Operation) -> None:
    """Put `new` (flat results) in place of `op` (tuple results), rebuilding tuples after it."""
    Rewriter.insert_op(new, InsertPoint.before(op))
    builder = Builder(InsertPoint.after(new))
    values = iter(new.results)
    for old in op.results:
        if old.uses:
            old.replace_all_uses_with(_rebuild(builder, old.type, values, op.location))
        else:
            for _ in flat_types(old.type):
                next(values)
    op.detach()
    op.erase()


def _flat_operands(op: Operation, values: Sequence[SSAValue]) -> list[SSAValue]:
    out: list[SSAValue] = []
    for v in values:  # most operands (a call site's Parameters) pass as they are
        if type(v.type) in _SPLIT:
            out.extend(leaves(v, op))
        else:
            out.append(v)
    return out


def _move(region: Region) -> Region:
    return Rewriter.move_region_contents_to_new_regions(region)


def _flatten_func(op: func.FuncOp) -> None:
    inputs, outputs = op.function_type.inputs.data, op.function_type.outputs.data
    if not (_splits(inputs) or _splits(outputs)):
        return
    if op.body.blocks:
        _flatten_block_args(op.body.blocks[0], op.location)
    op.function_type = FunctionType.from_lists(_flat_all(inputs), _flat_all(outputs))
    for name, types in (("arg_attrs", inputs), ("res_attrs", outputs)):
        attrs = getattr(op, name)
        if attrs is not None and _splits(types):
            setattr(
                op, name, ArrayAttr([a for a, t in zip(attrs.data, types) for _ in flat_types(t)])
            )


def _flatten_op(op: Operation) -> None:
    """Flatten the tuples crossing `op`, if it is a boundary (see the module doc)."""
    if isinstance(op, func.FuncOp):
        _flatten_func(op)
    elif isinstance(op, func.CallOp):
        if _splits(op.res.types):
            new = rebuilt_call(op, _flat_operands(op, op.arguments), _flat_all(op.res.types))
            _replace_results(op, new)
        elif _splits(op.arguments.types):  # results stay: the operands change in place
            op.operands = _flat_operands(op, op.arguments)
    elif isinstance(op, func.ReturnOp | mindir.YieldOp):
        if _splits([v.type for v in op.operands]):
            op.operands = _flat_operands(op, op.operands)
    elif isinstance(op, mindir.ConditionOp):
        if _splits(op.arguments.types):
            op.operands = [op.cond, *_flat_operands(op, op.arguments)]
    elif isinstance(op, mindir.IfOp):
        if _splits(op.output.types):
            new = mindir.IfOp(
                op.cond, _flat_all(op.output.types), _move(op.then_region), _move(op.else_region)
            )
            new.location = op.location
            new.attributes |= op.attributes
            _replace_results(op, new)
    elif isinstance(op, mindir.WhileOp):
        if _splits(op.arguments.types) or _splits(op.res.types):
            for region in (op.before_region, op.after_region):
                _flatten_block_args(region.block, op.location)
            new = mindir.WhileOp(
                _flat_operands(op, op.arguments),
                _flat_all(op.res.types),
                _move(op.before_region),
                _move(op.after_region),
            )
            new.location = op.location
            new.attributes |= op.attributes
            _replace_results(op, new)
    elif isinstance(op, mindir.TupleGetItemOp):
        element = element_of(op.tuple, op.index.value.data)
        if element is not None:
            op.result.replace_all_uses_with(element)


def flatten_tuples(module: ModuleOp) -> None:
    """Split tuples and drop states at every boundary.

    Ops are visited in program order (an op before the ops in its regions), so the
    definition of every value is rewritten before its uses are.
    """
    for op in list(walk_graphs(module)):
        if type(op) not in _NEVER_BOUNDARIES and op.parent is not None:
            _flatten_op(op)


#: Ops met thousands of times in a large model that carry no tuple or state.
_NEVER_BOUNDARIES = frozenset({GlobalOp, GlobalLoadOp, GlobalStoreOp, mindir.GetParameterOp})


@LOWERINGS.register(mindir.AddNOp)
def lower_add_n(op: mindir.AddNOp, rewriter: PatternRewriter) -> None:
    """`addn(make_tuple(x0, ..., xn))` -> one generic computing x0 + ... + xn."""
    values = leaves(op.inputs, op)
    if len(values) == 1:
        rewriter.replace(op, [], [values[0]])
        return
    e = Emitter(rewriter, op.location)
    out = e.elementwise(values, S.tensor_of(op.result.type), scalar.add_all)
    rewriter.replace(op, [], [out])


@LOWERINGS.register(mindir.TupleGetItemOp)
def fold_tuple_get_item(op: mindir.TupleGetItemOp, rewriter: PatternRewriter) -> None:
    element = element_of(op.tuple, op.index.value.data)
    if element is not None:
        rewriter.replace(op, [], [element])
