"""mindir's structured control flow: `if` and `while`, shaped like scf's.

    %r = mindir.if %c -> (tensor<f32>) { ... mindir.yield %a : tensor<f32> } else { ... }
    %r = mindir.while (%i = %init) : (tensor<f32>) -> tensor<f32> {
      ... mindir.condition(%cond : tensor<i1>) %i : tensor<f32>
    } do {
    ^bb0(%i: tensor<f32>):
      ... mindir.yield %next : tensor<f32>
    }

The condition is a 0-d `tensor<i1>` (a runtime scalar), as MindSpore's is.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType, i1
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir.format import parse_bound_operands, print_bound_operands


def _check_cond(t: Attribute) -> None:
    if t != TensorType(i1, []):
        raise VerifyException(f"condition must be tensor<i1>, got {t}")


def _check_types(what: str, got: Sequence[Attribute], want: Sequence[Attribute]) -> None:
    if list(got) != list(want):
        raise VerifyException(
            f"{what} types ({', '.join(map(str, got))}) do not match ({', '.join(map(str, want))})"
        )


def _parse_condition_operand(parser: Parser) -> SSAValue:
    """The condition's type is not spelled in `mindir.if %c`: take the defined value's
    type (so the verifier can say what is wrong with it), else tensor<i1>."""
    operand = parser.parse_unresolved_operand()
    defined = parser.ssa_values.get(operand.operand_name)
    if defined is not None and operand.index < len(defined):
        return parser.resolve_operand(operand, defined[operand.index].type)
    return parser.resolve_operand(operand, TensorType(i1, []))


def _region_ops() -> tuple[type, ...]:
    """The ops whose regions end in mindir.yield, besides if and while (a lazy trait:
    vmap.py and grad.py import this module for YieldOp)."""
    from mindjit.dialects.mindir.grad import GradOp  # function-level: grad.py imports this module
    from mindjit.dialects.mindir.vmap import VmapOp  # function-level: vmap.py imports this module

    return VmapOp, GradOp


@irdl_op_definition
class YieldOp(IRDLOperation):
    """`mindir.yield %a, %b : T1, T2`: the values a region of if/while hands back."""

    name = "mindir.yield"
    values = var_operand_def()
    traits = lazy_traits_def(
        lambda: (IsTerminator(), Pure(), HasParent(IfOp, WhileOp, *_region_ops()))
    )
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


@irdl_op_definition
class ConditionOp(IRDLOperation):
    """`mindir.condition(%c : tensor<i1>) %args : types`: end of a while's condition region."""

    name = "mindir.condition"
    cond = operand_def(TensorType)
    arguments = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(WhileOp)))
    assembly_format = "`(` $cond `:` type($cond) `)` ($arguments^ `:` type($arguments))? attr-dict"

    def __init__(self, cond: SSAValue, *args: SSAValue):
        super().__init__(operands=[cond, list(args)])

    def verify_(self) -> None:
        _check_cond(self.cond.type)


@irdl_op_definition
class IfOp(IRDLOperation):
    """Two-way branch on a tensor<i1>; both regions end in mindir.yield of the result types."""

    name = "mindir.if"
    cond = operand_def(TensorType)
    output = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        cond: SSAValue,
        result_types: Sequence[Attribute],
        then_region: Region,
        else_region: Region,
    ):
        super().__init__(
            operands=[cond], result_types=[list(result_types)], regions=[then_region, else_region]
        )

    def verify_(self) -> None:
        _check_cond(self.cond.type)
        for name, region in (("then", self.then_region), ("else", self.else_region)):
            term = region.block.last_op
            if not isinstance(term, YieldOp):
                raise VerifyException(f"{name} region must end with mindir.yield")
            _check_types(f"{name} region yield", term.values.types, self.output.types)

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        cond = _parse_condition_operand(parser)
        types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        then_region = parser.parse_region()
        parser.parse_keyword("else")
        else_region = parser.parse_region()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(cond, types, then_region, else_region)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cond)
        if self.output:
            printer.print_string(" -> (")
            printer.print_list(self.output.types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(self.then_region, print_entry_block_args=False)
        printer.print_string(" else ")
        printer.print_region(self.else_region, print_entry_block_args=False)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class WhileOp(IRDLOperation):
    """A loop like scf.while: the condition region decides and forwards values to the body."""

    name = "mindir.while"
    arguments = var_operand_def()
    res = var_result_def()
    before_region = region_def("single_block")
    after_region = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        arguments: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        before: Region,
        after: Region,
    ):
        super().__init__(
            operands=[list(arguments)], result_types=[list(result_types)], regions=[before, after]
        )

    def verify_(self) -> None:
        _check_types(
            "condition region argument", self.before_region.block.arg_types, self.arguments.types
        )
        cond = self.before_region.block.last_op
        if not isinstance(cond, ConditionOp):
            raise VerifyException("condition region must end with mindir.condition")
        _check_types("mindir.condition forwarded", cond.arguments.types, self.res.types)
        _check_types("body region argument", self.after_region.block.arg_types, self.res.types)
        body_end = self.after_region.block.last_op
        if not isinstance(body_end, YieldOp):
            raise VerifyException("body region must end with mindir.yield")
        _check_types("body yield", body_end.values.types, self.arguments.types)

    @classmethod
    def parse(cls, parser: Parser) -> WhileOp:
        pairs = parse_bound_operands(parser)
        parser.parse_punctuation(":")
        pos = parser.pos
        fn = parser.parse_function_type()
        if len(pairs) != len(fn.inputs.data):
            parser.raise_error(
                f"{len(pairs)} loop arguments but {len(fn.inputs.data)} input types", pos
            )
        block_args = [a.resolve(t) for (a, _), t in zip(pairs, fn.inputs.data)]
        operands = parser.resolve_operands([o for _, o in pairs], fn.inputs.data, pos)
        before = parser.parse_region(block_args)
        parser.parse_keyword("do")
        after = parser.parse_region()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(list(operands), fn.outputs.data, before, after)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        print_bound_operands(printer, self.before_region.block.args, self.arguments)
        printer.print_string(" : ")
        printer.print_operation_type(self)
        printer.print_string(" ")
        printer.print_region(self.before_region, print_entry_block_args=False)
        printer.print_string(" do ")
        printer.print_region(self.after_region)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


def single_block_region(arg_types: Sequence[Attribute] = ()) -> tuple[Region, Block]:
    """A fresh region with one block, for builders of if/while."""
    block = Block(arg_types=arg_types)
    return Region(block), block


CONTROL_OPS = (YieldOp, ConditionOp, IfOp, WhileOp)
