"""`mindir.grad`: the gradient of a forward computation (MindSpore's GradOperation).

    %loss, %dx, %dw = mindir.grad (%a = %x, %b = %y) wrt [0] weights [@w] value
        : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4x4xf32>) {
      ...forward...
      mindir.yield %l : tensor<f32>
    }

The region is the forward computation: its arguments are the inputs, its yield
the outputs. The op's results are, in order:

- with `value` (value_and_grad): every output the region yields;
- the gradient of each input listed in `wrt` (region argument positions), with
  the input's type;
- the gradient of each Parameter listed in `weights`, with the Parameter's type
  (the sum over every Load of it in the forward, each taken at the state it
  was read);
- after mindir-auto-monad, the states the forward advances: trailing
  `!mindir.u` / `!mindir.io` values of the yield, handed through as trailing
  results (as mindir.if does).

Outputs: the first outputs are differentiated; the last `aux` ones (has_aux)
are returned with `value` but not differentiated. Their sensitivities are the
`sens` operands, one per differentiated output with its type (GradOperation's
`sens_param`), or ones. Values defined outside the region may be used inside:
they are constants of the differentiation. `mindir-grad` expands the op into
the forward ops followed by their adjoints.

A yielded output defined *before* the op, in its block, is a forward that
already ran (a TrainOneStepCell's loss): its forward is the ops of that block
that computed it from the op's inputs, which stay where they are and run once
(their Assigns too); only the adjoints are added. Such a region's
differentiated inputs must be distinct values.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, SymbolRefAttr, i64
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir.control import YieldOp
from mindjit.dialects.mindir.format import bool_attr, parse_bound_operands, print_bound_operands
from mindjit.dialects.mindir.types import is_monad


def _i64s(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


@irdl_op_definition
class GradOp(IRDLOperation):
    """Gradients of a forward region (see the module doc)."""

    name = "mindir.grad"
    inputs = var_operand_def()
    sens = var_operand_def()
    outputs = var_result_def()
    wrt = prop_def(DenseArrayBase.constr(i64))
    weights = prop_def(ArrayAttr[SymbolRefAttr])
    aux = prop_def(IntegerAttr)
    return_value = prop_def(IntegerAttr)
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        sens: Sequence[SSAValue],
        wrt: Sequence[int],
        weights: Sequence[str],
        aux: int,
        return_value: bool,
        result_types: Sequence[Attribute],
        body: Region,
    ):
        super().__init__(
            operands=[list(inputs), list(sens)],
            result_types=[list(result_types)],
            regions=[body],
            properties={
                "wrt": _i64s(wrt),
                "weights": ArrayAttr([SymbolRefAttr(w) for w in weights]),
                "aux": IntegerAttr(aux, i64),
                "return_value": bool_attr(return_value),
            },
        )

    # --- the parts -------------------------------------------------------------------
    @property
    def wrt_list(self) -> list[int]:
        return list(self.wrt.get_values())

    @property
    def weight_symbols(self) -> list[str]:
        return [w.root_reference.data for w in self.weights.data]

    @property
    def n_aux(self) -> int:
        return self.aux.value.data

    @property
    def returns_value(self) -> bool:
        return bool(self.return_value.value.data)

    def yielded(self) -> tuple[list[SSAValue], list[SSAValue]]:
        """(outputs, states) the region yields."""
        values = list(self.body.block.last_op.operands)  # type: ignore[union-attr]
        n = len(values)
        while n and is_monad(values[n - 1].type):
            n -= 1
        return values[:n], values[n:]

    def n_differentiated(self) -> int:
        return len(self.yielded()[0]) - self.n_aux

    def result_groups(self) -> tuple[list, list, list, list]:
        """The results split as (values, input gradients, weight gradients, states)."""
        outs, states = self.yielded()
        results = list(self.outputs)
        n_val = len(outs) if self.returns_value else 0
        n_in = len(self.wrt_list)
        n_w = len(self.weights.data)
        return (
            results[:n_val],
            results[n_val : n_val + n_in],
            results[n_val + n_in : n_val + n_in + n_w],
            results[n_val + n_in + n_w :],
        )

    def verify_(self) -> None:
        block = self.body.block
        if list(block.arg_types) != list(self.inputs.types):
            raise VerifyException(
                f"region argument types ({', '.join(map(str, block.arg_types))}) are not "
                f"the input types ({', '.join(map(str, self.inputs.types))})"
            )
        if not isinstance(block.last_op, YieldOp):
            raise VerifyException("the region must end with mindir.yield")
        wrt = self.wrt_list
        for i in wrt:
            if not 0 <= i < len(self.inputs):
                raise VerifyException(
                    f"wrt index {i} is out of range for {len(self.inputs)} inputs"
                )
        if len(set(wrt)) != len(wrt):
            raise VerifyException(f"wrt lists an input twice: {wrt}")
        symbols = self.weight_symbols
        if len(set(symbols)) != len(symbols):
            raise VerifyException(f"weights list a Parameter twice: {symbols}")
        outs, states = self.yielded()
        if any(is_monad(v.type) for v in outs):
            raise VerifyException("states must be the last values the region yields")
        if self.n_aux < 0 or self.n_differentiated() < 1:
            raise VerifyException(
                f"{len(outs)} outputs yielded with aux = {self.n_aux}: at least one output "
                "must be differentiated"
            )
        if self.sens:
            want = [v.type for v in outs[: self.n_differentiated()]]
            if list(self.sens.types) != want:
                raise VerifyException(
                    f"sens types ({', '.join(map(str, self.sens.types))}) are not the "
                    f"differentiated output types ({', '.join(map(str, want))})"
                )
        expected: list[Attribute | None] = []
        if self.returns_value:
            expected += [v.type for v in outs]
        expected += [self.inputs[i].type for i in wrt]
        expected += [None] * len(symbols)  # a Parameter's type: checked by mindir-grad
        expected += [v.type for v in states]
        got = list(self.outputs.types)
        if len(got) != len(expected):
            raise VerifyException(f"{len(got)} results, expected {len(expected)}")
        for k, (g, e) in enumerate(zip(got, expected)):
            if e is not None and g != e:
                raise VerifyException(f"result {k} is {g}, expected {e}")

    # --- assembly --------------------------------------------------------------------
    @classmethod
    def parse(cls, parser: Parser) -> GradOp:
        pairs = parse_bound_operands(parser)
        sens = []
        if parser.parse_optional_keyword("sens") is not None:
            sens = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_unresolved_operand
            )
        parser.parse_keyword("wrt")
        wrt = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
        )
        parser.parse_keyword("weights")
        weights = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_symbol_name().data
        )
        aux = 0
        if parser.parse_optional_keyword("aux") is not None:
            aux = parser.parse_integer(allow_boolean=False, allow_negative=False)
        value = parser.parse_optional_keyword("value") is not None
        parser.parse_punctuation(":")
        pos = parser.pos
        fn = parser.parse_function_type()
        types = fn.inputs.data
        if len(types) != len(pairs) + len(sens):
            parser.raise_error(
                f"{len(pairs)} inputs and {len(sens)} sens need {len(pairs) + len(sens)} "
                f"input types, got {len(types)}",
                pos,
            )
        n = len(pairs)
        block_args = [a.resolve(t) for (a, _), t in zip(pairs, types[:n])]
        inputs = parser.resolve_operands([o for _, o in pairs], types[:n], pos)
        sens_values = parser.resolve_operands(sens, types[n:], pos)
        body = parser.parse_region(block_args)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(inputs, sens_values, wrt, weights, aux, value, fn.outputs.data, body)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        print_bound_operands(printer, self.body.block.args, self.inputs)
        if self.sens:
            printer.print_string(" sens (")
            printer.print_list(self.sens, printer.print_operand)
            printer.print_string(")")
        printer.print_string(" wrt [")
        printer.print_list(self.wrt_list, lambda i: printer.print_string(str(i)))
        printer.print_string("] weights [")
        printer.print_list(self.weights.data, printer.print_attribute)
        printer.print_string("]")
        if self.n_aux:
            printer.print_string(f" aux {self.n_aux}")
        if self.returns_value:
            printer.print_string(" value")
        printer.print_string(" : ")
        printer.print_operation_type(self)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


GRAD_OPS = (GradOp,)
