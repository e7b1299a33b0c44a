"""The column transforms of `mindspore.dataset.transforms`: `TypeCast`,
`OneHot`, `Fill`, `Mask`, `Concatenate`, `Duplicate`, `Slice`, `PadEnd`,
`Unique` (and `Plugin`, a NotImplementedError: it loads a shared library).

Arguments are checked when the transform is made (MindSpore's validators);
data it cannot take is a RuntimeError naming the transform when it runs, as
MindSpore's C++ kernels report (`OneHot: OneHot index values are not in range`).
Outputs keep MindSpore's dtypes: OneHot and Fill keep the input's, Unique's
index and count columns are int32, Mask's is `dtype` (bool by default).
"""

from __future__ import annotations

import operator
from enum import IntEnum
from typing import Any

import numpy as np

from mindjit.frontend.dataset.transforms.base import TensorOperation, numpy_dtype, single
from mindjit.frontend.dataset.transforms.checks import (
    INT64_MAX,
    check_positive,
    check_value,
    type_check,
)
from mindjit.frontend.dtype import DType
from mindjit.frontend.dtype import bool_ as ms_bool

_SCALARS = (str, float, bool, int, bytes)


class TypeCast(TensorOperation):
    """`TypeCast(data_type)`: the input as `data_type` (a mindjit dtype such as
    `ms.int32`, or a numpy dtype)."""

    def __init__(self, data_type: Any):
        self.data_type = numpy_dtype(data_type)

    def compute(self, rng, *arrays):
        out = tuple(a.astype(self.data_type) for a in arrays)
        return out[0] if len(out) == 1 else out


class OneHot(TensorOperation):
    """`OneHot(num_classes, smoothing_rate=0.0)`: an int label (a scalar or 1-D)
    as one-hot rows of the label's dtype; with a smoothing rate s > 0, float32
    rows `(1 - s) * one_hot + s / num_classes`."""

    def __init__(self, num_classes: int, smoothing_rate: float = 0.0):
        type_check(smoothing_rate, (int, float), "smoothing_rate")
        type_check(num_classes, (int,), "num_classes")
        check_positive(num_classes)
        check_value(smoothing_rate, 0.0, 1.0, "smoothing_rate")
        self.num_classes, self.smoothing_rate = num_classes, smoothing_rate

    def compute(self, rng, *arrays):
        label = np.squeeze(single("OneHot", arrays))
        if label.ndim > 1:
            raise RuntimeError(f"OneHot: Only support scalar or 1D input, got rank: {label.ndim}")
        if not np.issubdtype(label.dtype, np.integer):
            raise RuntimeError(
                f"OneHot: OneHot does not support input of this type: {label.dtype}; the label "
                "must be an int"
            )
        if label.size and (label.min() < 0 or label.max() >= self.num_classes):
            raise RuntimeError(
                f"OneHot: OneHot index values are not in range [0, {self.num_classes}): got "
                f"{label.min() if label.min() < 0 else label.max()}"
            )
        hot = np.arange(self.num_classes) == label[..., None]
        if self.smoothing_rate > 0:
            s = self.smoothing_rate
            return ((1 - s) * hot + s / self.num_classes).astype(np.float32)
        return hot.astype(label.dtype)


class Fill(TensorOperation):
    """`Fill(fill_value)`: the input's shape and dtype, every element `fill_value`."""

    def __init__(self, fill_value: Any):
        type_check(fill_value, _SCALARS, "fill_value")
        self.fill_value = fill_value

    def compute(self, rng, *arrays):
        x = single("Fill", arrays)
        if isinstance(self.fill_value, str | bytes) != (x.dtype.kind in "US"):
            raise RuntimeError("Fill: fill datatype does not match the input datatype.")
        if x.dtype.kind in "US":
            return np.full(x.shape, self.fill_value)
        return np.full(x.shape, np.array(self.fill_value).astype(x.dtype), dtype=x.dtype)


class Relational(IntEnum):
    """The comparisons of `Mask`."""

    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_COMPARE = {
    Relational.EQ: operator.eq,
    Relational.NE: operator.ne,
    Relational.GT: operator.gt,
    Relational.GE: operator.ge,
    Relational.LT: operator.lt,
    Relational.LE: operator.le,
}


class Mask(TensorOperation):
    """`Mask(operator, constant, dtype=mstype.bool_)`: `input <operator> constant`
    elementwise, as `dtype`."""

    def __init__(self, operator: Relational, constant: Any, dtype: DType = ms_bool):
        type_check(operator, (Relational,), "operator")
        type_check(constant, _SCALARS, "constant")
        type_check(dtype, (DType,), "dtype")
        self.operator, self.constant, self.dtype = operator, constant, dtype

    def compute(self, rng, *arrays):
        x = single("Mask", arrays)
        if isinstance(self.constant, str | bytes) != (x.dtype.kind in "US"):
            raise RuntimeError(
                f"Mask: the input ({x.dtype}) and the constant ({self.constant!r}) must both be "
                "numbers or both be strings"
            )
        return _COMPARE[self.operator](x, self.constant).astype(self.dtype.numpy)


def _one_d(value: Any, name: str) -> None:
    if value is not None:
        type_check(value, (np.ndarray,), name)
        if value.ndim != 1:
            raise ValueError(f"can only {name} 1D arrays.")


class Concatenate(TensorOperation):
    """`Concatenate(axis=0, prepend=None, append=None)`: the input columns (1-D)
    end to end, between `prepend` and `append`."""

    def __init__(self, axis: int = 0, prepend: np.ndarray | None = None, append: Any = None):
        if axis is not None:
            type_check(axis, (int,), "axis")
            if axis not in (0, -1):
                raise ValueError("only 1D concatenation supported.")
        _one_d(prepend, "prepend")
        _one_d(append, "append")
        self.axis, self.prepend, self.append = axis, prepend, append

    def compute(self, rng, *arrays):
        parts = [p for p in (self.prepend, *arrays, self.append) if p is not None]
        for p in parts:
            if p.ndim != 1:
                raise RuntimeError(
                    f"Concatenate: Only 1D input supported, but got an input of shape {p.shape}"
                )
        kinds = {"string" if p.dtype.kind in "US" else p.dtype for p in parts}
        if len(kinds) > 1:
            raise RuntimeError(
                "Concatenate: input datatype does not match: "
                + ", ".join(sorted(str(k) for k in kinds))
            )
        return np.concatenate(parts)


class Duplicate(TensorOperation):
    """`Duplicate()`: the one input column, twice (map it to two output columns)."""

    def compute(self, rng, *arrays):
        x = single("Duplicate", arrays)
        return x, x.copy()


class Unique(TensorOperation):
    """`Unique()`: the distinct elements in the order they first occur, each
    element's index among them, and how often each occurs (three columns)."""

    def compute(self, rng, *arrays):
        flat = single("Unique", arrays).reshape(-1)
        if flat.dtype.kind in "USb":
            raise RuntimeError(f"Unique: the input must hold numbers, but got {flat.dtype}")
        values, first, inverse, counts = np.unique(
            flat, return_index=True, return_inverse=True, return_counts=True
        )
        order = np.argsort(first, kind="stable")  # first-occurrence order, as MindSpore
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return values[order], rank[inverse].astype(np.int32), counts[order].astype(np.int32)


def _slice_option(option: Any, where: str) -> Any:
    if option is None or option is Ellipsis or option is True:
        return slice(None)
    type_check(option, (int, list, slice, bool, type(Ellipsis)), where)
    if option is False:
        raise TypeError(f"{where}: False is not a slice option; True, None or ... take all")
    if isinstance(option, int):
        return [option]
    if isinstance(option, list):
        for i, v in enumerate(option):
            type_check(v, (int,), f"{where}[{i}]")
    return option


class Slice(TensorOperation):
    """`Slice(*slices)`: each option picks along one dimension, in order: an int
    or a list of ints (indices, negative ones from the end), a `slice`, or
    None / ... / True (all of it)."""

    def __init__(self, *slices: Any):
        self.slices = [_slice_option(s, "slice") for s in slices]

    def compute(self, rng, *arrays):
        x = single("Slice", arrays)
        if len(self.slices) > x.ndim:
            raise RuntimeError(
                f"Slice: {len(self.slices)} slice options for an input of rank {x.ndim}"
            )
        for axis, option in enumerate(self.slices):
            if isinstance(option, list):
                n = x.shape[axis]
                bad = [i for i in option if not -n <= i < n]
                if bad:
                    raise RuntimeError(
                        f"Slice: index {bad[0]} is out of bounds for dimension {axis} of size {n}"
                    )
                x = np.take(x, option, axis=axis)
            else:
                x = x[(slice(None),) * axis + (option,)]
        return x


class PadEnd(TensorOperation):
    """`PadEnd(pad_shape, pad_value=None)`: the input padded at the end of each
    dimension to `pad_shape` (a None keeps that dimension; a shorter one cuts),
    with `pad_value` (0, or "" for strings)."""

    def __init__(self, pad_shape: list[Any], pad_value: Any = None):
        if pad_value is not None:
            type_check(pad_value, _SCALARS, "pad_value")
        type_check(pad_shape, (list,), "pad_shape")
        for dim in pad_shape:
            if dim is not None:
                if not isinstance(dim, int) or isinstance(dim, bool):
                    raise TypeError("a value in the list is not an integer.")
                check_value(dim, 1, INT64_MAX)
        self.pad_shape, self.pad_value = pad_shape, pad_value

    def compute(self, rng, *arrays):
        x = single("PadEnd", arrays)
        if x.ndim == 0:
            return x
        if x.ndim != len(self.pad_shape):
            raise RuntimeError(
                f"PadEnd: invalid pad shape: {self.pad_shape} for an input of rank {x.ndim}"
            )
        text = x.dtype.kind in "US"
        value = self.pad_value
        if value is not None and isinstance(value, str | bytes) != text:
            raise RuntimeError("PadEnd: Source and pad_value are not of the same type.")
        shape = [x.shape[i] if d is None else d for i, d in enumerate(self.pad_shape)]
        if value is None:
            value = "" if text else 0
        dtype = np.result_type(x.dtype, np.array(value).dtype) if text else x.dtype
        out = np.full(shape, value if text else np.array(value).astype(x.dtype), dtype=dtype)
        keep = tuple(slice(0, min(a, b)) for a, b in zip(x.shape, shape))
        out[keep] = x[keep]
        return out


class Plugin(TensorOperation):
    """Not implemented: MindSpore's `Plugin` loads a MindData plugin library (.so)."""

    def __init__(self, lib_path: str, func_name: str, user_args: str | None = None):
        raise NotImplementedError(
            "mindjit.dataset.transforms.Plugin is not implemented: it loads a MindData plugin "
            "shared library, which mindjit's numpy pipeline has no loader for; use a Python "
            "function in map instead"
        )
