"""mindir's elementwise ops: operands broadcast together (numpy rules), one element type.

Each op is its own class: its name, which element types it takes (`ALLOWED`:
numeric, float, bool, int, int_or_bool or any) and, for compares, a bool result.
What it computes per element is the lowering's (passes/mindir_to_tensor/scalar.py); its adjoint,
batching rule, CPU and device kernels are registered by class in each stage
(docs/op-registry.md).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntegerType, TensorType, i1
from xdsl.ir import Attribute, SSAValue, TypeAttribute
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.format import TypedOp


class ElementwiseOp(TypedOp):
    """Operands broadcast together; one element type; result keeps it unless it is a compare."""

    ALLOWED: ClassVar[str] = "numeric"  # numeric | float | bool | int | int_or_bool | any
    RESULT_BOOL: ClassVar[bool] = False
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        tensors = [S.tensor_of(t, f"operand #{i}") for i, t in enumerate(operand_types)]
        element = S.same_element_type(tensors, cls.name)
        check_element_kind(cls.name, cls.ALLOWED, element)
        shape = S.broadcast_shapes([t.get_shape() for t in tensors])
        return S.tensor_type(shape, i1 if cls.RESULT_BOOL else element)


def check_element_kind(op_name: str, allowed: str, element: Attribute) -> None:
    ok = {
        "numeric": S.is_float(element) or S.is_int(element),
        "float": S.is_float(element),
        "bool": S.is_bool(element),
        "int": S.is_int(element),
        "int_or_bool": S.is_int(element) or S.is_bool(element),
        "any": True,
    }[allowed]
    if not ok:
        wanted = {
            "numeric": "int or float",
            "float": "float",
            "bool": "i1",
            "int": "integer",
            "int_or_bool": "integer or i1",
        }[allowed]
        raise VerifyException(f"{op_name} needs {wanted} elements, got {element}")


class BinaryOp(ElementwiseOp):
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def get(cls, lhs: SSAValue, rhs: SSAValue):
        return cls.make([lhs, rhs])


class CompareOp(BinaryOp):
    """A compare of any element type giving i1 (bools compare false < true)."""

    ALLOWED: ClassVar[str] = "any"
    RESULT_BOOL: ClassVar[bool] = True


class UnaryOp(ElementwiseOp):
    input = operand_def(TensorType)
    result = result_def(TensorType)

    @classmethod
    def get(cls, x: SSAValue):
        return cls.make([x])


# --- binary ----------------------------------------------------------------------------


@irdl_op_definition
class AddOp(BinaryOp):
    """x + y"""

    name = "mindir.add"


@irdl_op_definition
class SubOp(BinaryOp):
    """x - y"""

    name = "mindir.sub"


@irdl_op_definition
class MulOp(BinaryOp):
    """x * y"""

    name = "mindir.mul"


@irdl_op_definition
class DivOp(BinaryOp):
    """x / y (integers truncate toward zero)"""

    name = "mindir.div"


@irdl_op_definition
class PowOp(BinaryOp):
    """x ** y"""

    name = "mindir.pow"


@irdl_op_definition
class MaximumOp(BinaryOp):
    """elementwise max (NaN-propagating for floats)"""

    name = "mindir.maximum"


@irdl_op_definition
class MinimumOp(BinaryOp):
    """elementwise min (NaN-propagating for floats)"""

    name = "mindir.minimum"


@irdl_op_definition
class LessOp(CompareOp):
    """x < y"""

    name = "mindir.less"


@irdl_op_definition
class LessEqualOp(CompareOp):
    """x <= y"""

    name = "mindir.less_equal"


@irdl_op_definition
class GreaterOp(CompareOp):
    """x > y"""

    name = "mindir.greater"


@irdl_op_definition
class GreaterEqualOp(CompareOp):
    """x >= y"""

    name = "mindir.greater_equal"


@irdl_op_definition
class EqualOp(CompareOp):
    """x == y"""

    name = "mindir.equal"


@irdl_op_definition
class NotEqualOp(CompareOp):
    """x != y (true for NaN, as numpy)"""

    name = "mindir.not_equal"


@irdl_op_definition
class LogicalAndOp(BinaryOp):
    """x and y on i1"""

    name = "mindir.logical_and"
    ALLOWED: ClassVar[str] = "bool"


@irdl_op_definition
class LogicalOrOp(BinaryOp):
    """x or y on i1"""

    name = "mindir.logical_or"
    ALLOWED: ClassVar[str] = "bool"


# --- unary -----------------------------------------------------------------------------


@irdl_op_definition
class LogicalNotOp(UnaryOp):
    """not x on i1"""

    name = "mindir.logical_not"
    ALLOWED: ClassVar[str] = "bool"


@irdl_op_definition
class NegOp(UnaryOp):
    """-x"""

    name = "mindir.neg"


@irdl_op_definition
class AbsOp(UnaryOp):
    """|x|"""

    name = "mindir.abs"


@irdl_op_definition
class ReluOp(UnaryOp):
    """max(x, 0)"""

    name = "mindir.relu"


@irdl_op_definition
class ExpOp(UnaryOp):
    """e ** x"""

    name = "mindir.exp"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class LogOp(UnaryOp):
    """natural log"""

    name = "mindir.log"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class TanhOp(UnaryOp):
    """tanh(x)"""

    name = "mindir.tanh"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class SinOp(UnaryOp):
    """sin(x)"""

    name = "mindir.sin"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class CosOp(UnaryOp):
    """cos(x)"""

    name = "mindir.cos"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class ErfOp(UnaryOp):
    """erf(x), the Gauss error function (exact GELU needs it)"""

    name = "mindir.erf"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class FloorOp(UnaryOp):
    """the largest integer <= x"""

    name = "mindir.floor"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class CeilOp(UnaryOp):
    """the smallest integer >= x"""

    name = "mindir.ceil"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class RoundOp(UnaryOp):
    """x rounded to the nearest integer, halfway cases to even (MindSpore's Round)"""

    name = "mindir.round"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class SigmoidOp(UnaryOp):
    """1 / (1 + exp(-x))"""

    name = "mindir.sigmoid"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class SqrtOp(UnaryOp):
    """square root"""

    name = "mindir.sqrt"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class HSwishOp(UnaryOp):
    """x * relu6(x + 3) / 6"""

    name = "mindir.hswish"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class Log1pOp(UnaryOp):
    """log(1 + x), accurate for tiny x (where 1 + x rounds to 1)"""

    name = "mindir.log1p"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class Expm1Op(UnaryOp):
    """exp(x) - 1, accurate for tiny x"""

    name = "mindir.expm1"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class Atan2Op(BinaryOp):
    """atan2(y, x): the angle of the point (x, y), in [-pi, pi] (lhs is y)"""

    name = "mindir.atan2"
    ALLOWED: ClassVar[str] = "float"


# the adjoints of sigmoid and tanh, each one op (MindSpore's bprop primitives
# SigmoidGrad(y, dy) and TanhGrad(y, dy)): mindir-grad emits them instead of the three
# ops of the formula, a third of the ops an unrolled LSTM's backward had. Binary ops
# like the others (numpy broadcasting); lhs is the forward result y, rhs its adjoint dy.


@irdl_op_definition
class SigmoidGradOp(BinaryOp):
    """dy * y * (1 - y): sigmoid's adjoint from its result y (MindSpore's SigmoidGrad(y, dy))"""

    name = "mindir.sigmoid_grad"
    ALLOWED: ClassVar[str] = "float"


@irdl_op_definition
class TanhGradOp(BinaryOp):
    """dy * (1 - y * y): tanh's adjoint from its result y (MindSpore's TanhGrad(y, dy))"""

    name = "mindir.tanh_grad"
    ALLOWED: ClassVar[str] = "float"


# bitwise ops (issue 38): integers (and i1 for and/or/xor); the frontend keeps a shift's
# amount in [0, width) (frontend/ops/bitwise.py), where arith.shli/shrsi are defined


@irdl_op_definition
class BitwiseAndOp(BinaryOp):
    """x & y, bit by bit"""

    name = "mindir.bitwise_and"
    ALLOWED: ClassVar[str] = "int_or_bool"


@irdl_op_definition
class BitwiseOrOp(BinaryOp):
    """x | y, bit by bit"""

    name = "mindir.bitwise_or"
    ALLOWED: ClassVar[str] = "int_or_bool"


@irdl_op_definition
class BitwiseXorOp(BinaryOp):
    """x ^ y, bit by bit"""

    name = "mindir.bitwise_xor"
    ALLOWED: ClassVar[str] = "int_or_bool"


@irdl_op_definition
class LeftShiftOp(BinaryOp):
    """x << y (y in [0, width): the bits shifted out are lost, as C's on the same type)"""

    name = "mindir.left_shift"
    ALLOWED: ClassVar[str] = "int"


@irdl_op_definition
class RightShiftOp(BinaryOp):
    """x >> y, arithmetic for signed types, logical for unsigned (y in [0, width))"""

    name = "mindir.right_shift"
    ALLOWED: ClassVar[str] = "int"


BITWISE_OPS = (BitwiseAndOp, BitwiseOrOp, BitwiseXorOp, LeftShiftOp, RightShiftOp)
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
    Atan2Op,
    SigmoidGradOp,
    TanhGradOp,
    *BITWISE_OPS,
)


@irdl_op_definition
class StopGradientOp(UnaryOp):
    """x itself, through which no gradient flows (MindSpore's StopGradient): mindir-grad
    gives its operand no adjoint, and the lowering replaces it by its operand"""

    name = "mindir.stop_gradient"
    ALLOWED: ClassVar[str] = "any"


UNARY_OPS = (
    LogicalNotOp,
    NegOp,
    AbsOp,
    ReluOp,
    ExpOp,
    LogOp,
    TanhOp,
    SinOp,
    CosOp,
    ErfOp,
    FloorOp,
    CeilOp,
    RoundOp,
    SigmoidOp,
    SqrtOp,
    HSwishOp,
    Log1pOp,
    Expm1Op,
    StopGradientOp,
)


# --- select and cast -------------------------------------------------------------------


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
        return cls.make([cond, x, y])


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
        return cls.make([x], {"to": to})


ELEMENTWISE_OPS = (*BINARY_OPS, *UNARY_OPS, SelectOp, CastOp)
