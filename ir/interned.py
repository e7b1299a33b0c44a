"""Interned attributes for the IR a large model repeats thousands of times.

xDSL verifies every attribute it constructs (a `SymbolRefAttr` costs ~9 us, a
`!mindir.ref` ~6 us: see `mindjit.dialects.mindir.types.ref_type`). A model with N Blocks of 12 Parameters names each
Parameter in a declaration, a `get_parameter` and, after lowering, a global and
a `global_load`, and repeats a few tensor types: building each attribute once
and sharing it (attributes are immutable values) takes that cost off every op.

`string` and `symbol_ref_to` build their attributes unverified
(`mindjit.ir.compat.unchecked_attrs`): any Python string is a valid name.
"""

from __future__ import annotations

import functools

from xdsl.dialects.builtin import (
    ArrayAttr,
    FileLineColLoc,
    IntAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Attribute

from mindjit.ir.compat.unchecked_attrs import unchecked

_SIZE = 1 << 16
_NO_NESTED: ArrayAttr[StringAttr] = ArrayAttr([])


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


@functools.lru_cache(maxsize=_SIZE)
def file_line_col(file: str, line: int, col: int) -> FileLineColLoc:
    """`loc("file":line:col)`: the frontend gives one to the ops of each expression it
    evaluates (three attributes, each verified: ~15 us built anew)."""
    return FileLineColLoc(StringAttr(file), IntAttr(line), IntAttr(col))
