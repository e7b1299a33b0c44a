"""Patch: xDSL's cse copies its table of known ops into every region it enters.

`CSEDriver._simplify_region` opens a scope for each single-block region with
`KnownOps(self._known_ops)`, whose constructor copies the whole dictionary. A
lowered graph has one region per `linalg.generic` / `linalg.reduce` body, so
cse costs ops x regions: 0.19 s at 23k lowered ops (32 Blocks of the GPT train
step), 1.62 s at 93k (128 Blocks), 8.5x for 4x the ops.

The patch replaces that class with `ScopedKnownOps`, a chain of scopes as MLIR's
CSE keeps (a `ScopedHashTable`): a new scope points at the enclosing one, a
lookup goes up the chain (as deep as the regions nest), an insertion writes the
innermost scope, and leaving the region drops it. Same answers, so cse makes
the same rewrites; only the copy is gone.

Each lookup also hashes the op once (`_HashedInfo`), where xDSL's `OperationInfo`
rehashes it for every scope it looks in and again to store it after a miss (its
hash walks the op's attributes, properties, result types and operands: two to
three times per op was half of cse's time on a lowered graph). The hash is xDSL's
own, so entries of an enclosing xDSL `KnownOps` are found as before; equality is
xDSL's (a match still compares every field).
"""

from __future__ import annotations

import threading
from typing import Any, TypeVar

import xdsl.transforms.common_subexpression_elimination as cse_module
from xdsl.ir import Operation
from xdsl.transforms.common_subexpression_elimination import KnownOps, OperationInfo

from mindjit.ir.compat.touchpoint import Touchpoint, original

TOUCHPOINT = Touchpoint(
    name="cse-scopes",
    kind="patch",
    reason="xDSL's cse copies its table of known ops into every region it enters: "
    "quadratic on lowered graphs, which have a region per linalg body",
    cost="tensor-level cse of the 128-Block GPT train step (93k ops): 1.62 s with the copy "
    "(docs/xdsl-compat.md)",
    upstream="still present in xDSL 0.74.0: `KnownOps.__init__` copies the parent's dict",
    delete_when="xDSL's KnownOps shares the enclosing scope instead of copying it "
    "(`test_cse_scopes_patch_still_needed` fails then)",
    xdsl_sources={
        "xdsl.transforms.common_subexpression_elimination.KnownOps": "3fdbb5b4737a",
        "xdsl.transforms.common_subexpression_elimination.CSEDriver": "c2ef5e017066",
    },
)

ORIGINAL = original("xdsl.transforms.common_subexpression_elimination.KnownOps")

_D = TypeVar("_D")


class _HashedInfo(OperationInfo):
    """xDSL's `OperationInfo` with its hash computed once, when made. An info lives
    for one lookup (or, stored, as long as its op is known: cse never changes a
    known op's operands, and a match compares every field anyway)."""

    def __init__(self, op: Operation):
        self.op = op
        self._hash = OperationInfo.__hash__(self)

    def __hash__(self) -> int:
        return self._hash


#: The info of the op a `get` just missed, for the `__setitem__` cse makes next
#: (per thread: the table of a cse run is not shared, but compiles run in threads).
_LAST = threading.local()


class ScopedKnownOps(KnownOps):
    """`KnownOps` whose nested scope reads its parent instead of copying it."""

    def __init__(self, known_ops: KnownOps | None = None):
        self._known_ops = {}
        self._parent = known_ops

    def __setitem__(self, k: Operation, v: Operation) -> None:
        info = getattr(_LAST, "info", None)
        _LAST.info = None
        if info is None or info.op is not k:
            info = _HashedInfo(k)
        self._known_ops[info] = v

    def _find(self, info: OperationInfo) -> Operation | None:
        scope: Any = self
        while scope is not None:
            found = scope._known_ops.get(info)
            if found is not None:
                return found
            scope = getattr(scope, "_parent", None)
        return None

    def __getitem__(self, k: Operation) -> Operation:
        _LAST.info = None
        found = self._find(_HashedInfo(k))
        if found is None:
            raise KeyError(k)
        return found

    def __contains__(self, k: Operation) -> bool:
        _LAST.info = None
        return self._find(_HashedInfo(k)) is not None

    def get(self, k: Operation, default: _D = None) -> Operation | _D:
        """The known op equal to `k`; after a miss, the next `__setitem__` of `k`
        (cse stores the op it did not find) reuses this lookup's hash."""
        info = _HashedInfo(k)
        found = self._find(info)
        _LAST.info = info if found is None else None
        return default if found is None else found

    def pop(self, k: Operation) -> Operation:
        """Remove `k` from the innermost scope holding it."""
        _LAST.info = None
        info = _HashedInfo(k)
        scope: Any = self
        while scope is not None:
            if info in scope._known_ops:
                return scope._known_ops.pop(info)
            scope = getattr(scope, "_parent", None)
        raise KeyError(k)


def install() -> None:
    cse_module.KnownOps = ScopedKnownOps  # type: ignore[misc]
