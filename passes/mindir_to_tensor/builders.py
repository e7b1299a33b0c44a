"""Emitters shared by the convert-mindir-to-tensor patterns.

`Emitter` inserts upstream ops before the op being lowered and gives each one that
op's location, so an error found on the lowered IR still points at the source line.
It knows the few shapes of IR every pattern needs: scalar constants, `tensor.empty`
(optionally `linalg.fill`ed), reshapes by reassociation, and the one all-parallel
`linalg.generic` with explicit broadcasting that every pointwise op becomes.

Broadcasting is made explicit the way linalg wants it: an operand of lower rank is
indexed by the trailing loop dimensions, and an operand dimension of size 1 that is
broadcast against a larger result dimension is first removed with
`tensor.collapse_shape`, so every indexing map is a projected permutation, e.g.
`(d0, d1) -> (d1)` or, for a rank-0 operand, `(d0, d1) -> ()`.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

from xdsl.builder import Builder
from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    i1,
    i32,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.rewriter import InsertPoint

from mindjit.dialects.mindir import shapes as S

OpT = TypeVar("OpT", bound=Operation)
Shape = tuple[int, ...]

#: `body(emitter, scalar_args) -> scalar`: the per-element computation of a generic.
ScalarBody = Callable[["Emitter", Sequence[SSAValue]], SSAValue]


#: The shared values of the graph being lowered (`hoisting`): per thread, since a
#: compile may run in any thread.
_HOISTED = threading.local()


@contextmanager
def hoisting() -> Iterator[None]:
    """While lowering: `tensor.empty` and scalar constants are made once per block,
    at its start, and shared by every op that needs one (see `Emitter.shared`)."""
    saved = getattr(_HOISTED, "table", None)
    _HOISTED.table = {}
    try:
        yield
    finally:
        _HOISTED.table = saved


class Emitter:
    """Insert ops through `builder`, each located at `loc`."""

    def __init__(self, builder: Builder, loc: Attribute):
        self.builder = builder
        self.loc = loc

    @staticmethod
    def at_end(block: Block, loc: Attribute) -> Emitter:
        return Emitter(Builder(InsertPoint.at_end(block)), loc)

    def emit(self, op: OpT) -> OpT:
        op.location = self.loc  # type: ignore[assignment]
        self.builder.insert(op)
        return op

    def value(self, op: Operation) -> SSAValue:
        return self.emit(op).results[0]

    def shared(self, key: Hashable, make: Callable[[], Operation]) -> SSAValue:
        """The result of `make()` (an op without operands, or reading only shared values
        made before it), made once per block.

        Every pointwise op, reduction and matmul needs a `tensor.empty` of its
        result type and most a scalar constant; made per use they were a quarter of
        the lowered ops, all merged again by cse (6,117 of 6,133 `tensor.empty` of a
        32-Block train step). Shared values go at the start of the block of the op
        being lowered (in the order they are made), which dominates its ops. Per
        block, not per function: an `scf.while` whose condition region captures a
        `tensor.empty` from outside crashes IREE 3.13's stream conversion, so what
        a region needs is made in it (cse later merges it with an identical value
        defined before the region, as before). A block not yet in a function (a
        linalg body being built) gets its own ops."""
        table = getattr(_HOISTED, "table", None)
        block = self.builder.insertion_point.block
        if table is None or _function_of(block) is None:
            return self.value(make())
        value = table.get((block, key))
        if value is None or value.owner.parent is None:  # none yet, or erased as dead
            op = make()
            op.location = self.loc  # type: ignore[assignment]
            made: set[Operation] = table.setdefault(("made", block), set())
            for operand in op.operands:  # shared values made before, or from outside
                owner = operand.owner
                assert (
                    not isinstance(owner, Operation) or owner.parent is not block or (owner in made)
                ), f"a shared {op.name} reads {operand}, not a shared value"
            # the shared values stay at the start of the block in the order they were made
            last = table.get(block)
            if last is not None and last.parent is not block:  # erased as dead since
                last = None
                for first in block.ops:
                    if first not in made:
                        break
                    last = first
            if last is not None:
                block.insert_op_after(op, last)
            elif block.first_op is None:
                block.add_op(op)
            else:
                block.insert_op_before(op, block.first_op)
            table[block] = op
            made.add(op)
            value = table[(block, key)] = op.results[0]
        return value

    def derived(self, key: Hashable, x: SSAValue, make: Callable[[Emitter], SSAValue]) -> SSAValue:
        """`make(self)`, a value computed from `x` alone, made once and reused by the
        later ops it dominates.

        An unrolled RNN multiplies by the transposed recurrent weight once per step:
        made per use, the sentiment train step had 200 `linalg.transpose` of four
        weights, which xDSL's cse cannot merge (it leaves ops with regions alone).
        The value is made where it is first needed (not where `x` is defined: that
        would keep every transposed weight alive from the graph's start, a larger
        device memory peak), and reused when the op being lowered is in its block
        or nested in it: the lowering walks each block forward, so those ops come
        after it. Outside a lowering (`hoisting`) it is made each time."""
        table = getattr(_HOISTED, "table", None)
        if table is None:
            return make(self)
        value = table.get(("derived", x, key))
        if value is not None and value.owner.parent is not None:
            home = value.owner.parent
            block: Block | None = self.builder.insertion_point.block
            while block is not None and block is not home:
                parent = block.parent_op()
                block = parent.parent if parent is not None else None
            if block is home:
                return value
        value = table[("derived", x, key)] = make(self)
        return value

    # --- scalars ---------------------------------------------------------------------
    def scalar(self, element: Attribute, value: float | int | bool) -> SSAValue:
        """An `arith.constant` of one element (i1 takes a bool). An unsigned type's
        is a signless constant of the same bits bitcast to it: arith.constant
        takes signless integers only (see mindir_to_tensor/scalar.py)."""
        if isinstance(element, AnyFloat):
            value = float(value)
            attr_class: type = FloatAttr
        elif isinstance(element, IntegerType):
            value = int(value)
            if element == i1:
                value = 1 if value else 0
            if element.signedness.data == Signedness.UNSIGNED:
                bits = self.scalar(IntegerType(element.width.data), value)
                key = ("scalar", element, int, repr(value))
                return self.shared(key, lambda: arith.BitcastOp(bits, element))
            attr_class = IntegerAttr
        else:  # pragma: no cover - mindir's verifiers only allow int and float
            raise TypeError(f"no scalar constant of type {element}")
        key = ("scalar", element, type(value), repr(value))  # repr: -0.0 and nan apart
        # the attribute is built only when the block has no such constant yet
        return self.shared(key, lambda: arith.ConstantOp(attr_class(value, element)))

    # --- tensors ---------------------------------------------------------------------
    def empty(self, shape: Sequence[int], element: Attribute) -> SSAValue:
        t = S.tensor_type(shape, element)
        return self.shared(("empty", t), lambda: tensor.EmptyOp.create(result_types=[t]))

    def filled(
        self,
        shape: Sequence[int],
        element: Attribute,
        value: float | int | bool,
        shared: bool = True,
    ) -> SSAValue:
        """`linalg.fill ins(value) outs(tensor.empty)`: an accumulator's initial value,
        made once per block like `tensor.empty` (`shared`): a matmul or reduction
        only reads its init, and xDSL's cse leaves ops with regions alone, so the
        sentiment train step kept 818 fills (and their bodies) of 5 kinds. A fill
        that is written into (padding's destination) is made where it is used
        (`shared=False`): at the block's start it would hold its memory from there
        (the device's memory plan: a larger peak)."""
        scalar = self.scalar(element, value)
        init = self.empty(shape, element)

        def make() -> Operation:
            block = Block(arg_types=[element, element])  # FillOp's hidden region, built directly
            block.add_op(linalg.YieldOp.create(operands=[block.args[0]]))
            return linalg.FillOp.create(
                operands=[scalar, init],
                result_types=[init.type],
                properties={"operandSegmentSizes": _SEGMENTS_1_1},
                regions=[Region(block)],
            )

        if not shared:
            return self.value(make())
        return self.shared(("filled", init.type, type(value), repr(value)), make)

    def matmul(self, a: SSAValue, b: SSAValue, acc: SSAValue) -> SSAValue:
        """`linalg.matmul ins(a, b) outs(acc)` (its hidden region built directly, without
        xDSL's implicit builder: a model has a matmul per Dense layer)."""
        return self.value(
            linalg.MatmulOp.create(
                operands=[a, b, acc],
                result_types=[acc.type],
                properties={"operandSegmentSizes": _SEGMENTS_2_1},
                regions=[_multiply_accumulate(_element(acc))],
            )
        )

    def transpose(self, x: SSAValue, perm: Sequence[int], init: SSAValue) -> SSAValue:
        """`linalg.transpose ins(x) outs(init)`, its hidden region built directly
        (xDSL's constructor builds it with the implicit builder: ~0.2 ms a transpose,
        and a GPT train step transposes a weight per matmul of its backward)."""
        block = Block(arg_types=[_element(x), _element(init)])
        block.add_op(linalg.YieldOp.create(operands=[block.args[0]]))
        return self.value(
            linalg.TransposeOp.create(
                operands=[x, init],
                result_types=[init.type],
                properties={"permutation": index_array(tuple(perm))},
                regions=[Region(block)],
            )
        )

    def convolution(
        self, named: type[Operation], ins: Sequence[SSAValue], acc: SSAValue, **props: Attribute
    ) -> SSAValue:
        """A linalg convolution `named` (`linalg.conv_2d_nchw_fchw`, ...) into `acc`,
        its multiply-accumulate body built directly like `matmul`'s (mindir.conv2d's
        input, weight and result have one element type: no extension in the body)."""
        return self.value(
            named.create(
                operands=[*ins, acc],
                result_types=[acc.type],
                properties={**props, "operandSegmentSizes": _segments(len(ins), 1)},
                regions=[_multiply_accumulate(_element(acc))],
            )
        )

    def collapse(
        self, value: SSAValue, groups: Sequence[Sequence[int]], shape: Sequence[int]
    ) -> SSAValue:
        """`value` with its dims merged by `groups` into `shape`, once per value
        (`derived`: a broadcast operand is collapsed the same way for each user)."""
        t = S.tensor_of(value.type)
        undone = _undone(value, tensor.ExpandShapeOp, groups, shape)
        if undone is not None:
            return undone

        def make(here: Emitter) -> SSAValue:
            op = tensor.CollapseShapeOp.create(
                operands=[value],
                result_types=[S.tensor_type(shape, t.get_element_type())],
                properties={"reassociation": _reassociation(_groups_key(groups))},
            )
            return here.value(op)

        return self.derived(("collapse", _groups_key(groups), tuple(shape)), value, make)

    def expand(
        self, value: SSAValue, groups: Sequence[Sequence[int]], shape: Sequence[int]
    ) -> SSAValue:
        t = S.tensor_of(value.type)
        result = S.tensor_type(shape, t.get_element_type())
        if not t.get_shape():
            # MLIR accepts `tensor.expand_shape %x [] ...` from rank 0 but xDSL's
            # verifier does not; one element is moved by extract + from_elements.
            element = self.value(tensor.ExtractOp(value, [], t.get_element_type()))
            return self.value(tensor.FromElementsOp(element, result_type=result))
        undone = _undone(value, tensor.CollapseShapeOp, groups, shape)
        if undone is not None:
            return undone
        key = _groups_key(groups)
        return self.derived(
            ("expand", key, tuple(shape)),
            value,
            lambda here: here.value(
                tensor.ExpandShapeOp.create(  # the generic constructor, cached attributes
                    operands=[value],
                    result_types=[result],
                    properties={
                        "reassociation": _reassociation(key),
                        "static_output_shape": index_array(tuple(shape)),
                    },
                )
            ),
        )

    def reshape(self, value: SSAValue, shape: Sequence[int]) -> SSAValue:
        """Same elements, new static shape, with collapse/expand_shape only.

        One collapse or one expand when a reassociation exists; otherwise (e.g.
        2x3 -> 3x2) a collapse to 1-D followed by an expand, which always exists for
        static shapes and keeps to ops every consumer supports (no tensor.reshape).
        """
        src = tuple(S.tensor_of(value.type).get_shape())
        dst = tuple(shape)
        if src == dst:
            return value
        if len(dst) < len(src) and (groups := find_reassociation(src, dst)) is not None:
            return self.collapse(value, groups, dst)
        if len(dst) > len(src) and (groups := find_reassociation(dst, src)) is not None:
            return self.expand(value, groups, dst)
        # Both ranks are >= 1 here: a rank-0 side always has a reassociation.
        flat = (
            value
            if len(src) == 1
            else self.collapse(value, [list(range(len(src)))], (_numel(src),))
        )
        if len(dst) == 1:
            return flat
        return self.expand(flat, [list(range(len(dst)))], dst)

    def drop_unit_dims(self, value: SSAValue, keep: Sequence[bool]) -> SSAValue:
        """Collapse away the size-1 dims whose `keep` entry is False."""
        if all(keep):
            return value
        shape = S.tensor_of(value.type).get_shape()
        kept = tuple(d for d, k in zip(shape, keep) if k)
        return self.collapse(value, unit_dim_groups(keep), kept)

    def extract_slice(
        self,
        source: SSAValue,
        offsets: Sequence[int],
        sizes: Sequence[int],
        strides: Sequence[int],
        result: Attribute,
    ) -> SSAValue:
        """`tensor.extract_slice` with static offsets, sizes and strides, built with
        `create` and cached index arrays (xDSL's constructor builds and checks three
        arrays per slice: 60 us; an unrolled LSTM slices its gates 800 times)."""
        return self.value(
            tensor.ExtractSliceOp.create(
                operands=[source],
                result_types=[result],
                properties={
                    "static_offsets": index_array(tuple(offsets)),
                    "static_sizes": index_array(tuple(sizes)),
                    "static_strides": index_array(tuple(strides)),
                    "operandSegmentSizes": _SEGMENTS_SLICE,
                },
            )
        )

    # --- linalg ----------------------------------------------------------------------
    def generic(
        self,
        inputs: Sequence[SSAValue],
        init: SSAValue,
        maps: Sequence[AffineMap],
        iterators: Sequence[str],
        body: ScalarBody,
    ) -> SSAValue:
        """A `linalg.generic` with one output; `body` gets the scalar ins then the out."""
        arg_types = [S.tensor_of(v.type).get_element_type() for v in (*inputs, init)]
        block = Block(arg_types=arg_types)
        inner = Emitter.at_end(block, self.loc)
        inner.emit(linalg.YieldOp.create(operands=[body(inner, list(block.args))]))
        op = linalg.GenericOp.create(  # the generic constructor: the verifier checks it
            operands=[*inputs, init],
            result_types=[init.type],
            properties={
                "indexing_maps": _maps_attr(tuple(maps)),
                "iterator_types": _iterators_attr(tuple(iterators)),
                "operandSegmentSizes": _segments(len(inputs), 1),
            },
            regions=[Region(block)],
        )
        return self.value(op)

    def elementwise(
        self, inputs: Sequence[SSAValue], result: TensorType, body: ScalarBody
    ) -> SSAValue:
        """One all-parallel generic over `result`'s shape, operands broadcast (numpy rules).

        `body` receives the scalar inputs only (the output's block argument is unused).
        """
        out_shape = tuple(result.get_shape())
        rank = len(out_shape)
        operands: list[SSAValue] = []
        maps: list[AffineMap] = []
        for value in inputs:
            shape = tuple(S.tensor_of(value.type).get_shape())
            offset = rank - len(shape)
            keep = [not (d == 1 and out_shape[offset + j] != 1) for j, d in enumerate(shape)]
            operands.append(self.drop_unit_dims(value, keep))
            maps.append(_projection(rank, tuple(offset + j for j, k in enumerate(keep) if k)))
        maps.append(_projection(rank, tuple(range(rank))))
        init = self.empty(out_shape, result.get_element_type())
        n = len(operands)
        return self.generic(
            operands, init, maps, ["parallel"] * rank, lambda e, args: body(e, args[:n])
        )


@functools.lru_cache(maxsize=64)
def _segments(*sizes: int) -> DenseArrayBase:
    """`operandSegmentSizes` (8 us to build: each distinct one is built once)."""
    return DenseArrayBase.from_list(i32, list(sizes))


_SEGMENTS_1_1 = _segments(1, 1)
_SEGMENTS_2_1 = _segments(2, 1)
_SEGMENTS_SLICE = _segments(1, 0, 0, 0)  # a source, no dynamic offsets, sizes, strides


@functools.lru_cache(maxsize=4096)
def index_array(values: tuple[int, ...]) -> DenseArrayBase:
    """A static index list (attributes are immutable: each distinct one built once)."""
    return DenseArrayBase.from_list(i64, list(values))


_ITERATORS = {
    "parallel": IteratorTypeAttr.parallel(),
    "reduction": IteratorTypeAttr.reduction(),
}


@functools.lru_cache(maxsize=4096)
def _maps_attr(maps: tuple[AffineMap, ...]) -> ArrayAttr:
    """Maps repeat across a graph's ops: each list of them is built (and verified) once."""
    return ArrayAttr([AffineMapAttr(m) for m in maps])


@functools.lru_cache(maxsize=256)
def _iterators_attr(iterators: tuple[str, ...]) -> ArrayAttr:
    return ArrayAttr([_ITERATORS[it] for it in iterators])


@functools.lru_cache(maxsize=4096)
def _projection(rank: int, dims: tuple[int, ...]) -> AffineMap:
    """`(d0, ..., d{rank-1}) -> (d{dims[0]}, ...)`, built once per form."""
    return AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in dims))


def _function_of(block: Block | None) -> func.FuncOp | None:
    op = block.parent_op() if block is not None else None
    while op is not None and not isinstance(op, func.FuncOp):
        op = op.parent_op()
    return op


def _element(value: SSAValue) -> Attribute:
    return S.tensor_of(value.type).get_element_type()


def _multiply_accumulate(element: Attribute) -> Region:
    """The body of a matmul or convolution of one element type, `out + a * b`
    (addf/mulf, or addi/muli for integers), as xDSL's constructors build it."""
    block = Block(arg_types=[element, element, element])
    mul, add = (
        (arith.MulfOp, arith.AddfOp)
        if isinstance(element, AnyFloat)
        else (arith.MuliOp, arith.AddiOp)
    )
    product = mul.create(operands=[block.args[0], block.args[1]], result_types=[element])
    total = add.create(operands=[product.results[0], block.args[2]], result_types=[element])
    block.add_ops([product, total, linalg.YieldOp.create(operands=[total.results[0]])])
    return Region(block)


def _undone(
    value: SSAValue, inverse: type[Operation], groups: Sequence[Sequence[int]], shape: Sequence[int]
) -> SSAValue | None:
    """The source of `value` when `value` is an `inverse` reshape (an expand_shape for a
    collapse, a collapse_shape for an expand) with the same groups, from a tensor of
    `shape`: the reshape about to be made would undo it (MLIR folds the pair the
    same way, `foldReshapeOp`). A keep-dims reduction broadcast back had two steps:
    the 8-Block forward's 12 reshapes per Block, 0.07 ms."""
    op = value.owner
    if not isinstance(op, inverse) or op.reassociation != _reassociation(_groups_key(groups)):
        return None
    source = op.operands[0]
    if tuple(S.tensor_of(source.type).get_shape()) != tuple(shape):
        return None
    return source


def _groups_key(groups: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(map(tuple, groups))


@functools.lru_cache(maxsize=1024)
def _reassociation(groups: tuple[tuple[int, ...], ...]) -> ArrayAttr:
    """A reshape's dim groups, each distinct one built once (an IntegerAttr per dim,
    each verified: ~50 us for a 4-D collapse's)."""
    return ArrayAttr([ArrayAttr([IntegerAttr(i, i64) for i in g]) for g in groups])


def unit_dim_groups(keep: Sequence[bool]) -> list[list[int]]:
    """Reassociation that drops the dims with `keep[i]` False (all of size 1).

    Each dropped dim joins the group of the nearest kept dim before it (leading ones
    join the first kept dim); no kept dim at all gives `[]` (a rank-0 result).
    """
    kept = [i for i, k in enumerate(keep) if k]
    if not kept:
        return []
    groups: list[list[int]] = [[] for _ in kept]
    g = 0
    for i, k in enumerate(keep):
        if k and i != kept[0]:
            g += 1
        groups[g].append(i)
    return groups


def find_reassociation(big: Shape, small: Shape) -> list[list[int]] | None:
    """Groups of consecutive `big` dims whose products are the `small` dims, if any."""
    if 0 in big or 0 in small:
        return None
    if not small:
        return [] if all(d == 1 for d in big) else None
    groups: list[list[int]] = []
    i = 0
    for target in small:
        group: list[int] = []
        product = 1
        while i < len(big) and (not group or product < target):
            group.append(i)
            product *= big[i]
            i += 1
        if product != target:
            return None
        groups.append(group)
    if any(big[j] != 1 for j in range(i, len(big))):
        return None
    groups[-1].extend(range(i, len(big)))
    return groups


def _numel(shape: Shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n
