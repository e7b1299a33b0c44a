"""What a compile may read, as one digest: the compile cache's dependency hash.

Graph mode folds whatever Python values a graph reaches (attributes, globals,
closure values, constant arguments) and compiles the source of every function
and method it calls. The cache cannot know in advance which of them a trace
reads, so it digests all it could read, starting from the entry function, its
bound object and its arguments:

- a user function: its code (bytecode, constants, names, line table), the text
  of its source file, its defaults, closure values, attributes (`__wrapped__`:
  what `@jit` wraps) and every global its code names (for a module global, the
  module's attributes that the code names);
- a user class: its bases and everything in its body; an instance: its class
  and its `__dict__` / slots; containers, numpy arrays and constant Tensors by
  value; a Parameter by name, dtype, shape and requires_grad (its value is an
  input of every run, not part of the program);
- library code (mindjit, the standard library, installed packages) by name: its
  versions are part of the key.

Digesting more than a trace reads only costs a needless recompile; anything the
walk cannot describe deterministically makes the compile uncacheable (the
reason is reported), never a wrong hit. The Parameters are collected in walk
order, which is how a cache hit finds this process's Parameter objects.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import linecache
import marshal
import os
import sys
import sysconfig
import types
from typing import Any

import numpy as np

from mindjit.frontend.tensor import Parameter, Tensor

_PRIMITIVES = (type(None), bool, int, float, complex, str, bytes)
_LIBRARY_ROOTS = frozenset({"mindjit", "numpy", "xdsl", "builtins"}) | frozenset(
    sys.stdlib_module_names
)
_SITE = tuple(
    os.path.realpath(p)
    for p in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
)
_DUNDER_SKIP = frozenset({"__dict__", "__weakref__", "__module__", "__doc__", "__qualname__"})
_MAX_DEPTH = 400


class Uncacheable(Exception):
    """The walk met something it cannot describe the same way in another process."""


@functools.cache
def is_library_module(name: str) -> bool:
    if name.split(".", 1)[0] in _LIBRARY_ROOTS:
        return True
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None)
    return bool(path) and os.path.realpath(path).startswith(_SITE)


def _file_digest(path: str) -> str:
    """The digest of the source file the frontend reads a function from."""
    try:
        st = os.stat(path)
    except OSError:  # a notebook cell or <string>: what linecache holds
        return hashlib.sha256("".join(linecache.getlines(path)).encode()).hexdigest()
    return _read_digest(path, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=4096)
def _read_digest(path: str, mtime_ns: int, size: int) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


class Dependencies:
    """Walk values, feeding a digest; `hexdigest()` is the result."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._memo: dict[int, int] = {}
        self._alive: list[Any] = []  # keeps memoized ids from being reused mid-walk
        self.parameters: list[Parameter] = []
        self._depth = 0

    def hexdigest(self) -> str:
        return hashlib.sha256("\x1f".join(self._parts).encode()).hexdigest()

    def add(self, label: str, value: Any) -> None:
        self._parts.append(f"<{label}>")
        self.visit(value)

    def emit(self, *items: Any) -> None:
        self._parts.append(" ".join(map(str, items)))

    # -- the walk --------------------------------------------------------------------

    def visit(self, v: Any) -> None:
        if type(v) in _PRIMITIVES:
            self.emit(type(v).__name__, repr(v))
            return
        key = id(v)
        seen = self._memo.get(key)
        if seen is not None:
            self.emit("ref", seen)
            return
        self._memo[key] = len(self._memo)
        self._alive.append(v)
        self._depth += 1
        if self._depth > _MAX_DEPTH:
            raise Uncacheable("the values a graph reaches nest too deeply")
        try:
            self._visit(v)
        finally:
            self._depth -= 1

    def _visit(self, v: Any) -> None:  # noqa: C901 - one case per kind of value
        if isinstance(v, Parameter):
            self.parameters.append(v)
            self.emit("param", v.name, v.dtype, tuple(v.shape), v.requires_grad)
        elif isinstance(v, Tensor):
            self.emit("tensor", v.dtype, tuple(v.shape), _array_digest(v.asnumpy()))
        elif isinstance(v, np.ndarray):
            self.emit("ndarray", v.dtype.str, v.shape, _array_digest(v))
        elif isinstance(v, np.generic):
            self.emit("npscalar", v.dtype.str, v.tobytes().hex())
        elif isinstance(v, tuple | list):
            self.emit(type(v).__name__, len(v))
            for x in v:
                self.visit(x)
        elif isinstance(v, dict):
            self.emit(type(v).__name__, len(v))
            for k, x in v.items():
                self.visit(k)
                self.visit(x)
        elif isinstance(v, set | frozenset):
            if not all(type(x) in _PRIMITIVES for x in v):
                raise Uncacheable("a set of non-constant values")
            self.emit(type(v).__name__, sorted(repr(x) for x in v))
        elif isinstance(v, types.FunctionType):
            self._function(v)
        elif isinstance(v, types.MethodType):
            self.emit("method")
            self.visit(v.__func__)
            self.visit(v.__self__)
        elif isinstance(v, types.ModuleType):
            self.emit("module", v.__name__)
        elif isinstance(v, type):
            self._class(v)
        elif isinstance(v, staticmethod | classmethod):
            self.emit(type(v).__name__)
            self.visit(v.__func__)
        elif isinstance(v, property):
            self.emit("property")
            for f in (v.fget, v.fset, v.fdel):
                self.visit(f)
        elif isinstance(v, functools.partial):
            self.emit("partial")
            self.visit(v.func)
            self.visit(v.args)
            self.visit(v.keywords)
        elif isinstance(v, enum.Enum):
            self.emit("enum", _qualified(type(v)), v.name)
        elif (
            isinstance(v, types.BuiltinFunctionType | np.ufunc)
            or callable(v)
            and not hasattr(v, "__dict__")
        ):
            self._by_repr(v, "builtin")
        else:
            self._instance(v)

    def _function(self, fn: types.FunctionType) -> None:
        user = not is_library_module(fn.__module__ or "")
        self.emit("function", fn.__module__, fn.__qualname__)
        if user:
            code = fn.__code__
            self.emit(
                "code",
                hashlib.sha256(marshal.dumps(code)).hexdigest(),
                _file_digest(code.co_filename),
            )
        self.visit(fn.__defaults__)
        self.visit(fn.__kwdefaults__)
        for cell in fn.__closure__ or ():
            try:
                self.visit(cell.cell_contents)
            except ValueError:  # an empty cell
                self.emit("empty")
        self.visit({k: x for k, x in vars(fn).items()})
        if user:
            self._globals(fn)

    def _globals(self, fn: types.FunctionType) -> None:
        names = sorted(_code_names(fn.__code__))
        scope = fn.__globals__
        for name in names:
            if name not in scope:
                continue
            value = scope[name]
            self.emit("global", name)
            if isinstance(value, types.ModuleType) and not is_library_module(value.__name__):
                self.emit("module", value.__name__)
                for attr in names:  # the module's attributes this code may read
                    if attr in vars(value):
                        self.emit("attr", attr)
                        self.visit(vars(value)[attr])
            else:
                self.visit(value)

    def _class(self, cls: type) -> None:
        self.emit("class", _qualified(cls))
        if is_library_module(cls.__module__):
            return
        self.visit(cls.__bases__)
        for name, value in vars(cls).items():
            if name in _DUNDER_SKIP:
                continue
            self.emit("member", name)
            self.visit(value)

    def _instance(self, v: Any) -> None:
        cls = type(v)
        self.emit("object")
        self.visit(cls)
        state = getattr(v, "__dict__", None)
        slots = [s for c in cls.__mro__ for s in getattr(c, "__slots__", ())]
        if state is None and not slots:
            self._by_repr(v, "value")
            return
        if state is not None:
            self.visit(dict(state))
        for name in slots:
            if name not in ("__dict__", "__weakref__") and hasattr(v, name):
                self.emit("slot", name)
                self.visit(getattr(v, name))

    def _by_repr(self, v: Any, kind: str) -> None:
        text = repr(v)
        if " at 0x" in text or "object at" in text:
            raise Uncacheable(f"cannot describe a {type(v).__name__} value ({text[:60]})")
        self.emit(kind, _qualified(type(v)), text)


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _array_digest(a: np.ndarray) -> str:
    if a.dtype.hasobject:
        raise Uncacheable("a numpy array of Python objects")
    return hashlib.sha256(a.tobytes()).hexdigest()
