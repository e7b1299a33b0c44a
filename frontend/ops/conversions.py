"""Numbers and tuples to tensors with MindSpore's functional names:
`ops.scalar_to_tensor`, `ops.tuple_to_array` (and the primitives
`ScalarToTensor`, `TupleToArray`).

They take Python values, so in graph mode they run while the graph is traced
(a tuple of constants becomes one constant tensor), as MindSpore folds them; a
tensor the graph computes is no number, and no element of such a tuple (a
TypeError, located at the user's line). MindSpore's dtypes: a tuple of ints is
int32 and of floats float32 (`TupleToArray`), a scalar float32 unless `dtype`
says otherwise (`ScalarToTensor`).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.tensor import Tensor


def _is_scalar(x: Any) -> bool:
    return isinstance(x, bool | int | float | np.bool_ | np.integer | np.floating)


def scalar_to_tensor(input_x: Any, dtype: Any = D.float32) -> Tensor:
    """`ops.scalar_to_tensor(input_x, dtype=mstype.float32)`: a 0-d Tensor of `dtype`."""
    if not _is_scalar(input_x):
        raise TypeError(
            "For 'ScalarToTensor', the 'input_x' must be a bool, int or float, but got "
            f"{'Tensor' if is_tensor(input_x) else type(input_x).__name__}"
        )
    if not isinstance(dtype, D.DType):
        raise TypeError(
            f"For 'ScalarToTensor', the 'dtype' must be a mindspore number type, but got {dtype!r}"
        )
    return Tensor(np.array(input_x, dtype.numpy))


def tuple_to_array(input_x: Any) -> Tensor:
    """`ops.tuple_to_array(input_x)`: a 1-D Tensor of a tuple of numbers of one type,
    int32 for ints and float32 for floats."""
    name = "TupleToArray"
    if isinstance(input_x, range):
        input_x = tuple(input_x)
    if not isinstance(input_x, tuple):
        raise TypeError(
            f"For '{name}', the 'input_x' must be a tuple, but got {type(input_x).__name__}"
        )
    if not input_x:
        raise ValueError(f"For '{name}', the size of 'input_x' must be greater than 0, but got 0")
    for i, item in enumerate(input_x):
        if not isinstance(item, numbers.Number) or is_tensor(item):
            what = "Tensor" if is_tensor(item) else type(item).__name__
            raise TypeError(
                f"For '{name}', the 'x[{i}]' must be a Number (a constant), but got {what}"
            )
    first = type(input_x[0])
    if not all(isinstance(item, first) for item in input_x):
        raise TypeError(f"For '{name}', all elements of 'input_x' must be have same type.")
    return Tensor(np.array(input_x, np.int32 if isinstance(input_x[0], int) else np.float32))


__all__ = ["scalar_to_tensor", "tuple_to_array"]
