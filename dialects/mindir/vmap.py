"""`mindir.vmap`: a per-example computation applied over a batch (MindSpore's vmap).

    %r = mindir.vmap (%x = %a, %w = %b) in_axes [0, none] out_axes [1]
           : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<3x5xf32> {
      %y = mindir.mul %x, %w : tensor<3xf32>
      mindir.yield %y : tensor<3xf32>
    }

The region is one example: its arguments are the inputs with their batch axis
(`in_axes`, one per input, `none` for an input shared by every example) taken
out, its yield the per-example results; each result gets the batch axis back at
its `out_axes` position (`none`: a result that is the same for every example,
returned once, as MindSpore's `out_axes=None`). Every batched input has the same size on its batch
axis (the batch size), and at least one input is batched. Values defined
outside the region may be used inside: they are shared by every example.
`mindir-vmap` rewrites the op into batched ops (one rule per value op).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, TensorType, i64
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.irdl import (
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
from mindjit.dialects.mindir.format import parse_bound_operands, print_bound_operands

#: `in_axes` / `out_axes` entry of an input or result that is not batched (printed `none`).
NOT_BATCHED = -1


def _axes(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def example_type(t: Attribute, axis: int) -> Attribute:
    """The per-example type of an input batched on `axis` (or shared: NOT_BATCHED)."""
    if axis == NOT_BATCHED or not isinstance(t, TensorType):
        return t
    shape = list(t.get_shape())
    if not 0 <= axis < len(shape):
        return t  # out of range: the verifier says so
    del shape[axis]
    return TensorType(t.get_element_type(), shape)


def batched_type(t: Attribute, axis: int, size: int) -> TensorType:
    """A per-example result type with the batch axis of `size` put back at `axis`
    (NOT_BATCHED: an output every example shares, its type unchanged)."""
    assert isinstance(t, TensorType)
    if axis == NOT_BATCHED:
        return t
    shape = list(t.get_shape())
    shape.insert(axis, size)
    return TensorType(t.get_element_type(), shape)


@irdl_op_definition
class VmapOp(IRDLOperation):
    """One example's computation over a batch (see the module doc)."""

    name = "mindir.vmap"
    inputs = var_operand_def(TensorType)
    outputs = var_result_def(TensorType)
    in_axes = prop_def(DenseArrayBase.constr(i64))
    out_axes = prop_def(DenseArrayBase.constr(i64))
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        in_axes: Sequence[int],
        out_axes: Sequence[int],
        result_types: Sequence[Attribute],
        body: Region,
    ):
        super().__init__(
            operands=[list(inputs)],
            result_types=[list(result_types)],
            regions=[body],
            properties={"in_axes": _axes(in_axes), "out_axes": _axes(out_axes)},
        )

    @property
    def in_axis_list(self) -> list[int]:
        return list(self.in_axes.get_values())

    @property
    def out_axis_list(self) -> list[int]:
        return list(self.out_axes.get_values())

    def batch_size(self) -> int:
        """The size of every batched input's batch axis (the verifier checks they agree)."""
        for value, axis in zip(self.inputs, self.in_axis_list):
            if axis != NOT_BATCHED:
                return value.type.get_shape()[axis]  # type: ignore[attr-defined]
        raise VerifyException("mindir.vmap needs at least one batched input")

    def verify_(self) -> None:
        in_axes, out_axes = self.in_axis_list, self.out_axis_list
        if len(in_axes) != len(self.inputs):
            raise VerifyException(f"{len(self.inputs)} inputs but {len(in_axes)} in_axes")
        if len(out_axes) != len(self.outputs):
            raise VerifyException(f"{len(self.outputs)} results but {len(out_axes)} out_axes")
        sizes = set()
        for i, (value, axis) in enumerate(zip(self.inputs, in_axes)):
            rank = len(value.type.get_shape())  # type: ignore[attr-defined]
            if axis != NOT_BATCHED:
                if not 0 <= axis < rank:
                    raise VerifyException(f"in_axes[{i}] = {axis} is out of range for rank {rank}")
                sizes.add(value.type.get_shape()[axis])  # type: ignore[attr-defined]
        if not sizes:
            raise VerifyException(
                "mindir.vmap needs at least one batched input (in_axes not all none)"
            )
        if len(sizes) > 1:
            raise VerifyException(f"batched inputs disagree on the batch size: {sorted(sizes)}")
        size = sizes.pop()
        want = [example_type(v.type, a) for v, a in zip(self.inputs, in_axes)]
        got = list(self.body.block.arg_types)
        if got != want:
            raise VerifyException(
                f"region argument types ({', '.join(map(str, got))}) are not the inputs' "
                f"per-example types ({', '.join(map(str, want))})"
            )
        end = self.body.block.last_op
        if not isinstance(end, YieldOp):
            raise VerifyException("the region must end with mindir.yield")
        yields = list(end.values.types)
        if len(yields) != len(self.outputs):
            raise VerifyException(f"{len(yields)} values yielded for {len(self.outputs)} results")
        for i, (t, axis, result) in enumerate(zip(yields, out_axes, self.outputs)):
            if not isinstance(t, TensorType):
                raise VerifyException(f"yielded value {i} is {t}, not a tensor")
            if axis != NOT_BATCHED and not 0 <= axis <= len(t.get_shape()):
                raise VerifyException(
                    f"out_axes[{i}] = {axis} is out of range for a per-example rank "
                    f"of {len(t.get_shape())}"
                )
            if result.type != batched_type(t, axis, size):
                raise VerifyException(
                    f"result {i} is {result.type}, expected {batched_type(t, axis, size)}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> VmapOp:
        def axis() -> int:
            if parser.parse_optional_keyword("none") is not None:
                return NOT_BATCHED
            return parser.parse_integer(allow_boolean=False, allow_negative=False)

        pairs = parse_bound_operands(parser)
        parser.parse_keyword("in_axes")
        in_axes = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, axis)
        parser.parse_keyword("out_axes")
        out_axes = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, axis)
        parser.parse_punctuation(":")
        pos = parser.pos
        fn = parser.parse_function_type()
        if len(pairs) != len(fn.inputs.data) or len(in_axes) != len(pairs):
            parser.raise_error(
                f"{len(pairs)} inputs, {len(in_axes)} in_axes and {len(fn.inputs.data)} "
                "input types must agree",
                pos,
            )
        block_args = [
            a.resolve(example_type(t, ax)) for (a, _), t, ax in zip(pairs, fn.inputs.data, in_axes)
        ]
        operands = parser.resolve_operands([o for _, o in pairs], fn.inputs.data, pos)
        body = parser.parse_region(block_args)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(list(operands), in_axes, out_axes, fn.outputs.data, body)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        print_bound_operands(printer, self.body.block.args, self.inputs)
        printer.print_string(" in_axes [")
        printer.print_list(
            self.in_axis_list, lambda a: printer.print_string("none" if a < 0 else str(a))
        )
        printer.print_string("] out_axes [")
        printer.print_list(
            self.out_axis_list, lambda a: printer.print_string("none" if a < 0 else str(a))
        )
        printer.print_string("] : ")
        printer.print_operation_type(self)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


VMAP_OPS = (VmapOp,)
