"""Flattening Python values into tensor leaves and back.

A graph's inputs and outputs are nested tuples/lists of tensors and Python
constants. Only the tensors cross the func.func boundary; the constants are
kept in a template and folded into the graph (MindSpore specializes a graph
on its constant arguments too).
"""

from __future__ import annotations

import functools
import hashlib
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mindjit.frontend.cell_base import CellBase
from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.tensor import Parameter, Tensor


@dataclass(frozen=True)
class Leaf:
    """Where a tensor goes in a template: the n-th leaf."""

    index: int


@dataclass(frozen=True)
class Piece:
    """Where a returned tensor goes when it is a slice of a returned leaf: the
    `position`-th piece of leaf `index` along `axis` (see stacked_returns)."""

    index: int
    axis: int
    position: int


class ConstantTensor(Tensor):
    """A 0-d integer Tensor input a program is specialized on: a constant of the
    graph (in its template, not a leaf), its program keyed by its value. Graph
    mode makes one of a function's inputs when it bounds a slice
    (graph/slice_bounds.py)."""

    @classmethod
    def of(cls, t: Tensor) -> ConstantTensor:
        c = object.__new__(cls)
        c._data = t.asnumpy()
        c.const_arg = True
        return c


@dataclass(frozen=True)
class Struct:
    """Where a structured value goes (a sparse tensor, ops/sparse_tensor.py): its class,
    its static part (hashable: the dense shape) and the templates of its tensor fields.
    A class takes part by defining `__ms_struct__(self) -> (static, fields)` and the
    classmethod `__ms_rebuild__(static, fields)`, so its tensors cross graph boundaries
    (arguments, results, calls) as leaves, like a tuple's."""

    cls: type
    static: Any
    fields: tuple


def _is_struct(v: Any) -> bool:
    return hasattr(type(v), "__ms_struct__") and not isinstance(v, type)


def is_tensor_like(x: Any) -> bool:

    return isinstance(x, Tensor | GraphValue) and not isinstance(x, ConstantTensor)


def is_integer_scalar(value: Any) -> bool:
    """A 0-d integer Tensor (or graph value): what may bound a slice."""
    return (
        isinstance(value, Tensor | GraphValue)
        and value.shape == ()
        and value.dtype.numpy.kind in "iu"
    )


def as_constants(value: Any) -> Any:
    """`value` with its 0-d integer Tensors (not Parameters) as ConstantTensors;
    the same object when it has none."""
    if isinstance(value, Tensor):
        if is_integer_scalar(value) and not isinstance(value, Parameter | ConstantTensor):
            return ConstantTensor.of(value)
        return value
    if isinstance(value, tuple | list):
        items = [as_constants(v) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return tuple(items) if isinstance(value, tuple) else items
    if type(value) is dict:
        new = {k: as_constants(v) for k, v in value.items()}
        return value if all(new[k] is value[k] for k in value) else new
    return value


def flatten(value: Any, keep: Callable[[Any], bool] = is_tensor_like) -> tuple[Any, list[Any]]:
    """(template, leaves): `keep`-values become `Leaf`s, tuples/lists are walked."""
    leaves: list[Any] = []

    def walk(v: Any) -> Any:
        if keep(v):
            leaves.append(v)
            return Leaf(len(leaves) - 1)
        if _is_struct(v):
            static, fields = v.__ms_struct__()
            return Struct(type(v), static, tuple(walk(x) for x in fields))
        if isinstance(v, tuple):
            return tuple(walk(x) for x in v)
        if isinstance(v, list):
            return [walk(x) for x in v]
        if type(v) is dict:
            return {k: walk(x) for k, x in v.items()}  # a dict's tensors are inputs too
        return v

    return walk(value), leaves


def unflatten(template: Any, leaves: list[Any]) -> Any:
    if isinstance(template, Leaf):
        return leaves[template.index]
    if isinstance(template, Piece):
        array = leaves[template.index].asnumpy()
        where = (slice(None),) * template.axis + (template.position, Ellipsis)
        return Tensor._wrap(array[where])  # a view: no copy per piece
    if isinstance(template, Struct):
        fields = tuple(unflatten(x, leaves) for x in template.fields)
        return template.cls.__ms_rebuild__(template.static, fields)
    if isinstance(template, tuple):
        return tuple(unflatten(x, leaves) for x in template)
    if isinstance(template, list):
        return [unflatten(x, leaves) for x in template]
    if type(template) is dict:
        return {k: unflatten(x, leaves) for k, x in template.items()}
    return template


def signature_of(value: Any, held: list[Any] | None = None) -> Any:
    """A hashable description: tensors by shape/dtype, constants by value (a numpy
    array by its contents). An object with no value to compare (unhashable) stands
    for itself, by id: `held` (when given) gets it, and the caller keeps it alive
    while the key is in use, so no later object takes its id (two calls with a new
    array or config object each reused the first call's program: issue 41's notes).
    An object compared by identity whose attributes the graph reads (a config
    object, a `jit_class` instance, a dataclass) is keyed by its id and by its
    attributes' values as well: the graph folds what it read, so a changed
    attribute is a new program, as PyNative reads the new value."""
    return _signature(value, held, set(), False)


def _signature(value: Any, held: list[Any] | None, active: set[int], folded: bool) -> Any:
    """`signature_of`; `folded`: inside an object's attributes, where a Tensor is a
    constant the graph folds (keyed by its contents), not an input."""
    if isinstance(value, ConstantTensor):
        return ("K", value.dtype.name, int(value.asnumpy()))
    if isinstance(value, Tensor):
        if isinstance(value, Parameter):
            return ("P", id(value))
        if folded:
            data = np.ascontiguousarray(value.asnumpy())
            return ("TK", data.shape, data.dtype.str, hashlib.blake2b(data.data).digest())
        return ("T", tuple(value.shape), value.dtype.name)
    if _is_struct(value):
        static, fields = value.__ms_struct__()
        return ("S", type(value).__name__, static, _signature(fields, held, active, folded))
    if isinstance(value, tuple | list):
        return (type(value).__name__, tuple(_signature(v, held, active, folded) for v in value))
    if isinstance(value, dict):
        return (
            "dict",
            tuple(sorted((str(k), _signature(v, held, active, folded)) for k, v in value.items())),
        )
    if type(value) is np.ndarray and value.dtype.kind in _NUMERIC_KINDS:
        data = np.ascontiguousarray(value)
        return ("N", value.shape, value.dtype.str, hashlib.blake2b(data.data).digest())
    if _keyed_by_state(value):
        if held is not None:
            held.append(value)
        if id(value) in active:  # an attribute leading back to an object being keyed
            return ("cycle", id(value))
        active.add(id(value))
        try:
            state = _signature(vars(value), held, active, True)
        finally:
            active.discard(id(value))
        return ("O", type(value).__qualname__, id(value), state)
    try:
        hash(value)
    except TypeError:
        if held is not None:
            held.append(value)
        return ("id", id(value))
    return ("C", type(value).__name__, value)


#: objects with attributes that are keyed by id all the same: Cells (MindSpore
#: compiles once per Cell) and what is what it does (functions, classes, modules)
_KEYED_BY_ID = (
    CellBase,
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    functools.partial,
)


def _keyed_by_state(value: Any) -> bool:
    """An object compared by identity (or not at all) with plain attributes."""
    cls = type(value)
    if cls.__eq__ is not object.__eq__ and cls.__hash__ is not None:
        return False  # compared by value: its own hash and equality say when it changed
    if isinstance(value, _KEYED_BY_ID):
        return False
    return type(getattr(value, "__dict__", None)) is dict


#: numpy dtypes whose arrays are keyed by their bytes (bool, ints, floats, complex)
_NUMERIC_KINDS = frozenset("biufc")
