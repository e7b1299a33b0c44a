"""mindir-pipeline-split: one graph per pipeline stage, Send/Receive at the cuts.

Runs after mindir-grad (the ops of the whole train step, forward, backward and
optimizer, are in the entry graph, monadic) and before the cleanups. A graph
whose top-level ops carry `mindir.pipeline_stage` (the frontend's
`Cell.pipeline_stage`, given to every inlined op by mindir-inline and to every
adjoint by mindir-grad) becomes X graphs `@<graph>_stage<k>`, k = 0..X-1, each
with the graph's arguments and only stage k's ops, in the graph's order, as
MindSpore gives each device of a pipeline its own graph.

Which stage runs an op:

- its own `mindir.pipeline_stage` (for an `if` / `while` without one, the
  largest stage of the ops inside it);
- a Parameter lives on one stage, its owner: every Load and Assign of it runs
  there. The owner is the lowest stage that loads or assigns it explicitly,
  else the stage its Assigns' values come from (an optimizer's moments follow
  their gradient), else the one its Loads' users need. Another stage that needs
  its value receives it;
- any other op runs with its latest operand (the gradient accumulation and the
  optimizer update of a Parameter run where its gradient is); an op none of
  whose operands has a stage runs on the lowest stage that uses it (the slices
  of a batch, a learning rate computed from `global_step`), else on stage 0;
- constants and `get_parameter`s are copied into every stage that uses them;
  the graph's arguments are every stage's arguments.

A tensor made on stage t and used on stage s gets a `mindir.send` on t right
after it is made and a `mindir.receive` on s right before its first use there,
matched by an `sr_tag` unique in the module (`dest_rank` / `src_rank` are the
stages). Both are IO effects: each stage threads its own `!mindir.io` through
them (an argument added after the graph's states when the graph has none).

States: each stage threads the graph's `!mindir.u` / `!mindir.io` chains through
its own ops only. An `update_state` is rebuilt on every stage whose values it
attaches (attaches that are arguments or constants order nothing and are
dropped), so a stage keeps every order among its own effects and gains none
against the others: there is nothing to order, since a Parameter is touched by
one stage only and values cross only through send/receive.

Why this cannot deadlock when every stage runs at once (one thread or device
per stage, a receive blocking until its send): each stage runs a subsequence of
the original graph's order, and every receive comes after its send in that
order; the earliest op not yet run anywhere is always at the head of its stage
and runnable. mindir-pipeline-schedule then orders each stage graph by the
pipeline's schedule (1F1B or GPipe) and proves that order too.

Results: each stage returns the graph's results it computes (the last stage
those computed by no stage: arguments, constants), then its states.
`mindir.pipeline_of = "<graph>"` and `mindir.pipeline_results` (the indices of
the graph's results, in the stage's order) tell an executor how to run the
stages for a call of the graph (backend/cpu/pipeline_run.py). A graph that other
graphs call (a graph lazy inline keeps) is not split: its calls are ops of the
stage that calls them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator

from mindjit.dialects import mindir
from mindjit.dialects.mindir.discardable import (
    PIPELINE_OF_ATTR,
    PIPELINE_RESULTS_ATTR,
    PIPELINE_STAGE_ATTR,
    stage_of_attr,
)
from mindjit.dialects.mindir.types import MonadIOType
from mindjit.ir.locations import loc_of_op
from mindjit.ir.walk import walk_ops
from mindjit.passes.analysis.effects import parameter_symbol, state_kind, values_from_outside
from mindjit.passes.analysis.graph_walk import top_level_graphs
from mindjit.support.errors import MindjitError


@dataclass(frozen=True)
class MindirPipelineSplitPass(ModulePass):
    """Split each staged graph into one graph per pipeline stage (see the module doc).
    `stages` is X (`pipeline_stages`); 0 takes the largest stage used plus one."""

    name = "mindir-pipeline-split"

    stages: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.stages, bool) or not isinstance(self.stages, int) or self.stages < 0:
            raise ValueError(f"stages must be an integer >= 0, got '{self.stages}'")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        split_pipeline(op, self.stages)


def split_pipeline(module: ModuleOp, stages: int = 0) -> list[str]:
    """Split every staged top-level graph of `module` in place; the graphs split."""
    graphs = [g for g in top_level_graphs(module) if isinstance(g, func.FuncOp) and g.body.blocks]
    called = {
        op.callee.root_reference.data
        for g in graphs
        for op in walk_ops(g)
        if isinstance(op, func.CallOp)
    }
    tags = _TagCounter(module)
    split: list[str] = []
    for graph in graphs:
        if graph.sym_name.data in called or stages == 1:
            continue
        if _split_graph(module, graph, stages, tags):
            split.append(graph.sym_name.data)
    return split


# -- the stage of each op -------------------------------------------------------------------


class _TagCounter:
    """sr_tags unique in the module: after every tag its sends/receives already use."""

    def __init__(self, module: ModuleOp):
        used = [
            op.sr_tag.value.data
            for op in module.walk()
            if isinstance(op, mindir.SendOp | mindir.ReceiveOp)
        ]
        self.next = max(used, default=-1) + 1

    def take(self) -> int:
        self.next += 1
        return self.next - 1


def _explicit(op: Operation) -> int | None:
    own = stage_of_attr(op)
    if own is not None or not op.regions:
        return own
    inner = [s for o in walk_ops(op) if o is not op and (s := stage_of_attr(o)) is not None]
    return max(inner) if inner else None


def _is_copied(op: Operation) -> bool:
    """Ops every stage makes for itself instead of receiving them."""
    return isinstance(op, mindir.ConstantOp | mindir.GetParameterOp)


def _param_of(op: Operation) -> str | None:
    """The Parameter whose owner runs `op`: a Load's, an Assign's; an ApplyMomentum's
    or ApplyAdam's variable, an UpdateMovingStats' mean (the other Parameter each writes is touched
    by that op only, so it follows)."""
    if isinstance(op, (mindir.LoadOp, *mindir.WRITER_OPS)):
        return parameter_symbol(op.operands[0])
    return None


class _Placement:
    """Every top-level op's stage (`stage`), found as the module doc says."""

    def __init__(self, ops: list[Operation], explicit: dict[Operation, int]):
        self.ops = ops
        self.explicit = explicit
        self.stage: dict[Operation, int] = {}
        self.owner: dict[str, int] = {}
        #: what each op uses from outside it, walked once (the fixpoint asks many times)
        self.inputs = {op: values_from_outside(op) for op in ops}

    def producer(self, v: SSAValue) -> Operation | None:
        """The top-level op of the graph that makes `v` (None: an argument)."""
        if isinstance(v, OpResult) and v.op in self.inputs:
            return v.op
        return None

    def crossings(self) -> Iterator[tuple[Operation, SSAValue, Operation]]:
        """(user, value, producer) for every value used on another stage than its own."""
        for op in self.ops:
            if op not in self.stage:
                continue
            for v in self.inputs[op]:
                p = self.producer(v)
                if p is not None and p in self.stage and self.stage[p] != self.stage[op]:
                    yield op, v, p

    def run(self) -> None:
        users: dict[Operation, list[Operation]] = defaultdict(list)
        for op in self.ops:
            for v in self.inputs[op]:
                if (p := self.producer(v)) is not None:
                    users[p].append(op)
        for op, s in self.explicit.items():
            self.stage[op] = s
            if (p := _param_of(op)) is not None:
                self.owner[p] = min(self.owner.get(p, s), s)
        free = [
            op
            for op in self.ops
            if op not in self.stage
            and not _is_copied(op)
            and not isinstance(op, mindir.UpdateStateOp)
            and not op.has_trait(IsTerminator)  # each result comes from where it is made
        ]
        changed = True
        while changed:  # stages only rise or appear: a fixpoint in a few rounds
            changed = False
            for op in free:
                s = self._forward(op)
                if s is not None and s != self.stage.get(op):
                    self.stage[op] = s
                    changed = True
                    p = _param_of(op)
                    if p is not None and isinstance(op, mindir.WRITER_OPS) and p not in self.owner:
                        self.owner[p] = s
        for op in reversed(free):  # nothing upstream: where the first user is
            if op not in self.stage:
                needed = [self.stage[u] for u in users[op] if u in self.stage]
                self.stage[op] = min(needed, default=0)
        by_param: dict[str, list[Operation]] = defaultdict(list)
        for op in self.ops:
            if (p := _param_of(op)) is not None:
                by_param[p].append(op)
        for p, accesses in by_param.items():
            owner = self.owner.get(p, min(self.stage[a] for a in accesses))
            for a in accesses:
                self.stage[a] = owner

    def _forward(self, op: Operation) -> int | None:
        p = _param_of(op)
        if p is not None and p in self.owner:
            return self.owner[p]
        if isinstance(op, mindir.LoadOp):
            return None
        if isinstance(op, mindir.AssignOp):
            return self._value_stage(op.value)
        if isinstance(op, mindir.ApplyMomentumOp | mindir.ApplyAdamOp):
            return self._value_stage(op.gradient)
        if isinstance(op, mindir.UpdateMovingStatsOp):
            return self._value_stage(op.batch_mean)
        if isinstance(op, mindir.DependOp):
            return self._value_stage(op.value)
        found = [s for v in self.inputs[op] if (s := self._value_stage(v)) is not None]
        return max(found) if found else None

    def _value_stage(self, v: SSAValue) -> int | None:
        p = self.producer(v)
        return None if p is None else self.stage.get(p)


# -- building the stage graphs ----------------------------------------------------------------


@dataclass
class _StageGraph:
    fn: func.FuncOp
    block: Block
    values: dict[SSAValue, SSAValue]  # the graph's value -> this stage's
    states: dict[str, SSAValue]  # "u" / "io" -> this stage's current state
    results: list[tuple[int, SSAValue]] = field(default_factory=list)


class _Builder:
    def __init__(self, graph: func.FuncOp, placement: _Placement, stages: int, tags: _TagCounter):
        self.graph = graph
        self.place = placement
        self.stages = stages
        self.tags = tags
        self.sent: dict[tuple[SSAValue, int], int] = {}  # (value, stage) -> sr_tag
        block = graph.body.block
        arg_types = [a.type for a in block.args]
        self.added_io = not any(state_kind(t) == "io" for t in arg_types)
        if self.added_io:
            arg_types.append(MonadIOType())
        self.stage_graphs: list[_StageGraph] = []
        for k in range(stages):
            sblock = Block(arg_types=arg_types)
            for old, new in zip(block.args, sblock.args):
                new.name_hint = old.name_hint
            if self.added_io:
                sblock.args[-1].name_hint = "io"
            values = dict(zip(block.args, sblock.args))
            states = {
                kind: sarg for sarg in sblock.args if (kind := state_kind(sarg.type)) is not None
            }
            fn = func.FuncOp(
                f"{graph.sym_name.data}_stage{k}",
                ([], []),
                Region(sblock),
                graph.sym_visibility,
            )
            self.stage_graphs.append(_StageGraph(fn, sblock, values, states))
        # which other stages use each value made on a stage (states never cross)
        self.consumers: dict[SSAValue, set[int]] = defaultdict(set)
        for user, v, _ in placement.crossings():
            if state_kind(v.type) is None:
                self.consumers[v].add(placement.stage[user])

    # values ------------------------------------------------------------------------------

    def value(self, v: SSAValue, k: int) -> SSAValue:
        """`v` as stage k sees it (a receive or a copy made on first use)."""
        sg = self.stage_graphs[k]
        kind = state_kind(v.type)
        if kind is not None:
            return sg.states[kind]
        if v in sg.values:
            return sg.values[v]
        p = self.place.producer(v)
        assert p is not None  # the graph's arguments are every stage's (in sg.values)
        if _is_copied(p):
            clone = p.clone(value_mapper={w: self.value(w, k) for w in p.operands})
            sg.block.add_op(clone)
            for old, new in zip(p.results, clone.results):
                sg.values[old] = new
            return sg.values[v]
        src = self.place.stage[p]
        tag = self.sent[(v, k)]  # sent right after it was made (_check_tensors_cross: a tensor)
        recv = mindir.ReceiveOp.get(sg.states["io"], v.type, tag, src)
        recv.attributes[PIPELINE_STAGE_ATTR] = IntegerAttr(k, i64)
        sg.block.add_op(recv)
        sg.states["io"] = recv.io_out
        sg.values[v] = recv.result
        return recv.result

    # ops -----------------------------------------------------------------------------------

    def build(self) -> list[func.FuncOp]:
        terminator = None
        for op in self.place.ops:
            if op.has_trait(IsTerminator):
                terminator = op
            elif isinstance(op, mindir.UpdateStateOp):
                self._update_state(op)
            elif not _is_copied(op):
                self._clone(op, self.place.stage[op])
        assert isinstance(terminator, func.ReturnOp)
        return self._finish(terminator)

    def _clone(self, op: Operation, k: int) -> None:
        sg = self.stage_graphs[k]
        mapper = {v: self.value(v, k) for v in self.place.inputs[op]}
        new = op.clone(value_mapper=mapper)
        sg.block.add_op(new)
        for old, res in zip(op.results, new.results):
            sg.values[old] = res
            kind = state_kind(res.type)
            if kind is not None and _continues_chain(old):
                sg.states[kind] = res
        for old, res in zip(op.results, new.results):
            for dest in sorted(self.consumers.get(old, ())):
                tag = self.tags.take()
                send = mindir.SendOp.get(res, sg.states["io"], tag, dest)
                send.attributes[PIPELINE_STAGE_ATTR] = IntegerAttr(k, i64)
                sg.block.add_op(send)
                sg.states["io"] = send.result
                self.sent[(old, dest)] = tag

    def _update_state(self, op: mindir.UpdateStateOp) -> None:
        kind = state_kind(op.state.type)
        assert kind is not None
        groups: dict[int, list[SSAValue]] = defaultdict(list)
        for a in op.attach:
            p = self.place.producer(a)
            if p is None or _is_copied(p) or p not in self.place.stage:
                continue  # arguments, constants, states: nothing to order
            groups[self.place.stage[p]].append(a)
        for k, attach in sorted(groups.items()):
            sg = self.stage_graphs[k]
            new = mindir.UpdateStateOp.get(sg.states[kind], [sg.values[a] for a in attach])
            new.attributes.update(op.attributes)
            sg.block.add_op(new)
            sg.states[kind] = new.result

    def _finish(self, ret: func.ReturnOp) -> list[func.FuncOp]:
        last = self.stages - 1
        state_kinds = [state_kind(v.type) for v in ret.operands]
        for i, v in enumerate(ret.operands):
            if state_kinds[i] is not None:
                continue
            p = self.place.producer(v)
            k = self.place.stage[p] if p is not None and p in self.place.stage else last
            self.stage_graphs[k].results.append((i, self.value(v, k)))
        graph_name = StringAttr(self.graph.sym_name.data)
        fns = []
        for k, sg in enumerate(self.stage_graphs):
            values = [v for _, v in sg.results]
            values += [sg.states[kind] for kind in state_kinds if kind is not None]
            if self.added_io:
                values.append(sg.states["io"])
            sg.block.add_op(func.ReturnOp(*values))
            sg.fn.function_type = func.FunctionType.from_lists(
                [a.type for a in sg.block.args], [v.type for v in values]
            )
            for key, value in self.graph.attributes.items():  # the frontend's facts
                if key.startswith("mindir."):
                    sg.fn.attributes[key] = value
            sg.fn.attributes[PIPELINE_STAGE_ATTR] = IntegerAttr(k, i64)
            sg.fn.attributes[PIPELINE_OF_ATTR] = graph_name
            sg.fn.attributes[PIPELINE_RESULTS_ATTR] = DenseArrayBase.from_list(
                i64, [i for i, _ in sg.results]
            )
            fns.append(sg.fn)
        return fns


def _continues_chain(v: SSAValue) -> bool:
    """Whether a state result is the next state (a call's, an if's), not only an
    effect an `update_state` attaches (a print's: the update_state is the next)."""
    return any(
        not isinstance(use.operation, mindir.UpdateStateOp) or use.index == 0 for use in v.uses
    )


def _split_graph(module: ModuleOp, graph: func.FuncOp, stages: int, tags: _TagCounter) -> bool:
    ops = list(graph.body.block.ops)
    explicit = {op: s for op in ops if (s := _explicit(op)) is not None}
    if not explicit:
        return False
    count = stages or max(explicit.values()) + 1
    if count <= 1:
        return False
    for op, s in explicit.items():
        if not 0 <= s < count:
            raise MindjitError(
                f"mindir-pipeline-split: an op of @{graph.sym_name.data} is on pipeline stage "
                f"{s}, out of range for {count} stages (0..{count - 1})",
                loc_of_op(op),
            )
    placement = _Placement(ops, explicit)
    placement.run()
    _check_tensors_cross(placement)
    used = set(placement.stage.values())
    missing = [k for k in range(count) if k not in used]
    if missing:
        raise MindjitError(
            f"mindir-pipeline-split: pipeline stage {missing[0]} of @{graph.sym_name.data} "
            f"has no op (stages 0..{count - 1})",
            loc_of_op(graph),
        )
    fns = _Builder(graph, placement, count, tags).build()
    module.body.block.insert_ops_after(fns, graph)
    graph.detach()
    graph.erase()
    return True


def _check_tensors_cross(place: _Placement) -> None:
    """Only tensors may cross stages: a tuple or a ref made on one stage and used on
    another is a located error (refs of Parameters are rebuilt, see `_is_copied`)."""
    for op, v, p in place.crossings():
        if state_kind(v.type) is None and not isinstance(v.type, TensorType):
            raise MindjitError(
                f"mindir-pipeline-split: a {v.type} made on stage {place.stage[p]} is used "
                f"on stage {place.stage[op]}; only tensors cross pipeline stages",
                loc_of_op(op),
            )
