"""MindSpore's helpers over Python tuples, lists, dicts, ranges and slices:
`ops.tuple_getitem`, `tuple_len`, `tuple_equal`, `tuple_reversed`,
`tuple_setitem`, `tuple_div`, `list_getitem`, `list_len`, `list_equal`,
`list_setitem`, `make_tuple`, `make_list`, `make_dict`, `make_range`,
`make_slice`, `dict_getitem`, `dict_setitem`, `in_dict`, `not_in_dict`, `is_`,
`is_not`, `hastype`, `shape_mul`, `reduced_shape`, `tail`, `zip_operation`.

They are the functional forms of what MindSpore's graph compiler does with
Python's syntax (`t[i]`, `len(t)`, `range(...)`, `k in d`, `a is b`). Their
arguments are Python values, constants of a mindjit graph, so they run while the
graph is traced, in both modes alike, and give Python values; tuples and lists
may hold Tensors (`tuple_getitem((x, y), 1)` is y, a graph's value in a graph).
The setters return a new sequence or dict and leave theirs unchanged, as
MindSpore's graph values are immutable.

Values and errors are MindSpore 2.10's (its IndexError for an index out of
range, its RuntimeError for `tuple_div`'s and `make_range`'s bad inputs). `tail`,
`zip_operation`, `make_dict` and `dict_setitem` have no PyNative form there
(MindSpore returns None or fails outside a graph); mindjit gives their graph
values everywhere.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mindjit.frontend import dtype as D
from mindjit.frontend.ops.promotion import is_tensor
from mindjit.frontend.ops.type_checks import _type_of


def _index(name: str, data: Any, index: Any) -> int:
    if isinstance(index, bool) or not isinstance(index, int | np.integer):
        raise IndexError(f"{name} evaluator index should be an int64 number, but got {index!r}")
    n = len(data)
    if not -n <= index < n:
        raise IndexError(f"{name} evaluator index should be in range[{-n}, {n}), but got {index}.")
    return int(index)


def _sequence(name: str, data: Any) -> None:
    if not isinstance(data, tuple | list):
        raise TypeError(f"For '{name}', the input should be a tuple or list, but got {data!r}.")


def tuple_getitem(data: Any, index: Any) -> Any:
    """`ops.tuple_getitem(data, index)`: data[index] (an int index, from the end if
    negative)."""
    _sequence("tuple_getitem", data)
    return data[_index("TupleGetItem", data, index)]


def list_getitem(data: Any, index: Any) -> Any:
    """`ops.list_getitem(data, index)`: data[index]."""
    _sequence("list_getitem", data)
    return data[_index("list_getitem", data, index)]


def _setitem(name: str, data: Any, index: Any, value: Any) -> Any:
    _sequence(name, data)
    n = len(data)
    if isinstance(index, bool) or not isinstance(index, int | np.integer):
        raise IndexError(f"{name} evaluator index should be an int64 number, but got {index!r}")
    if not -n <= index < n:
        raise IndexError(
            f"{name} evaluator the index: {index} to set out of range: [{-n},{n - 1}]."
        )
    items = list(data)
    items[int(index)] = value
    return type(data)(items)


def tuple_setitem(data: Any, index: Any, value: Any) -> Any:
    """`ops.tuple_setitem(data, index, value)`: a copy of the tuple with data[index] =
    value."""
    return _setitem("tuple_setitem", data, index, value)


def list_setitem(data: Any, index: Any, value: Any) -> Any:
    """`ops.list_setitem(data, index, value)`: a copy of the list with data[index] =
    value."""
    return _setitem("list_setitem", data, index, value)


def tuple_len(data: Any) -> int:
    """`ops.tuple_len(data)`: len(data) of a tuple or list."""
    _sequence("tuple_len", data)
    return len(data)


def list_len(data: Any) -> int:
    """`ops.list_len(data)`: len(data) of a list or tuple."""
    _sequence("list_len", data)
    return len(data)


def tuple_equal(x: Any, y: Any) -> bool:
    """`ops.tuple_equal(x, y)`: whether the two sequences hold equal elements."""
    _sequence("tuple_equal", x)
    _sequence("tuple_equal", y)
    return tuple(x) == tuple(y)


def list_equal(x: Any, y: Any) -> bool:
    """`ops.list_equal(x, y)`: whether the two sequences hold equal elements."""
    _sequence("list_equal", x)
    _sequence("list_equal", y)
    return tuple(x) == tuple(y)


def _check_tuple(name: str, x: Any) -> None:
    if not isinstance(x, tuple):
        raise TypeError(
            f"For '{name}', input[0] should be Tuple, but got {type(x).__name__.capitalize()}."
        )


def tuple_reversed(x: Any) -> tuple:
    """`ops.tuple_reversed(x)`: the tuple in reverse order."""
    _check_tuple("tuple_reversed", x)
    return tuple(reversed(x))


def tuple_div(x: Any, y: Any) -> tuple:
    """`ops.tuple_div(x, y)`: the element-wise quotients of two tuples of ints, each
    exact (a shape divided by a block shape)."""
    name = "tuple_div"
    _check_tuple(name, x)
    _check_tuple(name, y)
    if len(x) != len(y):
        raise RuntimeError(
            f"The size of inputs of '{name}' operator must be the same, but the size of "
            f"divisor tuple is {len(y)}, the size of dividend tuple is {len(x)}."
        )
    out = []
    for a, b in zip(x, y, strict=True):
        for v in (a, b):
            if isinstance(v, bool) or not isinstance(v, int | np.integer):
                raise RuntimeError(f"For '{name}', the elements should be ints, but got {v!r}.")
        if b == 0:
            raise RuntimeError("The divisor value should not be 0!")
        if a % b:
            raise RuntimeError(
                f"The inputs of '{name}' operator should be divisible, but they are not "
                f"divisible now, the dividend is {a}, the divisor is {b}."
            )
        out.append(int(a // b))
    return tuple(out)


def make_tuple(*args: Any) -> tuple:
    """`ops.make_tuple(*args)`: the arguments as a tuple."""
    return tuple(args)


def make_list(*args: Any) -> list:
    """`ops.make_list(*args)`: the arguments as a list."""
    return list(args)


def make_dict(keys: Any, values: Any) -> dict:
    """`ops.make_dict(keys, values)`: the dict of keys[i] -> values[i]."""
    _sequence("make_dict", keys)
    _sequence("make_dict", values)
    if len(keys) != len(values):
        raise ValueError(
            f"For 'make_dict', the number of keys ({len(keys)}) and values ({len(values)}) "
            "must be the same."
        )
    return dict(zip(keys, values, strict=True))


def make_range(*args: Any) -> tuple:
    """`ops.make_range(start=0, stop, step=1)`: range(...) as a tuple of ints."""
    name = "make_range"
    if not 1 <= len(args) <= 3:
        raise RuntimeError(f"For '{name}', the input size should within [1, 3] but got{len(args)}")
    for i, v in enumerate(args):
        if isinstance(v, bool) or not isinstance(v, int | np.integer):
            raise TypeError(f"For '{name}', the {i}th input should be a int scalar but got {v!r}")
    if len(args) == 3 and args[2] == 0:
        raise RuntimeError("For 'range', the argument 'step' could not be 0.")
    return tuple(range(*(int(v) for v in args)))


def make_slice(*args: Any) -> slice:
    """`ops.make_slice(start, stop, step)`: slice(start, stop, step) (None for a
    bound left out)."""
    if len(args) != 3:
        raise RuntimeError(
            f"For 'make_slice', the number of input should be 3, but got {len(args)}"
        )
    return slice(*args)


def _check_dict(name: str, d: Any) -> None:
    if not isinstance(d, dict):
        raise TypeError(f"For '{name}', the input should be a dict, but got {type(d).__name__}.")


def dict_getitem(dic: Any, key: Any) -> Any:
    """`ops.dict_getitem(dic, key)`: dic[key]; a missing key is a ValueError."""
    _check_dict("dict_getitem", dic)
    if key not in dic:
        raise ValueError(f"The key {key} does not exist in the dict:{dic}")
    return dic[key]


def dict_setitem(dic: Any, key: Any, value: Any) -> dict:
    """`ops.dict_setitem(dic, key, value)`: a copy of the dict with dic[key] = value."""
    _check_dict("dict_setitem", dic)
    out = dict(dic)
    out[key] = value
    return out


def in_dict(key: Any, dic: Any) -> bool:
    """`ops.in_dict(key, dic)`: key in dic."""
    _check_dict("in_dict", dic)
    return key in dic


def not_in_dict(key: Any, dic: Any) -> bool:
    """`ops.not_in_dict(key, dic)`: key not in dic."""
    _check_dict("not_in_dict", dic)
    return key not in dic


def _identity_operand(y: Any) -> None:
    if y is None or isinstance(y, bool | int | str | type | D.DType | np.integer):
        return
    raise RuntimeError(
        f"For syntax like 'a is b', b supports Int, Bool, String, None and Type, but got {y}"
    )


def is_(x: Any, y: Any) -> bool:
    """`ops.is_(x, y)`: `x is y` as MindSpore's graphs read it, for y an int, bool,
    string, None or type: the same kind of value, and equal."""
    _identity_operand(y)
    if y is None or isinstance(y, bool):
        return x is y or (isinstance(x, np.bool_) and bool(x) is y)
    if is_tensor(x) or type(x) is not type(y):
        return False
    return bool(x == y)


def is_not(x: Any, y: Any) -> bool:
    """`ops.is_not(x, y)`: not `ops.is_(x, y)`."""
    return not is_(x, y)


def hastype(x: Any, type_: Any) -> bool:
    """`ops.hastype(x, type_)`: whether the number `x` has the mindspore dtype `type_`
    (a Python int is int64, a float float32, a bool bool_; a Tensor or sequence has
    no number type)."""
    if not isinstance(type_, D.DType):
        raise TypeError(f"For 'hastype', the 'type_' must be a mindspore dtype, but got {type_!r}.")
    if is_tensor(x) or not isinstance(x, bool | int | float):
        return False
    return _type_of(x) == type_


def shape_mul(input_data: Any) -> int:
    """`ops.shape_mul(input_data)`: the product of a tuple of ints (1 for ())."""
    if not isinstance(input_data, tuple):
        raise ValueError("For primitive [shape_mul], input must be tuple")
    return int(math.prod(input_data))


def reduced_shape(shape: Any, axis: Any) -> tuple:
    """`ops.reduced_shape(shape, axis)`: the shape with each reduced axis set to 1 (all
    of them for axis ()), what a keep-dims reduction gives."""
    name = "reduced_shape"
    if not isinstance(shape, tuple):
        raise TypeError(f"For primitive[{name}], the 'shape' must be a tuple, but got {shape!r}")
    axes = (axis,) if isinstance(axis, int | np.integer) else axis
    if not isinstance(axes, tuple | list):
        raise TypeError(
            f"For primitive[{name}], the 'axis' must be an int or a tuple, got {axis!r}"
        )
    rank = len(shape)
    if not axes:
        return (1,) * rank
    out = list(shape)
    for a in axes:
        if not -rank <= a < rank:
            raise RuntimeError(
                f"For primitive[{name}], input_x's rank is {rank}, while the 'axis' value "
                f"should be in the range [{-rank}, {rank}), but got {a}"
            )
        out[a % rank] = 1
    return tuple(out)


def tail(x: Any) -> Any:
    """`ops.tail(x)`: the tuple (or list) without its first element (() for ())."""
    _sequence("tail", x)
    return x[1:]


def zip_operation(*sequences: Any) -> tuple:
    """`ops.zip_operation(*sequences)`: zip(...) as a tuple of tuples, as long as the
    shortest input."""
    for s in sequences:
        _sequence("zip_operation", s)
    return tuple(zip(*sequences, strict=False))


__all__ = [
    "dict_getitem",
    "dict_setitem",
    "hastype",
    "in_dict",
    "is_",
    "is_not",
    "list_equal",
    "list_getitem",
    "list_len",
    "list_setitem",
    "make_dict",
    "make_list",
    "make_range",
    "make_slice",
    "make_tuple",
    "not_in_dict",
    "reduced_shape",
    "shape_mul",
    "tail",
    "tuple_div",
    "tuple_equal",
    "tuple_getitem",
    "tuple_len",
    "tuple_reversed",
    "tuple_setitem",
    "zip_operation",
]
