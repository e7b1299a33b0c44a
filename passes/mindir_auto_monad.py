"""mindir-auto-monad: thread MindSpore's state monads through the side effects.

The frontend emits side-effect ops in program order (block order), all on the
graph's *entry* states: a graph with effects takes `!mindir.u` and/or
`!mindir.io` block arguments after its tensor inputs (u first), every Load,
Assign and print inside it (also inside `mindir.if` / `mindir.while`) uses those
arguments directly, and a `func.call` to such a graph passes the caller's entry
states. This pass turns that into MindSpore's monadic IR, in block order:

- memory (`!mindir.u`): `mindir.load %r, %u` / `mindir.assign %r, %v, %u` take
  the current state and are followed by `%u' = mindir.update_state %u, %op`, which
  becomes the current state (MindSpore's `UpdateState(U, Load)`,
  `UpdateState(U, Assign)`); so do the other writers (`mindir.apply_momentum`,
  `mindir.update_moving_stats`: `mindir.WRITER_OPS`), their state the last operand.
- IO (`!mindir.io`): `%p = mindir.print ..., %io` takes the current IO state and
  is followed by `%io' = mindir.update_state %io, %p -> !mindir.io`, as MindSpore
  follows a Print with `UpdateState(IOMonad, Print)`. (Using the print's own
  `!mindir.io` result as the next state would order prints just as well; the
  UpdateState form is kept so every effect looks the same to later passes.)
- A Parameter that no `mindir.assign` in the module writes is read without
  ordering: its Loads take the current state but get no update_state and do not
  advance it. Which Parameters are written comes from the one effects analysis
  (passes/analysis/effects.py): an Assign through a reused graph's ref argument
  writes the Parameter each call site passes, and one whose ref cannot be traced
  at all makes every Parameter count as written.
- Graphs: a graph with state arguments returns the states it advances (itself,
  or through the graphs it calls) as extra trailing results, in argument order
  (u, io), and its function type says so. A `func.call` of it passes the current
  states and the caller continues with the states it returns. A state the graph
  only reads with (a graph that loads Parameters nothing writes, as a model
  without state updates does) is not returned: as in MindSpore, a graph without
  side effects gives no monad back, so its calls stay as they are and are not
  ordered against each other.
- `mindir.if`: both branches start from the states current before the if; the
  states either branch advances are yielded as extra trailing results of the if,
  which are the current states after it.
- `mindir.grad`: its forward region is threaded from the states current before
  it; the states it advances are yielded as extra trailing values and become
  extra trailing results (as for `mindir.if`), the current states after it.
- `mindir.while`: the states the condition or body advances become extra trailing
  loop-carried values (initialized with the current states, forwarded by
  `mindir.condition`, yielded by the body); the while's extra results are the
  current states after it. Nested regions are threaded recursively.
- Ops without side effects, and graphs without state arguments, are unchanged.

Already threaded IR: a graph whose function type returns a state is taken as
threaded and left exactly as it is (calls to it are still threaded in graphs
that are not); threading again a graph that returns none changes nothing either,
so running the pass twice changes nothing. A graph that does not
return its states but already contains `mindir.update_state`, or an if/while
that already carries a state, is partly threaded: that is rejected with an
error at the op, since the pass cannot tell which order was meant.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mindjit.dialects import mindir
from mindjit.ir.calls import rebuilt_call
from mindjit.ir.compat.linked_ops import raw_operands
from mindjit.ir.locations import op_error
from mindjit.ir.walk import walk_ops
from mindjit.passes.analysis.effects import KINDS, STATE_TYPES, Effects, state_kind
from mindjit.passes.analysis.graph_walk import walk_graphs
from mindjit.passes.carried_values import (
    add_grad_results,
    add_if_results,
    add_loop_arguments,
    finish_while,
)

States = dict[str, SSAValue | None]


def _state_args(fn: func.FuncOp) -> dict[str, SSAValue]:
    """The function's state arguments by kind; two of one kind is an error."""
    found: dict[str, SSAValue] = {}
    for arg in fn.body.blocks[0].args:
        kind = state_kind(arg.type)
        if kind is None:
            continue
        if kind in found:
            raise op_error(
                fn,
                f"@{fn.sym_name.data} takes two {STATE_TYPES[kind]} arguments; "
                "mindir-auto-monad expects at most one state of each kind",
            )
        found[kind] = arg
    return found


def _returns_state(fn: func.FuncOp) -> bool:
    return any(state_kind(t) is not None for t in fn.function_type.outputs.data)


def _check_not_partly_threaded(fn: func.FuncOp) -> None:
    for op in fn.walk():
        if isinstance(op, mindir.UpdateStateOp):
            raise op_error(
                op,
                f"@{fn.sym_name.data} is partly threaded: it has 'mindir.update_state' but "
                "does not return its states; mindir-auto-monad expects every effect on the "
                "graph's entry states (the frontend's form) or a fully threaded graph",
            )
        if isinstance(op, mindir.IfOp | mindir.WhileOp | mindir.GradOp) and any(
            state_kind(t) is not None for t in op.result_types
        ):
            raise op_error(
                op,
                f"@{fn.sym_name.data} is partly threaded: '{op.name}' already carries a state "
                "but the graph does not return its states",
            )


#: the ops that write Parameters (dialects/mindir/effects.py)
_WRITERS = frozenset(mindir.WRITER_OPS)


class _Threader:
    def __init__(self, module: ModuleOp):
        self.effects = Effects(module)
        self.funcs: dict[str, func.FuncOp] = {
            op.sym_name.data: op for op in walk_graphs(module) if isinstance(op, func.FuncOp)
        }
        self.fn: func.FuncOp | None = None

    # --- what advances a state -------------------------------------------------------
    def _callee_type(self, op: func.CallOp) -> FunctionType | None:
        callee = self.funcs.get(op.callee.root_reference.data)
        return callee.function_type if callee is not None else None

    def _call_outputs(self, op: func.CallOp) -> list[Attribute]:
        ftype = self._callee_type(op)
        return list(ftype.outputs.data) if ftype is not None else list(op.res.types)

    def advances(self, op: Operation) -> set[str]:
        """The states `op` (with everything inside it) moves forward."""
        kinds: set[str] = set()
        for inner in walk_ops(op):  # not op.walk(): its generators nest as deep as the regions
            cls = type(inner)  # exact classes: asked of every op
            if cls in _WRITERS:
                kinds.add("u")
            elif cls is mindir.LoadOp:
                if self.effects.is_written(inner.ref):
                    kinds.add("u")
            elif cls is mindir.PrintOp or cls is mindir.SendOp or cls is mindir.ReceiveOp:
                kinds.add("io")
            elif cls is func.CallOp:
                for t in self._call_outputs(inner):
                    if (kind := state_kind(t)) is not None:
                        kinds.add(kind)
        return kinds

    # --- threading --------------------------------------------------------------------
    def _need(self, op: Operation, states: States, kind: str) -> SSAValue:
        value = states[kind]
        if value is None:
            where = f"@{self.fn.sym_name.data}" if self.fn is not None else "the graph"
            raise op_error(
                op,
                f"'{op.name}' needs a {STATE_TYPES[kind]} state but {where} has no "
                f"{STATE_TYPES[kind]} argument",
            )
        return value

    @staticmethod
    def _update_after(op: Operation, states: States, kind: str, attach: SSAValue) -> None:
        state = states[kind]
        assert state is not None
        update = mindir.UpdateStateOp.get(state, [attach])
        update.location = op.location
        update.result.name_hint = kind
        Rewriter.insert_op(update, InsertPoint.after(op))
        states[kind] = update.result

    def thread_block(self, block: Block, states: States) -> States:
        """Thread `states` through `block` in block order; returns the final states."""
        states = dict(states)
        for op in list(block.ops):
            self.thread_op(op, states)
        return states

    def thread_op(self, op: Operation, states: States) -> None:
        if isinstance(op, mindir.LoadOp):
            op.operands = [op.ref, self._need(op, states, "u")]
            if self.effects.is_written(op.ref):
                self._update_after(op, states, "u", op.result)
        elif isinstance(op, mindir.WRITER_OPS):  # the state is the last operand
            op.operands = [*op.operands[:-1], self._need(op, states, "u")]
            self._update_after(op, states, "u", op.results[0])
        elif isinstance(op, mindir.PrintOp):
            op.operands = [*op.values, self._need(op, states, "io")]
            self._update_after(op, states, "io", op.result)
        elif isinstance(op, mindir.SendOp | mindir.ReceiveOp):
            # like print: the io operand is the last, the new state the io result
            op.operands = [*op.operands[:-1], self._need(op, states, "io")]
            self._update_after(op, states, "io", op.results[-1])
        elif isinstance(op, func.CallOp):
            self._thread_call(op, states)
        elif isinstance(op, mindir.IfOp):
            self._thread_if(op, states)
        elif isinstance(op, mindir.WhileOp):
            self._thread_while(op, states)
        elif isinstance(op, mindir.GradOp):
            self._thread_grad(op, states)
        elif op.regions and self.advances(op):
            raise op_error(op, f"mindir-auto-monad cannot thread side effects inside '{op.name}'")

    def _thread_call(self, op: func.CallOp, states: States) -> None:
        operands = [
            self._need(op, states, kind) if (kind := state_kind(v.type)) is not None else v
            for v in op.arguments
        ]
        outputs = self._call_outputs(op)
        call: func.CallOp = op
        if outputs != list(op.res.types):
            old = list(op.res.types)
            if outputs[: len(old)] != old:
                raise op_error(
                    op,
                    f"'func.call' results ({', '.join(map(str, old))}) do not match "
                    f"@{op.callee.root_reference.data}",
                )
            call = rebuilt_call(op, operands, outputs)
            Rewriter.insert_op(call, InsertPoint.before(op))
            for old_result, new_result in zip(op.results, call.results):
                old_result.replace_all_uses_with(new_result)
            Rewriter.erase_op(op)
        elif any(new is not old for new, old in zip(operands, raw_operands(op))):
            op.operands = operands  # (resetting unchanged operands re-links every use)
        for result in call.results:
            if (kind := state_kind(result.type)) is not None:
                if result.name_hint is None:
                    result.name_hint = kind
                states[kind] = result

    def _carried(self, op: Operation, states: States) -> list[str]:
        advanced = self.advances(op)
        carried = [k for k in KINDS if k in advanced]
        for kind in carried:
            self._need(op, states, kind)
        return carried

    def _thread_if(self, op: mindir.IfOp, states: States) -> None:
        carried = self._carried(op, states)
        ends = [
            self.thread_block(region.block, states) for region in (op.then_region, op.else_region)
        ]
        if carried:
            results = add_if_results(
                op,
                [ends[0][k] for k in carried],
                [ends[1][k] for k in carried],
                carried,  # type: ignore[misc]
            )
            states.update(zip(carried, results))

    def _thread_grad(self, op: mindir.GradOp, states: States) -> None:
        carried = self._carried(op, states)
        end = self.thread_block(op.body.block, states)
        if carried:
            results = add_grad_results(op, [end[k] for k in carried], carried)  # type: ignore[misc]
            states.update(zip(carried, results))

    def _thread_while(self, op: mindir.WhileOp, states: States) -> None:
        carried = self._carried(op, states)
        if not carried:
            for region in (op.before_region, op.after_region):
                self.thread_block(region.block, states)
            return
        arg_lists = add_loop_arguments(op, [STATE_TYPES[k] for k in carried], carried)
        ends = [
            self.thread_block(region.block, {**states, **dict(zip(carried, args))})
            for region, args in zip((op.before_region, op.after_region), arg_lists)
        ]
        results = finish_while(
            op,
            [states[k] for k in carried],  # type: ignore[misc]
            [ends[0][k] for k in carried],  # type: ignore[misc]
            [ends[1][k] for k in carried],  # type: ignore[misc]
            carried,
        )
        states.update(zip(carried, results))

    # --- graphs -----------------------------------------------------------------------
    def returned_states(
        self, todo: list[tuple[func.FuncOp, dict[str, SSAValue]]]
    ) -> dict[str, list[str]]:
        """Per graph to thread, the states it returns: those of its state arguments
        that it advances, itself or through its calls (to a fixpoint: a graph
        advances what its callees return). Their function types are updated."""
        outputs = {fn.sym_name.data: list(fn.function_type.outputs.data) for fn, _ in todo}
        res_attrs = {fn.sym_name.data: fn.res_attrs for fn, _ in todo}
        returned: dict[str, list[str]] = {fn.sym_name.data: [] for fn, _ in todo}
        changed = True
        while changed:
            changed = False
            for fn, state_args in todo:
                name = fn.sym_name.data
                if not state_args:
                    continue
                advanced = self.advances(fn)
                kinds = [k for k in KINDS if k in state_args and k in advanced]
                if kinds != returned[name]:
                    returned[name] = kinds
                    _set_state_results(fn, outputs[name], res_attrs[name], kinds)
                    changed = True
        return returned

    def thread_function(
        self, fn: func.FuncOp, state_args: dict[str, SSAValue], returned: list[str]
    ) -> None:
        self.fn = fn
        block = fn.body.blocks[0]
        start: States = {k: state_args.get(k) for k in KINDS}
        end = self.thread_block(block, start)
        ret = block.last_op
        if not isinstance(ret, func.ReturnOp):
            raise op_error(fn, f"@{fn.sym_name.data} must end with func.return")
        if returned:
            ret.operands = [*ret.arguments, *[end[k] for k in returned]]  # type: ignore[misc]
        self.fn = None


def _set_state_results(
    fn: func.FuncOp, outputs: list[Attribute], res_attrs: ArrayAttr | None, kinds: list[str]
) -> None:
    """`fn` returns `outputs` followed by the states `kinds`."""
    extra = [STATE_TYPES[k] for k in kinds]
    fn.function_type = FunctionType.from_lists(
        list(fn.function_type.inputs.data), [*outputs, *extra]
    )
    if res_attrs is not None:
        fn.res_attrs = ArrayAttr([*res_attrs.data, *[DictionaryAttr({}) for _ in extra]])


@dataclass(frozen=True)
class MindirAutoMonadPass(ModulePass):
    """Thread `!mindir.u` through Load/Assign and `!mindir.io` through print, with
    `mindir.update_state` after each, across calls, if and while (see the module doc)."""

    name = "mindir-auto-monad"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        threader = _Threader(op)
        todo: list[tuple[func.FuncOp, dict[str, SSAValue]]] = []
        for fn in list(threader.funcs.values()):
            if not fn.body.blocks or _returns_state(fn):
                continue  # a declaration, or already threaded: left as it is
            if len(fn.body.blocks) != 1:
                raise op_error(fn, f"@{fn.sym_name.data} must have a single block")
            _check_not_partly_threaded(fn)
            todo.append((fn, _state_args(fn)))
        # every signature first, so calls see the states their callee returns
        returned = threader.returned_states(todo)
        for fn, state_args in todo:
            threader.thread_function(fn, state_args, returned[fn.sym_name.data])
