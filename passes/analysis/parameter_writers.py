"""Which writer of each Parameter reaches each op: mindir-load-elim's analysis.

For an op and a Parameter, the nearest Assign (or call, or region op) that may
have written it before the op, along the monad chain and the fixed run order
(block order; an if/while counting as all it contains). mindir-load-elim decides
from it which Loads need a TensorMove (its docstring states the rules); the
writers each op may make come from the one effects analysis (effects.py).

State maps are chained rather than copied at each write (`_StateMap`): copying
was quadratic in a train step whose optimizer writes every Parameter, one state
each. Memoized per module.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from mindjit.dialects import mindir
from mindjit.passes.analysis.effects import ANY, Effects, Key, input_state, keys_match, ref_key

_LAST = "\0last"  # (state maps) the nearest writer of any Parameter
_ROOT = "\0root"  # (state maps) where the chain starts


REGION_OPS = (mindir.IfOp, mindir.WhileOp)


class _StateMap:
    """What `WriterAnalysis._make_map` knows at one state: the writers its own writes
    set, over the map of the state it is built on. Copying the whole map at each
    write was quadratic in a train step (its optimizer writes every Parameter,
    one state each); a chain is read through at most `_FLATTEN` links, then a
    link holds the whole map again."""

    __slots__ = ("own", "below", "links")

    def __init__(self, own: dict[Any, Any], below: _StateMap | None):
        if below is not None and below.links >= _FLATTEN:
            own = {**below.flat(), **own}
            below = None
        self.own = own
        self.below = below
        self.links = 0 if below is None else below.links + 1

    def get(self, key: Any) -> Any:
        m: _StateMap | None = self
        while m is not None:
            found = m.own.get(key)
            if found is not None:
                return found
            m = m.below
        return None

    def flat(self) -> dict[Any, Any]:
        chain: list[dict[Any, Any]] = []
        m: _StateMap | None = self
        while m is not None:
            chain.append(m.own)
            m = m.below
        flat: dict[Any, Any] = {}
        for own in reversed(chain):
            flat.update(own)
        return flat


_FLATTEN = 32


class WriterAnalysis:
    """Writers and states, for one module (memoized)."""

    def __init__(self, module: ModuleOp, effects: Effects | None = None):
        self.module = module
        self.effects = effects if effects is not None else Effects(module)
        self._maps: dict[SSAValue, _StateMap] = {}
        #: per block: positions of its ops, and of its writers by symbol, all, of ANY
        self._positions: dict[
            Block, tuple[dict[Operation, int], dict[str, list[int]], list[int], list[int]]
        ] = {}
        self._block_key_writers: dict[tuple[Block, Key], list[int]] = {}
        self._attach: dict[SSAValue, list[tuple[Operation, frozenset[Key]]]] = {}
        self._unthreaded: dict[func.FuncOp, set[Key]] = {}

    # -- writers ------------------------------------------------------------------

    def written(self, op: Operation) -> frozenset[Key]:
        """Parameters `op` may write (`ANY` for all): the module's one effects analysis."""
        return self.effects.writes(op)

    def may_write(self, op: Operation, key: Key) -> bool:
        return self.effects.may_write(op, key)

    def _writers_in(self, v: SSAValue) -> list[tuple[Operation, frozenset[Key]]]:
        """The ops behind an update_state attachment that write, with what they write."""
        known = self._attach.get(v)
        if known is not None:
            return known
        found: list[tuple[Operation, frozenset[Key]]] = []
        seen: set[SSAValue] = set()
        stack = [v]
        while stack:
            x = stack.pop()
            if x in seen or not isinstance(x, OpResult):
                continue
            seen.add(x)
            w = self.written(x.op)
            if w:
                found.append((x.op, w))
            elif isinstance(x.op, mindir.TupleGetItemOp | mindir.MakeTupleOp | mindir.DependOp):
                stack.extend(x.op.operands)
        self._attach[v] = found
        return found

    def block_writers(self, block: Block, key: Key) -> tuple[dict[Operation, int], list[int]]:
        """The ops' positions in `block`, and (sorted) those of the writers of `key`."""
        known = self._positions.get(block)
        if known is None:
            positions: dict[Operation, int] = {}
            by_symbol: dict[str, list[int]] = {}  # a symbol -> its writers' positions
            every: list[int] = []  # the positions of all writers
            anything: list[int] = []  # those of writers of any Parameter (ANY)
            for i, op in enumerate(block.ops):
                positions[op] = i
                written = self.written(op)
                if not written:
                    continue
                every.append(i)
                if ANY in written:
                    anything.append(i)
                for k in written:
                    if k != ANY:
                        by_symbol.setdefault(k, []).append(i)
            known = (positions, by_symbol, every, anything)
            self._positions[block] = known
        positions, by_symbol, every, anything = known
        if not isinstance(key, str):
            return positions, every  # an unknown ref: any writer may write it
        per_key = self._block_key_writers.get((block, key))
        if per_key is None:
            per_key = sorted({*by_symbol.get(key, ()), *anything})
            self._block_key_writers[(block, key)] = per_key
        return positions, per_key

    # -- states ---------------------------------------------------------------------

    def epoch(self, key: Key, state: SSAValue) -> Any:
        """The writer of `key` nearest before `state` (an op, or a loop-carried
        region argument), or the chain's start (a value)."""
        m = self._state_map(state)
        if isinstance(key, str):
            found = m.get(key)
            if found is None:
                found = m.get(ANY)
        else:
            found = m.get(_LAST)
        return found if found is not None else m.get(_ROOT)

    def _state_map(self, state: SSAValue) -> _StateMap:
        """Per state: Parameter -> its nearest writer (plus `ANY`: a writer of
        every Parameter, `_LAST`: the nearest writer of any, `_ROOT`: the start),
        built once along each chain; states without writers share their base's map."""
        path: list[SSAValue] = []
        seen: set[SSAValue] = set()
        cur: SSAValue | None = state
        while cur is not None and cur not in self._maps and cur not in seen:
            seen.add(cur)
            path.append(cur)
            cur = self._base_state(cur)
        for v in reversed(path):
            self._maps[v] = self._make_map(v)
        return self._maps[state]

    def _base_state(self, s: SSAValue) -> SSAValue | None:
        """The state `s` is built on (None at a chain's start)."""
        if isinstance(s, BlockArgument):
            parent = s.block.parent_op()
            return _region_arg_source(parent, s) if isinstance(parent, REGION_OPS) else None
        assert isinstance(s, OpResult)
        op = s.op
        if isinstance(op, mindir.UpdateStateOp):
            return op.state
        if isinstance(op, mindir.DependOp):
            return op.value
        if isinstance(op, mindir.IfOp):
            term = op.then_region.block.last_op
            if term is not None and s.index < len(term.operands):
                return term.operands[s.index]
        if isinstance(op, mindir.WhileOp):
            if len(op.arguments) == len(op.res) and op.arguments[s.index].type == s.type:
                return op.arguments[s.index]
        return input_state(op)

    def _make_map(self, s: SSAValue) -> _StateMap:
        base_state = self._base_state(s)
        base = self._maps.get(base_state) if base_state is not None else None
        if base is None:
            base = _StateMap({_ROOT: s}, None)
        writes: list[tuple[Any, frozenset[Key]]] = []
        if isinstance(s, BlockArgument):
            parent = s.block.parent_op()
            if isinstance(parent, REGION_OPS):
                writes.append((s, self.written(parent)))  # the loop's own writes
        elif isinstance(s.op, mindir.UpdateStateOp):  # type: ignore[union-attr]
            for a in s.op.attach:  # type: ignore[union-attr]
                writes.extend(self._writers_in(a))
        elif not isinstance(s.op, mindir.DependOp):  # type: ignore[union-attr]
            writes.append((s.op, self.written(s.op)))  # type: ignore[union-attr]
        writes = [(t, w) for t, w in writes if w]
        if not writes:
            return base
        own: dict[Any, Any] = {}
        below: _StateMap | None = base
        for token, w in writes:
            if ANY in w:  # every earlier writer is hidden
                root = own.get(_ROOT) or base.get(_ROOT)
                own, below = {_ROOT: root, ANY: token}, None
            for k in w:
                if k != ANY:
                    own[k] = token
            own[_LAST] = token
        return _StateMap(own, below)

    # -- threading -----------------------------------------------------------------

    def unthreaded_keys(self, fn: func.FuncOp) -> set[Key]:
        """Parameters some Assign of `fn` writes without an update_state after it
        (IR not threaded by auto-monad): their Loads are all taken as different states."""
        known = self._unthreaded.get(fn)
        if known is None:
            known = set()
            for op in fn.walk():
                if isinstance(op, mindir.WRITER_OPS) and not any(
                    isinstance(u.operation, mindir.UpdateStateOp) for u in op.results[0].uses
                ):
                    known.update(ref_key(ref) for ref in mindir.written_refs(op))
            self._unthreaded[fn] = known
        return known

    def load_class(self, load: mindir.LoadOp) -> Any:
        key = ref_key(load.ref)
        fn = function_of(load)
        if fn is not None and any(keys_match(key, k) for k in self.unthreaded_keys(fn)):
            return load
        return self.epoch(key, load.state)


def function_of(op: Operation) -> func.FuncOp | None:
    p = op.parent_op()
    while p is not None and not isinstance(p, func.FuncOp):
        p = p.parent_op()
    return p


def _region_arg_source(parent: Operation, arg: BlockArgument) -> SSAValue | None:
    """The value a while's region argument starts from."""
    if not isinstance(parent, mindir.WhileOp):
        return None
    if arg.block is parent.before_region.block:
        if arg.index < len(parent.arguments):
            return parent.arguments[arg.index]
        return None
    cond = parent.before_region.block.last_op
    if isinstance(cond, mindir.ConditionOp) and arg.index < len(cond.arguments):
        return cond.arguments[arg.index]
    return None
