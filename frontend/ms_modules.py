"""MindSpore's module paths over mindjit's modules: lookups that name what is missing.

Model-zoo code imports from where MindSpore defines a name
(`from mindspore.ops import operations as P`, `mindspore.nn.wrap.cell_wrapper`),
and mindjit's files are split differently. So a MindSpore module path that has
no mindjit file of its own is a *view*: a module whose names are looked up, when
asked, in the mindjit module that holds them (`lookup`). Nothing is copied, so
what mindjit adds to `ops` or `nn` is there too, and a name mindjit lacks is an
AttributeError saying so ("mindjit does not implement
mindspore.ops.operations.ApplyAdaMax", with the nearest name it has), not a
bare "has no attribute", nor an object that exists but does nothing.
"""

from __future__ import annotations

import difflib
import dis
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any

#: a view's lookup: the value for a name, or None when mindjit lacks it
Lookup = Callable[[str], Any]


def missing(path: str, name: str, known: Iterable[str] = ()) -> AttributeError:
    """The error for `mindspore.<path>.<name>` that mindjit lacks."""
    message = f"mindjit does not implement mindspore.{path}.{name}"
    close = difflib.get_close_matches(name, list(known), n=1)
    if close:
        message += f" (mindjit has {path}.{close[0]})"
    return AttributeError(message, name=name)


_IMPORT_FROM = dis.opmap["IMPORT_FROM"]


def _importing(depth: int) -> bool:
    """Whether the frame `depth` levels up is executing `from module import name`,
    which turns a module's AttributeError into a bare "cannot import name"."""
    frame = sys._getframe(depth + 1)
    code = frame.f_code.co_code
    return 0 <= frame.f_lasti < len(code) and code[frame.f_lasti] == _IMPORT_FROM


def attribute_hooks(
    path: str, lookup: Lookup, names: Callable[[], Iterable[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module's `__getattr__` and `__dir__` (PEP 562) for the view `path`:
    `names()` lists what it has (for dir(), `import *` and the hint)."""

    def __getattr__(name: str) -> Any:
        if name == "__all__":
            return sorted(names())
        if name.startswith("_"):  # probes: __path__, __wrapped__, _pytest ...
            raise AttributeError(f"module 'mindjit.{path}' has no attribute {name!r}", name=name)
        value = lookup(name)
        if value is None:
            error = missing(path, name, names())
            if _importing(1):  # `from mindjit.ops.operations import X`: keep the message
                raise ImportError(str(error), name=f"mindjit.{path}") from None
            raise error
        return value

    def __dir__() -> list[str]:
        return sorted(names())

    return __getattr__, __dir__


def public_names(module: types.ModuleType) -> list[str]:
    """A module's names for `import *`: its `__all__`, else what has no underscore."""
    found = getattr(module, "__all__", None)
    if found is None:
        found = [n for n in vars(module) if not n.startswith("_")]
    return list(found)


def view(path: str, source: types.ModuleType, doc: str = "") -> types.ModuleType:
    """A module `mindjit.<path>` holding the public names of `source` (the
    mindjit module that implements MindSpore's `mindspore.<path>`)."""
    module = types.ModuleType(f"mindjit.{path}", doc or f"`mindspore.{path}`: {source.__name__}")
    exported = public_names(source)

    def lookup(name: str) -> Any:
        return getattr(source, name) if name in exported else None

    getattr_, dir_ = attribute_hooks(path, lookup, lambda: exported)
    module.__getattr__ = getattr_  # type: ignore[method-assign]
    module.__dir__ = dir_  # type: ignore[method-assign]
    return module


__all__ = ["attribute_hooks", "missing", "public_names", "view"]
