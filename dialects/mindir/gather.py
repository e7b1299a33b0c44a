"""mindir's indexed data movement: gather and its adjoint, unsorted_segment_sum.

    %y = mindir.gather %p, %i {axis = 1 : i64}
           : (tensor<4x5x6xf32>, tensor<2x3xi32>) -> tensor<4x2x3x6xf32>
    %s = mindir.unsorted_segment_sum %x, %ids {num_segments = 5 : i64}
           : (tensor<2x3x6xf32>, tensor<2x3xi32>) -> tensor<5x6xf32>

`gather` is MindSpore's Gather (batch_dims 0): the slices of `params` along
`axis` at each index, result shape params[:axis] + indices.shape +
params[axis+1:]. `unsorted_segment_sum` is MindSpore's UnsortedSegmentSum: the
sum of the slices `x[i...]` whose `segment_ids[i...]` is each segment, result
shape (num_segments,) + x.shape[ids.rank:]; it is what MindSpore's Gather bprop
scatters the output gradient with, and Gather is its adjoint in turn.

Indices out of range: MindSpore's CPU kernels raise (Gather) or skip
(UnsortedSegmentSum) them; a compiled graph cannot raise, so here an index
outside [0, n) gathers zeros and an id outside [0, num_segments) adds nowhere.
The lowering makes both explicit (no out-of-bounds read reaches MLIR); the
frontend raises MindSpore's RuntimeError where the indices are known.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, TensorType, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.format import TypedOp, int_prop


def _indices(t: Attribute, what: str, op: str) -> TensorType:
    x = S.tensor_of(t, what)
    if not S.is_int(x.get_element_type()):
        raise VerifyException(f"{op} {what} must have integer elements, got {x.get_element_type()}")
    return x


@irdl_op_definition
class GatherOp(TypedOp):
    """`gather(params, indices) {axis}`: params[..., indices, ...] along `axis`."""

    name = "mindir.gather"
    params = operand_def(TensorType)
    indices = operand_def(TensorType)
    result = result_def(TensorType)
    axis = prop_def(IntegerAttr, IntegerAttr(0, i64))
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        p = S.tensor_of(operand_types[0], "params")
        i = _indices(operand_types[1], "indices", cls.name)
        shape = p.get_shape()
        axis = int_prop(props, "axis")
        if not 0 <= axis < len(shape):
            raise VerifyException(
                f"{cls.name} axis must be in [0, {len(shape)}) for params of rank "
                f"{len(shape)}, got {axis}"
            )
        out = (*shape[:axis], *i.get_shape(), *shape[axis + 1 :])
        return S.tensor_type(out, p.get_element_type())

    @classmethod
    def get(cls, params: SSAValue, indices: SSAValue, axis: int = 0) -> GatherOp:
        return cls.make([params, indices], {"axis": IntegerAttr(axis, i64)})

    @property
    def gather_axis(self) -> int:
        return int_prop(dict(self.properties), "axis")


@irdl_op_definition
class UnsortedSegmentSumOp(TypedOp):
    """`unsorted_segment_sum(x, segment_ids) {num_segments}`: out[s, ...] is the sum
    of x[i..., ...] over every i... with segment_ids[i...] == s."""

    name = "mindir.unsorted_segment_sum"
    input = operand_def(TensorType)
    segment_ids = operand_def(TensorType)
    result = result_def(TensorType)
    num_segments = prop_def(IntegerAttr)
    traits = traits_def(Pure())

    @classmethod
    def infer_result(cls, operand_types, props):
        x = S.tensor_of(operand_types[0], "input")
        ids = _indices(operand_types[1], "segment_ids", cls.name)
        if S.is_bool(x.get_element_type()):
            raise VerifyException(f"{cls.name} needs number elements, got i1")
        n = int_prop(props, "num_segments", -1)
        if n < 1:
            raise VerifyException(f"{cls.name} num_segments must be positive, got {n}")
        shape, lead = x.get_shape(), ids.get_shape()
        if tuple(shape[: len(lead)]) != tuple(lead):
            raise VerifyException(
                f"{cls.name} segment_ids shape {list(lead)} must be a prefix of the input "
                f"shape {list(shape)}"
            )
        return S.tensor_type((n, *shape[len(lead) :]), x.get_element_type())

    @classmethod
    def get(cls, x: SSAValue, segment_ids: SSAValue, num_segments: int) -> UnsortedSegmentSumOp:
        return cls.make([x, segment_ids], {"num_segments": IntegerAttr(num_segments, i64)})

    @property
    def segments(self) -> int:
        return int_prop(dict(self.properties), "num_segments")


GATHER_OPS = (GatherOp, UnsortedSegmentSumOp)
