"""Interned attributes for the IR a large model repeats thousands of times.

xDSL verifies every attribute it constructs (a `SymbolRefAttr` costs ~9 us, a
`!mindir.ref` ~6 us). A model with N Blocks of 12 Parameters names each
Parameter in a declaration, a `get_parameter` and, after lowering, a global and
a `global_load`, and repeats a few tensor types: building each attribute once
and sharing it (attributes are immutable values) takes that cost off every op.
"""

from __future__ import annotations

import functools

from xdsl.dialects.builtin import SymbolRefAttr, TensorType
from xdsl.ir import Attribute

from mindjit.dialects.mindir_types import RefType

_SIZE = 1 << 16


@functools.lru_cache(maxsize=_SIZE)
def symbol_ref(name: str) -> SymbolRefAttr:
    """`@name`."""
    return SymbolRefAttr(name)


@functools.lru_cache(maxsize=_SIZE)
def ref_type(tensor: TensorType) -> RefType:
    """`!mindir.ref<tensor>`."""
    return RefType(tensor)


@functools.lru_cache(maxsize=_SIZE)
def tensor_type(element: Attribute, shape: tuple[int, ...]) -> TensorType:
    """`tensor<shape x element>`."""
    return TensorType(element, list(shape))
