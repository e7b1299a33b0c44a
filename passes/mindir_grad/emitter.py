"""Where mindir-grad's adjoint rules put their ops, with the folds that keep them small.

An adjoint seeded with ones (GradOperation without `sens_param`) would leave a
`mul` by one on every path; the emitter folds `x * 1`, `x + 0` and `0 * x`
while it builds, so the backward reads the forward values themselves (the
docs' backward program reads its Loads directly, which is what makes Load
elimination copy them).

It also adds zero-padded pieces without an `add`: the adjoint of a `get_item`
is its slice's adjoint with zeros concatenated around it, and a tensor cut into
slices (an LSTM's gates, `ops.split`) gets one such concat per slice, summed.
Two concats along one axis whose non-zero pieces do not overlap add up to one
concat of those pieces with zeros in the gaps, so the gates' adjoint is one
concat, as MindSpore's Split bprop is (the sentiment train step: 600 concats and
600 adds fewer).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from mindjit.dialects import mindir as M
from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.discardable import PIPELINE_STAGE_ATTR
from mindjit.dialects.mindir.stack import item_type

#: Constants whose elements are read to find a splat (larger ones are not looked at).
_SPLAT_LOOKUP_LIMIT = 64


def shape_of(v: SSAValue) -> tuple[int, ...]:
    return tuple(v.type.get_shape())  # type: ignore[attr-defined]


def element_of(v: SSAValue) -> Attribute:
    return v.type.get_element_type()  # type: ignore[attr-defined]


def splat_value(v: SSAValue) -> float | None:
    """The one value every element of `v` has, when `v` is a constant (possibly
    reshaped or broadcast) that says so; else None."""
    owner = v.owner
    while isinstance(owner, M.BroadcastToOp | M.ReshapeOp):
        owner = owner.input.owner  # type: ignore[attr-defined]
    if not isinstance(owner, M.ConstantOp):
        return None
    attr = owner.value
    t = attr.get_type()
    n = 1
    for d in t.get_shape():
        n *= d
    if n > _SPLAT_LOOKUP_LIMIT:
        return None
    values = attr.get_values()
    if not values:
        return None
    first = values[0]
    return float(first) if all(x == first for x in values) else None


def _concat_pieces(v: SSAValue) -> tuple[int, list[tuple[int, int, SSAValue]]] | None:
    """For a concat: its axis and its non-zero pieces as (start, stop, value)."""
    owner = v.owner
    if not isinstance(owner, M.ConcatOp):
        return None
    axis = owner.axis.value.data % len(shape_of(v))
    pieces, start = [], 0
    for x in owner.inputs:
        stop = start + shape_of(x)[axis]
        if splat_value(x) != 0:
            pieces.append((start, stop, x))
        start = stop
    return axis, pieces


@dataclass
class _Constants:
    """What `GradEmitter.constant` made: (block, stage, key) -> its value, and per
    block the ops made there, in order (a broadcast follows its scalar)."""

    values: dict[tuple, SSAValue] = field(default_factory=dict)
    made: dict[Block, list[Operation]] = field(default_factory=dict)


class GradEmitter:
    """Builds adjoint ops at one insertion point, each with the location and the
    pipeline stage (`mindir.pipeline_stage`: a backward op runs on its forward
    op's stage, as in MindSpore) of the forward op it differentiates (`at`)."""

    def __init__(
        self,
        point: InsertPoint,
        location: Any = None,
        created: list[Operation] | None = None,
        stage: Attribute | None = None,
        constants: _Constants | None = None,
    ):
        self.builder = Builder(point)
        self.location = location
        self.stage = stage
        #: every op built (shared by the emitters of one expansion), for `erase_unused`
        self.created: list[Operation] = [] if created is None else created
        #: the constants made once per block (`constant`), shared like `created`
        self.constants = _Constants() if constants is None else constants

    def at(self, point: InsertPoint) -> GradEmitter:
        """An emitter at another point that shares this one's list of created ops."""
        return GradEmitter(point, self.location, self.created, self.stage, self.constants)

    def _stamp(self, op: Operation) -> None:
        """Give `op` (and the ops in it) this emitter's location and stage; remember it."""
        if self.location is not None:
            op.location = self.location
        if self.stage is not None:
            for inner in op.walk():
                inner.attributes.setdefault(PIPELINE_STAGE_ATTR, self.stage)
        self.created.append(op)

    def op(self, op: Operation) -> Operation:
        self._stamp(op)
        return self.builder.insert(op)

    def erase_unused(self) -> None:
        """Erase the built ops nothing uses (a rule computes the adjoint of every
        operand; only the varying ones are kept), last first."""
        for op in reversed(self.created):
            if op.parent is not None and op.results and not any(r.uses for r in op.results):
                op.detach()
                op.erase()
        self.created.clear()

    def v(self, op: Operation) -> SSAValue:
        return self.op(op).results[0]

    # --- constants --------------------------------------------------------------------
    def constant(self, key: object, make: Callable[[], Operation]) -> SSAValue:
        """The result of `make()` (a constant, or a broadcast of one made here before),
        made once per block and stage, at the start of the block.

        Rules ask for the same few constants again and again (the seed's ones, the
        zeros of an adjoint, the 1 of `1 - y`): made per use they were a fifth of the
        sentiment model's backward (2,310 constants and 1,197 broadcasts that cse then
        merged). At the start of the block they dominate every op the expansion
        puts there."""
        block = self.builder.insertion_point.block
        k = (block, self.stage, key)
        value = self.constants.values.get(k)
        if value is not None and value.owner.parent is block:  # type: ignore[union-attr]
            return value
        op = make()
        self._stamp(op)
        made = self.constants.made.setdefault(block, [])
        while made and made[-1].parent is not block:  # erased as unused since
            made.pop()
        if made:
            block.insert_op_after(op, made[-1])
        elif block.first_op is None:
            block.add_op(op)
        else:
            block.insert_op_before(op, block.first_op)
        made.append(op)
        value = self.constants.values[k] = op.results[0]
        return value

    def scalar(self, value: float, element: Attribute) -> SSAValue:
        number = float(value) if S.is_float(element) else int(value)
        attr = DenseIntOrFPElementsAttr.from_list(S.tensor_type((), element), [number])
        key = ("scalar", element, repr(number))  # repr: -0.0 and nan apart
        return self.constant(key, lambda: M.ConstantOp.make([], {"value": attr}))

    def full(self, value: float, t: Attribute) -> SSAValue:
        """A tensor of type `t` with every element `value` (a scalar broadcast)."""
        assert isinstance(t, TensorType)
        s = self.scalar(value, t.get_element_type())
        shape = tuple(t.get_shape())
        if shape == ():
            return s
        key = ("full", t, repr(float(value)))
        return self.constant(key, lambda: M.BroadcastToOp.get(s, shape))

    def zeros(self, t: Attribute) -> SSAValue:
        """Zeros of `t`; for a loop's record (`tensor<?x...>`), an empty one."""
        if isinstance(t, TensorType) and DYNAMIC_INDEX in t.get_shape():
            return self.v(M.StackNewOp.get(item_type(t)))
        return self.full(0, t)

    # --- shapes -------------------------------------------------------------------
    def reshape(self, x: SSAValue, shape: Sequence[int]) -> SSAValue:
        if shape_of(x) == tuple(shape):
            return x
        return self.v(M.ReshapeOp.get(x, tuple(shape)))

    def broadcast_to(self, x: SSAValue, shape: Sequence[int]) -> SSAValue:
        if shape_of(x) == tuple(shape):
            return x
        return self.v(M.BroadcastToOp.get(x, tuple(shape)))

    def reduce_sum(self, x: SSAValue, axes: Sequence[int], keep_dims: bool = False) -> SSAValue:
        return self.v(M.ReduceSumOp.get(x, tuple(axes), keep_dims))

    def sum_to(self, g: SSAValue, shape: Sequence[int]) -> SSAValue:
        """`g` summed over the axes numpy broadcasting added or stretched to get it from `shape`."""
        shape = tuple(shape)
        gshape = shape_of(g)
        if gshape == shape:
            return g
        lead = len(gshape) - len(shape)
        axes = list(range(lead))
        axes += [lead + i for i, d in enumerate(shape) if d == 1 and gshape[lead + i] != 1]
        if axes:
            g = self.reduce_sum(g, axes)
        return self.reshape(g, shape)

    def cast(self, x: SSAValue, element: Attribute) -> SSAValue:
        if element_of(x) == element:
            return x
        return self.v(M.CastOp.get(x, element))

    # --- arithmetic with folds -----------------------------------------------------------
    def _result_shape(self, a: SSAValue, b: SSAValue) -> tuple[int, ...]:
        return tuple(S.broadcast_shapes([shape_of(a), shape_of(b)]))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        shape = self._result_shape(a, b)
        for x, y in ((a, b), (b, a)):
            if splat_value(y) == 1 and shape_of(x) == shape:
                return x
        return self.v(M.MulOp.get(a, b))

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        shape = self._result_shape(a, b)
        for x, y in ((a, b), (b, a)):
            if splat_value(y) == 0 and shape_of(x) == shape:
                return x
        joined = self._join_disjoint(a, b)
        if joined is not None:
            return joined
        return self.v(M.AddOp.get(a, b))

    def _join_disjoint(self, a: SSAValue, b: SSAValue) -> SSAValue | None:
        """a + b as one concat, when both are concats along one axis whose non-zero
        pieces do not overlap (see the module doc); else None."""
        if a.type != b.type:
            return None
        pa, pb = _concat_pieces(a), _concat_pieces(b)
        if pa is None or pb is None or pa[0] != pb[0]:
            return None
        axis = pa[0]
        spans = sorted(pa[1] + pb[1], key=lambda span: span[0])
        for (_, stop, _), (start, _, _) in zip(spans, spans[1:]):
            if start < stop:
                return None  # overlapping: a real sum
        pieces: list[SSAValue] = []
        at = 0
        for start, stop, value in spans + [(shape_of(a)[axis], 0, None)]:
            if start > at:
                gap = list(shape_of(a))
                gap[axis] = start - at
                pieces.append(self.zeros(S.tensor_type(gap, element_of(a))))
            if value is not None:
                pieces.append(value)
            at = stop
        return self.v(M.ConcatOp.get(pieces, axis))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        if splat_value(b) == 0 and shape_of(a) == self._result_shape(a, b):
            return a
        return self.v(M.SubOp.get(a, b))

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        if splat_value(b) == 1 and shape_of(a) == self._result_shape(a, b):
            return a
        return self.v(M.DivOp.get(a, b))

    def neg(self, a: SSAValue) -> SSAValue:
        return self.v(M.NegOp.get(a))

    def select(self, cond: SSAValue, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.v(M.SelectOp.get(cond, x, y))

    def mask(self, cond: SSAValue, g: SSAValue) -> SSAValue:
        """`g` where `cond`, else 0 (shaped like their broadcast)."""
        return self.select(cond, g, self.scalar(0, element_of(g)))

    def compare(self, cls: type, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(cls.get(a, b))

    def unary(self, cls: type, a: SSAValue) -> SSAValue:
        return self.v(cls.get(a))
