"""Printing tensors as MindSpore does, in both modes.

The layout rules (MindSpore's `TensorStringifier`) live once, in the bottom
layer (`mindjit.support.tensor_text`), where the CPU executor's print runtime
reads them too; this module adds what only the frontend needs: `repr` of a
Tensor, dtype names of mindjit DTypes, and printing Python-side items.

    Tensor(shape=[3], dtype=Float32, value=[-4.01971531e+00 -5.79053342e-01  3.41115999e+00])
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from mindjit.support import tensor_text as _rt
from mindjit.support.tensor_text import format_data, format_tensor, shape_string

__all__ = [
    "dtype_name",
    "format_data",
    "format_repr",
    "format_tensor",
    "format_tensor_graph",
    "item_text",
    "print_items",
    "shape_string",
]


def dtype_name(dtype: Any) -> str:
    """MindSpore's name of a dtype (`Float32`); mindjit DTypes and names pass through."""
    ms_name = getattr(dtype, "ms_name", None)
    if isinstance(ms_name, str):
        return ms_name
    if isinstance(dtype, str) and dtype[:1].isupper():
        return dtype
    return _rt.dtype_name(dtype)


def format_tensor_graph(arr: np.ndarray, dtype: Any) -> str:
    """`Tensor(shape=[...], dtype=Name, value=...)` as graph-mode print shows it."""
    return format_tensor(arr, dtype_name(dtype))


def format_repr(arr: np.ndarray, dtype: Any = None) -> str:
    """`repr(Tensor)` in MindSpore 2.x: `Tensor(shape=[3], dtype=Int64, value= [1, 2, 3])`."""
    arr = np.asarray(arr)
    sep = "\n" if arr.ndim > 1 else " "
    name = dtype_name(arr.dtype if dtype is None else dtype)
    return (
        f"Tensor(shape={shape_string(arr.shape)}, dtype={name}, "
        f"value={sep}{format_data(arr, use_comma=True)})"
    )


def item_text(item: Any) -> str:
    """One printed line: strings as they are, tensors in the graph-mode format."""
    if isinstance(item, str):
        return item
    arr = _array_of(item)
    if arr is not None:
        return format_tensor_graph(arr, getattr(item, "dtype", arr.dtype))
    return str(item)


def _array_of(item: Any) -> np.ndarray | None:
    if isinstance(item, np.ndarray):
        return item
    asnumpy = getattr(item, "asnumpy", None)
    if callable(asnumpy):
        return np.asarray(asnumpy())
    return None


def print_items(items: Iterable[Any]) -> None:
    """Print each item on its own line, as MindSpore's Print op does."""
    for item in items:
        print(item_text(item), flush=True)
