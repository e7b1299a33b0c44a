"""mindir's data-movement ops: reshape, broadcast_to, transpose, concat, stack,
unstack and get_item, with the stack/unstack folds canonicalize applies."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, TensorType, f64, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.printer import Printer
from xdsl.traits import HasCanonicalizationPatternsTrait, Pure
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.format import TypedOp, int_prop, ints_prop
from mindjit.dialects.mindir.reduce import i64_array


class ToShapeOp(TypedOp):
    """Ops whose result shape is chosen by the builder and checked by the verifier."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def check(cls, src: S.Shape, dst: S.Shape) -> None:
        raise NotImplementedError

    def verify_(self) -> None:
        x = S.tensor_of(self.input.type, "input")
        r = S.tensor_of(self.result.type, "result")
        if x.get_element_type() != r.get_element_type():
            raise VerifyException(
                f"result element type {r.get_element_type()} differs from input element type {x.get_element_type()}"
            )
        self.check(x.get_shape(), r.get_shape())

    @classmethod
    def get(cls, x: SSAValue, shape: Sequence[int]):
        t = S.tensor_of(SSAValue.get(x).type, "input")
        op = cls.create(
            operands=[SSAValue.get(x)], result_types=[S.tensor_type(shape, t.get_element_type())]
        )
        cls.check(t.get_shape(), tuple(shape))
        return op


@irdl_op_definition
class ReshapeOp(ToShapeOp):
    """`reshape`: same elements, new static shape (given by the result type)."""

    name = "mindir.reshape"

    @classmethod
    def check(cls, src, dst):
        S.reshape_check(src, dst)


@irdl_op_definition
class BroadcastToOp(ToShapeOp):
    """`broadcast_to`: numpy broadcasting to the result type's shape."""

    name = "mindir.broadcast_to"

    @classmethod
    def check(cls, src, dst):
        S.broadcast_to_check(src, dst)


@irdl_op_definition
class TransposeOp(TypedOp):
    """`transpose {perm}`: result axis i is input axis perm[i]."""

    name = "mindir.transpose"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    perm = prop_def(DenseArrayBase.constr(i64))
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        x = S.tensor_of(operand_types[0], "input")
        return S.tensor_type(
            S.transpose_shape(x.get_shape(), ints_prop(props, "perm")), x.get_element_type()
        )

    @classmethod
    def get(cls, x: SSAValue, perm: Sequence[int]) -> TransposeOp:
        return cls.make([x], {"perm": i64_array(perm)})


class StackCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (StackOfUnstack(),)


class UnstackCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (UnstackOfStack(),)


class JoinOp(TypedOp):
    """concat/stack: several tensors of one element type joined along `axis`."""

    inputs = var_operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr, IntegerAttr(0, i64))
    traits = traits_def(Pure())

    @classmethod
    def join_shape(cls, shapes, axis):
        raise NotImplementedError

    @classmethod
    def infer_result(cls, operand_types, props):
        tensors = [S.tensor_of(t, f"input #{i}") for i, t in enumerate(operand_types)]
        if not tensors:
            raise VerifyException(f"{cls.name} needs at least one input")
        element = S.same_element_type(tensors, cls.name)
        shape = cls.join_shape([t.get_shape() for t in tensors], int_prop(props, "axis"))
        return S.tensor_type(shape, element)

    @classmethod
    def get(cls, inputs: Sequence[SSAValue], axis: int = 0):
        return cls.make(list(inputs), {"axis": IntegerAttr(axis, i64)})


@irdl_op_definition
class ConcatOp(JoinOp):
    name = "mindir.concat"

    @classmethod
    def join_shape(cls, shapes, axis):
        return S.concat_shape(shapes, axis)


@irdl_op_definition
class StackOp(JoinOp):
    name = "mindir.stack"
    traits = traits_def(Pure(), StackCanonicalization())

    @classmethod
    def join_shape(cls, shapes, axis):
        return S.stack_shape(shapes, axis)


@irdl_op_definition
class UnstackOp(IRDLOperation):
    """`%r:3 = mindir.unstack %x {axis = 0 : i64} : tensor<3x2xf32> -> tensor<2xf32>`:
    the slices of `x` along `axis`, one result each (the inverse of `stack`).

    One op for all the pieces keeps a sequence of equal tensors compact (HyperMap
    over stacked elements gives its results this way); the result count is the
    axis' size, so the assembly names the piece type once.
    """

    name = "mindir.unstack"
    input = operand_def(TensorType)
    pieces = var_result_def(TensorType)
    axis = prop_def(IntegerAttr, IntegerAttr(0, i64))
    traits = traits_def(Pure(), UnstackCanonicalization())

    @staticmethod
    def piece_type(x: Attribute, axis: int) -> tuple[TensorType, int, int]:
        """(type of each piece, normalized axis, number of pieces) of unstacking `x`."""
        t = S.tensor_of(x, "input")
        shape = list(t.get_shape())
        if not shape:
            raise VerifyException("unstack needs an input of rank >= 1, got a scalar tensor")
        ax = S.normalize_axis(axis, len(shape))
        n = shape.pop(ax)
        if n < 0:
            raise VerifyException("unstack needs a static size on its axis")
        return S.tensor_type(shape, t.get_element_type()), ax, n

    @classmethod
    def get(cls, x: SSAValue, axis: int = 0) -> UnstackOp:
        piece, ax, n = cls.piece_type(x.type, axis)
        return cls.create(
            operands=[x], result_types=[piece] * n, properties={"axis": IntegerAttr(ax, i64)}
        )

    def verify_(self) -> None:
        piece, _, n = self.piece_type(self.input.type, self.axis.value.data)
        if len(self.pieces) != n:
            raise VerifyException(
                f"unstack of {self.input.type} along axis {self.axis.value.data} has {n} "
                f"pieces, got {len(self.pieces)} results"
            )
        for r in self.pieces:
            if r.type != piece:
                raise VerifyException(f"result type {r.type} does not match the piece type {piece}")

    @classmethod
    def parse(cls, parser: Parser) -> UnstackOp:
        x = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        axis = attrs.pop("axis", IntegerAttr(0, i64))
        parser.parse_punctuation(":")
        pos = parser.pos
        x_type = parser.parse_type()
        parser.parse_punctuation("->")
        piece_pos = parser.pos
        written = parser.parse_type()
        if not isinstance(axis, IntegerAttr):
            parser.raise_error(f"property 'axis' must be an integer, got {axis}", pos, pos)
        try:
            piece, ax, n = cls.piece_type(x_type, axis.value.data)
        except VerifyException as exc:
            parser.raise_error(str(exc), pos, piece_pos)
        if written != piece:
            parser.raise_error(
                f"unstack of {x_type} along axis {ax} gives {piece}, not {written}",
                piece_pos,
                parser.pos,
            )
        (value,) = parser.resolve_operands([x], [x_type], pos)
        return cls.create(
            operands=[value],
            result_types=[piece] * n,
            properties={"axis": IntegerAttr(ax, i64)},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        shown = dict(self.attributes)
        if self.axis.value.data != 0:
            shown = {"axis": self.axis, **shown}
        if shown:
            printer.print_string(" ")
            printer.print_attr_dict(shown)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.piece_type(self.input.type, self.axis.value.data)[0])


@irdl_op_definition
class GetItemOp(TypedOp):
    """`x[start:limit:stride, ..., i]` with constant indices.

    starts/limits/strides cover every input axis (normalized, non-negative, positive
    strides); `squeeze` lists the axes indexed by an integer, dropped from the result.
    """

    name = "mindir.get_item"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    starts = prop_def(DenseArrayBase.constr(i64))
    limits = prop_def(DenseArrayBase.constr(i64))
    strides = prop_def(DenseArrayBase.constr(i64))
    squeeze = prop_def(DenseArrayBase.constr(i64), i64_array([]))
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        x = S.tensor_of(operand_types[0], "input")
        shape = S.slice_shape(
            x.get_shape(),
            ints_prop(props, "starts"),
            ints_prop(props, "limits"),
            ints_prop(props, "strides"),
            ints_prop(props, "squeeze"),
        )
        return S.tensor_type(shape, x.get_element_type())

    @classmethod
    def get(cls, x: SSAValue, starts, limits, strides, squeeze=()) -> GetItemOp:
        return cls.make(
            [x],
            {
                "starts": i64_array(starts),
                "limits": i64_array(limits),
                "strides": i64_array(strides),
                "squeeze": i64_array(squeeze),
            },
        )


def unstacked_source(values: Sequence[SSAValue], axis: int) -> SSAValue | None:
    """The tensor `values` are the pieces of, in order, along `axis` (else None)."""
    if not values:
        return None
    first = values[0]
    owner = first.owner
    if not isinstance(owner, UnstackOp) or len(owner.pieces) != len(values):
        return None
    if owner.axis.value.data != axis:
        return None
    if any(v is not r for v, r in zip(values, owner.pieces)):
        return None
    return owner.input


class StackOfUnstack(RewritePattern):
    """`stack(unstack(x))` along the same axis is `x`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: StackOp, rewriter: PatternRewriter) -> None:
        rank = len(op.result.type.get_shape())
        source = unstacked_source(list(op.inputs), op.axis.value.data % rank)
        if source is not None and source.type == op.result.type:
            rewriter.replace(op, [], [source])


class UnstackOfStack(RewritePattern):
    """The pieces of `unstack(stack(xs))` along the same axis are `xs`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: UnstackOp, rewriter: PatternRewriter) -> None:
        stack = op.input.owner
        if not isinstance(stack, StackOp):
            return
        rank = len(op.input.type.get_shape())
        if stack.axis.value.data % rank != op.axis.value.data:
            return
        rewriter.replace(op, [], list(stack.inputs))


@irdl_op_definition
class PadOp(TypedOp):
    """`pad {low, high, interior, value}`: `low[a]` / `high[a]` elements of `value`
    before / after axis a, and `interior[a]` between its elements (XLA's Pad; a
    negative low or high crops). MindSpore's constant-mode `ops.pad`, and the
    adjoint of a strided slice or convolution."""

    name = "mindir.pad"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    low = prop_def(DenseArrayBase.constr(i64))
    high = prop_def(DenseArrayBase.constr(i64))
    interior = opt_prop_def(DenseArrayBase.constr(i64))  # absent: none
    value = prop_def(FloatAttr, FloatAttr(0.0, f64))
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        x = S.tensor_of(operand_types[0], "input")
        shape = x.get_shape()
        low, high, interior = (ints_prop(props, k) for k in ("low", "high", "interior"))
        interior = interior or (0,) * len(shape)
        if not len(low) == len(high) == len(interior) == len(shape):
            raise VerifyException(
                f"{cls.name} needs low, high and interior for each of the {len(shape)} axes"
            )
        out = []
        for axis, (d, lo, hi, it) in enumerate(zip(shape, low, high, interior)):
            if it < 0:
                raise VerifyException(f"{cls.name} interior on axis {axis} must be >= 0, got {it}")
            n = d + max(d - 1, 0) * it + lo + hi
            if n < 0:
                raise VerifyException(f"{cls.name} crops more than axis {axis} has ({d})")
            out.append(n)
        return S.tensor_type(out, x.get_element_type())

    @classmethod
    def get(cls, x: SSAValue, low, high, interior=None, value: float = 0.0) -> PadOp:
        props = {"low": i64_array(low), "high": i64_array(high)}
        if interior is not None and any(interior):
            props["interior"] = i64_array(interior)
        if value != 0.0:
            props["value"] = FloatAttr(float(value), f64)
        return cls.make([x], props)

    def paddings(self) -> tuple[list[int], list[int], list[int]]:
        """(low, high, interior), interior filled in with zeros when absent."""
        props = dict(self.properties)
        low, high = list(ints_prop(props, "low")), list(ints_prop(props, "high"))
        return low, high, list(ints_prop(props, "interior")) or [0] * len(low)

    def pad_value(self) -> float:
        attr = self.properties.get("value")
        return 0.0 if attr is None else float(attr.value.data)  # type: ignore[union-attr]


@irdl_op_definition
class ReverseOp(TypedOp):
    """`reverse {axis}`: the elements of each listed axis in reverse order
    (MindSpore's ReverseV2, `ops.flip`)."""

    name = "mindir.reverse"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(DenseArrayBase.constr(i64))
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        x = S.tensor_of(operand_types[0], "input")
        rank = len(x.get_shape())
        axes = ints_prop(props, "axis")
        if sorted(set(axes)) != list(axes) or any(not 0 <= a < rank for a in axes):
            raise VerifyException(
                f"{cls.name} axis must be increasing, distinct axes of 0..{rank - 1}, got "
                f"{list(axes)}"
            )
        return x

    @classmethod
    def get(cls, x: SSAValue, axis: Sequence[int]) -> ReverseOp:
        return cls.make([x], {"axis": i64_array(sorted(axis))})


DATA_MOVEMENT_OPS = (
    ReshapeOp,
    BroadcastToOp,
    TransposeOp,
    ConcatOp,
    StackOp,
    UnstackOp,
    GetItemOp,
    PadOp,
    ReverseOp,
)
