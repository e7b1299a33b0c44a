"""`mindir.constant`: a folded Python constant.

    %c = mindir.constant dense<1.0> : tensor<2xf32>

The value's own type is the result type, so the text names it once (a custom
format: a declarative one cannot infer the result type from the attribute).
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.irdl import irdl_op_definition, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir.format import TypedOp


@irdl_op_definition
class ConstantOp(TypedOp):
    """`%c = mindir.constant dense<1.0> : tensor<2xf32>`: a folded Python constant."""

    name = "mindir.constant"
    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())
    assembly_format = None

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
