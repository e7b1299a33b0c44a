"""The numpy dtype of an MLIR element type: one table for every layer that reads
or writes element bytes (the CPU executor's kernels, `dense_resource` blobs)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

FLOAT_DTYPES: dict[type, np.dtype] = {
    Float16Type: np.dtype(np.float16),
    Float32Type: np.dtype(np.float32),
    Float64Type: np.dtype(np.float64),
}


def numpy_dtype(t: Attribute) -> np.dtype | None:
    """The native numpy dtype of scalar type `t` (i1 is bool, index is int64), or
    None when numpy has none (bf16, odd integer widths)."""
    if (found := FLOAT_DTYPES.get(type(t))) is not None:
        return found
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, IntegerType):
        width = t.width.data
        if width == 1:
            return np.dtype(np.bool_)
        if width in (8, 16, 32, 64):
            unsigned = t.signedness.data == Signedness.UNSIGNED
            return np.dtype(f"{'u' if unsigned else 'i'}{width // 8}")
    return None
