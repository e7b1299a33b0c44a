"""mindir-load-elim{level=0|1|2|3}: merge redundant Loads, then insert TensorMove per level.

In MindSpore (and in mindjit's executors) a `mindir.load` is not a kernel: its
value *is* the Parameter's memory, so a later `mindir.assign` to the Parameter
changes what every earlier Load's users read. Only `mindir.tensor_move` copies.
This pass decides where such copies go, as `MS_DEV_SIDE_EFFECT_LOAD_ELIM` does.
It expects IR threaded by mindir-auto-monad and ordered by mindir-depend-order
(every Load `mindir.load %ref, %u` sits at a state `%u` of the `!mindir.u`
chain, every Assign's result is attached to the `update_state` after it).

Terms
- A Parameter is the symbol a ref comes from (`mindir.get_parameter @P` or an
  argument bound to P, also through `mindir.depend`); a ref from anywhere else
  (a reused graph's ref argument, a call)
  is its own unknown Parameter that any Assign may write.
- The *state* of a Parameter P at a monad value `%u`: walk the state chain back
  from `%u` (through `update_state`'s first operand, `depend`, and through calls
  and if/while that cannot write P) to the nearest writer of P: an Assign of P
  (or of an unknown ref), a call / if / while that may write P (transitively), or
  the chain's start. Two Loads of P are at the same state when they reach the same
  writer; "no Assign of P in between on the state chain" is exactly that.
- The *aliases* of a Load are its value and everything that may share its memory:
  results of `depend` (its value operand), `make_tuple`, `tuple_get_item`,
  `reshape`, `broadcast_to`, `transpose`, `get_item`, `cast`, `check_range`, `addn` of one
  tensor, `assign` (its result is the stored value), and values that if/while
  hand through (operands, yields, region arguments, results). A *consumer* of a
  Load is any other op that reads one of its aliases, and an `assign` storing
  one; `update_state` and `depend`'s attachments only order, they don't read.

Step 1, all levels: merge. Two Loads of one Parameter in one block at the same
state, with no writer of it between them in block order, are one Load: the later
one's uses go to the earlier one.

Step 1b, all levels: drop repeated attachments. Merging leaves the later Loads'
`update_state`s attaching the earlier Load again (an unrolled LSTM attaches its
`weight_hh` Load once per step: 540 of the sentiment train step's 11,650 nodes).
An `update_state` need not attach a value an `update_state` before it on its own
state chain attached: everything after that one already runs after the value.
The walk keeps one set of attached values per chain and hands it on while the
chain does not fork (a state two `update_state`s continue starts afresh: fewer
drops, never a wrong one), so it is linear; an `update_state` left with nothing
to attach is its input state.

Step 2: a `mindir.tensor_move` right after the Load, taking over all its uses
(including `update_state` attachments, so the copy is ordered before the next
Assign, as in MindSpore's IR). A Load nobody reads gets none at any level.
- level 0: after every Load.
- level 1 (the default): after every Load that
  (a) escapes: an alias is passed to a `func.call` or returned by the graph, or
      its ref is a Parameter returned by a call;
  (b) is of a Parameter loaded at two different states in the graph (the
      `func.func`, its regions included);
  (c) and after every Load level 2 moves, so level 2 never inserts more.
- level 2: after every Load that escapes (a), and where a consumer would read
  the Parameter at another state than L's:
  (d) a consumer reads (through aliases) the Load L and another Load of the
      same Parameter at another state: both are copied (as in MindSpore's IR
      for the docs' backward program);
  (e) a consumer runs after a writer of the Parameter that runs after L, in the
      fixed order (block order, an if/while counting as all it contains, a
      while's later iterations counting as after), or an alias of L is carried
      into a later iteration of a while that writes the Parameter. This covers
      every consumer that depends on such a writer (through values or states:
      in SSA a definition comes before its uses, so depending on a writer means
      running after it), and the users mindir-depend-order could not move
      before the writer (one that depends on it, or reads L through a reshape).
      A consumer that only depends on earlier states needs no copy:
      mindir-depend-order already runs it before the next Assign.
  An earlier version also collected, for every op, the set of all Loads,
  Assigns and states it transitively depends on, to decide (e) from data
  dependence: quadratic in the graph (2 GB and 9 s at 35k nodes), and, on every
  program of the test suites and the differential fuzzer, it added only copies
  the run order shows are not needed (a print after a while that assigns, of a
  Load taken after the while).
- level 3: never; the pass warns (`warnings.warn`, `LoadElimWarning`) that
  results may be wrong, when the module has a Load.

The docs' forward program (`while i < 3: assign(param, i); out = x * param +
out`, unrolled) gets three TensorMoves at levels 0 and 1 (three states of
`param`) and none at level 2: each `mul` reads one Load and sees no other state
of `param`; the `add`s read no Load, only fresh products. MindSpore 2.10 inserts
three at level 2 as well (its rule follows the products to the `add`s); mindjit
implements the documented intent. In the backward program, where one `addn`
reads the Loads at two states, level 2 copies all three.

The option `level` is 0-3 (default 1); another value is a clear error. The pass
reads no environment: the pipelines mindjit builds write
`MS_DEV_SIDE_EFFECT_LOAD_ELIM`'s value as the option, and a pipeline that leaves
it out gets that value from `parse_pipeline` (mindjit.support.config).
"""

from __future__ import annotations

import warnings
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TupleType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from mindjit.dialects import mindir
from mindjit.passes.analysis.effects import (
    ANY,
    Key,
    keys_match,
    ref_key,
    strip_depends,
)
from mindjit.passes.analysis.graph_walk import top_level_graphs, walk_graphs
from mindjit.passes.analysis.parameter_writers import REGION_OPS, WriterAnalysis, function_of
from mindjit.support.config import LOAD_ELIM_LEVELS, parse_level

LEVEL3_WARNING = (
    "mindir-load-elim level 3 (MS_DEV_SIDE_EFFECT_LOAD_ELIM=3) inserts no TensorMove: "
    "a Load read after a later Assign of its Parameter sees the new value, so results "
    "may be wrong"
)


class LoadElimWarning(UserWarning):
    """Level 3 is unsafe."""


# -- Parameters and refs (passes/analysis/effects.py) ----------------------------------


def ref_from_call(ref: SSAValue) -> bool:
    """The ref is a Parameter returned by a call (through depend / tuple_get_item)."""
    v = strip_depends(ref)
    while isinstance(v, OpResult) and isinstance(v.op, mindir.TupleGetItemOp):
        v = strip_depends(v.op.operands[0])
    return isinstance(v, OpResult) and isinstance(v.op, func.CallOp)


_FORWARDING = (
    mindir.MakeTupleOp,
    mindir.TupleGetItemOp,
    mindir.ReshapeOp,
    mindir.BroadcastToOp,
    mindir.TransposeOp,
    mindir.GetItemOp,
    mindir.CastOp,
    mindir.CheckRangeOp,  # its result is its input once lowered
)
# -- aliases ---------------------------------------------------------------------------------


@dataclass
class _LoadUse:
    """How one Load is used: who reads it, whether it escapes."""

    load: mindir.LoadOp
    consumers: set[Operation]
    escapes: bool
    read: bool
    loops: set[Operation]  # whiles whose region arguments carry an alias (across iterations)


def _alias_targets(op: Operation, index: int) -> list[SSAValue] | None:
    """Values that may share memory with operand `index` of `op`, or None if `op`
    does not forward it."""
    if isinstance(op, mindir.DependOp):
        return [op.result] if index == 0 else None
    if isinstance(op, _FORWARDING):
        return list(op.results)
    if isinstance(op, mindir.AddNOp) and _tuple_size(op.operands[0]) == 1:
        return list(op.results)  # the sum of one tensor is that tensor
    if isinstance(op, REGION_OPS):
        return [*op.results, *_region_args(op)]
    if isinstance(op, mindir.YieldOp | mindir.ConditionOp):
        parent = op.parent_op()
        if parent is None:
            return None
        return [*parent.results, *_region_args(parent)]
    return None


def _tuple_size(v: SSAValue) -> int:
    t = v.type
    return len(t.types.data) if isinstance(t, TupleType) else 1


def _region_args(op: Operation) -> Iterator[BlockArgument]:
    for region in op.regions:
        for block in region.blocks:
            yield from block.args


def _orders_only(op: Operation, index: int) -> bool:
    return isinstance(op, mindir.UpdateStateOp) or (isinstance(op, mindir.DependOp) and index > 0)


def load_use(load: mindir.LoadOp) -> _LoadUse:
    escapes = ref_from_call(load.ref)
    consumers: set[Operation] = set()
    loops: set[Operation] = set()
    read = False
    seen: set[SSAValue] = {load.result}
    work: list[SSAValue] = [load.result]
    while work:
        v = work.pop()
        for use in list(v.uses):
            op, index = use.operation, use.index
            if _orders_only(op, index):
                continue
            read = True
            if isinstance(op, mindir.AssignOp):
                # stores a copy when it runs, and its result is the stored value
                consumers.add(op)
                if op.result not in seen:
                    seen.add(op.result)
                    work.append(op.result)
                continue
            targets = _alias_targets(op, index)
            if targets is not None:
                carrier = op if isinstance(op, mindir.WhileOp) else op.parent_op()
                if isinstance(carrier, mindir.WhileOp):
                    loops.add(carrier)
                for t in targets:
                    if t not in seen:
                        seen.add(t)
                        work.append(t)
                continue
            if isinstance(op, func.ReturnOp | func.CallOp):
                escapes = True
            consumers.add(op)
    return _LoadUse(load, consumers, escapes, read, loops)


# -- the pass -----------------------------------------------------------------------------------


def _blocks(op: Operation) -> Iterator[Block]:
    for region in op.regions:
        for block in region.blocks:
            yield block
            for inner in block.ops:
                yield from _blocks(inner)


def merge_loads(module: ModuleOp) -> int:
    """Step 1: merge Loads of one Parameter at one state in one block. Returns how many went."""
    analysis = WriterAnalysis(module)
    merged = 0
    for fn in [op for op in top_level_graphs(module) if isinstance(op, func.FuncOp)]:
        for block in list(_blocks(fn)):
            # per Parameter: its first Load at each state so far in the block
            first: dict[Key, dict[Any, mindir.LoadOp]] = {}
            unknown: set[Key] = set()  # the keys of `first` that are no symbol
            for op in list(block.ops):
                if isinstance(op, mindir.LoadOp):
                    key = ref_key(op.ref)
                    if not isinstance(key, str):
                        unknown.add(key)
                    at_state = first.setdefault(key, {})
                    cls = analysis.load_class(op)
                    earlier = at_state.get(cls)
                    if earlier is None:
                        at_state[cls] = op
                        continue
                    op.result.replace_all_uses_with(earlier.result)
                    Rewriter.erase_op(op)
                    merged += 1
                elif op.regions or isinstance(op, (*mindir.WRITER_OPS, func.CallOp)):
                    # a writer between: Loads after it start afresh (block order guard)
                    written = analysis.written(op)
                    if ANY in written:
                        first.clear()
                        unknown.clear()
                    elif written:
                        for key in written:
                            first.pop(key, None)
                        for key in [k for k in unknown if k in first]:
                            del first[key]  # a ref no symbol names: any write may hit it
                        unknown.clear()
    return merged


def drop_repeated_attachments(module: ModuleOp) -> int:
    """Step 1b: remove attachments an earlier `update_state` on the same state chain
    already made (see the module doc). Returns how many went."""
    dropped = 0
    for fn in [op for op in top_level_graphs(module) if isinstance(op, func.FuncOp)]:
        for block in list(_blocks(fn)):
            attached: dict[SSAValue, set[SSAValue]] = {}  # per chain end, what it attached
            for op in list(block.ops):
                if not isinstance(op, mindir.UpdateStateOp):
                    continue
                state = op.state
                seen = attached.pop(state, None) if _continued_once(state) else None
                if seen is None:
                    seen = set()
                attach = list(op.attach)
                kept = [v for v in dict.fromkeys(attach) if v not in seen]
                seen.update(kept)
                if len(kept) == len(attach):
                    attached[op.result] = seen
                    continue
                dropped += len(attach) - len(kept)
                if kept:
                    update = mindir.UpdateStateOp.get(state, kept)
                    update.location = op.location  # type: ignore[assignment]
                    Rewriter.replace_op(op, update)
                    attached[update.result] = seen
                else:
                    op.result.replace_all_uses_with(state)
                    Rewriter.erase_op(op)
                    attached[state] = seen
    return dropped


def _continued_once(state: SSAValue) -> bool:
    """Whether one `update_state` continues `state`'s chain (no fork)."""
    count = 0
    for use in state.uses:
        if use.index == 0 and isinstance(use.operation, mindir.UpdateStateOp):
            count += 1
    return count == 1


def loads_to_move(module: ModuleOp, level: int) -> list[mindir.LoadOp]:
    """Which Loads get a TensorMove at `level` (after merging), in module order."""
    loads = [op for op in walk_graphs(module) if isinstance(op, mindir.LoadOp)]
    uses = {ld: load_use(ld) for ld in loads}
    loads = all_loads = [ld for ld in loads if uses[ld].read]
    if level == 0:
        return loads
    if level == 3:
        return []
    analysis = WriterAnalysis(module)
    chosen = {ld for ld in loads if uses[ld].escapes}
    # Loads of Parameters nothing in the module writes never see two values
    read_only = _read_only_keys(module, analysis)
    loads = [ld for ld in loads if ref_key(ld.ref) not in read_only]
    chosen |= _reaching_two_states(loads, uses, analysis)
    if level == 1:
        chosen |= _loaded_at_two_states(loads, analysis)
    return [ld for ld in all_loads if ld in chosen]


def _read_only_keys(module: ModuleOp, analysis: WriterAnalysis) -> frozenset[Key]:
    """Parameters no op of the module may write (none if some write is unknown)."""
    written = analysis.effects.written_symbols()
    if ANY in written:
        return frozenset()
    declared = {op.sym_name.data for op in module.ops if isinstance(op, mindir.ParameterOp)}
    return frozenset(declared - written)


def _loaded_at_two_states(
    loads: Iterable[mindir.LoadOp], analysis: WriterAnalysis
) -> set[mindir.LoadOp]:
    states: dict[tuple[func.FuncOp | None, Key], set[Any]] = {}
    groups: dict[tuple[func.FuncOp | None, Key], list[mindir.LoadOp]] = {}
    for ld in loads:
        tag = (function_of(ld), ref_key(ld.ref))
        states.setdefault(tag, set()).add(analysis.load_class(ld))
        groups.setdefault(tag, []).append(ld)
    return {ld for tag, lds in groups.items() if len(states[tag]) > 1 for ld in lds}


def _reaching_two_states(
    loads: list[mindir.LoadOp], uses: dict[mindir.LoadOp, _LoadUse], analysis: WriterAnalysis
) -> set[mindir.LoadOp]:
    direct: dict[Operation, list[mindir.LoadOp]] = {}
    for ld in loads:
        for c in uses[ld].consumers:
            direct.setdefault(c, []).append(ld)
    chosen: set[mindir.LoadOp] = set()
    for ld in loads:
        key = ref_key(ld.ref)
        if any(analysis.may_write(loop, key) for loop in uses[ld].loops):
            chosen.add(ld)  # an alias carried into a later iteration of a loop writing P
    for consumer, read in direct.items():
        for ld in read:
            if ld in chosen:
                continue
            if _reads_two_states(ld, read, analysis) or _runs_after_writer(ld, consumer, analysis):
                chosen.add(ld)
    return chosen


def _ancestry(op: Operation) -> list[tuple[Block, Operation]]:
    """(block, the op of that block containing `op`), innermost first, up to the function."""
    chain: list[tuple[Block, Operation]] = []
    cur: Operation | None = op
    while cur is not None and not isinstance(cur, func.FuncOp):
        block = cur.parent_block()
        if block is None:
            break
        chain.append((block, cur))
        cur = block.parent_op()
    return chain


def _writes_between(
    block: Block,
    start: Operation | None,
    stop: Operation | None,
    key: Key,
    analysis: WriterAnalysis,
) -> bool:
    """A writer of `key` in `block` strictly after `start` (None: from the first op)
    and strictly before `stop` (None: to the end)."""
    positions, writers = analysis.block_writers(block, key)
    lo = positions[start] if start is not None else -1
    hi = positions[stop] if stop is not None else len(positions)
    i = bisect_right(writers, lo)
    return i < len(writers) and writers[i] < hi


def _runs_after_writer(ld: mindir.LoadOp, consumer: Operation, analysis: WriterAnalysis) -> bool:
    """(e): whether the fixed order (block order, regions as their ops) runs
    `consumer` after a writer of the Load's Parameter that runs after the Load."""
    key = ref_key(ld.ref)
    load_chain, use_chain = _ancestry(ld), _ancestry(consumer)
    load_at = {id(b): a for b, a in load_chain}
    common: Block | None = None
    load_anc = use_anc = None
    for b, a in use_chain:
        if id(b) in load_at:
            common, load_anc, use_anc = b, load_at[id(b)], a
            break
    if common is None or load_anc is None or use_anc is None:
        return True  # not in one function: assume the worst
    for b, a in load_chain:  # leaving the Load's blocks: what runs after it there
        if b is common:
            break
        if _writes_between(b, a, None, key, analysis):
            return True
        parent = b.parent_op()
        if isinstance(parent, mindir.WhileOp) and analysis.may_write(parent, key):
            return True  # later iterations
    if load_anc is use_anc:  # different regions of one op
        return analysis.may_write(load_anc, key)
    positions, _ = analysis.block_writers(common, key)
    if positions[use_anc] < positions[load_anc]:  # reached through a loop-carried value
        parent = common.parent_op()
        return parent is not None and analysis.may_write(parent, key)
    if _writes_between(common, load_anc, use_anc, key, analysis):
        return True
    for b, a in use_chain:  # entering the consumer's blocks: what ran before it there
        if b is common:
            break
        if _writes_between(b, None, a, key, analysis):
            return True
        parent = b.parent_op()
        if isinstance(parent, mindir.WhileOp) and analysis.may_write(parent, key):
            return True  # earlier iterations
    return False


def _reads_two_states(
    ld: mindir.LoadOp, read: list[mindir.LoadOp], analysis: WriterAnalysis
) -> bool:
    """(d): the consumer reading `read` reads another Load of the Parameter at another state."""
    key = ref_key(ld.ref)
    cls = analysis.load_class(ld)
    for other in read:
        if other is not ld and keys_match(key, ref_key(other.ref)):
            if analysis.load_class(other) != cls:
                return True
    return False


def insert_tensor_moves(loads: Iterable[mindir.LoadOp]) -> int:
    count = 0
    for ld in loads:
        move = mindir.TensorMoveOp(ld.result)
        move.location = ld.location  # type: ignore[assignment]
        Rewriter.insert_op(move, InsertPoint.after(ld))
        ld.result.replace_uses_with_if(move.result, lambda use, m=move: use.operation is not m)
        count += 1
    return count


def count_tensor_moves(module: Operation) -> int:
    return sum(isinstance(op, mindir.TensorMoveOp) for op in module.walk())


@dataclass(frozen=True)
class MindirLoadElimPass(ModulePass):
    """Merge redundant Loads, then insert TensorMove after Loads per level (0-3);
    `level` defaults to 1. See the module doc."""

    name = "mindir-load-elim"

    level: int = 1

    def __post_init__(self) -> None:
        parse_level(self.level, LOAD_ELIM_LEVELS, "level")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        level = self.level
        merge_loads(op)
        drop_repeated_attachments(op)
        insert_tensor_moves(loads_to_move(op, level))
        if level == 3 and any(isinstance(x, mindir.LoadOp) for x in op.walk()):
            warnings.warn(LEVEL3_WARNING, LoadElimWarning, stacklevel=2)
