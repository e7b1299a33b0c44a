"""Patch: identity equality of IR objects through object's own slots.

xDSL gives its IR nodes (ops, blocks, regions), SSA values and uses `__eq__` and
`__hash__` written in Python (`self is other`, `id(self)`): identity, which is
what `object` already does. Every dict and set keyed by ops or values (the passes'
worklists, order tables, def-use maps) then calls into Python for each lookup,
~0.1 us each: mindir-depend-order's topological order hashes ~125k ops for the
ResNet-18 train step.

The patch puts `object.__eq__` / `object.__hash__` back on those four classes.
Equality stays identity (`object.__eq__` answers NotImplemented for another
object, and Python then compares identities); a hash stays fixed for the object's
life. Only hash values change (`object.__hash__` is the id rotated), which
nothing may rely on. Measured with benchmarks/compat_costs.py and in the
compile: ResNet-18's mindir-depend-order 63-67 -> 52-56 ms, the compile stages
~2% faster (in-process minimum of 5 compiles).
"""

from __future__ import annotations

from xdsl.ir import core
from xdsl.irdl.operations import IRDLOperation

from mindjit.ir.compat.touchpoint import Touchpoint, original

TOUCHPOINT = Touchpoint(
    name="identity-hash",
    kind="patch",
    reason="xDSL writes identity equality and hashing of ops, blocks, regions, SSA values "
    "and uses as Python methods: every dict or set keyed by them calls Python per lookup",
    cost="mindir-depend-order of the ResNet-18 train step 63-67 ms vs 52-56 (docs/xdsl-compat.md)",
    upstream="still present in xDSL 0.74.0",
    delete_when="xDSL leaves identity equality to object's slots "
    "(`test_identity_hash_patch_still_needed` fails then)",
    xdsl_sources={
        "xdsl.ir.core._IRNode.__eq__": "7c4d40b1ef90",
        "xdsl.ir.core._IRNode.__hash__": "7061d3a7b790",
        "xdsl.irdl.operations.IRDLOperation.__eq__": "7c4d40b1ef90",
        "xdsl.irdl.operations.IRDLOperation.__hash__": "7061d3a7b790",
        "xdsl.ir.core.SSAValue.__eq__": "7c4d40b1ef90",
        "xdsl.ir.core.SSAValue.__hash__": "9a66b674fa13",
        "xdsl.ir.core.Use.__eq__": "7c4d40b1ef90",
        "xdsl.ir.core.Use.__hash__": "7061d3a7b790",
    },
)

#: the classes whose Python-level identity methods the patch replaces
CLASSES: tuple[type, ...] = (core._IRNode, IRDLOperation, core.SSAValue, core.Use)  # noqa: SLF001


def _original(cls: type, name: str) -> object:
    """xDSL's own method, remembered before the patch (None if xDSL has none: the
    fingerprint then says "missing" and the patch is not applied)."""
    try:
        return original(f"{cls.__module__}.{cls.__qualname__}.{name}")
    except (ImportError, AttributeError):
        return None


ORIGINALS = {
    (cls, name): _original(cls, name) for cls in CLASSES for name in ("__eq__", "__hash__")
}


def install() -> None:
    for cls in CLASSES:
        cls.__eq__ = object.__eq__  # type: ignore[method-assign,assignment]
        cls.__hash__ = object.__hash__  # type: ignore[method-assign,assignment]
