"""The tensor-level module as IREE's input: state, prints and checks made explicit.

mindjit's lowered module is already valid MLIR; three things still have to be
said in IREE's terms before `iree-compile` can build a program users call:

- **Parameters become arguments and results.** IREE gives globals value
  semantics and copies a buffer stored into one (measured: an array imported
  and stored through a setter, then changed in place from Python, was not seen
  by the next call), so a Parameter kept as an IREE global would be a second
  copy to keep in sync. Instead every function is made pure: each
  `ml_program.global` it may read (itself or through its calls) becomes an
  extra argument, and each it may write an extra result carrying its final
  value; loads and stores become SSA values, threaded through `scf.if`
  results and `scf.while` iteration arguments. The executable passes the
  Parameters' own numpy buffers in (imported, no copy) and takes the written
  values back (mapped, no copy). Weights never enter the vmfb: a compile costs
  the same for a 1 KB and a 1 GB model, and a cache entry holds code only.
- **Runtime calls.** A print site calls `@mindjit.print_<n>`, an import of the
  Python module `mindjit` the executable registers (IREE rejects unscoped
  imports); each site has its own import, so the format stays Python-side. A
  `cf.assert` message gets a `[mindjit-check-<k>]` tag: IREE's failure text is
  mapped back to the check's message and source location. A pipeline stage's
  sends and receives call `@mindjit.send_<tag>` / `@mindjit.receive_<tag>`
  (channels.py): the stages of a split graph meet in the executable's hub; a
  collective site calls `@mindjit.<kind>_<n>` (collectives.py), run with the
  executable's communication object.
- **Math ops get C's values** (c_math.py): IREE expands a `math.powf` whose
  exponent is not a constant into `exp(b * log(a))`, NaN for a negative base;
  atan2's zeros and infinities, f64 log1p/expm1 are rewritten likewise.
- **Unsigned types become signless** (signless.py): arith takes no `ui8`; the
  ops already read the bits as unsigned, so this is a type rewrite only.
- **What has no IREE form** raises `IreeUnsupported` with the reason, and the
  driver runs that program on the numpy executor: the float-status runtime
  (the emulated Ascend overflow register), other external functions, and a
  Parameter written inside a region op other than `scf.if` / `scf.while`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import cf, func, scf, tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnregisteredOp,
    f64,
)
from xdsl.dialects.ml_program import GlobalOp
from xdsl.ir import Attribute, Block, Operation, SSAValue

from mindjit.backend.cpu.executable import caller_inputs
from mindjit.backend.cpu.kernels_state import format_items
from mindjit.backend.iree.c_math import c_math
from mindjit.backend.iree.channels import (
    HOST_MODULE,
    Channel,
    channels_of,
    channels_to_imports,
    is_channel,
    nested_channel,
)
from mindjit.backend.iree.collectives import KINDS as COLLECTIVE_KINDS
from mindjit.backend.iree.collectives import (
    CollectiveSite,
    collective_sites,
    collectives_to_imports,
)
from mindjit.backend.iree.signless import make_signless
from mindjit.backend.iree.split_graphs import split_shared_graphs
from mindjit.dialects.mindir.parameter_args import GLOBAL_ARG_ATTR, bound_symbols
from mindjit.dialects.ml_program_ext import GlobalLoadOp, GlobalStoreOp
from mindjit.ir.locations import loc_of_op
from mindjit.ir.walk import walk_ops
from mindjit.support.errors import MindjitError, SourceLoc

RUNTIME_ATTR = "mindjit.runtime"
PRINT_MODULE = HOST_MODULE
CHECK_TAG = re.compile(r"\[mindjit-check-(\d+)\]")


class IreeUnsupported(MindjitError):
    """The module uses something IREE cannot run (the driver falls back to numpy)."""


@dataclass(frozen=True)
class PrintSite:
    """One print call: its format items (text, or operand indices) and operand types."""

    name: str  # the import's function name in module `mindjit`
    items: tuple[str | int, ...]
    types: tuple[Attribute, ...]


@dataclass(frozen=True)
class EntryInfo:
    """What one public function takes and returns once its state is explicit."""

    name: str
    inputs: tuple[Attribute, ...]  # the caller's inputs (bound arguments left out)
    outputs: tuple[Attribute, ...]  # the function's own results
    state: tuple[str, ...]  # globals passed after the inputs, in order
    written: tuple[str, ...]  # globals returned after the results, in order
    loc: SourceLoc | None = None


@dataclass
class Prepared:
    """IREE's input text and what the executable needs to call it."""

    text: str
    globals: dict[str, GlobalOp]  # the original globals (types, initial values)
    entries: dict[str, EntryInfo]
    prints: list[PrintSite] = field(default_factory=list)
    checks: dict[int, tuple[str, SourceLoc | None]] = field(default_factory=dict)
    #: pipeline channels (channels.py): host imports, not globals
    channels: dict[str, Channel] = field(default_factory=dict)
    #: collective call sites (collectives.py): host imports, one per site
    collectives: list[CollectiveSite] = field(default_factory=list)
    #: reused lazy-inline graphs as modules of their own (split_graphs.py), callees first
    parts: list[tuple[str, str]] = field(default_factory=list)


def prepare(
    module: ModuleOp, entries: Sequence[str] | None = None, rewrite: bool = True
) -> Prepared:
    """IREE's input for `module` (which is not changed). `entries` are the functions
    callers use (None: every public one); the others become private, so IREE
    neither exports nor compiles them twice (as an export and inlined).

    `rewrite=False` gives only what running needs (entries, prints, checks,
    globals), without IREE's text: a compile-cache hit has its modules already,
    and printing the text was most of a warm hit's time (GPT N=64: 1.15 s)."""
    _reject_unsupported(module)
    body = module.body.block
    globals_ = {
        op.sym_name.data: op
        for op in body.ops
        if isinstance(op, GlobalOp) and not is_channel(op.sym_name.data)
    }
    functions = {
        op.sym_name.data: op
        for op in body.ops
        if isinstance(op, func.FuncOp) and not op.is_declaration
    }
    public = [
        name
        for name, fn in functions.items()
        if not (fn.sym_visibility and fn.sym_visibility.data == "private")
        and (entries is None or name in entries)
    ]
    missing = [name for name in entries or () if name not in public]
    if missing:
        available = ", ".join(f"@{n}" for n in functions) or "none"
        raise MindjitError(f"no function @{missing[0]} in the module; available: {available}")
    prints = _print_sites(module)
    checks = {
        k: (op.msg.data, loc_of_op(op))  # type: ignore[attr-defined]
        for k, op in enumerate(op for op in walk_ops(module) if isinstance(op, cf.AssertOp))
    }
    state, written = _state_sets(functions)
    infos = {
        name: EntryInfo(
            name,
            tuple(caller_inputs(functions[name])),
            tuple(functions[name].function_type.outputs.data),
            tuple(sorted(state[name])),
            tuple(sorted(written[name])),
            loc_of_op(functions[name]),
        )
        for name in public
    }
    prepared = Prepared(
        "",
        globals_,
        infos,
        [site for _, site in prints],
        checks,
        channels_of(module),
        [site for _, site in collective_sites(module)],
    )
    if rewrite:
        prepared.text, prepared.parts = _rewritten(module, set(public), state, written)
    return prepared


def _rewritten(
    module: ModuleOp, public: set[str], state: dict[str, set[str]], written: dict[str, set[str]]
) -> tuple[str, list[tuple[str, str]]]:
    """The text of IREE's input (a rewritten clone of `module`) and its split modules."""
    work = module.clone()
    body = work.body.block
    types = {op.sym_name.data: op.type for op in body.ops if isinstance(op, GlobalOp)}
    _rename_prints(work)
    collectives_to_imports(work)
    channels_to_imports(work)
    for k, op in enumerate(op for op in walk_ops(work) if isinstance(op, cf.AssertOp)):
        op.properties["msg"] = StringAttr(f"[mindjit-check-{k}] {op.msg.data}")
    functions = {
        op.sym_name.data: op
        for op in body.ops
        if isinstance(op, func.FuncOp) and not op.is_declaration
    }
    for name, fn in functions.items():
        if name not in public:
            fn.sym_visibility = StringAttr("private")
        _load_bound_arguments(fn)
    threader = _Threader(state, written, types)
    for name, fn in functions.items():
        threader.function(fn, sorted(state[name]), sorted(written[name]))
    for op in list(body.ops):
        if isinstance(op, GlobalOp):
            body.erase_op(op)
    _keep_while_values(work)
    _keep_dead_loop_values(work)
    _one_record_per_loop_value(work)
    _opaque_record_capacities(work)
    c_math(work)
    make_signless(work)
    parts = split_shared_graphs(work, public)
    return str(work), parts


_Barrier = UnregisteredOp.with_name("util.optimization_barrier")


def _keep_while_values(module: ModuleOp) -> None:
    """Work around an IREE 3.13 bug: an `scf.while` with an unused result or an
    unused region argument fails in iree-stream-conversion once IREE's
    canonicalizer has dropped it ("region branch point has 4 operands, but region
    successor needs 2 inputs"; reproduced with iree-compile alone). IREE's
    `util.optimization_barrier` on each such value keeps it used; it costs nothing
    at run time (no copy, no dispatch). One value per barrier: the op needs its
    operands to share one type."""
    for op in walk_ops(module):
        if not isinstance(op, scf.WhileOp):
            continue
        block = op.parent_block()
        assert block is not None
        for r in op.results:
            if not r.uses:
                block.insert_op_after(_Barrier.create(operands=[r], result_types=[r.type]), op)
        for region in (op.before_region, op.after_region):
            inner = region.block
            for arg in inner.args:
                if not arg.uses:
                    barrier = _Barrier.create(operands=[arg], result_types=[arg.type])
                    inner.insert_op_before(barrier, inner.first_op)


def _keep_dead_loop_values(module: ModuleOp) -> None:
    """Work around an IREE 3.13 bug: iree-compile crashes (SIGSEGV/abort in
    `ScfWhileOpConversion`, `applySignatureConversion`) or fails ("region branch
    point has 4 operands, but region successor needs 2 inputs") on an `scf.while`
    whose after-region arguments differ from its before-region arguments (valid
    MLIR): iree-stream-conversion converts both regions with the signature of the
    loop's operands. IREE makes such a loop itself: it inlines calls, deletes dead
    ops, rotates the loop (its body moves into the before region) and its
    canonicalizer drops a before-region argument no longer read. A loop value read
    only by dead ops or by calls that ignore it becomes such an argument: fuzz seed
    78 (a `@lazy_inline` cell assigning its Parameter in a `while` body takes the
    Parameter's old value and never reads it; iree-compile crashed) and seed 74 (a
    Parameter assigned twice in a body: the first value, which read the old one, is
    dead; IREE rejected the loop and the graph ran on numpy). Reproduced with
    iree-compile alone, minimized:

        %r:3 = scf.while (%x = %a, %y = %b) : (T, T) -> (T, T, T) {
          ... scf.condition(%c) %s, %m, %y : T, T, T
        } do {
        ^bb0(%x1: T, %y1: T, %z1: T):
          scf.yield %x1, %z1 : T, T
        }

    An after-region argument that does not reach the region's `scf.yield` or an op
    without results through ops other than calls gets a `util.optimization_barrier`
    (as `_keep_while_values`): IREE keeps the argument, so the regions keep one
    signature; no copy, no dispatch."""
    for op in walk_ops(module):
        if not isinstance(op, scf.WhileOp):
            continue
        inner = op.after_region.block
        live = _live_in(inner)
        for arg in inner.args:
            if arg.uses and arg not in live:
                barrier = _Barrier.create(operands=[arg], result_types=[arg.type])
                inner.insert_op_before(barrier, inner.first_op)


def _live_in(block: Block) -> set[SSAValue]:
    """The values `block` needs for its terminator's operands and its ops without
    results (prints, checks), a call's operands left out (IREE may inline the call
    and find one unused)."""
    live: set[SSAValue] = set()
    for op in reversed(list(block.ops)):
        if isinstance(op, func.CallOp):
            continue
        if op is block.last_op or not op.results or any(r in live for r in op.results):
            live.update(op.operands)
            for region in op.regions:
                for inner in region.walk():
                    live.update(inner.operands)
    return live


def _one_record_per_loop_value(module: ModuleOp) -> None:
    """Work around an IREE 3.13 bug: two loop values starting from one empty record
    (CSE makes two `mindir.stack_new` of one type one value) share one buffer in
    IREE's code, so the pushes of one overwrite the other's items and a gradient
    through the loop is silently wrong (tests/frontend/test_grad_while.py, two
    records of one type). Each use of an empty record by a loop gets its own
    `tensor.empty` (which `_opaque_record_capacities` then puts behind its own
    barrier, so IREE does not merge them again)."""
    for op in walk_ops(module):
        if not isinstance(op, scf.WhileOp):
            continue
        for k, init in enumerate(op.operands):
            owner = init.owner
            if not isinstance(owner, tensor.EmptyOp) or sum(1 for _ in init.uses) < 2:
                continue
            fresh = owner.clone()
            op.parent_block().insert_op_before(fresh, op)  # type: ignore[union-attr]
            op.operands[k] = fresh.results[0]


def _opaque_record_capacities(module: ModuleOp) -> None:
    """Work around an IREE 3.13 bug: a loop's record (passes/mindir_to_tensor/stack.py)
    starts as `tensor.empty(%c0) : tensor<?x...>`; when its pushes are not in a loop,
    IREE folds the constant capacities into static types and then builds a
    `flow.tensor.update` whose target is `tensor<4x3xf32>` but whose result is
    `tensor<?x3xf32>` ("failed to verify that all of {target, result} have same
    type"; reproduced with iree-compile alone). A constant size of a dynamic
    `tensor.empty` behind a `util.optimization_barrier` stays a run-time value."""
    for op in walk_ops(module):
        if not isinstance(op, tensor.EmptyOp):
            continue
        for k, size in enumerate(op.operands):
            if isinstance(size.owner, Operation) and size.owner.name == "arith.constant":
                barrier = _Barrier.create(operands=[size], result_types=[size.type])
                op.parent_block().insert_op_before(barrier, op)  # type: ignore[union-attr]
                op.operands[k] = barrier.results[0]


#: math ops IREE 3.13's CPU code cannot build on f64: they become libm calls the
#: embedded linker does not have ("undefined symbol: tanh"; erf fails to lower).
#: Measured for every math op the lowering emits; f32 has all of them.
NO_F64 = frozenset(
    f"math.{name}"
    for name in ("tanh", "sin", "cos", "tan", "erf", "atan", "asin", "acos", "atan2", "log2")
)


def _reject_unsupported(module: ModuleOp) -> None:
    if (nested := nested_channel(module)) is not None:
        raise IreeUnsupported(
            f"a pipeline send/receive inside '{nested.parent_op().name}' (the iree backend "
            "orders a stage's channels in its function's body only)",
            loc_of_op(nested),
        )
    for op in walk_ops(module):
        if op.name in NO_F64 and any(r.type == f64 for r in op.results):
            raise IreeUnsupported(
                f"IREE's CPU code has no float64 '{op.name}' (it would need libm)", loc_of_op(op)
            )
    for op in module.body.block.ops:
        if not isinstance(op, func.FuncOp) or not op.is_declaration:
            continue
        kind = op.attributes.get(RUNTIME_ATTR)
        if isinstance(kind, StringAttr) and (kind.data == "print" or kind.data in COLLECTIVE_KINDS):
            continue
        if isinstance(kind, StringAttr) and kind.data.startswith("float_status_"):
            reason = (
                "the float-status ops (npu_*_float_status) read the emulated Ascend overflow "
                "register, which only the numpy executor has"
            )
        else:
            reason = f"@{op.sym_name.data} is an external function IREE has no implementation of"
        raise IreeUnsupported(reason, loc_of_op(op))


def _print_decls(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {
        op.sym_name.data: op
        for op in module.body.block.ops
        if isinstance(op, func.FuncOp)
        and isinstance(kind := op.attributes.get(RUNTIME_ATTR), StringAttr)
        and kind.data == "print"
    }


def _print_calls(module: ModuleOp) -> list[func.CallOp]:
    """The print call sites, in walk order (their numbering)."""
    decls = _print_decls(module)
    return [
        op
        for op in walk_ops(module)
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in decls
    ]


def _print_sites(module: ModuleOp) -> list[tuple[func.CallOp, PrintSite]]:
    """One `@mindjit.print_<n>` import per print call site."""
    return [
        (
            call,
            PrintSite(
                f"print_{k}", tuple(format_items(call)), tuple(v.type for v in call.operands)
            ),
        )
        for k, call in enumerate(_print_calls(module))
    ]


def _rename_prints(module: ModuleOp) -> None:
    """Each print call calls its own import; the runtime declarations go."""
    body = module.body.block
    decls = _print_decls(module)
    for call, site in _print_sites(module):
        call.properties["callee"] = SymbolRefAttr(f"{PRINT_MODULE}.{site.name}")
        body.insert_op_before(
            func.FuncOp.external(f"{PRINT_MODULE}.{site.name}", list(site.types), []),
            next(iter(decls.values())),
        )
    for decl in decls.values():
        body.erase_op(decl)


def _load_bound_arguments(fn: func.FuncOp) -> None:
    """A bound argument `{mindjit.global = @w}` is @w's value on entry: a load of it."""
    bound = bound_symbols(fn, GLOBAL_ARG_ATTR)
    if not bound:
        return
    block = fn.body.block
    first = block.first_op
    for i in sorted(bound, reverse=True):
        arg = block.args[i]
        load = GlobalLoadOp(SymbolRefAttr(bound[i]), arg.type)
        block.insert_op_before(load, first) if first is not None else block.add_op(load)
        first = load
        arg.replace_all_uses_with(load.results[0])
        block.erase_arg(arg)
    inputs = [t for i, t in enumerate(fn.function_type.inputs.data) if i not in bound]
    fn.function_type = FunctionType.from_lists(inputs, list(fn.function_type.outputs.data))
    fn.arg_attrs = None


def _state_sets(
    functions: dict[str, func.FuncOp],
) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Per function, the globals it may read or write, and those it may write,
    itself or through its calls (one fixpoint over the call graph)."""
    touched: dict[str, set[str]] = {}
    written: dict[str, set[str]] = {}
    calls: dict[str, set[str]] = {}
    for name, fn in functions.items():
        touched[name] = set(bound_symbols(fn, GLOBAL_ARG_ATTR).values())  # read on entry
        written[name], calls[name] = set(), set()
        for op in walk_ops(fn):
            if isinstance(op, (GlobalLoadOp, GlobalStoreOp)) and is_channel(
                op.global_.root_reference.data
            ):
                continue  # a host import (channels.py), not state
            if isinstance(op, GlobalLoadOp):
                touched[name].add(op.global_.root_reference.data)
            elif isinstance(op, GlobalStoreOp):
                touched[name].add(op.global_.root_reference.data)
                written[name].add(op.global_.root_reference.data)
            elif isinstance(op, func.CallOp) and op.callee.root_reference.data in functions:
                calls[name].add(op.callee.root_reference.data)
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            for callee in callees:
                for sets in (touched, written):
                    extra = sets[callee] - sets[name]
                    if extra:
                        sets[name] |= extra
                        changed = True
    return touched, written


class _Threader:
    """Replaces global loads and stores by SSA values threaded through the IR."""

    def __init__(
        self, state: dict[str, set[str]], written: dict[str, set[str]], types: dict[str, Attribute]
    ):
        self.state, self.written, self.types = state, written, types

    def function(self, fn: func.FuncOp, state: list[str], written: list[str]) -> None:
        if not state:
            return
        block = fn.body.block
        current = {g: block.insert_arg(self.types[g], len(block.args)) for g in state}
        self.block(block, current, returns=written)
        fn.function_type = FunctionType.from_lists(
            [*fn.function_type.inputs.data, *(self.types[g] for g in state)],
            [*fn.function_type.outputs.data, *(self.types[g] for g in written)],
        )
        if fn.arg_attrs is not None:
            fn.arg_attrs = ArrayAttr([*fn.arg_attrs.data, *(DictionaryAttr({}) for _ in state)])

    def block(
        self, block: Block, current: dict[str, SSAValue], returns: list[str] | None = None
    ) -> None:
        for op in list(block.ops):
            if isinstance(op, GlobalLoadOp):
                op.results[0].replace_all_uses_with(current[op.global_.root_reference.data])
                block.erase_op(op)
            elif isinstance(op, GlobalStoreOp):
                current[op.global_.root_reference.data] = op.value
                block.erase_op(op)
            elif isinstance(op, func.CallOp):
                self.call(op, current)
            elif isinstance(op, scf.IfOp):
                self.if_(op, current)
            elif isinstance(op, scf.WhileOp):
                self.while_(op, current)
            elif isinstance(op, func.ReturnOp) and returns:
                op.operands = [*op.operands, *(current[g] for g in returns)]
            elif op.regions:
                if self.writes(op):
                    raise IreeUnsupported(
                        f"a Parameter is assigned inside '{op.name}', which the iree backend "
                        "cannot thread state through",
                        loc_of_op(op),
                    )
                for region in op.regions:
                    for inner in region.blocks:
                        self.block(inner, dict(current))

    def writes(self, op: Operation) -> list[str]:
        """The globals stored to inside `op`'s regions (directly or by calls), sorted."""
        found: set[str] = set()
        for inner in walk_ops(op):
            if isinstance(inner, GlobalStoreOp):
                found.add(inner.global_.root_reference.data)
            elif isinstance(inner, func.CallOp):
                found |= self.written.get(inner.callee.root_reference.data, set())
        return sorted(found)

    def call(self, op: func.CallOp, current: dict[str, SSAValue]) -> None:
        callee = op.callee.root_reference.data
        state = sorted(self.state.get(callee, ()))
        if not state:
            return
        written = sorted(self.written[callee])
        new = func.CallOp(
            callee,
            [*op.operands, *(current[g] for g in state)],
            [*(r.type for r in op.results), *(self.types[g] for g in written)],
        )
        new.attributes.update(op.attributes)
        _swap(op, new, len(op.results))
        for g, r in zip(written, new.results[len(op.results) :]):
            current[g] = r

    def if_(self, op: scf.IfOp, current: dict[str, SSAValue]) -> None:
        written = self.writes(op)
        for region in op.regions:
            for inner in region.blocks:
                branch = dict(current)
                self.block(inner, branch)
                if written:
                    yield_ = inner.last_op
                    assert isinstance(yield_, scf.YieldOp)
                    yield_.operands = [*yield_.operands, *(branch[g] for g in written)]
        if not written:
            return
        true_region, false_region = op.true_region, op.false_region
        op.detach_region(true_region)
        op.detach_region(false_region)
        if not false_region.blocks:  # an if without else passes the values through
            false_region.add_block(Block([scf.YieldOp(*(current[g] for g in written))]))
        new = scf.IfOp(
            op.cond,
            [*(r.type for r in op.results), *(self.types[g] for g in written)],
            true_region,
            false_region,
        )
        new.attributes.update(op.attributes)
        _swap(op, new, len(op.results))
        for g, r in zip(written, new.results[len(op.results) :]):
            current[g] = r

    def while_(self, op: scf.WhileOp, current: dict[str, SSAValue]) -> None:
        written = self.writes(op)
        types = [self.types[g] for g in written]
        before, after = op.before_region.block, op.after_region.block
        inside = dict(current)
        for g, t in zip(written, types):
            inside[g] = before.insert_arg(t, len(before.args))
        self.block(before, inside)
        if written:
            cond = before.last_op
            assert isinstance(cond, scf.ConditionOp)
            cond.operands = [*cond.operands, *(inside[g] for g in written)]
        body = dict(current)
        for g, t in zip(written, types):
            body[g] = after.insert_arg(t, len(after.args))
        self.block(after, body)
        if not written:
            return
        yield_ = after.last_op
        assert isinstance(yield_, scf.YieldOp)
        yield_.operands = [*yield_.operands, *(body[g] for g in written)]
        regions = (op.before_region, op.after_region)
        new = scf.WhileOp(
            [*op.arguments, *(current[g] for g in written)],
            [*(r.type for r in op.results), *types],
            *(op.detach_region(r) for r in regions),
        )
        new.attributes.update(op.attributes)
        _swap(op, new, len(op.results))
        for g, r in zip(written, new.results[len(op.results) :]):
            current[g] = r


def _swap(old: Operation, new: Operation, kept: int) -> None:
    """Put `new` where `old` is; `old`'s results become `new`'s first `kept`."""
    block = old.parent_block()
    assert block is not None
    block.insert_op_before(new, old)
    for a, b in zip(old.results, new.results[:kept]):
        a.replace_all_uses_with(b)
    block.erase_op(old)
