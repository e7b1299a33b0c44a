"""mindir's value ops: pure tensor computations with inferred, verified result types.

Broadcasting follows numpy. Result types are inferred by `build(...)`, so passes and
the frontend never spell them out; the verifier recomputes and compares them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
    TupleType,
    i1,
    i64,
)
from xdsl.ir import Attribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, HasCanonicalizationPatternsTrait, Pure
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.format import (
    FALSE,
    TypedOp,
    bool_prop,
    int_prop,
    ints_prop,
)

AnyValue = Attribute


def _i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


# --- constant -------------------------------------------------------------------


@irdl_op_definition
class ConstantOp(TypedOp):
    """`%c = mindir.constant dense<1.0> : tensor<2xf32>`: a folded Python constant."""

    name = "mindir.constant"
    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())

    @classmethod
    def infer_result(cls, operand_types, props):
        value = props.get("value")
        if not isinstance(value, DenseIntOrFPElementsAttr):
            raise VerifyException("constant needs a dense value")
        return value.type

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attrs = parser.parse_optional_attr_dict()
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error("mindir.constant expects a dense<...> : tensor<...> value", pos)
        return cls.create(result_types=[value.type], properties={"value": value}, attributes=attrs)

    def print(self, printer: Printer) -> None:
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" ")
        printer.print_attribute(self.value)


# --- elementwise ----------------------------------------------------------------


class ElementwiseOp(TypedOp):
    """Operands broadcast together; one element type; result keeps it unless it is a compare."""

    ALLOWED: ClassVar[str] = "numeric"  # numeric | float | bool | any
    RESULT_BOOL: ClassVar[bool] = False
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        tensors = [S.tensor_of(t, f"operand #{i}") for i, t in enumerate(operand_types)]
        element = S.same_element_type(tensors, cls.name)
        _check_element_kind(cls.name, cls.ALLOWED, element)
        shape = S.broadcast_shapes([t.get_shape() for t in tensors])
        return S.tensor_type(shape, i1 if cls.RESULT_BOOL else element)


def _check_element_kind(op_name: str, allowed: str, element: Attribute) -> None:
    ok = {
        "numeric": S.is_float(element) or S.is_int(element),
        "float": S.is_float(element),
        "bool": S.is_bool(element),
        "any": True,
    }[allowed]
    if not ok:
        wanted = {"numeric": "int or float", "float": "float", "bool": "i1"}[allowed]
        raise VerifyException(f"{op_name} needs {wanted} elements, got {element}")


class BinaryOp(ElementwiseOp):
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def get(cls, lhs: SSAValue, rhs: SSAValue):
        return cls.build([lhs, rhs])


class UnaryOp(ElementwiseOp):
    input = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def get(cls, x: SSAValue):
        return cls.build([x])


def _binary(op_name: str, allowed: str = "numeric", result_bool: bool = False, doc: str = ""):
    cls = type(
        "".join(p.capitalize() for p in op_name.split("_")) + "Op",
        (BinaryOp,),
        {
            "name": f"mindir.{op_name}",
            "ALLOWED": allowed,
            "RESULT_BOOL": result_bool,
            "__doc__": doc,
            "__annotations__": {"ALLOWED": ClassVar[str], "RESULT_BOOL": ClassVar[bool]},
        },
    )
    return irdl_op_definition(cls)


def _unary(op_name: str, allowed: str = "numeric", doc: str = ""):
    cls = type(
        "".join(p.capitalize() for p in op_name.split("_")) + "Op",
        (UnaryOp,),
        {
            "name": f"mindir.{op_name}",
            "ALLOWED": allowed,
            "__doc__": doc,
            "__annotations__": {"ALLOWED": ClassVar[str]},
        },
    )
    return irdl_op_definition(cls)


AddOp = _binary("add", doc="x + y")
SubOp = _binary("sub", doc="x - y")
MulOp = _binary("mul", doc="x * y")
DivOp = _binary("div", doc="x / y (integers truncate toward zero)")
PowOp = _binary("pow", doc="x ** y")
MaximumOp = _binary("maximum", doc="elementwise max")
MinimumOp = _binary("minimum", doc="elementwise min")
LessOp = _binary("less", "any", True)
LessEqualOp = _binary("less_equal", "any", True)
GreaterOp = _binary("greater", "any", True)
GreaterEqualOp = _binary("greater_equal", "any", True)
EqualOp = _binary("equal", "any", True)
NotEqualOp = _binary("not_equal", "any", True)
LogicalAndOp = _binary("logical_and", "bool")
LogicalOrOp = _binary("logical_or", "bool")

LogicalNotOp = _unary("logical_not", "bool")
NegOp = _unary("neg")
AbsOp = _unary("abs")
ReluOp = _unary("relu", doc="max(x, 0)")
ExpOp = _unary("exp", "float")
LogOp = _unary("log", "float")
TanhOp = _unary("tanh", "float")
SigmoidOp = _unary("sigmoid", "float", doc="1 / (1 + exp(-x))")
SqrtOp = _unary("sqrt", "float")
HSwishOp = _unary("hswish", "float", doc="x * relu6(x + 3) / 6")

COMPARE_OPS = (LessOp, LessEqualOp, GreaterOp, GreaterEqualOp, EqualOp, NotEqualOp)
BINARY_OPS = (
    AddOp,
    SubOp,
    MulOp,
    DivOp,
    PowOp,
    MaximumOp,
    MinimumOp,
    *COMPARE_OPS,
    LogicalAndOp,
    LogicalOrOp,
)
UNARY_OPS = (LogicalNotOp, NegOp, AbsOp, ReluOp, ExpOp, LogOp, TanhOp, SigmoidOp, SqrtOp, HSwishOp)


@irdl_op_definition
class SelectOp(TypedOp):
    """`select(cond, x, y)`: x where cond else y, all three broadcast together."""

    name = "mindir.select"
    cond = operand_def(TensorType)
    true_value = operand_def(TensorType)
    false_value = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        c, x, y = (
            S.tensor_of(t, w)
            for t, w in zip(operand_types, ("condition", "true value", "false value"))
        )
        if c.get_element_type() != i1:
            raise VerifyException(
                f"select condition must have i1 elements, got {c.get_element_type()}"
            )
        element = S.same_element_type([x, y], cls.name)
        return S.tensor_type(
            S.broadcast_shapes([c.get_shape(), x.get_shape(), y.get_shape()]), element
        )

    @classmethod
    def get(cls, cond: SSAValue, x: SSAValue, y: SSAValue) -> SelectOp:
        return cls.build([cond, x, y])


@irdl_op_definition
class CastOp(TypedOp):
    """`cast {to = f16}`: convert every element to another element type."""

    name = "mindir.cast"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    to = prop_def(TypeAttribute)
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        x = S.tensor_of(operand_types[0], "input")
        to = props.get("to")
        if not (isinstance(to, IntegerType) or S.is_float(to)):
            raise VerifyException(f"cast 'to' must be an integer or float type, got {to}")
        return S.tensor_type(x.get_shape(), to)

    @classmethod
    def get(cls, x: SSAValue, to: Attribute) -> CastOp:
        return cls.build([x], {"to": to})


# --- linear algebra and reductions --------------------------------------------------


@irdl_op_definition
class MatMulOp(TypedOp):
    """`matmul(a, b) {transpose_a, transpose_b}`: (batched) matrix product, batch dims broadcast."""

    name = "mindir.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    transpose_a = prop_def(IntegerAttr, FALSE)
    transpose_b = prop_def(IntegerAttr, FALSE)
    traits = traits_def(Pure())
    PROP_DEFAULTS: ClassVar[dict[str, Attribute]] = {"transpose_a": FALSE, "transpose_b": FALSE}

    @classmethod
    def infer_result(cls, operand_types, props):
        a, b = (S.tensor_of(t, w) for t, w in zip(operand_types, ("lhs", "rhs")))
        element = S.same_element_type([a, b], cls.name)
        _check_element_kind(cls.name, "numeric", element)
        shape = S.matmul_shape(
            a.get_shape(),
            b.get_shape(),
            bool_prop(props, "transpose_a"),
            bool_prop(props, "transpose_b"),
        )
        return S.tensor_type(shape, element)

    @classmethod
    def get(
        cls, a: SSAValue, b: SSAValue, transpose_a: bool = False, transpose_b: bool = False
    ) -> MatMulOp:
        return cls.build(
            [a, b],
            {
                "transpose_a": IntegerAttr.from_bool(transpose_a),
                "transpose_b": IntegerAttr.from_bool(transpose_b),
            },
        )


class ReduceOp(TypedOp):
    """Reduce over `axis` (empty: all axes), keeping reduced axes as size 1 if `keep_dims`."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(DenseArrayBase.constr(i64), _i64_array([]))
    keep_dims = prop_def(IntegerAttr, FALSE)
    traits = traits_def(Pure())
    PROP_DEFAULTS: ClassVar[dict[str, Attribute]] = {"keep_dims": FALSE}
    ALLOWED: ClassVar[str] = "numeric"

    @classmethod
    def infer_result(cls, operand_types, props):
        x = S.tensor_of(operand_types[0], "input")
        _check_element_kind(cls.name, cls.ALLOWED, x.get_element_type())
        shape = S.reduce_shape(
            x.get_shape(), ints_prop(props, "axis"), bool_prop(props, "keep_dims")
        )
        return S.tensor_type(shape, x.get_element_type())

    @classmethod
    def get(cls, x: SSAValue, axis: Sequence[int] = (), keep_dims: bool = False):
        return cls.build(
            [x], {"axis": _i64_array(axis), "keep_dims": IntegerAttr.from_bool(keep_dims)}
        )

    def reduced_axes(self) -> tuple[int, ...]:
        """The reduced axes, normalized and sorted (all axes when `axis` is empty)."""
        rank = len(self.input.type.get_shape())  # type: ignore[union-attr]
        axes = ints_prop(dict(self.properties), "axis")
        return tuple(sorted({a % rank for a in axes})) if axes else tuple(range(rank))


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    name = "mindir.reduce_sum"


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    name = "mindir.reduce_mean"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    name = "mindir.reduce_max"


REDUCE_OPS = (ReduceSumOp, ReduceMeanOp, ReduceMaxOp)


# --- shape ops ------------------------------------------------------------------


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
        return cls.build([x], {"perm": _i64_array(perm)})


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
    PROP_DEFAULTS: ClassVar[dict[str, Attribute]] = {"axis": IntegerAttr(0, i64)}

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
        return cls.build(list(inputs), {"axis": IntegerAttr(axis, i64)})


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
    squeeze = prop_def(DenseArrayBase.constr(i64), _i64_array([]))
    traits = traits_def(Pure())
    PROP_DEFAULTS: ClassVar[dict[str, Attribute]] = {"squeeze": _i64_array([])}

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
        return cls.build(
            [x],
            {
                "starts": _i64_array(starts),
                "limits": _i64_array(limits),
                "strides": _i64_array(strides),
                "squeeze": _i64_array(squeeze),
            },
        )


# --- tuples ---------------------------------------------------------------------


@irdl_op_definition
class MakeTupleOp(TypedOp):
    """`make_tuple(a, b, ...) -> tuple<...>`."""

    name = "mindir.make_tuple"
    elements = var_operand_def()
    result = result_def(TupleType)
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        return TupleType(ArrayAttr(tuple(operand_types)))

    @classmethod
    def get(cls, elements: Sequence[SSAValue]) -> MakeTupleOp:
        return cls.build(list(elements))


@irdl_op_definition
class TupleGetItemOp(TypedOp):
    """`tuple_get_item(t) {index}`: one element of a tuple."""

    name = "mindir.tuple_get_item"
    tuple = operand_def(TupleType)
    result = result_def()
    index = prop_def(IntegerAttr)
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        t = operand_types[0]
        if not isinstance(t, TupleType):
            raise VerifyException(f"tuple_get_item needs a tuple, got {t}")
        index = int_prop(props, "index")
        n = len(t.types.data)
        if not 0 <= index < n:
            raise VerifyException(f"index {index} is out of range for a tuple of {n} elements")
        return t.types.data[index]

    @classmethod
    def get(cls, t: SSAValue, index: int) -> TupleGetItemOp:
        return cls.build([t], {"index": IntegerAttr(index, i64)})


@irdl_op_definition
class AddNOp(TypedOp):
    """`addn(tuple)`: the sum of a tuple of tensors of one type."""

    name = "mindir.addn"
    inputs = operand_def(TupleType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        t = operand_types[0]
        if not isinstance(t, TupleType) or not t.types.data:
            raise VerifyException(f"addn needs a non-empty tuple of tensors, got {t}")
        types = [S.tensor_of(e, f"element #{i}") for i, e in enumerate(t.types.data)]
        if any(e != types[0] for e in types):
            raise VerifyException(
                "addn elements must all have one type, got " + ", ".join(map(str, types))
            )
        _check_element_kind(cls.name, "numeric", types[0].get_element_type())
        return types[0]

    @classmethod
    def get(cls, t: SSAValue) -> AddNOp:
        return cls.build([t])


# --- stack / unstack folds (canonicalize) ------------------------------------------


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
            rewriter.replace_op(op, [], [source])


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
        rewriter.replace_op(op, [], list(stack.inputs))


VALUE_OPS = (
    ConstantOp,
    *BINARY_OPS,
    *UNARY_OPS,
    SelectOp,
    CastOp,
    MatMulOp,
    *REDUCE_OPS,
    ReshapeOp,
    BroadcastToOp,
    TransposeOp,
    ConcatOp,
    StackOp,
    UnstackOp,
    GetItemOp,
    MakeTupleOp,
    TupleGetItemOp,
    AddNOp,
)
