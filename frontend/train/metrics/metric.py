"""`Metric`, the base of the evaluation metrics, with MindSpore's protocol:
`clear()`, `update(*inputs)` per batch, `eval()` at the end; `set_indexes`
picks and orders `update`'s inputs (through `rearrange_inputs`). Inputs may be
Tensors, lists or numpy arrays; the metrics compute in numpy on the host."""

from __future__ import annotations

import functools
from abc import ABCMeta, abstractmethod
from typing import Any

import numpy as np

from mindjit.frontend.tensor import Tensor

EVAL_TYPES = ("classification", "multilabel")


def rearrange_inputs(func: Any) -> Any:
    """`update`'s inputs in the order `set_indexes` gave (all of them if it was not called)."""

    @functools.wraps(func)
    def wrapper(self: Metric, *inputs: Any) -> Any:
        indexes = self.indexes
        return func(self, *(inputs if not indexes else [inputs[i] for i in indexes]))

    return wrapper


class Metric(metaclass=ABCMeta):
    def __init__(self) -> None:
        self._indexes: list[int] | None = None

    def _convert_data(self, data: Any) -> np.ndarray:
        if isinstance(data, Tensor):
            return data.asnumpy()
        if isinstance(data, list):
            return np.array(data)
        if isinstance(data, np.ndarray):
            return data
        raise TypeError(
            "For 'Metric' and its derived classes, the input data type must be tensor, list or "
            f"numpy.ndarray, but got {type(data)}."
        )

    @property
    def indexes(self) -> list[int] | None:
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes: list[int]) -> Metric:
        if not isinstance(indexes, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in indexes
        ):
            raise ValueError(
                "For 'set_indexes', the argument 'indexes' must be a list and all its elements "
                f"must be int, but got {indexes!r}."
            )
        self._indexes = indexes
        return self

    def __call__(self, *inputs: Any) -> Any:
        self.clear()
        self.update(*inputs)
        return self.eval()

    @abstractmethod
    def clear(self) -> None: ...

    @abstractmethod
    def update(self, *inputs: Any) -> None: ...

    @abstractmethod
    def eval(self) -> Any: ...


def two_inputs(owner: str, inputs: tuple) -> None:
    if len(inputs) != 2:
        raise ValueError(
            f"For '{owner}.update', it needs 2 inputs (predicted value, true value), "
            f"but got {len(inputs)}."
        )


def no_samples(owner: str) -> RuntimeError:
    return RuntimeError(
        f"The '{owner}' can not be calculated, because the number of samples is 0, please check "
        "whether your inputs(predicted value, true value) are empty, or has called update method "
        "before calling eval method."
    )


def is_one_hot(data: np.ndarray) -> bool:
    if data.ndim > 1 and np.equal(data**2, data).all():
        shape = (data.shape[0],) + data.shape[2:]
        return bool(np.equal(np.ones(shape), data.sum(axis=1)).all())
    return False


class EvaluationBase(Metric):
    """A metric of 'classification' (one label per sample) or 'multilabel' data."""

    def __init__(self, eval_type: str):
        super().__init__()
        if eval_type not in EVAL_TYPES:
            raise TypeError(
                f"The argument 'eval_type' must be in {set(EVAL_TYPES)}, but got {eval_type}"
            )
        self._type = eval_type

    def _prepare(self, owner: str, inputs: tuple) -> tuple[np.ndarray, np.ndarray]:
        """(y_pred, y) checked, a one-hot y turned into labels, the class count kept."""
        two_inputs(owner, inputs)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if self._type == "classification" and y_pred.ndim == y.ndim and is_one_hot(y):
            y = y.argmax(axis=1)
        if self._type == "classification":
            if y_pred.ndim != y.ndim + 1 or y.shape != (y_pred.shape[0],) + y_pred.shape[2:]:
                raise ValueError(
                    "In classification case, y_pred (predicted value) shape and y (true value) "
                    "shape can not match, y shape should be equal to y_pred shape that the value "
                    f"at index 1 is deleted. But got y_pred shape {y_pred.shape} and y shape "
                    f"{y.shape}"
                )
        else:
            if y_pred.shape != y.shape:
                raise ValueError(
                    "In multilabel case, the shape of y_pred (predicted value) should equal to "
                    f"the shape of y (true value), but got y_pred shape: {y_pred.shape} and y "
                    f"shape: {y.shape}."
                )
            if not (np.equal(y_pred**2, y_pred).all() and np.equal(y**2, y).all()):
                raise ValueError(
                    "In multilabel case, all elements in y_pred (predicted value) and y (true "
                    "value) should be 0 or 1."
                )
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(
                f"For '{owner}.update', class number not match, last input predicted data "
                f"contain {self._class_num} classes, but current predicted data contain "
                f"{y_pred.shape[1]} classes, please check your predicted value(inputs[0])."
            )
        return y_pred, y


def check_type(value: Any, name: str, types: tuple[type, ...], owner: str | None = None) -> Any:
    """MindSpore's `validator.check_value_type`: a TypeError unless `value` is one of
    `types` (a bool is not an int unless bool is listed)."""
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        prefix = f"For '{owner}', the" if owner else "The"
        wanted = ", ".join(f"'{t.__name__}'" for t in types)
        raise TypeError(
            f"{prefix} type of '{name}' should be {wanted}, but got type '{type(value).__name__}'."
        )
    return value


def check_choice(value: str, choices: list[str], name: str) -> str:
    """MindSpore's `validator.check_string`: a ValueError unless `value` is a choice."""
    if value not in choices:
        raise ValueError(f"The '{name}' must be str and must be in '{choices}', but got '{value}'.")
    return value


def not_updated() -> RuntimeError:
    return RuntimeError("Please call the 'update' method before calling 'eval' method.")
