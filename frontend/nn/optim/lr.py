"""The learning rate an optimizer is given, as MindSpore reads it.

    float or int >= 0, 0-d Tensor       fixed: a float, a constant of the compiled step
    list or tuple of numbers, 1-D Tensor dynamic: one value per step
    LearningRateSchedule Cell           dynamic: evaluated on the step

A dynamic learning rate is a `LearningRateSchedule` the optimizer calls with its
`global_step` Parameter (int32, shape (1,)) in `get_lr()`; a list becomes an
`IteratorLearningRate` holding the values in a float32 Parameter named
`learning_rate` (as MindSpore's `_IteratorLearningRate`), gathered at the step.
Past the end of the list the last value is kept (the index is clamped).
Because the step counter is a Parameter advanced by an assign at the end of each
step, graph mode (auto-monad orders the read before the write) and PyNative mode
use the same learning rate at every step.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from mindjit.frontend import ops
from mindjit.frontend.nn.learning_rate_schedule import LearningRateSchedule
from mindjit.frontend.tensor import Parameter, Tensor


class IteratorLearningRate(LearningRateSchedule):
    """`values[min(step, len - 1)]` of a 1-D float32 list of learning rates."""

    def __init__(self, values: np.ndarray, name: str = "learning_rate"):
        super().__init__()
        self.size = int(values.shape[0])
        self.learning_rate = Parameter(
            Tensor(values.astype(np.float32)), name=name, requires_grad=False
        )

    def construct(self, global_step):
        index = ops.minimum(global_step, self.size - 1)
        return ops.gather(self.learning_rate, index, 0)

    def extend_repr(self) -> str:
        return f"size={self.size}"


def _fixed(value: Any, owner: str) -> float:
    v = float(value)
    if not v >= 0.0:
        raise ValueError(f"For '{owner}', 'learning_rate' must be at least 0.0, but got {value}.")
    return v


def _dynamic(values: np.ndarray, owner: str, name: str) -> IteratorLearningRate:
    if values.size == 0:
        raise ValueError(f"For '{owner}', the dynamic 'learning_rate' must not be empty.")
    if not np.issubdtype(values.dtype, np.number) or np.issubdtype(values.dtype, np.bool_):
        raise TypeError(
            f"For '{owner}', the dynamic 'learning_rate' must hold numbers, got {values.dtype}"
        )
    return IteratorLearningRate(values.astype(np.float32), name)


def preprocess_lr(value: Any, owner: str, name: str = "learning_rate") -> tuple[Any, bool]:
    """(the float or the schedule Cell, whether it is dynamic)."""
    if isinstance(value, LearningRateSchedule):
        return value, True
    if isinstance(value, Tensor):
        if value.ndim == 0:
            return _fixed(value.item(), owner), False
        if value.ndim == 1:
            return _dynamic(value.asnumpy(), owner, name), True
        raise ValueError(
            f"For '{owner}', the dimension of the Tensor 'learning_rate' must be 0 or 1, "
            f"but got {value.ndim}."
        )
    if isinstance(value, list | tuple):
        for v in value:
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(
                    f"For '{owner}', every value of the dynamic 'learning_rate' must be a "
                    f"float, got {type(v).__name__}"
                )
        return _dynamic(np.array(value, np.float64), owner, name), True
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"For '{owner}', 'learning_rate' must be a float, an int, a Tensor, a list or "
            f"tuple of floats, or a LearningRateSchedule, got {type(value).__name__}"
        )
    return _fixed(value, owner), False
