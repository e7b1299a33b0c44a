"""Parameter values held outside the IR, referenced as `dense_resource<handle>`.

A large model's Parameters are hundreds of megabytes; copying them into
`dense<...>` literals at every compile is what made compile time grow with the
weights instead of with the graph. As MLIR importers do (torch-mlir, IREE), the
frontend gives large Parameters a `dense_resource<handle>` initial value whose
blob is the live Parameter itself, held here by weak reference: the IR stays
small and printable, and the CPU executor reads the current value on first use.
Nothing is copied until a buffer is needed.
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


def hold(name: str, owner: Any, read: Callable[[Any], np.ndarray]) -> str:
    """Register `read(owner)` as the blob of a new handle derived from `name`.

    `owner` is held weakly: once it is gone the handle has no blob.
    """
    handle = f"{name}_{next(_counter)}"
    _providers[handle] = (weakref.ref(owner, functools.partial(_forget, handle)), read)
    return handle


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
