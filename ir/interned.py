"""Interned attributes for the IR a large model repeats thousands of times.

xDSL verifies every attribute it constructs (a `SymbolRefAttr` costs ~9 us, a
`!mindir.ref` ~6 us: see `mindjit.dialects.mindir.types.ref_type`). A model with N Blocks of 12 Parameters names each
Parameter in a declaration, a `get_parameter` and, after lowering, a global and
a `global_load`, and repeats a few tensor types: building each attribute once
and sharing it (attributes are immutable values) takes that cost off every op.

`unchecked` builds an attribute without xDSL's verifier, for the few whose
parameters are valid by construction (a symbol reference to a name, a dense
literal whose bytes numpy packed for its type, a resource handle): one per
Parameter, which a model has thousands of.
"""

from __future__ import annotations

import functools
from typing import Any, TypeVar

from xdsl.dialects.builtin import ArrayAttr, StringAttr, SymbolRefAttr, TensorType
from xdsl.ir import Attribute, Data, ParametrizedAttribute

_SIZE = 1 << 16
_A = TypeVar("_A", bound=ParametrizedAttribute | Data[Any])
_NO_NESTED: ArrayAttr[StringAttr] = ArrayAttr([])


def unchecked(cls: type[_A], **parameters: Any) -> _A:
    """`cls` with these parameters (all of them, by field name: `data` for a Data
    attribute), not verified: only for parameters valid by construction (see the
    module doc)."""
    attr = cls.__new__(cls)
    for name, value in parameters.items():
        object.__setattr__(attr, name, value)
    return attr


def string(data: str) -> StringAttr:
    """`"data"` (any Python string is a valid StringAttr)."""
    return unchecked(StringAttr, data=data)


@functools.lru_cache(maxsize=_SIZE)
def symbol_ref(name: str) -> SymbolRefAttr:
    """`@name`."""
    return symbol_ref_to(StringAttr(name))


def symbol_ref_to(name: StringAttr) -> SymbolRefAttr:
    """`@name`, sharing the StringAttr (not interned: for a name used once)."""
    return unchecked(SymbolRefAttr, root_reference=name, nested_references=_NO_NESTED)


@functools.lru_cache(maxsize=_SIZE)
def tensor_type(element: Attribute, shape: tuple[int, ...]) -> TensorType:
    """`tensor<shape x element>`."""
    return TensorType(element, list(shape))
