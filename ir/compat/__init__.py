"""mindjit's one place for what xDSL 0.74 lacks: its patches and private reads.

Every place mindjit changes xDSL's behaviour (a *patch*), reads xDSL's private
API (*private*) or re-states one of its checks (*mirror*) is one module here,
declaring a `Touchpoint`: why, what xDSL's own way costs (measured by
benchmarks/compat_costs.py), its upstream status, when to delete it, and a
fingerprint of the xDSL source it was written against. The table with the
numbers is docs/xdsl-compat.md; tests/ir/test_compat.py fails when a
fingerprinted xDSL source changes (re-check the touchpoint, then update its
fingerprint) and, for each patch, when upstream fixed what it patches.

Patches are applied by `install()`, explicitly: `mindjit.dialects.context.
make_context()` and the tools call it, so does `import mindjit`. Importing a
module of this package changes nothing. `install()` is idempotent and
thread-safe, and applies a patch only to the xDSL code it was written for
(a changed fingerprint: the patch is skipped with a warning, xDSL's own code
runs).
"""

from __future__ import annotations

import threading
import warnings
from types import ModuleType

from mindjit.ir.compat import (
    block_args,
    cse_scopes,
    dense_literal_types,
    dialect_resources,
    direct_printer,
    generic_results,
    hex_float_literals,
    identity_hash,
    implicit_builder,
    leaf_ops,
    linked_ops,
    parsed_types,
    string_literals,
    structure_checks,
    unchecked_attrs,
    verify_memo,
)
from mindjit.ir.compat.touchpoint import Touchpoint

#: the modules that change xDSL's behaviour once installed
PATCHES: tuple[ModuleType, ...] = (
    hex_float_literals,
    string_literals,
    generic_results,
    implicit_builder,
    cse_scopes,
    identity_hash,
)
#: every touchpoint, patches first
TOUCHPOINTS: tuple[Touchpoint, ...] = tuple(
    m.TOUCHPOINT
    for m in (
        *PATCHES,
        structure_checks,
        linked_ops,
        leaf_ops,
        block_args,
        unchecked_attrs,
        dialect_resources,
        parsed_types,
        direct_printer,
        verify_memo,
        dense_literal_types,
    )
)

_lock = threading.Lock()
_installed: set[str] = set()


def install() -> None:
    """Apply every patch written for the xDSL installed (once per process)."""
    if len(_installed) == len(PATCHES):
        return
    with _lock:
        for module in PATCHES:
            touchpoint = module.TOUCHPOINT
            if touchpoint.name in _installed:
                continue
            changed = touchpoint.changed()
            if changed:
                warnings.warn(
                    f"mindjit: xDSL's {', '.join(changed)} changed since the patch "
                    f"'{touchpoint.name}' was written; it is not applied ({touchpoint.reason})",
                    RuntimeWarning,
                    stacklevel=2,
                )
            else:
                module.install()
            _installed.add(touchpoint.name)


def installed() -> frozenset[str]:
    """The patches `install()` applied (or skipped, if xDSL changed)."""
    return frozenset(_installed)
