"""mindir-inline{cell-reuse=0|1|2}: inline every graph call that lazy inline does not keep.

Every `func.call` whose callee is a single-block `func.func` defined in the
module (a graph) is replaced by a copy of the callee's body, except calls to a
graph that lazy inline keeps: a `func.func` carrying the discardable attribute
`mindir.lazy_inline` (any value: the reuse key) stays a call while `cell-reuse`
is 1 or 2. With `cell-reuse=0` lazy graphs are inlined like any other, as
MindSpore does without the decorator.

- The callee's block arguments are replaced by the call's operands, whatever
  their type (tensors, tuples, `!mindir.ref` Parameters, `!mindir.u` /
  `!mindir.io` states), and the call's results by the values the callee's
  `func.return` hands back. After mindir-auto-monad a graph with effects takes
  the caller's states and returns its final states as trailing results, so the
  inlined Loads, Assigns and prints take their place in the caller's state chains
  by plain value substitution: the side-effect order is kept as it was. One
  thing a call did that its inlined body does not: its state result stood for
  the whole body, the returned state only for the ops on its chain. Before
  mindir-depend-order that is all it orders; inlining after it
  (MS_DEV_CELL_REUSE=2) needs mindir-depend-order again, so a Load's readers
  still run before a later call's Assign of the Parameter (pipelines.py;
  FileCheck mindir-inline-late.mlir).
- Regions are copied with everything in them: a callee containing `mindir.if` /
  `mindir.while`, and calls nested in the caller's if/while regions, are
  handled like any other.
- Bottom-up, in one pass over the call graph: a graph is flattened (its own
  calls inlined) before it is copied into its callers, so every copy is final
  and nothing is walked twice; the cost is that of the ops the pass creates. A
  cycle of calls that would have to be inlined (recursion) is an error at the
  call that closes it. A cycle through a kept lazy graph is fine (it stays a
  call).
- Locations: every inlined op (with the ops in its regions) gets the call's
  location itself, not MLIR's `callsite(callee at caller)`: errors and dumps
  then point at the line of the user's program that made the call. Nested
  inlining gives the outermost call's location. Inlined values take the call's
  result names where the call named them.
- Pipeline stages: a call carrying `mindir.pipeline_stage` (the frontend puts
  a Cell's `pipeline_stage` on its call) gives that stage to every inlined op
  that has none of its own, so after inlining each op of a staged Cell says its
  stage (an inner Cell's own stage wins: graphs are flattened bottom-up) for
  mindir-pipeline-split (issue 26). A call mindir-pipeline-schedule marked
  with its work (`mindir.pipeline_micro`, inlined late at MS_DEV_CELL_REUSE=2)
  gives the mark to the ops it becomes.
- Graphs: a graph whose calls were all inlined and that nothing else refers to
  any more (no call, no other symbol reference) is erased, whatever its
  visibility: it was a sub-graph. A graph never called (an entry, public or
  private) is never erased, kept lazy graphs are never erased, and visibility is
  never changed. Declarations, multi-block functions and calls to unknown
  symbols are left alone.

The option `cell-reuse` (the dataclass field `cell_reuse`; xDSL maps the dashes
of pass options to underscores, so `cell_reuse=0` works too) is 0, 1 or 2
(default 1: mindjit enables lazy inline unless told otherwise); another value is
a clear error. The pass reads no environment: the pipelines mindjit builds write
`MS_DEV_CELL_REUSE`'s value as the option, and a pipeline that leaves it out
gets that value from `parse_pipeline` (mindjit.support.config).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, SymbolRefAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass

from mindjit.dialects.mindir.discardable import (
    LAZY_INLINE_ATTR,
    PIPELINE_MICRO_ATTR,
    PIPELINE_STAGE_ATTR,
)
from mindjit.ir.locations import op_error
from mindjit.passes.analysis.graph_walk import top_level_graphs
from mindjit.support.config import CELL_REUSE_LEVELS, parse_level


def is_lazy_inline(fn: func.FuncOp) -> bool:
    return LAZY_INLINE_ATTR in fn.attributes


# -- symbol references ------------------------------------------------------------------


def _symbol_roots(attr: Attribute) -> Iterator[str]:
    if isinstance(attr, SymbolRefAttr):
        yield attr.root_reference.data
    elif isinstance(attr, ArrayAttr):
        for inner in attr.data:
            yield from _symbol_roots(inner)
    elif isinstance(attr, DictionaryAttr):
        for inner in attr.data.values():
            yield from _symbol_roots(inner)


def _other_references(op: Operation) -> Iterator[str]:
    """Symbols `op` refers to in its properties or attributes."""
    for attr in op.properties.values():
        yield from _symbol_roots(attr)
    for attr in op.attributes.values():
        yield from _symbol_roots(attr)


# -- the inliner ------------------------------------------------------------------------


class _Inliner:
    def __init__(self, module: ModuleOp, cell_reuse: int):
        self.funcs: dict[str, func.FuncOp] = {
            op.sym_name.data: op for op in top_level_graphs(module) if isinstance(op, func.FuncOp)
        }
        self.keep_lazy = cell_reuse != 0
        #: per graph, the calls in it (regions included) that are to be inlined
        self.to_inline: dict[str, list[func.CallOp]] = {}
        #: per graph, the calls left in it once flattened, by callee
        self.residual: dict[str, Counter[str]] = {}
        #: calls of each symbol in the whole module, kept up to date
        self.calls_of: Counter[str] = Counter()
        #: graphs that had a call inlined
        self.inlined: set[str] = set()
        #: symbols referred to other than by a call's callee (never erased)
        self.pinned: set[str] = set()
        self.ops_created = 0
        for name, fn in self.funcs.items():
            self._collect(name, fn)

    def inlinable(self, name: str) -> bool:
        fn = self.funcs.get(name)
        if fn is None or len(fn.body.blocks) != 1:
            return False  # unknown symbol, declaration or multi-block function
        if not isinstance(fn.body.block.last_op, func.ReturnOp):
            return False
        return not (self.keep_lazy and is_lazy_inline(fn))

    def _collect(self, name: str, fn: func.FuncOp) -> None:
        calls: list[func.CallOp] = []
        residual: Counter[str] = Counter()
        for op in fn.walk():
            if op is fn:
                continue
            if isinstance(op, func.CallOp):
                callee = op.callee.root_reference.data
                self.calls_of[callee] += 1
                if self.inlinable(callee):
                    calls.append(op)
                else:
                    residual[callee] += 1
            elif op.properties or op.attributes:
                self.pinned.update(_other_references(op))
        self.to_inline[name] = calls
        self.residual[name] = residual

    # --- order -----------------------------------------------------------------------
    def run(self) -> None:
        """Flatten every graph, callees before callers (iterative DFS, post-order)."""
        state: dict[str, int] = {}  # 1: on the DFS path, 2: flattened
        for root in self.funcs:
            if root in state:
                continue
            state[root] = 1
            stack: list[tuple[str, Iterator[func.CallOp]]] = [(root, iter(self.to_inline[root]))]
            while stack:
                name, calls = stack[-1]
                for call in calls:
                    callee = call.callee.root_reference.data
                    seen = state.get(callee)
                    if seen == 2:
                        continue
                    if seen == 1:
                        path = [n for n, _ in stack]
                        cycle = [*path[path.index(callee) :], callee]
                        raise op_error(
                            call,
                            f"recursive call to @{callee} cannot be inlined: "
                            + " -> ".join(f"@{n}" for n in cycle),
                        )
                    state[callee] = 1
                    stack.append((callee, iter(self.to_inline[callee])))
                    break
                else:
                    stack.pop()
                    self.flatten(name)
                    state[name] = 2

    def flatten(self, name: str) -> None:
        """Inline the calls of graph `name`; its callees are flattened already.

        The last call of a graph that will then be erased (no other reference to it)
        takes the graph's ops themselves instead of a copy: a sub-graph called once
        is moved, not copied and erased."""
        residual = self.residual[name]
        for call in self.to_inline[name]:
            callee = call.callee.root_reference.data
            last = self.calls_of[callee] == 1 and callee not in self.pinned
            self.ops_created += inline_call(call, self.funcs[callee], move=last)
            self.calls_of[callee] -= 1
            self.inlined.add(callee)
            inner = self.residual[callee]
            residual.update(inner)
            self.calls_of.update(inner)
        self.to_inline[name] = []

    # --- dead graphs -----------------------------------------------------------------
    def erase_dead(self) -> None:
        for name in self.inlined:
            if self.calls_of[name] == 0 and name not in self.pinned:
                self.funcs[name].detach()
                self.funcs[name].erase()


def inline_call(call: func.CallOp, callee: func.FuncOp, move: bool = False) -> int:
    """Replace `call` by a copy of `callee`'s body; returns the number of ops inlined.

    `move`: take the body's ops themselves (the callee is left with only its
    `func.return`, to be erased: nothing else may call it)."""
    created_ops = 0
    block = callee.body.block
    args = block.args
    if len(args) != len(call.arguments) or len(callee.function_type.outputs) != len(call.results):
        raise op_error(call, f"'func.call' does not match the signature of @{callee.sym_name.data}")
    mapper: dict[SSAValue, SSAValue] = dict(zip(args, call.arguments))
    loc = call.location
    stage = call.attributes.get(PIPELINE_STAGE_ATTR)
    work = call.attributes.get(PIPELINE_MICRO_ATTR)  # a scheduled stage's call (level 2)
    new_ops: list[Operation] = []
    created: set[SSAValue] = set()
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    if move:
        for arg, value in zip(args, call.arguments):
            arg.replace_all_uses_with(value)
    for op in list(block.ops) if move else block.ops:
        if op is ret:
            break
        if move:
            op.detach()
            new = op
        else:
            new = op.clone(mapper)
        for inner in new.walk():
            inner.location = loc
            if stage is not None and PIPELINE_STAGE_ATTR not in inner.attributes:
                inner.attributes[PIPELINE_STAGE_ATTR] = stage
            if work is not None and inner is new:
                inner.attributes[PIPELINE_MICRO_ATTR] = work
            created_ops += 1
        created.update(new.results)
        new_ops.append(new)
    parent = call.parent_block()
    assert parent is not None
    parent.insert_ops_before(new_ops, call)
    for result, value in zip(call.results, ret.arguments):
        value = mapper.get(value, value)
        if result.name_hint is not None and value in created:
            value.name_hint = result.name_hint
            created.discard(value)  # the first result naming it wins
        result.replace_all_uses_with(value)
    call.detach()
    call.erase()
    return created_ops


@dataclass(frozen=True)
class MindirInlinePass(ModulePass):
    """Inline every graph call except calls to `mindir.lazy_inline` graphs while
    `cell-reuse` (default 1) is not 0; erase the sub-graphs
    left without callers. See the module doc."""

    name = "mindir-inline"

    cell_reuse: int = 1

    def __post_init__(self) -> None:
        parse_level(self.cell_reuse, CELL_REUSE_LEVELS, "cell-reuse")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        inline_module(op, self.cell_reuse)


def inline_module(module: ModuleOp, cell_reuse: int = 1) -> int:
    """Inline `module` in place (see the module doc); returns the number of ops created."""
    inliner = _Inliner(module, cell_reuse)
    inliner.run()
    inliner.erase_dead()
    return inliner.ops_created
