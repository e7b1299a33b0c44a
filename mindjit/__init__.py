"""mindjit: MindSpore's static-graph compiler techniques as xDSL passes.

The public Python API (`import mindjit as ms`) is mindjit/user_api.py, which
re-exports the frontend; the compiler itself is in the layers below it
(docs/architecture.md). This package loads the API on first use (PEP 562): the
first API name read (`ms.Tensor`, `ms.nn`, `from mindjit import jit`), or the
first import of one of MindSpore's paths under it (`import mindjit.nn`,
`from mindjit.ops import operations as P`, `mindjit.common.dtype`), loads all of
it, as `import mindjit` did before.

Why: every subpackage import runs this file first, and the tools (ms-opt,
ms-run, ms-translate, ms-sim) and the one-process tests of a pass need only the
layers below the frontend. Loading the frontend here took 1.2 of ms-opt's 1.9 s
import on the Zen 3 CI machine (`python -X importtime -c "import
mindjit.tools.ms_opt"`: 1.93 s, then 0.70 s), and every lit test and tool
subprocess of the test suite paid it.
"""

import importlib as _importlib
import importlib.abc as _abc
import importlib.util as _util
import sys as _sys
import threading as _threading
from types import ModuleType as _ModuleType
from typing import Any as _Any

from mindjit.support.version import __version__ as __version__

#: the first part of the paths the API registers under `mindjit.` (user_api.py and
#: mindspore_paths.py); `common` is a package of its own, its `dtype` ... are registered
_API_PATHS = ("nn", "ops", "dtype", "context", "amp", "communication", "dataset", "train")

_LOCK = _threading.RLock()
_state: dict[str, _Any] = {"loaded": False, "loading": None}


def _load_api() -> None:
    """Import user_api.py once and take its public names. A name read while it loads,
    from the loading thread, finds only what is already here (no recursion)."""
    if _state["loaded"]:
        return
    with _LOCK:
        if _state["loaded"] or _state["loading"] == _threading.get_ident():
            return
        _state["loading"] = _threading.get_ident()
        try:
            api = _importlib.import_module("mindjit.user_api")
            names = {k: v for k, v in vars(api).items() if not k.startswith("_")}
            globals().update(names, __all__=api.__all__)
            _state["loaded"] = True
        finally:
            _state["loading"] = None


_MISSING = object()


def __getattr__(name: str) -> _Any:
    if name == "__all__" or not name.startswith("__"):
        _load_api()
        found = globals().get(name, _MISSING)
        if found is not _MISSING:
            return found
    raise AttributeError(f"module 'mindjit' has no attribute '{name}'")


def __dir__() -> list[str]:
    _load_api()
    return sorted(globals())


def _is_api_path(name: str) -> bool:
    parts = name.split(".")
    if len(parts) < 2 or parts[0] != "mindjit":
        return False
    return parts[1] in _API_PATHS or (parts[1] == "common" and len(parts) > 2)


class _Registered(_abc.Loader):
    """Gives the import system the module the API registered under a path. The import
    system sets the module's `__spec__` to the alias's; the module keeps its own."""

    def __init__(self, module: _ModuleType):
        self.module, self.spec = module, getattr(module, "__spec__", None)

    def create_module(self, spec: _Any) -> _ModuleType:
        return self.module

    def exec_module(self, module: _ModuleType) -> None:
        module.__spec__ = self.spec


class _MindSporePaths(_abc.MetaPathFinder):
    """`import mindjit.nn` before any API name was read: loads the API, which
    registers the path; None (the usual search) for every other module."""

    def find_spec(self, name: str, path: _Any = None, target: _Any = None) -> _Any:
        if not _is_api_path(name) or _state["loading"] == _threading.get_ident():
            return None
        _load_api()
        module = _sys.modules.get(name)
        if module is None:
            return None
        return _util.spec_from_loader(name, _Registered(module))


if not any(isinstance(f, _MindSporePaths) for f in _sys.meta_path):
    _sys.meta_path.insert(0, _MindSporePaths())
