"""Parameter refs passed between graphs in convert-mindir-to-tensor: functionalized
at the call boundary.

With lazy inline (`MS_DEV_CELL_REUSE=1`) a reused graph, a `func.func` kept as a
function, takes the Parameters of the instance that calls it as
`!mindir.ref<tensor<T>>` block arguments (after its tensor inputs, before its
`!mindir.u` / `!mindir.io` states) and loads and assigns through them; every call
site passes its own refs, from `mindir.get_parameter @sym` or, for nested reuse,
from its own ref arguments. Upstream MLIR has no references to globals that could
cross a call, and the CPU executor runs reused graphs as calls, so
`lower_ref_arguments` (run by `lower_state` before anything else changes) turns
every ref argument into values:

- In a graph, a ref argument becomes a tensor argument carrying the Parameter's
  value at entry. Walking the graph in block order, each ref argument has a
  *current value*: the entry value, then the value of the latest
  `mindir.assign` to it. `mindir.load` of it becomes that current value, and
  `mindir.assign %r, %v` makes `%v` the current value (the Assign's result is
  `%v`, as MindSpore's Assign returns the new value). A ref reached through
  `mindir.depend` is the same ref.
- Control flow: a ref argument written inside a `mindir.if` (by an Assign or a
  call, at any depth) is threaded out as an extra trailing result of the if (each
  branch yields its current value), and one written inside a `mindir.while` as an
  extra trailing loop-carried value (condition and body region arguments,
  forwarded by `mindir.condition`, yielded by the body); after the op the extra
  result is the current value. Refs only read inside a region need nothing: the
  region sees the current value from before the op.
- Results: every ref argument the graph writes (itself or through a call it
  makes) returns its final value as an extra trailing function result, after
  all others (after the states, which `flatten_tuples` drops later), in argument
  order. The discardable attribute `mindjit.ref_results = [i, ...]` on the
  `func.func` lists, for those extra results in order, the index of the argument
  they write back, counted in the lowered signature (after tuples are split and
  states dropped). A graph that only reads its refs gets neither.
- Call sites: a ref operand from `mindir.get_parameter @sym` becomes
  `ml_program.global_load @sym` right before the call (the value the callee
  starts from), and for each ref the callee writes back,
  `ml_program.global_store @sym = %result` comes right after the call, in
  argument order. A ref operand that is a ref argument of the caller (nested
  reuse) passes the caller's current value, and the returned value becomes the
  caller's current value (so the caller writes it back too).
- Which arguments a graph writes is a fixed point over the call graph (a graph
  writes an argument it assigns or passes to a written argument of a callee),
  computed before anything changes; recursion is fine.

Everything else keeps its block order; loads and assigns of `get_parameter`
refs are lowered afterwards by `lower_state` as before.

Arguments bound to Parameters (`{mindir.parameter = @w}`, the entry graph's form)
are ref arguments that stand for Parameter @w itself: `check_and_plan` finds
which are written anywhere (assigned, or passed to a callee argument that is
written), and `bound_args.py` turns them into globals or
values before the graph is lowered.

Semantics. A reused graph's Loads of its ref arguments are snapshots (as if each
were followed by a TensorMove), and its Assigns reach the Parameter when the call
returns. That is what the program means whenever it is race-free in MindSpore's
sense: mindir-load-elim (levels 0-2) puts a TensorMove on every Load that a later
Assign could reach, and nothing but the graph itself can see the Parameter while
it runs. Not reproduced: the aliasing of level 3 (documented unsafe) inside a
reused graph, and a Parameter reached by a reused graph both through a ref
argument and directly (its own `get_parameter` of the same symbol, or a callee's):
the direct accesses see the value from before the call. A call passing one
Parameter to two ref arguments the callee writes is rejected.

Errors, raised at the op before anything changes (`check_and_plan`): a ref that
does not come from `get_parameter` or a ref argument of its graph (one carried
by an if/while, returned by a call or taken by a region) loaded, assigned or
passed to a call; a ref passed to anything but Load, Assign, a call of a graph
defined in the module, or the ordering ops depend / update_state; a ref given by
anything but `get_parameter` / `depend` (results of if, while or calls, region
arguments); a graph returning a ref; a declaration taking one; a call whose
operands do not match the graph's arguments; a ref argument written inside a
region op other than mindir.if / mindir.while (nothing could carry it out).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from mindjit.dialects import mindir
from mindjit.dialects.mindir.parameter_args import (
    bound_symbol,
    bound_symbols,
)
from mindjit.dialects.mindir.types import RefType
from mindjit.dialects.ml_program_ext import GlobalLoadOp, GlobalStoreOp
from mindjit.ir.calls import rebuilt_call
from mindjit.ir.compat.block_args import detached_arg, set_args
from mindjit.ir.locations import op_error
from mindjit.passes.analysis.effects import (
    Effects,
    RefRoot,
    is_ref,
    ref_root,
)
from mindjit.passes.analysis.graph_walk import top_level_graphs, walk_graphs
from mindjit.passes.carried_values import add_if_results, add_loop_arguments, finish_while
from mindjit.passes.mindir_to_tensor.bound_args import (
    access_as_globals,
    mark_global_arguments,
    read_only_as_values,
)
from mindjit.passes.mindir_to_tensor.tuples import flat_types

#: The discardable `func.func` attribute listing the arguments a graph writes back.
REF_RESULTS_ATTR = "mindjit.ref_results"

_ONLY = (
    "a Parameter ref can only be loaded, assigned, or passed to a graph call "
    "(from mindir.get_parameter or a ref argument of the calling graph)"
)


def _entry_block_of_graph(block: Block) -> bool:
    region = block.parent
    return (
        region is not None
        and isinstance(region.parent, func.FuncOp)
        and region.first_block is block
    )


def _ref_args(fn: func.FuncOp) -> list[BlockArgument]:
    return [a for a in fn.body.blocks[0].args if is_ref(a.type)] if fn.body.blocks else []


def _hint(root: RefRoot) -> str | None:
    """The name of a ref's value in the IR: the Parameter's, or the argument's."""
    if isinstance(root, mindir.GetParameterOp):
        return root.parameter.root_reference.data
    return root.name_hint


def _tensor_of(t: Attribute) -> TensorType:
    assert isinstance(t, RefType)
    return t.tensor


# -- analysis and checks (before any change) --------------------------------------------


@dataclass
class _Plan:
    """Which graphs take refs, which of their ref arguments they write, which need work."""

    funcs: dict[str, func.FuncOp]
    #: what each graph writes (passes/analysis/effects.py): per graph the indices of
    #: the ref arguments it writes (itself or through calls), and the Parameters
    #: written anywhere
    effects: Effects
    #: graphs to rewrite: they take refs or pass refs to calls
    todo: list[func.FuncOp] = field(default_factory=list[func.FuncOp])
    #: per graph, the bound arguments (see `mindjit.dialects.mindir.parameter_args`) whose
    #: Parameter the program writes: accessed as globals, like get_parameter
    as_globals: dict[str, list[int]] = field(default_factory=dict[str, list[int]])
    #: per graph, its bound arguments: index -> symbol
    bound: dict[str, dict[int, str]] = field(default_factory=dict[str, dict[int, str]])

    def writes(self, fn: func.FuncOp) -> set[int]:
        """The ref arguments of `fn` it writes, bound ones accessed as globals aside."""
        return self.effects.by_graph[fn.sym_name.data].arguments

    def written(self, call: func.CallOp) -> frozenset[int]:
        return self.effects.written_arguments(call)


def _check_call(call: func.CallOp, funcs: dict[str, func.FuncOp]) -> func.FuncOp:
    name = call.callee.root_reference.data
    callee = funcs.get(name)
    if callee is None or not callee.body.blocks:
        raise op_error(
            call,
            f"'func.call' passes a Parameter ref to @{name}, which is not a graph defined "
            "in this module (a func.func with a body)",
        )
    args = callee.body.blocks[0].args
    if len(args) != len(call.arguments):
        raise op_error(
            call,
            f"'func.call' passes {len(call.arguments)} operands but @{name} takes {len(args)}",
        )
    home = call.parent  # a ref argument of the graph the call is in is a root as it is
    at_entry = home is not None and _entry_block_of_graph(home)
    for i, (v, a) in enumerate(zip(call.arguments, args)):
        passes_ref = is_ref(v.type)
        if passes_ref != is_ref(a.type):
            raise op_error(
                call,
                f"operand {i} of 'func.call' is {v.type} but argument {i} of @{name} is {a.type}",
            )
        if not passes_ref or (at_entry and type(v) is BlockArgument and v.block is home):
            continue
        if ref_root(v) is None:
            raise op_error(
                call,
                f"'func.call' passes a Parameter ref (operand {i}) that comes neither from "
                "mindir.get_parameter nor from a ref argument of the calling graph",
            )
    return callee


#: writers other than Assign: they write their Parameters in place, through
#: get_parameter refs or bound arguments only
_IN_PLACE_WRITERS = frozenset(set(mindir.WRITER_OPS) - {mindir.AssignOp})


def _check_op(op: Operation, funcs: dict[str, func.FuncOp]) -> bool:
    """Raise at a ref use this lowering cannot handle; True if `op` passes refs to a call."""
    if type(op) in _REF_FREE_LEAVES:  # most ops of a large model: declarations, getters
        return False
    passes = False
    kind = type(op)  # exact classes (no subclasses): asked of every op
    if kind is mindir.LoadOp or kind is mindir.AssignOp:
        if ref_root(op.ref) is None:
            raise op_error(
                op,
                f"the Parameter of '{op.name}' must come from mindir.get_parameter or be a "
                "ref argument of its graph",
            )
    elif kind in _IN_PLACE_WRITERS:
        for ref in mindir.written_refs(op):
            root = ref_root(ref)
            if root is None or (isinstance(root, BlockArgument) and bound_symbol(root) is None):
                raise op_error(
                    op,
                    f"the Parameters of '{op.name}' must come from "
                    "mindir.get_parameter or arguments bound to them (not a ref argument "
                    "of a reused graph)",
                )
    elif kind is mindir.DependOp or kind is mindir.UpdateStateOp:
        pass  # ordering only: a depend of a ref is traced by `ref_root`
    elif kind is func.CallOp and any(is_ref(v.type) for v in op.arguments):
        _check_call(op, funcs)
        passes = True
    elif any(is_ref(v.type) for v in op.operands):
        raise op_error(op, f"'{op.name}' passes a Parameter ref on: {_ONLY}")
    if (
        kind is not mindir.GetParameterOp
        and kind is not mindir.DependOp
        and any(is_ref(r.type) for r in op.results)
    ):
        raise op_error(op, f"'{op.name}' gives a Parameter ref: {_ONLY}")
    for region in op.regions:
        for block in region.blocks:
            if any(is_ref(a.type) for a in block.args):
                if kind is func.FuncOp and block is region.blocks[0]:
                    continue
                raise op_error(op, f"a region of '{op.name}' takes a Parameter ref: {_ONLY}")
    if kind is func.FuncOp:
        name = op.sym_name.data
        if any(is_ref(t) for t in op.function_type.outputs.data):
            raise op_error(op, f"@{name} returns a Parameter ref: {_ONLY}")
        if not op.body.blocks and any(is_ref(t) for t in op.function_type.inputs.data):
            raise op_error(
                op, f"@{name} is a declaration taking a Parameter ref: only graphs with a body can"
            )
    return passes


#: Ops that take no refs and give none but from get_parameter (checked for shape by
#: the verifier): nothing to check.
_REF_FREE_LEAVES = frozenset({mindir.ParameterOp, mindir.GetParameterOp})


def _root_key(root: RefRoot) -> tuple[str, object]:
    """A Parameter by its symbol (getter or bound argument); any other ref argument by itself."""
    if isinstance(root, mindir.GetParameterOp):
        return ("@", root.parameter.root_reference.data)
    symbol = bound_symbol(root)
    return ("@", symbol) if symbol is not None else ("%", root)


def _check_no_double_write(call: func.CallOp, written: set[int]) -> None:
    """A Parameter passed to two ref arguments of which the callee writes one is refused."""
    if not written:
        return
    seen: dict[tuple[str, object], int] = {}
    for i, v in enumerate(call.arguments):
        if not is_ref(v.type):
            continue
        root = ref_root(v)
        assert root is not None
        key = _root_key(root)
        first = seen.setdefault(key, i)
        if first != i and (first in written or i in written):
            what = f"Parameter @{key[1]}" if key[0] == "@" else "the same Parameter ref"
            raise op_error(
                call,
                f"'func.call' passes {what} as operands {first} and {i} of "
                f"@{call.callee.root_reference.data}, which writes it: the two writes "
                "would race",
            )


def check_and_plan(module: ModuleOp) -> _Plan:
    """Check every ref in `module` (raising at the first this lowering cannot handle)
    and find which ref arguments each graph writes (see the module doc)."""
    funcs = {op.sym_name.data: op for op in top_level_graphs(module) if isinstance(op, func.FuncOp)}
    needs: set[str] = set()
    calls: list[func.CallOp] = []
    for op in walk_graphs(module):
        if _check_op(op, funcs):
            calls.append(op)  # type: ignore[arg-type]
            fn = op.parent_op()
            while fn is not None and not isinstance(fn, func.FuncOp):
                fn = fn.parent_op()
            if fn is not None:
                needs.add(fn.sym_name.data)
    plan = _Plan(funcs, Effects(module))
    for call in calls:
        _check_no_double_write(call, plan.written(call))
    plan.todo = [fn for name, fn in funcs.items() if name in needs or _ref_args(fn)]
    for fn in plan.todo:
        _plan_bound_arguments(plan, fn)
        _check_threadable(plan, fn)
    return plan


def _plan_bound_arguments(plan: _Plan, fn: func.FuncOp) -> None:
    """A bound argument whose Parameter is written anywhere is accessed as a global
    (loads and stores in program order, as with get_parameter: a Load keeps
    aliasing the Parameter's memory); one only read stays an argument, which
    makes each call site passing it one op."""
    name = fn.sym_name.data
    bound = plan.bound[name] = bound_symbols(fn)
    written = plan.effects.written_symbols()
    chosen = [i for i, s in bound.items() if s in written]
    if chosen:
        plan.as_globals[name] = chosen


def _writes_in(plan: _Plan, op: Operation, refs: Iterable[BlockArgument]) -> list[BlockArgument]:
    """The ref arguments among `refs` that `op` (with everything in it) writes, by an
    Assign or a call, in argument order."""
    refs = set(refs)
    if not refs:
        return []
    found: set[BlockArgument] = set()
    for inner in op.walk():
        if isinstance(inner, mindir.AssignOp):
            root = ref_root(inner.ref)
            if root in refs:
                found.add(root)  # type: ignore[arg-type]
        elif isinstance(inner, func.CallOp):
            for i in plan.written(inner):
                root = ref_root(inner.arguments[i])
                if root in refs:
                    found.add(root)  # type: ignore[arg-type]
    return sorted(found, key=lambda a: a.index)


def _check_threadable(plan: _Plan, fn: func.FuncOp) -> None:
    """Ref arguments can be threaded out of mindir.if / mindir.while only."""
    as_globals = plan.as_globals.get(fn.sym_name.data, ())
    refs = [a for a in _ref_args(fn) if a.index not in as_globals]
    if not refs:
        return
    for op in fn.walk():
        if op is fn or not op.regions or isinstance(op, mindir.IfOp | mindir.WhileOp):
            continue
        if written := _writes_in(plan, op, refs):
            a = written[0]
            name = f"%{a.name_hint} " if a.name_hint else ""
            raise op_error(
                op,
                f"cannot thread the Parameter ref argument {name}(#{a.index}) of "
                f"@{fn.sym_name.data} written inside '{op.name}': only mindir.if and "
                "mindir.while can carry it out",
            )


# -- the rewrite -------------------------------------------------------------------------

Current = dict[BlockArgument, SSAValue]
"""Per ref argument (the original, ref-typed one), its current value."""


class _Lowerer:
    def __init__(self, plan: _Plan):
        self.plan = plan

    def writes_in(self, op: Operation, refs: Iterable[BlockArgument]) -> list[BlockArgument]:
        return _writes_in(self.plan, op, refs)

    # --- blocks ----------------------------------------------------------------------------
    def lower_block(self, block: Block, current: Current) -> Current:
        current = dict(current)
        for op in list(block.ops):
            self.lower_op(op, current)
        return current

    def lower_op(self, op: Operation, current: Current) -> None:
        if isinstance(op, mindir.LoadOp):
            root = ref_root(op.ref)
            if isinstance(root, BlockArgument):
                op.result.replace_all_uses_with(current[root])
                Rewriter.erase_op(op)
        elif isinstance(op, mindir.AssignOp):
            root = ref_root(op.ref)
            if isinstance(root, BlockArgument):
                current[root] = op.value
                op.result.replace_all_uses_with(op.value)
                Rewriter.erase_op(op)
        elif isinstance(op, func.CallOp):
            if any(is_ref(v.type) for v in op.arguments):
                self.lower_call(op, current)
        elif isinstance(op, mindir.IfOp):
            self.lower_if(op, current)
        elif isinstance(op, mindir.WhileOp):
            self.lower_while(op, current)
        elif op.regions:  # writes no ref argument (checked by check_and_plan)
            for region in op.regions:
                for block in region.blocks:
                    self.lower_block(block, current)

    def lower_call(self, op: func.CallOp, current: Current) -> None:
        operands: list[SSAValue] = []
        roots: list[RefRoot | None] = []
        for v in op.arguments:
            if not is_ref(v.type):
                operands.append(v)
                roots.append(None)
                continue
            root = ref_root(v)
            assert root is not None  # checked by check_and_plan
            roots.append(root)
            if isinstance(root, mindir.GetParameterOp):
                load = GlobalLoadOp.get(root.parameter, _tensor_of(v.type))
                load.location = op.location  # type: ignore[assignment]
                load.result.name_hint = _hint(root)
                Rewriter.insert_op(load, InsertPoint.before(op))
                operands.append(load.result)
            else:
                operands.append(current[root])
        written = sorted(self.plan.written(op))
        if not written:  # same results: the call only takes values instead of refs
            op.operands = operands
            return
        extra = [_tensor_of(op.arguments[i].type) for i in written]
        call = rebuilt_call(op, operands, [*op.res.types, *extra])
        Rewriter.insert_op(call, InsertPoint.before(op))
        n = len(op.results)
        for old, new in zip(op.results, call.results[:n]):
            old.replace_all_uses_with(new)
        Rewriter.erase_op(op)
        where: Operation = call
        for i, result in zip(written, call.results[n:]):
            root = roots[i]
            assert root is not None
            result.name_hint = _hint(root)
            if isinstance(root, mindir.GetParameterOp):
                store = GlobalStoreOp(root.parameter, result)
                store.location = call.location  # type: ignore[assignment]
                Rewriter.insert_op(store, InsertPoint.after(where))
                where = store
            else:
                current[root] = result

    def lower_if(self, op: mindir.IfOp, current: Current) -> None:
        carried = self.writes_in(op, current)
        ends = [self.lower_block(r.block, current) for r in (op.then_region, op.else_region)]
        if carried:
            names = [a.name_hint for a in carried]
            results = add_if_results(
                op, [ends[0][a] for a in carried], [ends[1][a] for a in carried], names
            )
            current.update(zip(carried, results))

    def lower_while(self, op: mindir.WhileOp, current: Current) -> None:
        carried = self.writes_in(op, current)
        if not carried:
            for region in (op.before_region, op.after_region):
                self.lower_block(region.block, current)
            return
        names = [a.name_hint for a in carried]
        arg_lists = add_loop_arguments(op, [current[a].type for a in carried], names)
        ends = [
            self.lower_block(region.block, {**current, **dict(zip(carried, args))})
            for region, args in zip((op.before_region, op.after_region), arg_lists)
        ]
        results = finish_while(
            op,
            [current[a] for a in carried],
            [ends[0][a] for a in carried],
            [ends[1][a] for a in carried],
            names,
        )
        current.update(zip(carried, results))

    # --- graphs ----------------------------------------------------------------------------
    def lower_graph(self, fn: func.FuncOp) -> None:
        block = fn.body.blocks[0]
        refs = _ref_args(fn)
        by_index = {a.index: a for a in refs}  # the original positions
        written = sorted(self.plan.writes(fn))
        # a depend of a ref argument orders nothing any more: block order is the order
        for op in list(fn.walk()):
            if (
                isinstance(op, mindir.DependOp)
                and is_ref(op.result.type)
                and isinstance(ref_root(op.result), BlockArgument)
            ):
                op.result.replace_all_uses_with(op.value)
                Rewriter.erase_op(op)
        current: Current = {}
        for a in refs:
            value = detached_arg(block, _tensor_of(a.type))
            value.name_hint = a.name_hint
            current[a] = value
        entry = dict(current)
        end = self.lower_block(block, current)
        ret = block.last_op
        if written:
            if not isinstance(ret, func.ReturnOp):
                raise op_error(fn, f"@{fn.sym_name.data} must end with func.return")
            ret.operands = [*ret.arguments, *[end[by_index[i]] for i in written]]
        for a in refs:
            # only ordering uses (update_state / depend attachments) are left
            a.replace_all_uses_with(entry[a])
        set_args(block, [entry.get(a, a) for a in block.args])  # type: ignore[arg-type]
        inputs = [_tensor_of(t) if is_ref(t) else t for t in fn.function_type.inputs.data]
        outputs = [*fn.function_type.outputs.data, *[inputs[i] for i in written]]
        fn.function_type = FunctionType.from_lists(inputs, outputs)
        if fn.res_attrs is not None and written:
            fn.res_attrs = ArrayAttr([*fn.res_attrs.data, *[DictionaryAttr({}) for _ in written]])
        if written:
            flat_index = [0]
            for t in inputs:
                flat_index.append(flat_index[-1] + len(flat_types(t)))
            fn.attributes[REF_RESULTS_ATTR] = ArrayAttr(
                [IntegerAttr(flat_index[i], i64) for i in written]
            )


def lower_ref_arguments(module: ModuleOp) -> None:
    """Functionalize Parameter refs passed between graphs (see the module doc); raises
    a located error, before any change, for refs it cannot handle."""
    plan = check_and_plan(module)
    lowerer = _Lowerer(plan)
    for fn in plan.todo:
        as_globals = plan.as_globals.get(fn.sym_name.data, ())
        access_as_globals(fn, as_globals)
        bound = plan.bound.get(fn.sym_name.data, {})
        read_only_as_values(fn, [i for i in bound if i not in as_globals])
        lowerer.lower_graph(fn)
        mark_global_arguments(fn, bound)
