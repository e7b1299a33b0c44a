"""Parameter values held outside the IR, referenced as `dense_resource<handle>`.

A large model's Parameters are hundreds of megabytes; copying them into
`dense<...>` literals at every compile is what made compile time grow with the
weights instead of with the graph. As MLIR importers do (torch-mlir, IREE), the
frontend gives large Parameters a `dense_resource<handle>` initial value whose
blob is the live Parameter itself, held here by weak reference: the IR stays
small and printable, and the CPU executor reads the current value on first use.
Nothing is copied until a buffer is needed.

A blob read from a file's `{-# dialect_resources #-}` section (see
`ir/resource_section.py`) has no owner: `adopt` holds it strongly for the rest
of the process, as MLIR's context holds the blobs it parsed. A parsed blob never
replaces a live one: a name already taken gets a fresh one (`w_3_1`), as MLIR's
blob manager renames on a clash; the same bytes parsed again reuse their name,
so reading a file twice gives the same module.
"""

from __future__ import annotations

import functools
import itertools
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

#: Values with at most this many bytes stay inline as `dense<...>` literals.
INLINE_LIMIT_BYTES = 4096

#: handle -> (weak reference to the owner, how to read its value)
_providers: dict[str, tuple[weakref.ref, Callable[[Any], np.ndarray]]] = {}
_counter = itertools.count()


class _Parsed:
    """The owner of a blob read from text: nothing else owns it."""

    __slots__ = ("value", "__weakref__")

    def __init__(self, value: np.ndarray):
        self.value = value


#: handle -> the parsed blob behind it, held for the process's lifetime
_parsed: dict[str, _Parsed] = {}


def hold(name: str, owner: Any, read: Callable[[Any], np.ndarray]) -> str:
    """Register `read(owner)` as the blob of a new handle derived from `name`.

    `owner` is held weakly: once it is gone the handle has no blob.
    """
    handle = f"{name}_{next(_counter)}"
    while handle in _providers:  # taken by a parsed blob of that name
        handle = f"{name}_{next(_counter)}"
    _providers[handle] = (weakref.ref(owner, functools.partial(_forget, handle)), read)
    return handle


def adopt(name: str, value: np.ndarray) -> str:
    """Register a parsed blob under `name`, or under a fresh name if `name` already
    provides something else; returns the handle used. `value` becomes read-only."""
    handle, n = name, 0
    while handle in _providers:  # name, name_1, name_2 ...: the same each time
        held = _parsed.get(handle)
        if held is not None and _same(held.value, value):
            return handle
        n += 1
        handle = f"{name}_{n}"
    value.flags.writeable = False
    owner = _Parsed(value)
    _parsed[handle] = owner
    _providers[handle] = (weakref.ref(owner), _read_parsed)
    return handle


def _read_parsed(owner: _Parsed) -> np.ndarray:
    return owner.value


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return memoryview(a).cast("B") == memoryview(b).cast("B")  # no copy of either


def _forget(handle: str, _ref: weakref.ref) -> None:
    _providers.pop(handle, None)


def has_blob(handle: str) -> bool:
    """Whether something provides `handle` (its owner is alive), without reading it."""
    return handle in _providers  # the owner's death removes the provider


def blob(handle: str) -> np.ndarray | None:
    """The current value behind `handle`, or None if nothing provides it."""
    provider = _providers.get(handle)
    if provider is None:
        return None
    owner = provider[0]()
    return None if owner is None else provider[1](owner)
