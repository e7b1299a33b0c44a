"""`mindir.check_range`: a run-time check that every element of a tensor is in range.

    %y = mindir.check_range %x {min = 0.0 : f64, max = 1.0 : f64,
                                message = "For 'BinaryCrossEntropy', ..."} : tensor<4xf32>

`%y` is `%x`, unchanged; running the op fails with `message` when some element
of `%x` is below `min`, above `max`, or NaN. It is what MindSpore's kernels do
when they reject their inputs (BinaryCrossEntropy's logits must be in [0, 1]),
made a node of the graph so that graph mode can check values that only exist
when the graph runs.

- Not `Pure`: it has no memory effect (an unused check is dead code, as MindSpore
  prunes an unused kernel; the frontend makes the checked value feed the
  result), but it is not speculatable, so `mindir-cf-to-select` never hoists one
  out of an `if` to run it unconditionally.
- Once lowered its result *is* its input (no copy): the side-effect passes count
  it among the ops whose result may alias their operand (like a reshape).
- convert-mindir-to-tensor lowers it to a reduction computing "all in range" as an
  `i1` and a `cf.assert` with the message (mindir_to_tensor/check.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import (
    FloatAttr,
    StringAttr,
    TensorType,
    f64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.mindir import shapes as S
from mindjit.dialects.mindir.format import TypedOp


def _bound(props: dict[str, Attribute], name: str) -> float:
    attr = props.get(name)
    if not isinstance(attr, FloatAttr) or attr.type != f64:
        raise VerifyException(f"property '{name}' must be an f64 float, got {attr}")
    value = float(attr.value.data)
    if math.isnan(value):
        raise VerifyException(f"property '{name}' must not be NaN")
    return value


@irdl_op_definition
class CheckRangeOp(TypedOp):
    """`%y = mindir.check_range %x {min, max, message} : T`: `%x`, after checking at
    run time that `min <= x <= max` for every element (NaN fails)."""

    name = "mindir.check_range"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    min = prop_def(FloatAttr)
    max = prop_def(FloatAttr)
    message = prop_def(StringAttr)
    traits = traits_def(NoMemoryEffect())

    @classmethod
    def infer_result(cls, operand_types: Sequence[Attribute], props: dict[str, Attribute]):
        x = S.tensor_of(operand_types[0], "input")
        if not S.is_float(x.get_element_type()):
            raise VerifyException(f"{cls.name} needs float elements, got {x.get_element_type()}")
        low, high = _bound(props, "min"), _bound(props, "max")
        if low > high:
            raise VerifyException(f"min ({low}) must not be greater than max ({high})")
        if not isinstance(props.get("message"), StringAttr):
            raise VerifyException("property 'message' must be a string")
        return x

    @classmethod
    def get(cls, x: SSAValue, low: float, high: float, message: str) -> CheckRangeOp:
        return cls.make(
            [x],
            {
                "min": FloatAttr(float(low), f64),
                "max": FloatAttr(float(high), f64),
                "message": StringAttr(message),
            },
        )

    @property
    def bounds(self) -> tuple[float, float]:
        return float(self.min.value.data), float(self.max.value.data)


CHECK_OPS = (CheckRangeOp,)
