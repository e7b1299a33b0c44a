"""`Emitter`: where an op's builder puts its ops, and the dense literals it makes.

The same builder emits an op into the graph being traced (graph mode, dispatch.py)
and into a one-op function (PyNative; the tape's adjoint graphs, grad_tape.py):
both import it from here, below them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr
from xdsl.ir import Operation, SSAValue

from mindjit.dialects import mindir as M
from mindjit.frontend import dtype as D
from mindjit.ir import interned
from mindjit.ir.compat.unchecked_attrs import unchecked


class Emitter:
    """Where a builder puts its ops: the graph being traced, or a one-op function."""

    def __init__(self, builder: Builder):
        self.builder = builder

    def insert(self, op: Operation) -> Operation:
        return self.builder.insert(op)

    def value(self, op: Operation) -> SSAValue:
        """Insert a one-result op and return its result."""
        return self.builder.insert(op).results[0]

    def constant(self, array: np.ndarray | float | int | bool, dtype: D.DType) -> SSAValue:
        """A `mindir.constant` holding `array` converted to `dtype`."""
        return self.value(M.ConstantOp.make([], {"value": dense_attr(array, dtype)}))


def dense_attr(array: Any, dtype: D.DType) -> DenseIntOrFPElementsAttr:
    """The dense literal of `array` as `dtype`.

    Numbers are stored as their little-endian bytes, as xDSL packs them, without
    a Python list in between (Parameters of a large model are megabytes); i1 goes
    through xDSL's packing, which stores true as all ones.
    """
    arr = np.asarray(array, dtype=dtype.numpy)
    t = interned.tensor_type(dtype.mlir, arr.shape)
    if dtype.is_bool:
        return DenseIntOrFPElementsAttr.from_list(t, [int(v) for v in arr.reshape(-1).tolist()])
    data = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
    # numpy packed exactly shape x element bytes: nothing for xDSL's verifier to find
    return unchecked(DenseIntOrFPElementsAttr, type=t, data=unchecked(BytesAttr, data=data))
