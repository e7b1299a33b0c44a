"""Sorting with MindSpore 2.x's signatures: `ops.sort(input_x, axis=-1,
descending=False)` -> (values, int32 indices), `ops.argsort(input, axis=-1,
descending=False)` -> its int32 indices, and `ops.topk(input, k, dim=None,
largest=True, sorted=True)` -> (values, int32 indices), the first k of a stable
sort (equal elements: the smaller index first, MindSpore's rule). NaN sorts as
larger than every number. `sorted=False` may return any order in MindSpore;
here it is the sorted one.
"""

from __future__ import annotations

from typing import Any

from mindjit.dialects import mindir as M
from mindjit.frontend.ops.core import normalize_axis, run
from mindjit.frontend.ops.indexing import getitem
from mindjit.frontend.ops.promotion import is_tensor


def _input(x: Any, name: str) -> Any:
    if not is_tensor(x):
        raise TypeError(f"For '{name}', the input must be a Tensor, got {type(x).__name__}")
    if x.dtype.is_bool:
        raise TypeError(f"For '{name}', the input must be a number tensor, got a Bool tensor")
    if not x.shape:
        raise ValueError(f"For '{name}', the input must have rank >= 1, got a scalar tensor")
    return x


def _bool(value: Any, what: str, name: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', '{what}' must be a bool, got {type(value).__name__}")
    return value


def _sort(x: Any, axis: int, descending: bool) -> tuple[Any, Any]:
    def build(e: Any, v: list[Any]) -> Any:
        op = e.insert(M.SortOp.get(v[0], axis, descending))
        return tuple(op.results)

    return run(("sort", axis, descending), build, x)


def sort(input_x: Any, axis: int = -1, descending: bool = False) -> tuple[Any, Any]:
    """`ops.sort(input_x, axis=-1, descending=False)`: (sorted values, int32 indices)."""
    x = _input(input_x, "sort")
    desc = _bool(descending, "descending", "sort")
    return _sort(x, normalize_axis(axis, len(x.shape), "sort"), desc)


def argsort(input: Any, axis: int = -1, descending: bool = False) -> Any:
    """`ops.argsort(input, axis=-1, descending=False)`: the int32 indices that sort
    `input` along `axis` (stable: equal elements keep their order)."""
    x = _input(input, "argsort")
    desc = _bool(descending, "descending", "argsort")
    return _sort(x, normalize_axis(axis, len(x.shape), "argsort"), desc)[1]


def topk(
    input: Any, k: int, dim: Any = None, largest: bool = True, sorted: bool = True
) -> tuple[Any, Any]:
    """`ops.topk(input, k, dim=None, largest=True, sorted=True)`: the k largest
    (smallest) elements along `dim` (the last axis by default) and their int32 indices."""
    x = _input(input, "topk")
    _bool(largest, "largest", "topk")
    _bool(sorted, "sorted", "topk")
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"For 'topk', 'k' must be an int, got {type(k).__name__}")
    axis = normalize_axis(-1 if dim is None else dim, len(x.shape), "topk")
    n = x.shape[axis]
    if not 0 <= k <= n:
        raise ValueError(f"For 'topk', 'k' must be in [0, {n}] (the size of dim {axis}), got {k}")
    values, indices = _sort(x, axis, largest)
    if k == n:
        return values, indices
    first = tuple(slice(0, k) if d == axis else slice(None) for d in range(len(x.shape)))
    return getitem(values, first), getitem(indices, first)
