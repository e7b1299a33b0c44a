"""The assembly shared by mindir's value ops, and their result-type inference.

    %r = mindir.add %a, %b : tensor<2x3xf32>
    %r = mindir.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %s = mindir.reduce_sum %x {axis = array<i64: 1>, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>

A `TypedOp` declares xDSL's declarative format `TYPED_FORMAT`: its operands, the
attribute dictionary (properties in it, those at their default value left
out), then the types through one custom directive, `ShortOrFunctionalType`:
the short form `: T` when every operand and the result have type T, MLIR's
functional form otherwise. Result types are inferred (`infer_result`) by
`make(...)`, so passes and the frontend never spell them out; the verifier
infers again and compares.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, FunctionType, IntegerAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, ParsePropInAttrDict
from xdsl.irdl.declarative_assembly_format import (
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    irdl_custom_directive,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


@irdl_custom_directive
class ShortOrFunctionalType(CustomDirective):
    """`T` when every operand and the one result have type T, else `(T1, ...) -> R`."""

    operand_types: TypeDirective
    result_types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        fn = parser.parse_optional_function_type()
        if fn is not None:
            if len(fn.outputs.data) != 1:
                parser.raise_error("expected exactly one result type")
            self.operand_types.set(state, fn.inputs.data)
            self.result_types.set(state, fn.outputs.data)
            return
        single = parser.parse_type()
        parsed = sum(len(o) for o in state.operands if o is not None)
        self.operand_types.set(state, [single] * parsed)
        self.result_types.set(state, [single])

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        print_short_or_functional(printer, self.operand_types.get(op), self.result_types.get(op))


def print_short_or_functional(
    printer: Printer, operand_types: Sequence[Attribute], result_types: Sequence[Attribute]
) -> None:
    if len(result_types) == 1 and all(t == result_types[0] for t in operand_types):
        printer.print_attribute(result_types[0])
        return
    printer.print_attribute(FunctionType.from_lists(list(operand_types), list(result_types)))


#: The declarative format of every `TypedOp` (properties at their default left out).
TYPED_FORMAT = "operands attr-dict `:` custom<ShortOrFunctionalType>(type(operands), type(results))"


class TypedOp(IRDLOperation):
    """A mindir op with one result whose type is inferred from its operands.

    Subclasses implement `infer_result` (operand types + properties -> result
    type); `make` builds the op with the inferred type and the verifier compares
    the inferred type with the stored one.
    """

    custom_directives = (ShortOrFunctionalType,)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = TYPED_FORMAT

    @classmethod
    def infer_result(
        cls, operand_types: Sequence[Attribute], props: dict[str, Attribute]
    ) -> Attribute:
        raise NotImplementedError

    def verify_(self) -> None:
        expected = self.infer_result([o.type for o in self.operands], dict(self.properties))
        actual = self.results[0].type
        if expected != actual:
            raise VerifyException(
                f"result type {actual} does not match the inferred type {expected}"
            )

    @classmethod
    def make(cls, operands: Sequence, props: dict[str, Attribute] | None = None, **kw) -> Self:
        """The op on `operands` with `props`, its result type inferred."""
        values = [SSAValue.get(o) for o in operands]
        props = {k: v for k, v in (props or {}).items() if v is not None}
        result = cls.infer_result([v.type for v in values], props)
        return cls.create(operands=values, result_types=[result], properties=props, **kw)


# --- the other ops' hand-written formats ----------------------------------------------


def print_operands_and_attrs(printer: Printer, operands, attributes) -> None:
    """` %a, %b {attrs}`: the common head of mindir's custom formats."""
    if operands:
        printer.print_string(" ")
        printer.print_list(operands, printer.print_operand)
    if attributes:
        printer.print_string(" ")
        printer.print_attr_dict(attributes)


def parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    found = parser.parse_optional_undelimited_comma_separated_list(
        parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
    )
    return found or []


# --- region ops' bound operands (while, vmap, grad, ascend.kernel) ---------------------


def parse_bound_operands(parser: Parser, optional: bool = False) -> list[tuple[Any, Any]]:
    """`(%arg = %operand, ...)`: region arguments (types still to resolve) and the
    operands they are bound to (while, vmap); with `optional`, none when no `(`."""

    def assignment() -> tuple[Any, Any]:
        arg = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        return arg, parser.parse_unresolved_operand()

    if optional:
        return parser.parse_optional_comma_separated_list(parser.Delimiter.PAREN, assignment) or []
    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, assignment)


def print_bound_operands(
    printer: Printer, args: Sequence[SSAValue], operands: Sequence[SSAValue]
) -> None:
    """` (%arg = %operand, ...)`, as `parse_bound_operands` reads it."""
    printer.print_string(" (")
    printer.print_list(
        zip(args, operands),
        lambda p: (
            printer.print_operand(p[0]),
            printer.print_string(" = "),
            printer.print_operand(p[1]),
        ),
    )
    printer.print_string(")")


# --- reading properties (during inference, before the op exists) -----------------------


def int_prop(props: dict[str, Attribute], name: str, default: int = 0) -> int:
    attr = props.get(name)
    if attr is None:
        return default
    if not isinstance(attr, IntegerAttr):
        raise VerifyException(f"property '{name}' must be an integer, got {attr}")
    return attr.value.data


def bool_prop(props: dict[str, Attribute], name: str) -> bool:
    attr = props.get(name)
    if attr is None:
        return False
    if not isinstance(attr, IntegerAttr) or attr.type.width.data != 1:  # type: ignore[union-attr]
        raise VerifyException(f"property '{name}' must be a bool, got {attr}")
    return bool(attr.value.data)


def ints_prop(props: dict[str, Attribute], name: str) -> tuple[int, ...]:
    attr = props.get(name)
    if attr is None:
        return ()
    if not isinstance(attr, DenseArrayBase):
        raise VerifyException(f"property '{name}' must be array<i64: ...>, got {attr}")
    return tuple(int(v) for v in attr.get_values())


TRUE = BoolAttr.from_bool(True)
FALSE = BoolAttr.from_bool(False)


def bool_attr(value: bool) -> BoolAttr:
    """`true` / `false` as a property, shared (each built anew is a verified attribute:
    the frontend sets two per matmul)."""
    return TRUE if value else FALSE
