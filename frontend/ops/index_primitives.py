"""MindSpore's primitive classes for index reductions, sort and scans
(`ops.Argmax(axis=-1, output_type=mstype.int32)`, `ops.ArgMaxWithValue(axis=0,
keep_dims=False)` returning (index, values) ...)."""

from __future__ import annotations

from typing import Any

from mindjit.frontend import dtype as D
from mindjit.frontend.ops import index_reduce, scan, sort
from mindjit.frontend.ops.primitives import Primitive


def _index_type(output_type: Any, name: str) -> D.DType:
    t = D.to_dtype(output_type)
    if t not in (D.int32, D.int64):
        raise TypeError(f"For '{name}', 'output_type' must be int32 or int64, got {t}")
    return t


class Argmax(Primitive):
    """`Argmax(axis=-1, output_type=mstype.int32)(x)`: indices of the maxima."""

    _op = "argmax"

    def __init__(self, axis: int = -1, output_type: Any = D.int32):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For '{self.name}', 'axis' must be an int, got {axis!r}")
        self.axis = axis
        self.output_type = _index_type(output_type, self.name)

    def __call__(self, x: Any) -> Any:
        return index_reduce.arg_reduce(self._op, x, self.axis, False, self.output_type)


class Argmin(Argmax):
    """`Argmin(axis=-1, output_type=mstype.int32)(x)`: indices of the minima."""

    _op = "argmin"


class ArgMaxWithValue(Primitive):
    """`ArgMaxWithValue(axis=0, keep_dims=False)(x)` -> (index, values)."""

    _fn = staticmethod(index_reduce.max)

    def __init__(self, axis: int = 0, keep_dims: bool = False):
        super().__init__()
        self.axis = axis
        self.keep_dims = keep_dims

    def __call__(self, x: Any) -> tuple[Any, Any]:
        values, index = type(self)._fn(x, self.axis, self.keep_dims)
        return index, values


class ArgMinWithValue(ArgMaxWithValue):
    """`ArgMinWithValue(axis=0, keep_dims=False)(x)` -> (index, values)."""

    _fn = staticmethod(index_reduce.min)


class Sort(Primitive):
    """`Sort(axis=-1, descending=False)(x)` -> (values, int32 indices)."""

    def __init__(self, axis: int = -1, descending: bool = False):
        super().__init__()
        self.axis = axis
        self.descending = descending

    def __call__(self, x: Any) -> tuple[Any, Any]:
        return sort.sort(x, self.axis, self.descending)


class TopK(Primitive):
    """`TopK(sorted=True)(input_x, k)` -> the k largest along the last axis, int32 indices."""

    def __init__(self, sorted: bool = True):  # noqa: A002 - MindSpore's name
        super().__init__()
        self.sorted = sorted

    def __call__(self, input_x: Any, k: int) -> tuple[Any, Any]:
        return sort.topk(input_x, k, None, True, self.sorted)


class CumSum(Primitive):
    """`CumSum(exclusive=False, reverse=False)(input, axis)`: running sums."""

    _op = "cumsum"

    def __init__(self, exclusive: bool = False, reverse: bool = False):
        super().__init__()
        self.exclusive = exclusive
        self.reverse = reverse

    def __call__(self, x: Any, axis: int) -> Any:
        return scan.scan(self._op, x, axis, self.exclusive, self.reverse)


class CumProd(CumSum):
    """`CumProd(exclusive=False, reverse=False)(x, axis)`: running products."""

    _op = "cumprod"
