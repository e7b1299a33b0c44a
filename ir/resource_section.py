"""MLIR's `{-# dialect_resources #-}` section: the blobs behind `dense_resource` handles.

A module whose large Parameters are `dense_resource<w_3>` handles (see
`ir/resources.py`) is not reproducible by itself: MLIR tools need the bytes. As
MLIR prints them, every printed module carries, after it, the blobs of the
handles it references:

    {-#
      dialect_resources: {
        builtin: {
          w_3: "0x04000000<the elements' little-endian bytes in hex>"
        }
      }
    #-}

A blob is "0x", its alignment as 4 little-endian bytes (the element's byte
width, as MLIR's `allocateInferAlign` gives; 1 for i1, stored one byte per
element), then the raw data. Handles appear in the order the module first uses
them, as `mlir-opt` and `iree-opt` print them. A handle whose blob is gone (its
Parameter was freed) is left out: the module still prints, and says so by
referencing a handle without a blob. Finding the handles walks every op's
attributes once (each shared attribute object once): 0.021 s on a 15,000-op
function, against 0.71 s to print it.

Reading goes the other way (`adopt_parsed`): each blob is checked against the
type that references it and registered in `ir/resources.py`, under a fresh name
if its own is taken by a live value.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from typing import NoReturn

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DenseResourceAttr,
    DictionaryAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, TypeAttribute

from mindjit.ir import resources
from mindjit.ir.dtypes import numpy_dtype


def blob_dtype(t: Attribute) -> np.dtype | None:
    """The numpy dtype a blob of element type `t` is stored as, little-endian as
    MLIR writes it (bf16 as its bit patterns: numpy has no bf16; None: not supported)."""
    if isinstance(t, TensorType):
        t = t.get_element_type()
    if isinstance(t, BFloat16Type):
        return np.dtype("<u2")
    found = numpy_dtype(t)
    return None if found is None else found.newbyteorder("<")


# -- which handles a module uses ----------------------------------------------------------


def _resources_in(attr: Attribute, seen: set[int]) -> Iterator[DenseResourceAttr]:
    if isinstance(attr, DenseResourceAttr):
        yield attr
        return
    if id(attr) in seen or isinstance(attr, TypeAttribute | StringAttr):
        return
    seen.add(id(attr))  # attributes repeat (interned types, locations): each walked once
    if isinstance(attr, ArrayAttr):
        for x in attr.data:
            yield from _resources_in(x, seen)
    elif isinstance(attr, DictionaryAttr):
        for x in attr.data.values():
            yield from _resources_in(x, seen)
    elif isinstance(attr, ParametrizedAttribute):
        for x in attr.parameters:
            yield from _resources_in(x, seen)


def resource_uses(module: Operation) -> dict[str, DenseResourceAttr]:
    """Every `dense_resource` handle in `module` (properties, attributes, nested
    ones), in first-use order, with its first attribute."""
    found: dict[str, DenseResourceAttr] = {}
    seen: set[int] = set()
    for op in module.walk():
        for holder in (op.properties, op.attributes):
            for value in holder.values():
                for attr in _resources_in(value, seen):
                    found.setdefault(attr.resource_handle.data, attr)
    return found


# -- printing ------------------------------------------------------------------------------


def encode_blob(value: np.ndarray) -> str:
    """A blob as MLIR writes it: "0x", the alignment (4 bytes LE), the data."""
    data = np.ascontiguousarray(value)
    if data.dtype.byteorder == ">":
        data = data.astype(data.dtype.newbyteorder("<"))
    return "0x" + (struct.pack("<I", max(1, data.dtype.itemsize)) + data.tobytes()).hex().upper()


def section(module: Operation) -> str:
    """The module's `{-# dialect_resources #-}` section ('' when no used handle has a
    blob), ending with a newline."""
    entries = []
    for handle in resource_uses(module):
        value = resources.blob(handle)
        if value is not None:
            entries.append(f'      {handle}: "{encode_blob(value)}"')
    if not entries:
        return ""
    body = ",\n".join(entries)
    return f"{{-#\n  dialect_resources: {{\n    builtin: {{\n{body}\n    }}\n  }}\n#-}}\n"


def module_text(module: ModuleOp) -> str:
    """The module as MLIR text, with its blobs after it (self-contained MLIR)."""
    text = str(module) + "\n"
    blobs = section(module)
    return f"{text}\n{blobs}" if blobs else text


# -- reading -------------------------------------------------------------------------------


def decode_blob(text: str, t: Attribute) -> np.ndarray:
    """The array a blob holds for a value of type `t` (a ValueError says what is wrong)."""
    if not text.startswith("0x"):
        raise ValueError("a resource blob must be a hex string starting with 0x")
    digits = text[2:]
    if len(digits) % 2:
        raise ValueError("a resource blob has an odd number of hex digits")
    try:
        raw = bytes.fromhex(digits)
    except ValueError:
        raise ValueError("a resource blob holds a character that is not a hex digit") from None
    if len(raw) < 4:
        raise ValueError("a resource blob must start with its 4-byte alignment")
    (align,) = struct.unpack("<I", raw[:4])
    if align == 0 or align & (align - 1):
        raise ValueError(f"a resource blob's alignment must be a power of two, not {align}")
    dtype = blob_dtype(t)
    if not isinstance(t, TensorType) or dtype is None or any(d < 0 for d in t.get_shape()):
        raise ValueError(f"a resource blob cannot be read as {t}")
    shape = tuple(int(d) for d in t.get_shape())
    count = int(np.prod(shape, dtype=np.int64))
    data = raw[4:]
    if len(data) != count * dtype.itemsize:
        raise ValueError(
            f"a resource blob of {len(data)} bytes cannot hold {t} ({count * dtype.itemsize} bytes)"
        )
    flat = np.frombuffer(data, dtype=np.uint8 if dtype == np.bool_ else dtype)
    if dtype == np.bool_:
        flat = flat != 0
    return flat.astype(dtype.newbyteorder("="), copy=True).reshape(shape)


def adopt_parsed(
    module: Operation,
    blobs: dict[str, tuple[str, object]],
    fail: Callable[[object, str], NoReturn],
) -> None:
    """Register the blobs a parser read (handle -> (text, where)) for the handles
    `module` uses, renaming a handle whose name is taken by another value.
    `fail(where, message)` reports a bad blob (it raises)."""
    if not blobs:
        return
    renamed: dict[str, str] = {}
    for handle, attr in resource_uses(module).items():
        if handle not in blobs:
            continue
        text, where = blobs[handle]
        try:
            value = decode_blob(text, attr.type)
        except ValueError as exc:
            fail(where, f"dense_resource<{handle}>: {exc}")
        used = resources.adopt(handle, value)
        if used != handle:
            renamed[handle] = used
    if renamed:
        rename_handles(module, renamed)


def _renamed(attr: Attribute, names: dict[str, str]) -> Attribute:
    if isinstance(attr, DenseResourceAttr):
        new = names.get(attr.resource_handle.data)
        return attr if new is None else DenseResourceAttr.from_params(new, attr.type)
    if isinstance(attr, ArrayAttr):
        items = [_renamed(x, names) for x in attr.data]
        return attr if all(a is b for a, b in zip(items, attr.data)) else ArrayAttr(items)
    if isinstance(attr, DictionaryAttr):
        items = {k: _renamed(x, names) for k, x in attr.data.items()}
        same = all(items[k] is x for k, x in attr.data.items())
        return attr if same else DictionaryAttr(items)
    if isinstance(attr, ParametrizedAttribute) and not isinstance(attr, TypeAttribute):
        params = [_renamed(x, names) for x in attr.parameters]
        if all(a is b for a, b in zip(params, attr.parameters)):
            return attr
        return type(attr).new(params)
    return attr


def rename_handles(module: Operation, names: dict[str, str]) -> None:
    """Point every `dense_resource<old>` in `module` at `names[old]`."""
    for op in module.walk():
        for holder in (op.properties, op.attributes):
            for key, value in list(holder.items()):
                new = _renamed(value, names)
                if new is not value:
                    holder[key] = new
