"""What a compat module records about the xDSL code it depends on.

Each module of `mindjit.ir.compat` declares one `Touchpoint`: the xDSL objects
whose source (or value) it relies on, fingerprinted as they are in the pinned
xDSL. `changed()` recomputes the fingerprints: tests/ir/test_compat.py fails
when xDSL's source moves, naming the touchpoint to re-check, and `install()`
refuses to patch code it was not written for.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Touchpoint:
    name: str
    kind: str  # "patch" (replaces xDSL behaviour) or "private" (reads private API)
    reason: str
    cost: str  # what xDSL's own behaviour costs, measured (benchmarks/compat_costs.py)
    upstream: str
    delete_when: str
    #: dotted path of an xDSL object -> fingerprint of its source (or value)
    xdsl_sources: dict[str, str] = field(default_factory=dict)

    def changed(self) -> list[str]:
        """The objects whose fingerprint differs from the one recorded."""
        return [path for path, want in self.xdsl_sources.items() if fingerprint(path) != want]


def resolve(path: str) -> Any:
    """The object at a dotted path, `module.Class.attr...` (the longest importable
    module prefix, then attributes)."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = inspect.getattr_static(obj, attr)
        return obj
    raise ImportError(path)


#: dotted path -> xDSL's own object, for the paths a patch replaces
_ORIGINALS: dict[str, Any] = {}


def original(path: str) -> Any:
    """xDSL's own object at `path`, remembered before a patch can replace it."""
    if path not in _ORIGINALS:
        _ORIGINALS[path] = resolve(path)
    return _ORIGINALS[path]


def fingerprint(path: str) -> str:
    """12 hex digits of SHA-256 over xDSL's object's source (functions, properties,
    classes) or value (a compiled regex: its pattern), whitespace-normalized;
    "missing" when the object is gone. A patched path is fingerprinted as xDSL
    had it (`original`)."""
    try:
        obj = _ORIGINALS[path] if path in _ORIGINALS else resolve(path)
    except (ImportError, AttributeError):
        return "missing"
    if isinstance(obj, property):
        obj = obj.fget
    if isinstance(obj, staticmethod | classmethod):
        obj = obj.__func__
    if isinstance(obj, re.Pattern):
        text = obj.pattern
    elif inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismethod(obj):
        text = inspect.getsource(obj)
    else:
        text = repr(obj)
    text = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return hashlib.sha256(text.encode()).hexdigest()[:12]
