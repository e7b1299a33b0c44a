"""`ms.mutable(input_data, dynamic_len=False)`: a constant input made a variable one.

A graph's scalar, tuple, list and dict inputs are constants: folded into the graph and
part of its signature, so a new value compiles a new graph. `mutable` marks one as a
run-time input instead (MindSpore's `mutable`): its tensors are the graph's inputs
already, and its ints and floats become 0-d tensor inputs (int64, float32, as MindSpore
types Python scalars), so arithmetic on them stays in the graph and calling again with
another value runs the same compiled program. In PyNative mode the value is itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.tensor import Tensor


class _Int(int):
    pass


class _Float(float):
    pass


class _Tuple(tuple):
    pass


class _List(list):
    pass


class _Dict(dict):
    pass


def _valid(value: Any) -> bool:
    if isinstance(value, tuple | list):
        return all(_valid(v) for v in value)
    if isinstance(value, dict):
        return all(_valid(v) for v in value.values())
    return isinstance(value, Tensor | GraphValue | int | float) and not isinstance(value, bool)


def _kind(value: Any) -> Any:
    """What must agree between the elements of a dynamic-length sequence."""
    if isinstance(value, Tensor):
        return ("Tensor", tuple(value.shape), value.dtype.name)
    if isinstance(value, tuple | list):
        return (type(value).__name__, tuple(_kind(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _kind(v)) for k, v in value.items()))
    return type(value).__name__


def mutable(input_data: Any, dynamic_len: bool = False) -> Any:
    """`input_data` marked mutable (`__ms_mutable__`): a graph takes it as a run-time
    input rather than a constant. `dynamic_len=True` (a tuple or list whose elements
    share one type and shape) is accepted; mindjit's graphs have static shapes, so a
    sequence of another length is compiled once more (a new value of the same length
    is not)."""
    if not _valid(input_data):
        raise TypeError(
            "For 'mutable', the 'input_data' should be one of (int, float, bool, Tensor, "
            f"tuple, list, dict) or their nested structures, but got {input_data}."
        )
    if not isinstance(dynamic_len, bool):
        raise TypeError(
            f"For 'mutable', the 'dynamic_len' should be a bool, but got {dynamic_len!r}."
        )
    if dynamic_len:
        if not isinstance(input_data, tuple | list):
            raise TypeError(
                "For mutable, when the variable_len is True, the first input should be "
                f"list or tuple, but got {input_data}"
            )
        if len({_kind(v) for v in input_data}) > 1:
            raise ValueError(
                "For mutable, when the variable_len is True, all the elements of the "
                f"sequence should have the same type and shape, but got {input_data}"
            )
    if isinstance(input_data, Tensor | GraphValue):
        return input_data  # a tensor is a run-time input already
    ret: Any
    if isinstance(input_data, int):
        ret = _Int(input_data)
    elif isinstance(input_data, float):
        ret = _Float(input_data)
    elif isinstance(input_data, list):
        ret = _List(input_data)
    elif isinstance(input_data, tuple):
        ret = _Tuple(input_data)
    else:
        ret = _Dict(input_data)
    ret.__ms_mutable__ = True
    ret.__ms_dynamic_len__ = dynamic_len
    return ret


def is_mutable(value: Any) -> bool:
    return getattr(value, "__ms_mutable__", False) is True


def graph_inputs(args: Any) -> Any:
    """`args` as a graph takes them: every mutable value's numbers become 0-d Tensors
    (run-time inputs) and its containers plain tuples, lists and dicts. Values not
    marked mutable are returned as they are (the same object when nothing changes)."""
    return _lower(args, False)


def _lower(value: Any, inside: bool) -> Any:
    inside = inside or is_mutable(value)
    if isinstance(value, Tensor):
        return value
    if inside and isinstance(value, bool):
        return value
    if inside and isinstance(value, int):
        return Tensor(np.asarray(int(value), np.int64))
    if inside and isinstance(value, float):
        return Tensor(np.asarray(float(value), np.float32))
    if isinstance(value, tuple | list):
        items = [_lower(v, inside) for v in value]
        if not inside and all(a is b for a, b in zip(items, value)):
            return value
        return tuple(items) if isinstance(value, tuple) else list(items)
    if isinstance(value, dict):
        lowered = {k: _lower(v, inside) for k, v in value.items()}
        if not inside and all(lowered[k] is value[k] for k in value):
            return value
        return lowered
    return value


__all__ = ["graph_inputs", "is_mutable", "mutable"]
