"""mindir's side-effect ops and the Parameters they act on.

As in MindSpore: an Assign writes a Parameter and a Load reads it, both threaded
through the `!mindir.u` monad; ApplyMomentum and ApplyAdam (optimizer steps) and
UpdateMovingStats (a training batch norm's running statistics) each write two,
as MindSpore's primitives do in place; `written_refs` is the one place a pass
learns what a writer writes. `update_state` makes a new state after an effect;
`depend` ties an ordering edge to a value; `tensor_move` is the only real copy (a Load
alone aliases the Parameter's memory); `print` is threaded through `!mindir.io`.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    f64,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    EffectInstance,
    MemoryEffect,
    MemoryEffectKind,
    OpTrait,
    Pure,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir.format import parse_operand_list, print_operands_and_attrs
from mindjit.dialects.mindir.types import MonadIOType, MonadUType, RefType, ref_type
from mindjit.ir.compat.leaf_ops import leaf_op
from mindjit.ir.interned import symbol_ref
from mindjit.ir.symbols import lookup_symbol


class SideEffectMem(MemoryEffect):
    """MindSpore's `side_effect_mem` attribute: the op writes a Parameter, its ref
    (operand 0); xDSL's memory-effect interface says so, so upstream CSE and DCE
    never merge or drop it and never merge a read across it."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance]:
        return frozenset({EffectInstance(MemoryEffectKind.WRITE, op.operands[0])})


class SideEffectIO(OpTrait):
    """MindSpore's `side_effect_io` attribute: the op does IO (unknown effects to
    xDSL: never merged, moved or dropped)."""


class ReadsMemory(MemoryEffect):
    """The op reads a Parameter's memory, its ref (operand 0): ordered by the monad,
    not a kernel. Upstream CSE merges two reads of one ref at one state with no
    write between them, and DCE drops a read nobody uses."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance]:
        return frozenset({EffectInstance(MemoryEffectKind.READ, op.operands[0])})


@irdl_op_definition
class ParameterOp(IRDLOperation):
    """`mindir.parameter @w = dense<...> : tensor<...>`: a named mutable Parameter.

    The initial value may also be `dense_resource<handle> : tensor<...>`, a
    value held outside the IR (see `mindjit.ir.resources`).
    """

    name = "mindir.parameter"
    sym_name = prop_def(StringAttr)
    type = prop_def(TensorType)
    initial_value = prop_def(DenseIntOrFPElementsAttr | DenseResourceAttr)
    traits = traits_def(SymbolOpInterface())

    @classmethod
    def get(
        cls, name: str, initial_value: DenseIntOrFPElementsAttr | DenseResourceAttr
    ) -> ParameterOp:
        return cls.from_name(StringAttr(name), initial_value)

    @classmethod
    def from_name(
        cls, name: StringAttr, initial_value: DenseIntOrFPElementsAttr | DenseResourceAttr
    ) -> ParameterOp:
        """`get` with the symbol's StringAttr already built (shared with its users)."""
        return leaf_op(
            cls, {"sym_name": name, "type": initial_value.type, "initial_value": initial_value}
        )

    def verify_(self) -> None:
        self.verify_value()

    def verify_value(self) -> None:
        """The op's own check (also run by `fast_verify`)."""
        if self.initial_value.type != self.type:
            raise VerifyException(
                f"initial value has type {self.initial_value.type}, the Parameter has {self.type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ParameterOp:
        name = parser.parse_symbol_name()
        parser.parse_punctuation("=")
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr | DenseResourceAttr) or not isinstance(
            value.type, TensorType
        ):
            parser.raise_error(
                "mindir.parameter expects a dense<...> or dense_resource<...> : tensor<...> "
                "initial value",
                pos,
            )
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls.get(name.data, value)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" = ")
        printer.print_attribute(self.initial_value)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class GetParameterOp(IRDLOperation):
    """`%p = mindir.get_parameter @w : !mindir.ref<tensor<...>>`: a graph's handle on a Parameter."""

    name = "mindir.get_parameter"
    parameter = prop_def(SymbolRefAttr)
    result = result_def(RefType)
    traits = traits_def(Pure())
    assembly_format = "$parameter attr-dict `:` type($result)"

    @classmethod
    def get(cls, name: str, tensor: TensorType) -> GetParameterOp:

        return cls.create(
            properties={"parameter": symbol_ref(name)}, result_types=[ref_type(tensor)]
        )

    def verify_(self) -> None:
        self.verify_target()

    def verify_target(self) -> None:
        """The op's own check (also run by `fast_verify`): the symbol is a Parameter
        of the result's type."""
        target = lookup_symbol(self, self.parameter)
        if target is None:
            raise VerifyException(
                f"no mindir.parameter named @{self.parameter.root_reference.data}"
            )
        if not isinstance(target, ParameterOp):
            raise VerifyException(
                f"@{self.parameter.root_reference.data} is not a mindir.parameter"
            )
        result = self.result.type
        if not isinstance(result, RefType) or result.tensor != target.type:
            raise VerifyException(
                f"@{self.parameter.root_reference.data} has type {target.type}, the result is {self.result.type}"
            )


def _ref_tensor(ref: Attribute, what: str = "ref") -> TensorType:
    if not isinstance(ref, RefType):
        raise VerifyException(f"{what} must be a !mindir.ref, got {ref}")
    return ref.tensor


class RefStateOp(IRDLOperation):
    """Shared text form `%r = mindir.<op> %ref, ..., %u : tensor<...>`."""

    #: What the operands are, for the message of a wrong count.
    OPERANDS: ClassVar[str] = ""
    #: Said when an operand is missing: most often the memory state.
    MISSING_HINT: ClassVar[str] = (
        ": the last operand is the memory state (`!mindir.u`: the graph's state argument "
        "before mindir-auto-monad, as `%u0`)"
    )

    def _operand_types(self, tensor: TensorType) -> list[Attribute]:
        raise NotImplementedError

    @classmethod
    def parse(cls, parser: Parser):
        operands = parse_operand_list(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        tensor = parser.parse_type()
        if not isinstance(tensor, TensorType):
            parser.raise_error(f"{cls.name} expects the Parameter's tensor type", pos)
        types = cls.operand_types_for(tensor)
        if len(operands) != len(types):
            parser.raise_error(
                f"{cls.name} takes {cls.OPERANDS} ({len(types)} operands), got "
                f"{len(operands)}{cls.MISSING_HINT if len(operands) < len(types) else ''}",
                pos,
            )
        values = parser.resolve_operands(operands, types, pos)
        return cls.create(operands=list(values), result_types=[tensor], attributes=attrs)

    @classmethod
    def operand_types_for(cls, tensor: TensorType) -> list[Attribute]:
        raise NotImplementedError

    @classmethod
    def get(cls, ref: SSAValue, *rest: SSAValue):
        """Build with the Parameter's tensor type as the result type."""
        tensor = _ref_tensor(SSAValue.get(ref).type)
        return cls.create(operands=[ref, *rest], result_types=[tensor])

    def verify_(self) -> None:
        tensor = _ref_tensor(self.operands[0].type)
        if self.results[0].type != tensor:
            raise VerifyException(
                f"result type {self.results[0].type} must be the Parameter's type {tensor}"
            )

    def print(self, printer: Printer) -> None:
        print_operands_and_attrs(printer, self.operands, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.results[0].type)


@irdl_op_definition
class AssignOp(RefStateOp):
    """`%a = mindir.assign %ref, %value, %u : tensor<...>`: write value into the Parameter."""

    name = "mindir.assign"
    OPERANDS: ClassVar[str] = "the Parameter's ref, the value and a `!mindir.u` state"
    ref = operand_def(RefType)
    value = operand_def(TensorType)
    state = operand_def(MonadUType)
    result = result_def(TensorType)
    traits = traits_def(SideEffectMem())

    @classmethod
    def operand_types_for(cls, tensor):
        return [RefType(tensor), tensor, MonadUType()]

    def verify_(self) -> None:
        tensor = _ref_tensor(self.ref.type)
        if self.value.type != tensor:
            raise VerifyException(
                f"assigned value has type {self.value.type}, the Parameter is {tensor}"
            )
        super().verify_()


def _check_in_place(
    refs: Sequence[tuple[str, SSAValue]],
    tensors: Sequence[tuple[str, SSAValue]] = (),
    scalars: Sequence[tuple[str, SSAValue]] = (),
) -> None:
    """An in-place writer's operands: refs of one tensor type (the first's), tensors of
    that type, 0-d tensors of its element type."""
    (first, ref), *others = refs
    tensor = _ref_tensor(ref.type, first)
    for what, other in others:
        if _ref_tensor(other.type, what) != tensor:
            raise VerifyException(f"{what} has type {other.type.tensor}, the {first} {tensor}")
    for what, v in tensors:
        if v.type != tensor:
            raise VerifyException(f"{what} has type {v.type}, the {first} {tensor}")
    scalar = TensorType(tensor.element_type, [])
    for what, v in scalars:
        if v.type != scalar:
            raise VerifyException(f"{what} must be a {scalar}, got {v.type}")


@irdl_op_definition
class ApplyMomentumOp(RefStateOp):
    """`%v = mindir.apply_momentum %var, %accum, %lr, %grad, %momentum, %u : tensor<...>`:
    MindSpore's ApplyMomentum (no Nesterov). It writes two Parameters:
    `accum = accum * momentum + grad`, then `var = var - accum * lr` (each product
    and sum rounded to the element type, as the ops written out). The result is the
    new `var`, as an Assign's is the stored value. One op per Parameter instead of
    twelve (two Loads, two Assigns, four update_states and the arithmetic): a third
    of a ResNet train step's mindir ops were the optimizer's."""

    name = "mindir.apply_momentum"
    OPERANDS: ClassVar[str] = (
        "the variable's and the accumulation's refs, the learning rate, the gradient, "
        "the momentum and a `!mindir.u` state"
    )
    variable = operand_def(RefType)
    accumulation = operand_def(RefType)
    learning_rate = operand_def(TensorType)
    gradient = operand_def(TensorType)
    momentum = operand_def(TensorType)
    state = operand_def(MonadUType)
    result = result_def(TensorType)
    traits = traits_def(SideEffectMem())

    @classmethod
    def operand_types_for(cls, tensor):
        scalar = TensorType(tensor.element_type, [])
        return [RefType(tensor), RefType(tensor), scalar, tensor, scalar, MonadUType()]

    def verify_(self) -> None:
        _check_in_place(
            [("variable", self.variable), ("accumulation", self.accumulation)],
            [("gradient", self.gradient)],
            [("learning rate", self.learning_rate), ("momentum", self.momentum)],
        )
        super().verify_()


@irdl_op_definition
class ApplyAdamOp(RefStateOp):
    """`%v = mindir.apply_adam %var, %m, %v, %lr, %grad, %u {beta1, beta2, epsilon}
    : tensor<...>`: Adam's step on three Parameters (MindSpore's Adam without
    Nesterov or AMSGrad; `%lr` is this step's bias-corrected rate): `m = m * beta1
    + grad * (1 - beta1)`, `v = v * beta2 + (grad * grad) * (1 - beta2)`, then
    `var = var - (m / (sqrt(v) + epsilon)) * lr`, each step rounded to the element
    type as the ops written out. The result is the new `var`. One op per Parameter
    instead of about twenty."""

    name = "mindir.apply_adam"
    OPERANDS: ClassVar[str] = (
        "the variable's and the two moments' refs, the learning rate, the gradient "
        "and a `!mindir.u` state"
    )
    variable = operand_def(RefType)
    moment1 = operand_def(RefType)
    moment2 = operand_def(RefType)
    learning_rate = operand_def(TensorType)
    gradient = operand_def(TensorType)
    state = operand_def(MonadUType)
    result = result_def(TensorType)
    traits = traits_def(SideEffectMem())

    @classmethod
    def operand_types_for(cls, tensor):
        scalar = TensorType(tensor.element_type, [])
        return [RefType(tensor), RefType(tensor), RefType(tensor), scalar, tensor, MonadUType()]

    @classmethod
    def build(
        cls, refs: Sequence[SSAValue], lr: SSAValue, grad: SSAValue, state: SSAValue,
        beta1: float, beta2: float, epsilon: float,
    ) -> ApplyAdamOp:  # fmt: skip
        op = cls.get(*refs, lr, grad, state)
        for key, value in (("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon)):
            op.attributes[key] = FloatAttr(float(value), f64)
        return op

    def factors(self) -> tuple[float, float, float]:
        """(beta1, beta2, epsilon)."""
        return tuple(self.attributes[k].value.data for k in ("beta1", "beta2", "epsilon"))  # type: ignore[attr-defined,return-value]

    def verify_(self) -> None:
        _check_in_place(
            [("variable", self.variable), ("moment1", self.moment1), ("moment2", self.moment2)],
            [("gradient", self.gradient)],
            [("learning rate", self.learning_rate)],
        )
        for key in ("beta1", "beta2"):
            value = self.attributes.get(key)
            if not isinstance(value, FloatAttr) or not 0.0 < value.value.data < 1.0:
                raise VerifyException(f"needs a '{key}' attribute, a float in (0, 1)")
        eps = self.attributes.get("epsilon")
        if not isinstance(eps, FloatAttr) or not eps.value.data > 0.0:
            raise VerifyException("needs an 'epsilon' attribute, a float > 0")
        super().verify_()


@irdl_op_definition
class UpdateMovingStatsOp(RefStateOp):
    """`%m = mindir.update_moving_stats %mean, %var, %bmean, %bvar, %u {momentum, count}
    : tensor<C x f32>`: a training batch norm's update of its running statistics,
    which MindSpore's BatchNorm makes inside the primitive. It writes two
    Parameters: `mean = mean * (1 - momentum) + bmean * momentum` and `var = var *
    (1 - momentum) + (bvar * (count / (count - 1))) * momentum` (the batch variance
    unbiased, `count` the elements per channel), each product and sum rounded to
    float32 as the ops written out; the result is the new mean. One op per batch
    norm instead of about fifteen (two Loads, two Assigns, their states, the
    arithmetic)."""

    name = "mindir.update_moving_stats"
    OPERANDS: ClassVar[str] = (
        "the running mean's and variance's refs, the batch mean and variance and a "
        "`!mindir.u` state"
    )
    mean = operand_def(RefType)
    variance = operand_def(RefType)
    batch_mean = operand_def(TensorType)
    batch_variance = operand_def(TensorType)
    state = operand_def(MonadUType)
    result = result_def(TensorType)
    traits = traits_def(SideEffectMem())

    @classmethod
    def operand_types_for(cls, tensor):
        return [RefType(tensor), RefType(tensor), tensor, tensor, MonadUType()]

    @classmethod
    def build(
        cls, mean: SSAValue, variance: SSAValue, batch_mean: SSAValue, batch_variance: SSAValue,
        state: SSAValue, momentum: float, count: int,
    ) -> UpdateMovingStatsOp:  # fmt: skip
        op = cls.get(mean, variance, batch_mean, batch_variance, state)
        op.attributes["momentum"] = FloatAttr(float(momentum), f64)
        op.attributes["count"] = IntegerAttr(int(count), i64)
        return op

    def factors(self) -> tuple[float, int]:
        """(momentum, count)."""
        return self.attributes["momentum"].value.data, self.attributes["count"].value.data  # type: ignore[attr-defined]

    def verify_(self) -> None:
        _check_in_place(
            [("mean", self.mean), ("variance", self.variance)],
            [("batch mean", self.batch_mean), ("batch variance", self.batch_variance)],
        )
        momentum, count = self.attributes.get("momentum"), self.attributes.get("count")
        if not isinstance(momentum, FloatAttr) or not 0.0 <= momentum.value.data <= 1.0:
            raise VerifyException("needs a 'momentum' attribute, a float in [0, 1]")
        if not isinstance(count, IntegerAttr) or count.value.data < 2:
            raise VerifyException("needs a 'count' attribute, an integer >= 2")
        super().verify_()


@irdl_op_definition
class LoadOp(RefStateOp):
    """`%v = mindir.load %ref, %u : tensor<...>`: the Parameter's value at state %u (an alias)."""

    name = "mindir.load"
    OPERANDS: ClassVar[str] = "the Parameter's ref and a `!mindir.u` state"
    ref = operand_def(RefType)
    state = operand_def(MonadUType)
    result = result_def(TensorType)
    traits = traits_def(ReadsMemory())

    @classmethod
    def operand_types_for(cls, tensor):
        return [RefType(tensor), MonadUType()]


def _parse_trailing_types(parser: Parser, count: int) -> list[Attribute]:
    """`: T1, T2` when `count` > 0, nothing otherwise."""
    if count == 0:
        return []
    parser.parse_punctuation(":")
    return parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)


def _print_trailing_types(printer: Printer, values: Sequence[SSAValue]) -> None:
    if values:
        printer.print_string(" : ")
        printer.print_list([v.type for v in values], printer.print_attribute)


@irdl_op_definition
class UpdateStateOp(IRDLOperation):
    """`%u1 = mindir.update_state %u0, %a : tensor<...>`: the state after the attached effects."""

    name = "mindir.update_state"
    state = operand_def(MonadUType | MonadIOType)
    attach = var_operand_def()
    result = result_def(MonadUType | MonadIOType)
    traits = traits_def(Pure())

    @classmethod
    def get(cls, state: SSAValue, attach: Sequence[SSAValue] = ()) -> UpdateStateOp:
        return cls.create(operands=[state, *attach], result_types=[SSAValue.get(state).type])

    def verify_(self) -> None:
        if self.result.type != self.state.type:
            raise VerifyException(
                f"result type {self.result.type} must equal the state's type {self.state.type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> UpdateStateOp:
        operands = parse_operand_list(parser)
        if not operands:
            parser.raise_error("mindir.update_state needs a state operand")
        attrs = parser.parse_optional_attr_dict()
        pos = parser.pos
        state_type: Attribute = MonadUType()
        types = _parse_trailing_types(parser, len(operands) - 1)
        if parser.parse_optional_punctuation("->") is not None:
            state_type = parser.parse_type()
        values = parser.resolve_operands(operands, [state_type, *types], pos)
        return cls.create(operands=list(values), result_types=[state_type], attributes=attrs)

    def print(self, printer: Printer) -> None:
        print_operands_and_attrs(printer, self.operands, self.attributes)
        _print_trailing_types(printer, list(self.attach))
        if not isinstance(self.state.type, MonadUType):
            printer.print_string(" -> ")
            printer.print_attribute(self.state.type)


@irdl_op_definition
class DependOp(IRDLOperation):
    """`%y = mindir.depend %x, %a : tensor<...>, T_a`: x, but only after everything in `attach`."""

    name = "mindir.depend"
    T: ClassVar = VarConstraint("T", AnyAttr())
    value = operand_def(T)
    attach = var_operand_def()
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$value (`,` $attach^)? attr-dict `:` type($value) (`,` type($attach)^)?"

    @classmethod
    def get(cls, value: SSAValue, attach: Sequence[SSAValue]) -> DependOp:
        return cls.create(operands=[value, *attach], result_types=[SSAValue.get(value).type])


@irdl_op_definition
class TensorMoveOp(IRDLOperation):
    """`%c = mindir.tensor_move %x : tensor<...>`: a real copy, so later Assigns don't reach it."""

    name = "mindir.tensor_move"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)
    assembly_format = "$input attr-dict `:` type($result)"

    def __init__(self, x: SSAValue):
        super().__init__(operands=[x], result_types=[SSAValue.get(x).type])


@irdl_op_definition
class PrintOp(IRDLOperation):
    """`%io1 = mindir.print %a, %b, %io0 : tensor<...>, tensor<...>`: print values in IO order."""

    name = "mindir.print"
    values = var_operand_def()
    io = operand_def(MonadIOType)
    result = result_def(MonadIOType)
    format = opt_attr_def(ArrayAttr)
    traits = traits_def(SideEffectIO())

    @classmethod
    def get(
        cls, values: Sequence[SSAValue], io: SSAValue, format: Sequence[str | int] | None = None
    ) -> PrintOp:
        """`format` lists what to print, one line each: a string, or the index of a value.

        Without it every value is printed. Strings are compile-time constants in
        MindSpore's graph mode, so they live here rather than as operands.
        """
        attrs = {}
        if format is not None:
            attrs["format"] = ArrayAttr(
                [StringAttr(f) if isinstance(f, str) else IntegerAttr(f, i64) for f in format]
            )
        return cls.create(operands=[*values, io], result_types=[MonadIOType()], attributes=attrs)

    def format_items(self) -> list[str | int]:
        """What to print, in order: strings, and indices into `values`."""
        if self.format is None:
            return list(range(len(self.values)))
        return [a.data if isinstance(a, StringAttr) else a.value.data for a in self.format.data]

    def verify_(self) -> None:
        if self.format is None:
            return
        for item in self.format.data:
            if isinstance(item, IntegerAttr):
                if not 0 <= item.value.data < len(self.values):
                    raise VerifyException(
                        f"format index {item.value.data} is out of range "
                        f"for {len(self.values)} values"
                    )
            elif not isinstance(item, StringAttr):
                raise VerifyException(f"format items must be strings or value indices, got {item}")

    @classmethod
    def parse(cls, parser: Parser) -> PrintOp:
        operands = parse_operand_list(parser)
        if not operands:
            parser.raise_error("mindir.print needs an !mindir.io operand")
        attrs = parser.parse_optional_attr_dict()
        pos = parser.pos
        types = _parse_trailing_types(parser, len(operands) - 1)
        values = parser.resolve_operands(operands, [*types, MonadIOType()], pos)
        return cls.create(operands=list(values), result_types=[MonadIOType()], attributes=attrs)

    def print(self, printer: Printer) -> None:
        print_operands_and_attrs(printer, self.operands, self.attributes)
        _print_trailing_types(printer, list(self.values))


#: the ops that write Parameters (through their ref operands: `written_refs`)
WRITER_OPS = (AssignOp, ApplyMomentumOp, ApplyAdamOp, UpdateMovingStatsOp)


def written_refs(op: Operation) -> tuple[SSAValue, ...]:
    """The refs of the Parameters `op` itself writes (none for other ops): the one
    place passes learn what a writer op writes."""
    cls = type(op)  # exact classes: asked of every op
    if cls is AssignOp:
        return (op.operands[0],)
    if cls is ApplyMomentumOp or cls is UpdateMovingStatsOp:
        return (op.operands[0], op.operands[1])
    if cls is ApplyAdamOp:
        return (op.operands[0], op.operands[1], op.operands[2])
    return ()


EFFECT_OPS = (
    ParameterOp,
    GetParameterOp,
    AssignOp,
    ApplyMomentumOp,
    ApplyAdamOp,
    UpdateMovingStatsOp,
    LoadOp,
    UpdateStateOp,
    DependOp,
    TensorMoveOp,
    PrintOp,
)
