"""mindir-vmap: `mindir.vmap` ops become batched ops, one batching rule per value op.

Each value of the per-example region is either *shared* (the same for every
example: constants, values from outside the region, anything computed from
shared values only) or *batched*, carried with the batch as its axis 0. The
rewrite puts the batched inputs' batch axis first (a `transpose` when
`in_axes` is not 0), maps the region's ops in order before the vmap, and
moves each result's batch axis to its `out_axes` position; a result that is
shared is broadcast to the batch first (out_axes `none`: returned as it is; a
batched one is a located error).

Rules (an op whose operands are all shared is copied as it is):
- elementwise ops (`add` ... `logical_or`, the unary ones, `select`, `cast`,
  `check_range`, which checks the whole batch):
  a batched operand of lower per-example rank than the result is reshaped to
  `[B, 1, ..., 1, shape]` so that numpy broadcasting pairs the right axes;
- `matmul`: batch dims broadcast, so batched operands only need the same
  alignment of their batch dims;
- reductions: the axes move by one (no axis: every per-example axis);
- `reshape`, `broadcast_to`: the batch size in front of the target shape;
  `transpose`: the permutation shifted by one behind axis 0;
- `concat`, `stack`: shared operands are broadcast to the batch, the axis
  moves by one; `unstack`: the axis moves by one, every piece is batched;
- `get_item`: the whole batch axis is kept in front of the slice;
- `make_tuple`, `tuple_get_item`, `addn`: tuples are followed element by element;
- `get_parameter`, and `load` of a Parameter: shared (a Parameter is the same
  for every example; a Parameter written inside a vmap has no rule).

An `if` inside a vmap whose branches are free of side effects becomes a
`select` first (as `mindir-cf-to-select` does, whatever the branches' size):
its condition may differ per example. A `while` runs once for the batch, every
example until its own condition is false (vmap_loops.py). Anything else inside
a vmap (assign, print, an `if` with effects, a call that was not inlined) is a
located error naming the op. Nested vmaps are rewritten from the inside
out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import Pure

from mindjit.dialects import mindir
from mindjit.dialects import mindir as V
from mindjit.dialects.mindir.check import CheckRangeOp
from mindjit.dialects.mindir.reduce import i64_array
from mindjit.dialects.mindir.vmap import NOT_BATCHED, VmapOp
from mindjit.ir.locations import op_error
from mindjit.ir.rules import RuleTable
from mindjit.ir.walk import walk_ops
from mindjit.passes.analysis.effects import Effects
from mindjit.passes.analysis.graph_walk import top_level_graphs
from mindjit.passes.mindir_cf_to_select import ifs_to_selects_in
from mindjit.passes.vmap_loops import batch_stack, batch_while

_SHARED_LEAVES = (mindir.ConstantOp, mindir.GetParameterOp, mindir.LoadOp)


@dataclass(frozen=True)
class MindirVmapPass(ModulePass):
    """Rewrite every `mindir.vmap` into batched ops (see the module doc)."""

    name = "mindir-vmap"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        vmap_module(op)


def vmap_module(module: ModuleOp) -> int:
    """Rewrite the module's vmaps in place, inner ones first; returns how many."""
    # graphs only (not the declarations), inner vmaps first
    ops = [op for fn in top_level_graphs(module) for op in walk_ops(fn)]
    vmaps = [o for o in reversed(ops) if isinstance(o, VmapOp)]
    return vmap_ops(module, vmaps)


def vmap_ops(module: ModuleOp, vmaps: list[VmapOp]) -> int:
    """Rewrite `vmaps` of `module` in place, in the given order (inner ones first);
    mindir-grad{vmap=true} batches the vmaps inside grads with it."""
    if not vmaps:
        return 0
    effects = Effects(module)
    for op in vmaps:
        ifs_to_selects_in(op, effects)
        _Batcher(op).run()
    return len(vmaps)


def batchable(ops: Iterable[Operation], graph: Callable[[str], Operation | None]) -> bool:
    """Whether mindir-vmap can batch a region holding `ops`, calls followed into
    their graphs (`graph(symbol)`): value ops with a rule, and ifs made of them
    (they become selects). No effects and no Parameter reads, so that batching
    cannot move a read across a write."""
    seen: set[str] = set()
    todo = list(ops)
    while todo:
        op = todo.pop()
        if isinstance(op, func.CallOp):
            name = op.callee.root_reference.data
            if name in seen:
                continue
            callee = graph(name)
            if callee is None:
                return False
            seen.add(name)
            todo += walk_ops(callee)
        elif isinstance(op, mindir.IfOp | mindir.YieldOp | func.FuncOp | func.ReturnOp):
            continue  # their regions' ops are in the walk
        elif not isinstance(op, mindir.ConstantOp) and BATCHING.get(type(op)) is None:
            return False
    return True


@dataclass
class _Value:
    """A region value after batching: its new SSA value, and whether axis 0 of it is
    the batch (else it is shared); tuples are followed element by element."""

    ssa: SSAValue | None
    batched: bool
    elements: list[_Value] | None = None


@dataclass
class _Batcher:
    op: VmapOp
    size: int = 0
    env: dict[SSAValue, _Value] = field(default_factory=dict[SSAValue, _Value])
    #: where batched ops go: before the vmap, or into a batched loop's block
    point: InsertPoint | None = None

    def run(self) -> None:
        op = self.op
        self.size = op.batch_size()
        block = op.body.block
        for arg, value, axis in zip(block.args, op.inputs, op.in_axis_list):
            if axis == NOT_BATCHED:
                self.env[arg] = _Value(value, False)
            else:
                self.env[arg] = _Value(self._move_axis(value, axis, 0), True)
        results: list[SSAValue] = []
        for inner in list(block.ops):
            if isinstance(inner, mindir.YieldOp):
                for v, axis in zip(inner.values, op.out_axis_list):
                    results.append(self._result(self._get(v), axis, inner))
            else:
                self._batch(inner)
        for old, new in zip(op.outputs, results):
            if old.name_hint and new.name_hint is None:
                new.name_hint = old.name_hint
            old.replace_all_uses_with(new)
        Rewriter.erase_op(op)

    # --- values --------------------------------------------------------------------------
    def _get(self, v: SSAValue) -> _Value:
        known = self.env.get(v)
        if known is not None:
            return known
        return _Value(v, False)  # defined outside the region: shared

    def _emit(self, new: Operation, like: Operation) -> SSAValue:
        return self._insert(new, like).results[0]

    def _insert(self, new: Operation, like: Operation) -> Operation:
        new.location = like.location  # type: ignore[assignment]
        Rewriter.insert_op(new, self.point or InsertPoint.before(self.op))
        return new

    @staticmethod
    def value(ssa: SSAValue, batched: bool) -> _Value:
        return _Value(ssa, batched)

    def _tensor(self, value: _Value, user: Operation) -> SSAValue:
        # a tuple followed element by element only meets tuple_get_item and addn:
        # other ops take tensors (the verifier) and a vmap yields tensors
        assert value.ssa is not None, f"'{user.name}' took a tuple followed by mindir-vmap"
        return value.ssa

    def _move_axis(self, v: SSAValue, src: int, dst: int) -> SSAValue:
        if src == dst:
            return v
        rank = len(v.type.get_shape())  # type: ignore[attr-defined]
        perm = list(range(rank))
        perm.insert(dst, perm.pop(src))
        return self._emit(V.TransposeOp.get(v, perm), self.op)

    def _broadcast(self, v: SSAValue, like: Operation) -> SSAValue:
        """A shared tensor repeated for every example: [B, *shape]."""
        shape = [self.size, *v.type.get_shape()]  # type: ignore[attr-defined]
        return self._emit(V.BroadcastToOp.get(v, shape), like)

    def _align(self, v: SSAValue, rank: int, like: Operation) -> SSAValue:
        """A batched value whose per-example rank is below `rank`: [B, 1.., shape]."""
        shape = list(v.type.get_shape())  # type: ignore[attr-defined]
        missing = rank - (len(shape) - 1)
        if missing <= 0:
            return v
        return self._emit(V.ReshapeOp.get(v, [shape[0], *[1] * missing, *shape[1:]]), like)

    def _result(self, value: _Value, axis: int, user: Operation) -> SSAValue:
        v = self._tensor(value, user)
        if axis == NOT_BATCHED:
            if value.batched:
                raise op_error(
                    user,
                    "mindir-vmap: a result with out_axes none must be the same for every "
                    "example, but it depends on the batched inputs",
                )
            return v
        if not value.batched:
            v = self._broadcast(v, user)
        return self._move_axis(v, 0, axis)

    # --- rules ------------------------------------------------------------------------------
    def _batch(self, op: Operation) -> None:
        args = [self._get(v) for v in op.operands]
        flows_in = any(a.batched for a in args)
        if not op.regions and not flows_in and self._shareable(op):
            new = op.clone(value_mapper={v: self._tensor(a, op) for v, a in zip(op.operands, args)})
            for old, r in zip(op.results, new.results):
                self.env[old] = _Value(r, False)
            self._emit(new, op)
            return
        rule = BATCHING.get(type(op))
        if rule is None:
            why = BATCHING.refused(type(op))
            if why is None:
                raise op_error(op, BATCHING.missing(type(op)))
            raise op_error(op, f"mindir-vmap: no batching rule for '{op.name}': {why}")
        rule(self, op, args)

    def _shareable(self, op: Operation) -> bool:
        """Copied as it is when nothing batched flows in: value ops and reads."""
        return isinstance(op, (*_SHARED_LEAVES, CheckRangeOp)) or op.has_trait(Pure)

    # --- rules (registered in BATCHING below, by op class) ----------------------------------
    def _make_tuple(self, op: Operation, args: list[_Value]) -> None:
        self.env[op.results[0]] = _Value(None, True, args)  # followed element by element

    def _tuple_get_item(self, op: Operation, args: list[_Value]) -> None:
        if args[0].elements is None:
            raise op_error(op, "mindir-vmap: a batched tuple must come from mindir.make_tuple")
        self.env[op.results[0]] = args[0].elements[op.index.value.data]  # type: ignore[attr-defined]

    def _unstack(self, op: Operation, args: list[_Value]) -> None:
        axis = op.axis.value.data + 1  # type: ignore[attr-defined]
        new = self._insert(V.UnstackOp.get(self._tensor(args[0], op), axis), op)
        for old, r in zip(op.results, new.results):
            r.name_hint = old.name_hint
            self.env[old] = _Value(r, True)

    def _add_n(self, op: Operation, args: list[_Value]) -> None:
        if args[0].elements is None:
            raise op_error(op, "mindir-vmap: a batched tuple must come from mindir.make_tuple")
        self._addn(op, args[0].elements)

    def _elementwise(self, op: Operation, args: list[_Value]) -> SSAValue:
        rank = len(op.results[0].type.get_shape())  # type: ignore[attr-defined]
        operands = [
            self._align(self._tensor(a, op), rank, op) if a.batched else self._tensor(a, op)
            for a in args
        ]
        return self._emit(type(op).make(operands, dict(op.properties)), op)

    def _matmul(self, op: Operation, args: list[_Value]) -> SSAValue:
        # the dialect's matmul takes rank >= 2 operands and broadcasts the batch dims
        rank = max(len(v.type.get_shape()) for v in op.operands)  # type: ignore[attr-defined]
        operands = [
            self._align(self._tensor(a, op), rank, op) if a.batched else self._tensor(a, op)
            for a in args
        ]
        return self._emit(type(op).make(operands, dict(op.properties)), op)

    def _reduce(self, op: Operation, args: list[_Value]) -> SSAValue:
        rank = len(op.operands[0].type.get_shape())  # type: ignore[attr-defined]
        axes = list(op.axis.get_values()) or list(range(rank))  # type: ignore[attr-defined]
        props = dict(op.properties)
        props["axis"] = i64_array(sorted(a % rank + 1 for a in axes))
        return self._emit(type(op).make([self._tensor(args[0], op)], props), op)

    def _reshape(self, op: Operation, args: list[_Value]) -> SSAValue:
        shape = list(op.results[0].type.get_shape())  # type: ignore[attr-defined]
        return self._emit(V.ReshapeOp.get(self._tensor(args[0], op), [self.size, *shape]), op)

    def _broadcast_to(self, op: Operation, args: list[_Value]) -> SSAValue:
        shape = list(op.results[0].type.get_shape())  # type: ignore[attr-defined]
        x = self._align(self._tensor(args[0], op), len(shape), op)
        return self._emit(V.BroadcastToOp.get(x, [self.size, *shape]), op)

    def _transpose(self, op: Operation, args: list[_Value]) -> SSAValue:
        perm = [0, *(p + 1 for p in op.perm.get_values())]  # type: ignore[attr-defined]
        return self._emit(V.TransposeOp.get(self._tensor(args[0], op), perm), op)

    def _join(self, op: Operation, args: list[_Value]) -> SSAValue:
        rank = len(op.results[0].type.get_shape())  # type: ignore[attr-defined]
        axis = op.axis.value.data % rank  # type: ignore[attr-defined]
        operands = [
            self._tensor(a, op) if a.batched else self._broadcast(self._tensor(a, op), op)
            for a in args
        ]
        props = dict(op.properties)
        props["axis"] = IntegerAttr(axis + 1, i64)
        return self._emit(type(op).make(operands, props), op)

    def _get_item(self, op: Operation, args: list[_Value]) -> SSAValue:
        props = dict(op.properties)
        for name, first in (("starts", 0), ("limits", self.size), ("strides", 1)):
            props[name] = i64_array([first, *props[name].get_values()])
        squeeze = props.get("squeeze")
        shifted = [a + 1 for a in squeeze.get_values()] if squeeze is not None else []
        props["squeeze"] = i64_array(shifted)
        return self._emit(V.GetItemOp.make([self._tensor(args[0], op)], props), op)

    def _pad(self, op: Operation, args: list[_Value]) -> SSAValue:
        low, high, interior = op.paddings()  # type: ignore[attr-defined]
        return self._emit(
            V.PadOp.get(
                self._tensor(args[0], op),
                [0, *low],
                [0, *high],
                [0, *interior],
                op.pad_value(),  # type: ignore[attr-defined]
            ),
            op,
        )

    def _reverse(self, op: Operation, args: list[_Value]) -> SSAValue:
        axes = [a + 1 for a in op.axis.get_values()]  # type: ignore[attr-defined]
        return self._emit(V.ReverseOp.get(self._tensor(args[0], op), axes), op)

    def _fold_batch(self, v: SSAValue, like: Operation) -> SSAValue:
        """[B, N, ...] -> [B * N, ...]: the examples as more images."""
        b, n, *rest = v.type.get_shape()  # type: ignore[attr-defined]
        return self._emit(V.ReshapeOp.get(v, [b * n, *rest]), like)

    def _pool(self, op: Operation, args: list[_Value]) -> SSAValue:
        out = self._emit(
            type(op).make([self._fold_batch(self._tensor(args[0], op), op)], dict(op.properties)),
            op,
        )
        return self._emit(V.ReshapeOp.get(out, [self.size, *op.results[0].type.get_shape()]), op)  # type: ignore[attr-defined]

    def _conv2d(self, op: Operation, args: list[_Value]) -> SSAValue:
        """A batched input alone: the examples as more images. A batched weight: the
        examples as groups of one convolution (input [N, B * C, H, W], weight
        [B * F, C / group, KH, KW], group B * group)."""
        x, w = (self._tensor(a, op) for a in args)
        out_shape = list(op.results[0].type.get_shape())  # type: ignore[attr-defined]
        if not args[1].batched:
            out = self._emit(V.Conv2DOp.make([self._fold_batch(x, op), w], dict(op.properties)), op)
            return self._emit(V.ReshapeOp.get(out, [self.size, *out_shape]), op)
        n, c, h, wd = op.operands[0].type.get_shape()  # type: ignore[attr-defined]
        f, cg, kh, kw = op.operands[1].type.get_shape()  # type: ignore[attr-defined]
        xb = x if args[0].batched else self._broadcast(x, op)
        xg = self._emit(V.TransposeOp.get(xb, [1, 0, 2, 3, 4]), op)
        xg = self._emit(V.ReshapeOp.get(xg, [n, self.size * c, h, wd]), op)
        wg = self._emit(V.ReshapeOp.get(w, [self.size * f, cg, kh, kw]), op)
        stride, dilation, pad, group = op.params()  # type: ignore[attr-defined]
        out = self._emit(V.Conv2DOp.get(xg, wg, stride, dilation, pad, group * self.size), op)
        _, _, oh, ow = out_shape
        out = self._emit(V.ReshapeOp.get(out, [n, self.size, f, oh, ow]), op)
        return self._emit(V.TransposeOp.get(out, [1, 0, 2, 3, 4]), op)

    def _addn(self, op: Operation, elements: list[_Value]) -> None:
        rank = len(op.results[0].type.get_shape())  # type: ignore[attr-defined]
        total: SSAValue | None = None
        for e in elements:
            v = self._tensor(e, op)
            v = self._align(v, rank, op) if e.batched else v
            total = v if total is None else self._emit(V.AddOp.get(total, v), op)
        assert total is not None
        self.env[op.results[0]] = _Value(total, True)


BatchRule = Callable[[_Batcher, Operation, list[_Value]], None]


def _batched_result(method: Callable[[_Batcher, Operation, list[_Value]], SSAValue]) -> BatchRule:
    """A rule computing the op's one result, batched on axis 0."""

    def rule(batcher: _Batcher, op: Operation, args: list[_Value]) -> None:
        new = method(batcher, op, args)
        new.name_hint = op.results[0].name_hint
        batcher.env[op.results[0]] = _Value(new, True)

    return rule


#: op class -> how mindir-vmap batches it when a batched value flows in (an op
#: whose operands are all shared is copied as it is, if it is pure or a read)
BATCHING: RuleTable[BatchRule] = RuleTable("mindir-vmap", "passes/mindir_vmap.py", "batching rule")
BATCHING.register(*mindir.ELEMENTWISE_OPS, CheckRangeOp)(_batched_result(_Batcher._elementwise))
BATCHING.register(mindir.MatMulOp)(_batched_result(_Batcher._matmul))
BATCHING.register(*mindir.REDUCE_OPS)(_batched_result(_Batcher._reduce))
BATCHING.register(mindir.ReshapeOp)(_batched_result(_Batcher._reshape))
BATCHING.register(mindir.BroadcastToOp)(_batched_result(_Batcher._broadcast_to))
BATCHING.register(mindir.TransposeOp)(_batched_result(_Batcher._transpose))
BATCHING.register(mindir.ConcatOp, mindir.StackOp)(_batched_result(_Batcher._join))
BATCHING.register(mindir.GetItemOp)(_batched_result(_Batcher._get_item))
BATCHING.register(mindir.PadOp)(_batched_result(_Batcher._pad))
BATCHING.register(mindir.ReverseOp)(_batched_result(_Batcher._reverse))
BATCHING.register(*mindir.POOL_OPS)(_batched_result(_Batcher._pool))
BATCHING.register(mindir.Conv2DOp)(_batched_result(_Batcher._conv2d))
BATCHING.register(mindir.MakeTupleOp)(_Batcher._make_tuple)
BATCHING.register(mindir.TupleGetItemOp)(_Batcher._tuple_get_item)
BATCHING.register(mindir.AddNOp)(_Batcher._add_n)
BATCHING.register(mindir.UnstackOp)(_Batcher._unstack)


def _collective(batcher: _Batcher, op: Operation, args: list[_Value]) -> None:
    """A shared input: one collective, shared result. all_reduce and broadcast
    combine replicas elementwise: the batched tensor goes through as it is.
    all_gather and reduce_scatter work on axis 0, so the batch axis is moved
    behind it and back ([B, A, ...] -> [A, B, ...])."""
    x = batcher._tensor(args[0], op)
    props = dict(op.properties)
    if not args[0].batched or isinstance(op, mindir.AllReduceOp | mindir.BroadcastOp):
        out = batcher._emit(type(op).make([x], props), op)
    else:
        rank = len(x.type.get_shape())  # type: ignore[attr-defined]
        swap = [1, 0, *range(2, rank)]
        moved = batcher._emit(V.TransposeOp.get(x, swap), op)
        out = batcher._emit(
            V.TransposeOp.get(batcher._emit(type(op).make([moved], props), op), swap), op
        )
    out.name_hint = op.results[0].name_hint
    batcher.env[op.results[0]] = _Value(out, args[0].batched)


BATCHING.register(*mindir.COLLECTIVE_OPS)(_collective)

BATCHING.exclude(
    "the same for every example: copied as it is",
    mindir.ConstantOp,
    mindir.GetParameterOp,
    mindir.LoadOp,
)
BATCHING.exclude(
    "a side effect inside a vmap: each example would write or print in turn, "
    "which MindSpore's vmap does not batch either",
    mindir.AssignOp,
    mindir.ApplyMomentumOp,
    mindir.ApplyAdamOp,
    mindir.UpdateMovingStatsOp,
    mindir.PrintOp,
    mindir.UpdateStateOp,
    mindir.DependOp,
    mindir.TensorMoveOp,
    *mindir.DEVICE_OPS,
    refused=True,
)
BATCHING.exclude(
    "mindir-pipeline-split runs after mindir-vmap: a send/receive never reaches the vmap pass",
    *mindir.COMM_OPS,
    refused=True,
)
BATCHING.exclude(
    "control flow with side effects (an if without effects becomes a select first; "
    "a while is batched, vmap_loops.py) or a grad (expanded first)",
    mindir.IfOp,
    mindir.YieldOp,
    mindir.ConditionOp,
    mindir.GradOp,
    refused=True,
)
BATCHING.register(mindir.WhileOp)(batch_while)
BATCHING.register(mindir.StackPushOp, mindir.StackReadOp)(batch_stack)
BATCHING.exclude(
    "random numbers from a batched key or offset: every example would need its own "
    "stream (a draw from shared operands is copied as it is: one mask for the batch)",
    mindir.UniformRealOp,
    refused=True,
)
BATCHING.exclude(
    "an empty loop record: the same for every example, copied as it is",
    mindir.StackNewOp,
)
BATCHING.exclude(
    "a module-level declaration or an inner vmap (rewritten first): never in a vmap's body",
    mindir.ParameterOp,
    mindir.VmapOp,
)


def _along_axis(batcher: _Batcher, op: Operation, args: list[_Value]) -> None:
    """Ops working along one `axis` of one input (argmax/argmin, sort, cumsum/cumprod):
    the same op on the batch, its axis moved by one; every result gains the batch axis."""
    rank = len(op.operands[0].type.get_shape())  # type: ignore[attr-defined]
    props = dict(op.properties)
    props["axis"] = IntegerAttr(op.axis.value.data % rank + 1, i64)  # type: ignore[attr-defined]
    results = [
        TensorType(r.type.get_element_type(), [batcher.size, *r.type.get_shape()])  # type: ignore[attr-defined]
        for r in op.results
    ]
    new = batcher._insert(
        type(op).create(
            operands=[batcher._tensor(args[0], op)], result_types=results, properties=props
        ),
        op,
    )
    for old, r in zip(op.results, new.results):
        r.name_hint = old.name_hint
        batcher.env[old] = _Value(r, True)


BATCHING.register(*mindir.INDEX_REDUCE_OPS, *mindir.SORT_OPS, *mindir.SCAN_OPS)(_along_axis)


def _batch_norm(batcher: _Batcher, op: Operation, args: list[_Value]) -> None:
    """batch_norm and batch_norm_grad, each example with its own statistics: the
    batch axis joins the channels ((B, N, C, ...) -> (N, B*C, ...); a per-channel
    (B, C) -> (B*C,)), one op, and back."""
    size = batcher.size

    def batched(value: _Value) -> SSAValue:
        v = batcher._tensor(value, op)
        return v if value.batched else batcher._broadcast(v, op)

    full = op.input.type.get_shape()  # type: ignore[attr-defined]  # per example: (N, C, ...)
    n, c, rest = full[0], full[1], list(full[2:])

    def joined(value: _Value) -> SSAValue:
        v = batched(value)
        if len(v.type.get_shape()) == 2:  # type: ignore[attr-defined]  # (B, C)
            return batcher._emit(V.ReshapeOp.get(v, (size * c,)), op)
        moved = batcher._move_axis(v, 0, 1)
        return batcher._emit(V.ReshapeOp.get(moved, (n, size * c, *rest)), op)

    def split(r: SSAValue) -> SSAValue:
        if len(r.type.get_shape()) == 1:  # type: ignore[attr-defined]
            return batcher._emit(V.ReshapeOp.get(r, (size, c)), op)
        back = batcher._emit(V.ReshapeOp.get(r, (n, size, c, *rest)), op)
        return batcher._move_axis(back, 1, 0)

    ins = [joined(a) for a in args]
    new = batcher._insert(type(op).get(*ins, op.eps()), op)  # type: ignore[attr-defined]
    for old, r in zip(op.results, new.results):
        batcher.env[old] = _Value(split(r), True)


BATCHING.register(*mindir.NORM_OPS)(_batch_norm)
# --- gather / unsorted_segment_sum -------------------------------------------------------
# A batched table with shared indices is one op on a shifted axis. Batched indices
# address one flat table of every example's rows: index i of example b becomes
# b * n + i, an out-of-range index -1 (still out of range: zeros / adds nowhere).


def _flat_index(b: _Batcher, idx: SSAValue, n: int, like: Operation) -> SSAValue:
    """[B, *I] indices into n rows each -> indices into B * n rows (-1 when out of range)."""
    t = idx.type
    shape, element = list(t.get_shape()), t.get_element_type()  # type: ignore[attr-defined]

    def const(values: list[int], dims: list[int]) -> SSAValue:
        attr = DenseIntOrFPElementsAttr.from_list(TensorType(element, dims), values)
        return b._emit(V.ConstantOp.make([], {"value": attr}), like)

    offsets = const([k * n for k in range(b.size)], [b.size, *[1] * (len(shape) - 1)])
    zero, top, none = const([0], []), const([n], []), const([-1], [])
    inside = b._emit(
        V.LogicalAndOp.get(
            b._emit(V.GreaterEqualOp.get(idx, zero), like), b._emit(V.LessOp.get(idx, top), like)
        ),
        like,
    )
    shifted = b._emit(V.AddOp.get(idx, offsets), like)
    return b._emit(V.SelectOp.get(inside, shifted, none), like)


def _gather_batched(b: _Batcher, op: Operation, args: list[_Value]) -> SSAValue:
    axis = op.gather_axis  # type: ignore[attr-defined]
    params, idx = (b._tensor(a, op) for a in args)
    if not args[1].batched:
        return b._emit(V.GatherOp.get(params, idx, axis + 1), op)
    if not args[0].batched:
        params = b._broadcast(params, op)
    shape = list(params.type.get_shape())  # type: ignore[attr-defined]
    rank, n, k = len(shape), shape[axis + 1], len(idx.type.get_shape()) - 1  # type: ignore[attr-defined]
    front = [0, axis + 1, *range(1, axis + 1), *range(axis + 2, rank)]
    table = b._emit(V.TransposeOp.get(params, front), op)
    rest = [shape[d] for d in front[2:]]
    table = b._emit(V.ReshapeOp.get(table, [b.size * n, *rest]), op)
    out = b._emit(V.GatherOp.get(table, _flat_index(b, idx, n, op), 0), op)
    back = [0, *range(1 + k, 1 + k + axis), *range(1, 1 + k), *range(1 + k + axis, rank - 1 + k)]
    return b._emit(V.TransposeOp.get(out, back), op)


def _segment_sum_batched(b: _Batcher, op: Operation, args: list[_Value]) -> SSAValue:
    x, ids = (b._tensor(a, op) for a in args)
    segments = op.segments  # type: ignore[attr-defined]
    if not args[0].batched:
        x = b._broadcast(x, op)
    if not args[1].batched:
        k = len(ids.type.get_shape())  # type: ignore[attr-defined]
        x = b._move_axis(x, 0, k)
        out = b._emit(V.UnsortedSegmentSumOp.get(x, ids, segments), op)
        return b._move_axis(out, 1, 0)
    flat = b._emit(
        V.UnsortedSegmentSumOp.get(x, _flat_index(b, ids, segments, op), b.size * segments), op
    )
    rest = list(flat.type.get_shape()[1:])  # type: ignore[attr-defined]
    return b._emit(V.ReshapeOp.get(flat, [b.size, segments, *rest]), op)


BATCHING.register(mindir.GatherOp)(_batched_result(_gather_batched))
BATCHING.register(mindir.UnsortedSegmentSumOp)(_batched_result(_segment_sum_batched))
