"""The base class of `mindjit.dataset.transforms` and `.vision`: numpy in, numpy out.

MindSpore runs its transforms in C++ (or PIL) and hands numpy back; here each
one is a numpy function, `compute(rng, *arrays)`. A transform is called two
ways: inside `Dataset.map` (nodes.MapNode calls `apply(op, rng, values)`, so a
random transform draws from the pipeline iterator's seeded generator, in pull
order, and a seeded pipeline gives the same rows every run), or directly
(eager: `vision.HWC2CHW()(image)`), drawing from `config.eager_rng()`. One
input gives one array back, several a tuple, as MindSpore's `__call__` does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mindjit.frontend.dataset import config
from mindjit.frontend.dtype import DType
from mindjit.frontend.tensor import Tensor


class TensorOperation:
    """A transform: `op(*arrays)` eagerly, or an operation of `Dataset.map`."""

    #: MindSpore's flag: whether the results may differ between calls
    random = False

    def compute(self, rng: np.random.Generator, *arrays: np.ndarray) -> Any:
        raise NotImplementedError

    def check_inputs(self, inputs: tuple[Any, ...]) -> list[np.ndarray]:
        """Eager inputs as arrays (MindSpore converts each with np.asarray)."""
        out = []
        for x in inputs:
            try:
                arr = x.asnumpy() if isinstance(x, Tensor) else np.asarray(x)
            except (TypeError, ValueError):
                arr = None
            if arr is None or arr.dtype == object:
                raise TypeError(
                    f"Invalid user input. Got {type(x)}: {x!r:.80}, cannot be converted into tensor."
                )
            out.append(arr)
        return out

    def __call__(self, *inputs: Any) -> Any:
        return self.compute(config.eager_rng(), *self.check_inputs(inputs))

    def __repr__(self) -> str:
        shown = {k: v for k, v in vars(self).items() if not k.startswith("_")}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"


def apply(op: Callable[..., Any], rng: np.random.Generator, values: list[Any]) -> Any:
    """One operation on one row's values: a transform draws from `rng`; any other
    callable (a user's function) is called as it is."""
    if isinstance(op, TensorOperation):
        return op.compute(rng, *values)
    return op(*values)


def as_values(result: Any) -> list[Any]:
    """An operation's result as the next one's arguments (a tuple is several)."""
    return list(result) if isinstance(result, tuple) else [result]


def numpy_dtype(data_type: Any, name: str = "data_type") -> np.dtype:
    """A mindjit dtype (`ms.int32`) or anything numpy reads as a dtype, as numpy's;
    else MindSpore's TypeError."""
    if isinstance(data_type, DType):
        return data_type.numpy
    try:
        if data_type is None:
            raise TypeError
        return np.dtype(data_type)
    except (TypeError, ValueError):
        raise TypeError(
            f"Argument {name} with value {data_type!r} is not of type "
            f"[{DType}, {np.dtype}], but got {type(data_type)}."
        ) from None


def single(op: str, arrays: tuple[np.ndarray, ...]) -> np.ndarray:
    """The one input of a one-column transform (MindSpore's RuntimeError otherwise)."""
    if len(arrays) != 1:
        raise RuntimeError(
            f"{op}: the operation takes one column (one input), but got {len(arrays)}; give "
            "map one input column"
        )
    return arrays[0]
