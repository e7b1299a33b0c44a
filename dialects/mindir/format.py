"""The custom assembly shared by mindir's value ops.

    %r = mindir.add %a, %b : tensor<2x3xf32>
    %r = mindir.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %s = mindir.reduce_sum %x {axis = array<i64: 1>, keep_dims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>

The short form `: T` is used when every operand and the result have type T; the
functional form otherwise. Properties are written in the attribute dictionary,
leaving out those at their default value, so the text stays short.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from xdsl.dialects.builtin import BoolAttr, FunctionType, IntegerAttr
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


class TypedOp(IRDLOperation):
    """A mindir op with one result whose type is inferred from its operands.

    Subclasses implement `infer_result` (operand types + properties -> result type)
    and `check_operands`; the verifier compares the inferred type with the stored one.
    """

    PROP_DEFAULTS: ClassVar[dict[str, Attribute]] = {}
    """Properties left out of the printed dictionary when equal to these."""

    # --- inference -------------------------------------------------------------
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
    def build(cls, operands: Sequence, props: dict[str, Attribute] | None = None, **kw) -> Self:
        """Create the op, inferring its result type."""
        from xdsl.ir import SSAValue

        values = [SSAValue.get(o) for o in operands]
        props = {k: v for k, v in (props or {}).items() if v is not None}
        result = cls.infer_result([v.type for v in values], props)
        return cls.create(operands=values, result_types=[result], properties=props, **kw)

    # --- assembly --------------------------------------------------------------
    @classmethod
    def _property_names(cls) -> set[str]:
        return set(cls.get_irdl_definition().properties.keys())

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        operands = parse_operand_list(parser)
        attrs = parser.parse_optional_attr_dict()
        prop_names = cls._property_names()
        props = {k: v for k, v in attrs.items() if k in prop_names}
        extra = {k: v for k, v in attrs.items() if k not in prop_names}
        for name, default in cls.PROP_DEFAULTS.items():
            props.setdefault(name, default)
        parser.parse_punctuation(":")
        pos = parser.pos
        operand_types, result_type = parse_short_or_functional(parser, len(operands))
        values = parser.resolve_operands(operands, operand_types, pos)
        return cls.create(
            operands=list(values),
            result_types=[result_type],
            properties=props,
            attributes=extra,
        )

    def print(self, printer: Printer) -> None:
        shown = {k: v for k, v in self.properties.items() if self.PROP_DEFAULTS.get(k) != v}
        shown.update(self.attributes)
        print_operands_and_attrs(printer, self.operands, shown)
        printer.print_string(" : ")
        print_short_or_functional(printer, [o.type for o in self.operands], self.results[0].type)


def print_operands_and_attrs(printer: Printer, operands, attributes) -> None:
    """` %a, %b {attrs}`: the common head of every mindir custom format."""
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


def parse_short_or_functional(parser: Parser, n_operands: int) -> tuple[list[Attribute], Attribute]:
    """`T` (all operands and the result are T) or `(T1, ...) -> R`."""
    fn = parser.parse_optional_function_type()
    if fn is not None:
        if len(fn.outputs.data) != 1:
            parser.raise_error("expected exactly one result type")
        return list(fn.inputs.data), fn.outputs.data[0]
    single = parser.parse_type()
    return [single] * n_operands, single


def print_short_or_functional(
    printer: Printer, operand_types: Sequence[Attribute], result_type: Attribute
) -> None:
    if all(t == result_type for t in operand_types):
        printer.print_attribute(result_type)
        return
    printer.print_attribute(FunctionType.from_lists(list(operand_types), [result_type]))


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
    from xdsl.dialects.builtin import DenseArrayBase

    attr = props.get(name)
    if attr is None:
        return ()
    if not isinstance(attr, DenseArrayBase):
        raise VerifyException(f"property '{name}' must be array<i64: ...>, got {attr}")
    return tuple(int(v) for v in attr.get_values())


TRUE = BoolAttr.from_bool(True)
FALSE = BoolAttr.from_bool(False)
