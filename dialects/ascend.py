"""The `ascend` dialect: a program as kernels of the simulated Ascend-like device.

    %y = ascend.kernel "MatMul" cube f32 ND (%a = %x, %b = %w)
           : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32> {
      ...tensor-level ops computing the kernel...
      ascend.yield %r : tensor<4x16xf32>
    }
    ascend.kernel "Assign" vector i32 ND writes @param (%v = %c) : (tensor<i32>) -> () {
      ascend.yield %v : tensor<i32>
    }
    %v = ascend.view %y : tensor<4x1xf32> -> tensor<4xf32>
    ascend.record_event 0 stream 1
    ascend.wait_event 0 stream 0

A kernel's region is its code: the tensor-level ops it runs (what a real device
keeps as a compiled kernel binary); its properties are the choices of kernel
selection: the kernel type (MindSpore's primitive name), the compute unit, the
dtype and the data format. A kernel with `writes @p` stores its one yielded
value into Parameter @p's memory (MindSpore's Assign) and has no results. A view
is no kernel: its result is its operand's memory seen with another shape
(MindSpore's nop nodes: Reshape, ExpandDims, Squeeze).

Later passes annotate kernels with discardable attributes: `ascend.stream` (from
ascend-assign-streams) and `ascend.offsets` / `ascend.workspace` (from
ascend-plan-memory); events are ops in the sequence.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerAttr, StringAttr, SymbolRefAttr, TensorType, i64
from xdsl.ir import Attribute, Dialect, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir.format import parse_bound_operands, print_bound_operands

#: The compute units of the simulated device (see backend/ascend/DEVICE.md).
UNITS = ("cube", "vector", "aicpu", "comm")  # comm: Send / Receive (DEVICE.md)
#: The data formats kernel selection may pick; only the plain row-major one is modelled.
FORMATS = ("ND",)

STREAM_ATTR = "ascend.stream"
OFFSETS_ATTR = "ascend.offsets"
WORKSPACE_ATTR = "ascend.workspace"


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Ends a kernel's code: the values the kernel gives (or stores, with `writes`)."""

    name = "ascend.yield"
    values = var_operand_def()
    assembly_format = "($values^ `:` type($values))? attr-dict"
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(KernelOp)))

    def __init__(self, values: Sequence[SSAValue]):
        super().__init__(operands=[list(values)])


@irdl_op_definition
class KernelOp(IRDLOperation):
    """One device kernel: its code (the region) and kernel selection's choices."""

    name = "ascend.kernel"
    inputs = var_operand_def()
    outputs = var_result_def()
    kernel = prop_def(StringAttr)
    unit = prop_def(StringAttr)
    dtype = prop_def(Attribute)
    format = prop_def(StringAttr)
    writes = opt_prop_def(SymbolRefAttr)
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        kernel: str,
        unit: str,
        dtype: Attribute,
        inputs: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        body: Region,
        *,
        fmt: str = "ND",
        writes: str | None = None,
    ):
        props: dict[str, Attribute] = {
            "kernel": StringAttr(kernel),
            "unit": StringAttr(unit),
            "dtype": dtype,
            "format": StringAttr(fmt),
        }
        if writes is not None:
            props["writes"] = SymbolRefAttr(writes)
        super().__init__(
            operands=[list(inputs)],
            result_types=[list(result_types)],
            regions=[body],
            properties=props,
        )

    @property
    def kernel_name(self) -> str:
        return self.kernel.data

    @property
    def unit_name(self) -> str:
        return self.unit.data

    @property
    def writes_symbol(self) -> str | None:
        return self.writes.root_reference.data if self.writes is not None else None

    def verify_(self) -> None:
        if self.unit.data not in UNITS:
            raise VerifyException(f"unknown unit '{self.unit.data}', expected one of {UNITS}")
        if self.format.data not in FORMATS:
            raise VerifyException(f"unknown format '{self.format.data}', expected one of {FORMATS}")
        if not isinstance(self.dtype, TypeAttribute):
            raise VerifyException(f"dtype must be a type, got {self.dtype}")
        block = self.body.block
        if list(block.arg_types) != list(self.inputs.types):
            raise VerifyException("the code's arguments must have the inputs' types")
        end = block.last_op
        if not isinstance(end, YieldOp):
            raise VerifyException("a kernel's code must end with ascend.yield")
        yielded = list(end.values.types)
        if self.writes is not None:
            if self.outputs or len(yielded) != 1:
                raise VerifyException(
                    "a kernel that writes a Parameter yields one value and has no results"
                )
        elif yielded != list(self.outputs.types):
            raise VerifyException(
                f"the code yields ({', '.join(map(str, yielded))}) but the kernel gives "
                f"({', '.join(map(str, self.outputs.types))})"
            )

    @classmethod
    def parse(cls, parser: Parser) -> KernelOp:

        kernel = parser.parse_str_literal("kernel type")
        unit = parser.parse_identifier("compute unit")
        dtype = parser.parse_type()
        fmt = parser.parse_identifier("data format")
        writes = None
        if parser.parse_optional_keyword("writes") is not None:
            writes = parser.parse_symbol_name().data
        pairs = parse_bound_operands(parser, optional=True)
        parser.parse_punctuation(":")
        pos = parser.pos
        fn = parser.parse_function_type()
        if len(pairs) != len(fn.inputs.data):
            parser.raise_error(f"{len(pairs)} inputs but {len(fn.inputs.data)} input types", pos)
        args = [a.resolve(t) for (a, _), t in zip(pairs, fn.inputs.data)]
        operands = parser.resolve_operands([o for _, o in pairs], fn.inputs.data, pos)
        body = parser.parse_region(args)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(kernel, unit, dtype, operands, fn.outputs.data, body, fmt=fmt, writes=writes)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:

        printer.print_string(" ")
        printer.print_string_literal(self.kernel.data)
        printer.print_string(f" {self.unit.data} ")
        printer.print_attribute(self.dtype)
        printer.print_string(f" {self.format.data}")
        if self.writes is not None:
            printer.print_string(" writes ")
            printer.print_attribute(self.writes)
        if self.inputs:
            print_bound_operands(printer, self.body.block.args, self.inputs)
        printer.print_string(" : (")
        printer.print_list(self.inputs.types, printer.print_attribute)
        printer.print_string(") -> ")
        outs = list(self.outputs.types)
        if len(outs) == 1:
            printer.print_attribute(outs[0])
        else:
            printer.print_string("(")
            printer.print_list(outs, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class ViewOp(IRDLOperation):
    """The operand's memory with another static shape: no kernel, no copy."""

    name = "ascend.view"
    source = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, result_type: Attribute):
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        src, dst = self.source.type, self.result.type
        assert isinstance(src, TensorType) and isinstance(dst, TensorType)
        if src.get_element_type() != dst.get_element_type():
            raise VerifyException("a view keeps the element type")
        if src.element_count() != dst.element_count():
            raise VerifyException(
                f"a view keeps the element count: {src} has {src.element_count()}, "
                f"{dst} has {dst.element_count()}"
            )


class _EventOp(IRDLOperation):
    event = prop_def(IntegerAttr)
    stream = prop_def(IntegerAttr)

    def __init__(self, event: int, stream: int):
        super().__init__(
            properties={"event": IntegerAttr(event, i64), "stream": IntegerAttr(stream, i64)}
        )

    def verify_(self) -> None:
        if self.event.value.data < 0 or self.stream.value.data < 0:
            raise VerifyException("event and stream numbers are non-negative")

    @property
    def event_id(self) -> int:
        return self.event.value.data

    @property
    def stream_id(self) -> int:
        return self.stream.value.data

    @classmethod
    def parse(cls, parser: Parser) -> _EventOp:
        event = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_keyword("stream")
        stream = parser.parse_integer(allow_boolean=False, allow_negative=False)
        op = cls(event, stream)
        attrs = parser.parse_optional_attr_dict()
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.event_id} stream {self.stream_id}")
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class RecordEventOp(_EventOp):
    """On `stream`, after the kernels issued so far there: event `event` happens."""

    name = "ascend.record_event"


@irdl_op_definition
class WaitEventOp(_EventOp):
    """`stream` runs nothing more until event `event` has happened."""

    name = "ascend.wait_event"


ASCEND_OPS = (KernelOp, YieldOp, ViewOp, RecordEventOp, WaitEventOp)

Ascend = Dialect("ascend", list(ASCEND_OPS), [])
