"""Parameter effects: where a ref comes from, which Parameters an op or a graph may
write, and the state chains that order them. One analysis for every pass.

Refs. A `!mindir.ref` comes from `mindir.get_parameter @w`, from an entry graph's
argument bound to @w (`{mindir.parameter = @w}`, see
dialects/mindir/parameter_args.py), or from a ref argument of a graph lazy inline
keeps (each call site passes its own ref); `mindir.depend` hands a ref through.
`ref_root` finds which, `parameter_symbol` the Parameter when it is known, and
`ref_key` what identifies the Parameter for a pass (its symbol, else the ref).

Writes. `Effects(module)` computes, once per module, what each graph writes:
the Parameters it assigns (by symbol) and the ref arguments it assigns (by
index), its callees' writes included. A call maps its callee's written ref
arguments to the refs it passes, so a shared Block that assigns its ref
argument writes exactly the Parameter each call site passes. Recursion is a
fixpoint over the call graph; a call of a declaration or of an unknown symbol
that takes a `!mindir.u` may write anything (`ANY`), as may an Assign whose ref
comes from nowhere traceable. Per op, `writes(op)` gives the symbols it (with
everything nested in it) may write, `ANY` standing for all, and an Assign of a
graph's ref argument counting as `ANY` inside that graph (the argument may be
any Parameter). The analysis reads the IR as it is when built: passes that
change Assigns, calls or refs build it again.

States. `state_kind` names the two monads (`!mindir.u` "u", `!mindir.io` "io");
`input_state` is the `!mindir.u` an op starts from.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue

from mindjit.dialects import mindir
from mindjit.dialects.mindir.parameter_args import bound_symbol
from mindjit.dialects.mindir.types import MonadIOType, MonadUType, RefType
from mindjit.ir.walk import block_ops, walk_ops
from mindjit.passes.analysis.graph_walk import top_level_graphs

#: In a write set: "may write every Parameter" (never a symbol name).
ANY = "\0any"
Writes = frozenset[str]
Key = str | SSAValue  # a Parameter's symbol, or a ref that is no known Parameter

# --- states --------------------------------------------------------------------------

#: The two states, in the order graphs take and return them.
KINDS: tuple[str, ...] = ("u", "io")
STATE_TYPES: dict[str, Attribute] = {"u": MonadUType(), "io": MonadIOType()}
_STATE_KINDS: dict[type, str] = {MonadUType: "u", MonadIOType: "io"}


def state_kind(t: Attribute) -> str | None:
    """ "u" for `!mindir.u`, "io" for `!mindir.io`, None otherwise."""
    return _STATE_KINDS.get(type(t))  # by exact class: asked for every call operand


def is_u(v: SSAValue) -> bool:
    return type(v.type) is MonadUType


def input_state(op: Operation) -> SSAValue | None:
    """The `!mindir.u` an op starts from: its first u operand, else the first u the
    ops inside it use from outside (an `if` takes its state in its regions)."""
    for v in op.operands:
        if is_u(v):
            return v
    if not op.regions:
        return None
    for inner in walk_ops(op):
        if inner is op:
            continue
        for v in inner.operands:
            if is_u(v) and not defined_inside(v, op):
                return v
    return None


def values_from_outside(op: Operation) -> list[SSAValue]:
    """What `op` reads from outside it: its operands and the values the ops in its
    regions capture, each once, in the order they are first used."""
    inside: set[SSAValue] = set()
    used: dict[SSAValue, None] = {}
    for inner in walk_ops(op):
        used.update(dict.fromkeys(inner.operands))
        inside.update(inner.results)
        for region in inner.regions:
            for block in region.blocks:
                inside.update(block.args)
    return [v for v in used if v not in inside]


def defined_inside(v: SSAValue, op: Operation) -> bool:
    """Whether `v` is defined by an op nested in `op` or is an argument of a block in it."""
    owner = v.block.parent_op() if isinstance(v, BlockArgument) else v.owner
    while isinstance(owner, Operation):
        if owner is op:
            return True
        owner = owner.parent_op()
    return False


# --- refs ----------------------------------------------------------------------------

RefRoot = mindir.GetParameterOp | BlockArgument


def is_ref(t: Attribute) -> bool:
    return type(t) is RefType  # exact class (no subclasses): asked for every operand


def strip_depends(ref: SSAValue) -> SSAValue:
    """`ref` without the `mindir.depend`s handing it through."""
    while isinstance(ref, OpResult) and isinstance(ref.op, mindir.DependOp) and ref.index == 0:
        ref = ref.op.value
    return ref


def graph_of_arg(arg: BlockArgument) -> func.FuncOp | None:
    """The graph whose entry-block argument `arg` is, or None."""
    region = arg.block.parent
    fn = region.parent if region is not None else None
    if isinstance(fn, func.FuncOp) and region.first_block is arg.block:  # type: ignore[union-attr]
        return fn
    return None


def ref_root(ref: SSAValue) -> RefRoot | None:
    """Where a ref comes from (through depends): its `get_parameter`, a ref argument of
    a graph (bound to a Parameter or not), or None (an if/while or call result, a
    region argument)."""
    ref = strip_depends(ref)
    if isinstance(ref, OpResult):
        return ref.op if isinstance(ref.op, mindir.GetParameterOp) else None
    if isinstance(ref, BlockArgument) and is_ref(ref.type) and graph_of_arg(ref) is not None:
        return ref
    return None


def root_symbol(root: RefRoot | None) -> str | None:
    if isinstance(root, mindir.GetParameterOp):
        return root.parameter.root_reference.data
    if isinstance(root, BlockArgument):
        return bound_symbol(root)
    return None


def parameter_symbol(ref: SSAValue) -> str | None:
    """The Parameter a ref is: the symbol of its `get_parameter` or of the argument
    it is bound to; None for anything else (a reused graph's own ref arguments stand
    for whichever Parameter each call site passes)."""
    return root_symbol(ref_root(ref))


def ref_key(ref: SSAValue) -> Key:
    """The Parameter's symbol, else the ref itself (through depends)."""
    symbol = parameter_symbol(ref)
    return symbol if symbol is not None else strip_depends(ref)


def keys_match(a: Key, b: Key) -> bool:
    """Two keys may be the same Parameter (an unknown ref may be any)."""
    return a == b if isinstance(a, str) and isinstance(b, str) else True


# --- writes -------------------------------------------------------------------------


@dataclass
class GraphWrites:
    """What one graph writes, its callees included: Parameters by symbol (`ANY` for
    all) and its own ref arguments by index."""

    symbols: set[str]
    arguments: set[int]


class Effects:
    """Which Parameters each graph and each op may write (see the module doc)."""

    def __init__(self, module: ModuleOp):
        self.module = module
        self.graphs: dict[str, func.FuncOp] = {
            op.sym_name.data: op for op in top_level_graphs(module) if isinstance(op, func.FuncOp)
        }
        self._of_op: dict[Operation, Writes] = {}
        self._written: Writes | None = None
        self.by_graph: dict[str, GraphWrites] = {}
        calls: dict[str, list[func.CallOp]] = {}
        for name, fn in self.graphs.items():
            self.by_graph[name], calls[name] = self._direct(fn)
        changed = True
        while changed:  # a graph writes what its callees write, through the refs it passes
            changed = False
            for name, fn_calls in calls.items():
                mine = self.by_graph[name]
                for call in fn_calls:
                    symbols, arguments = self._call_writes(call)
                    if not symbols <= mine.symbols or not arguments <= mine.arguments:
                        mine.symbols |= symbols
                        mine.arguments |= arguments
                        changed = True

    # --- graphs --------------------------------------------------------------------------
    def _direct(self, fn: func.FuncOp) -> tuple[GraphWrites, list[func.CallOp]]:
        writes = GraphWrites(set(), set())
        calls: list[func.CallOp] = []
        if not fn.body.blocks:
            return writes, calls
        for op in walk_ops(fn):
            kind = type(op)  # exact classes: asked of every op of every graph
            if kind in _WRITERS:
                symbols, arguments = _op_writes(op)
                writes.symbols |= symbols
                writes.arguments |= arguments
            elif kind is func.CallOp:
                calls.append(op)
        return writes, calls

    def callee(self, call: func.CallOp) -> func.FuncOp | None:
        """The graph (with a body) a call reaches, or None (a declaration, unknown)."""
        fn = self.graphs.get(call.callee.root_reference.data)
        return fn if fn is not None and fn.body.blocks else None

    def _call_writes(self, call: func.CallOp) -> tuple[set[str], set[int]]:
        """What `call` writes, in its caller's terms: symbols, and the caller's own ref
        arguments (by index) it passes to arguments the callee writes."""
        fn = self.callee(call)
        if fn is None:
            declared = self.graphs.get(call.callee.root_reference.data)
            types = [v.type for v in call.arguments]
            if declared is not None:
                types += list(declared.function_type.inputs.data)
            return ({ANY} if any(state_kind(t) == "u" for t in types) else set()), set()
        callee = self.by_graph[fn.sym_name.data]
        symbols, arguments = set(callee.symbols), set()
        for i in callee.arguments:
            if i >= len(call.arguments):
                symbols.add(ANY)  # a malformed call: the verifier says so
                continue
            _add_written(call.arguments[i], symbols, arguments)
        return symbols, arguments

    def written_arguments(self, call: func.CallOp) -> frozenset[int]:
        """The callee's ref arguments (by index) a call's callee writes."""
        fn = self.callee(call)
        return (
            frozenset(self.by_graph[fn.sym_name.data].arguments) if fn is not None else frozenset()
        )

    def written_symbols(self) -> Writes:
        """Every Parameter some graph of the module may write (`ANY`: any); made once
        (asked per Load: the union over every graph was quadratic in a big model)."""
        if self._written is None:
            found: set[str] = set()
            for writes in self.by_graph.values():
                found |= writes.symbols
            self._written = frozenset(found)
        return self._written

    # --- ops ---------------------------------------------------------------------------
    def writes(self, op: Operation) -> Writes:
        """The Parameters `op` (with everything in it, its callees included) may write;
        `ANY` for all (see the module doc)."""
        known = self._of_op.get(op)
        if known is not None:
            return known
        found: set[str] = set()
        arguments: set[int] = set()
        if type(op) in _WRITERS:
            found, arguments = _op_writes(op)
        elif isinstance(op, func.CallOp):
            found, arguments = self._call_writes(op)
        if arguments:
            found.add(ANY)  # a graph's ref argument: any Parameter
        for region in op.regions:
            for block in region.blocks:
                for inner in block_ops(block):
                    found |= self.writes(inner)
        result = frozenset(found)
        self._of_op[op] = result
        return result

    def may_write(self, op: Operation, key: Key) -> bool:
        """Whether `op` may write the Parameter `key` (an unknown ref: any write)."""
        w = self.writes(op)
        if not w:
            return False
        return ANY in w or not isinstance(key, str) or key in w

    def is_written(self, ref: SSAValue) -> bool:
        """Whether anything in the module may write the Parameter `ref` is. A module
        that writes no Parameter writes none, whatever the ref."""
        written = self.written_symbols()
        if ANY in written:
            return True
        if not written:
            return False
        symbol = parameter_symbol(ref)
        return symbol is None or symbol in written


_WRITERS = frozenset(mindir.WRITER_OPS)


def _op_writes(op: Operation) -> tuple[set[str], set[int]]:
    """What one writer op (an Assign, an ApplyMomentum) writes: for each ref it
    writes, a Parameter's symbol, a ref argument's index, or ANY."""
    symbols: set[str] = set()
    arguments: set[int] = set()
    for ref in mindir.written_refs(op):
        _add_written(ref, symbols, arguments)
    return symbols, arguments


def _add_written(ref: SSAValue, symbols: set[str], arguments: set[int]) -> None:
    """Record a write through `ref`: its Parameter's symbol, the index of the graph's
    ref argument it is, or ANY when it comes from nowhere traceable."""
    root = ref_root(ref)
    symbol = root_symbol(root)
    if symbol is not None:
        symbols.add(symbol)
    elif isinstance(root, BlockArgument):
        arguments.add(root.index)
    else:
        symbols.add(ANY)
