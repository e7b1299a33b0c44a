"""`@ms.lazy_inline`: one reusable graph per `cell_init_args`, as MindSpore does.

    class Block(nn.Cell):
        @ms.lazy_inline
        def __init__(self, config): ...

Instances created with equal init arguments share one graph that takes their
Parameters as `!mindir.ref` arguments; each call site passes its own. The
frontend parses and optimizes that graph once however many instances call it.

MindSpore's first documented limitation (an attribute `construct` depends on,
changed after `__init__`, silently reuses a wrong graph) is detected here: the
instance's plain attributes are recorded at the end of `__init__`, and an
instance whose attributes differ gets its own graph, with a warning naming the
attribute. MindSpore's second limitation (only the outermost of nested
lazy-inline Cells is kept) does not apply: every level keeps its graph.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from typing import Any

from mindjit.frontend.structure import signature_of
from mindjit.frontend.tensor import Tensor

_PLAIN = (bool, int, float, str, bytes, type(None))


def _plain_view(value: Any) -> Any:
    """A comparable view of an attribute: constants by value, objects by identity."""
    if isinstance(value, _PLAIN):
        return (type(value).__name__, value)
    if isinstance(value, tuple | list):
        return (type(value).__name__, tuple(_plain_view(v) for v in value))
    return ("id", id(value))


def attribute_snapshot(cell: Any) -> dict[str, Any]:
    """The attributes of `cell` a construct may fold as constants (not Parameters/Cells)."""
    return {
        name: _plain_view(value)
        for name, value in vars(cell).items()
        if not name.startswith("_") and name not in ("training", "cell_init_args")
    }


def lazy_inline(fn: Any = None, *, attrs: Any = None, policy: Any = None) -> Any:
    """Decorate `Cell.__init__`; `attrs` and `policy` are MindSpore's, accepted as-is."""
    if fn is None:
        return lambda f: lazy_inline(f, attrs=attrs, policy=policy)

    @functools.wraps(fn)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        fn(self, *args, **kwargs)

        cls = type(self)
        object.__setattr__(
            self, "cell_init_args", f"lazy_inline_{cls.__name__}{_describe(args, kwargs)}"
        )
        object.__setattr__(
            self, "_lazy_inline_key", (cls, value_key((args, tuple(sorted(kwargs.items())))))
        )
        object.__setattr__(self, "_lazy_inline_snapshot", attribute_snapshot(self))

    __init__.__ms_lazy_inline__ = True  # type: ignore[attr-defined]
    return __init__


def _describe(args: tuple, kwargs: dict) -> str:
    parts = [value_text(a) for a in args] + [f"{k}={value_text(v)}" for k, v in kwargs.items()]
    return "(" + ", ".join(parts) + ")"


def _state(v: Any) -> list[tuple[str, Any]] | None:
    """An object's fields (a dataclass's, else its attributes and slots), or None if
    it has none."""
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return [(f.name, getattr(v, f.name)) for f in dataclasses.fields(v)]
    if callable(v) or isinstance(v, type):
        return None
    state = getattr(v, "__dict__", None)
    fields = dict(state) if isinstance(state, dict) else {}
    for cls in type(v).__mro__:
        slots = getattr(cls, "__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and hasattr(v, name):
                fields[name] = getattr(v, name)
    if not fields and not isinstance(state, dict):
        return None
    return sorted(fields.items())


class Itself:
    """An init argument with nothing to compare by value (no fields, unhashable):
    it stands for itself, compared and hashed by identity. It holds the object, not
    its address, so the compile cache's key walk meets the object and says why it
    cannot key it (a warning naming it, no cache entry) instead of digesting an
    address that differs in every process and missing silently."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Itself) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)

    def __repr__(self) -> str:
        return f"<{type(self.value).__name__}>"


def value_key(v: Any, seen: frozenset[int] = frozenset()) -> Any:
    """What makes two init arguments equal for lazy inline, by value: a config object
    by its fields (recursively, a cycle guard), never by its address, so the key,
    and the compile cache's key built from it, is the same in every process. An
    object with nothing to compare (no fields, unhashable) stands for itself
    (`Itself`): one graph per object, and the compile cache says it cannot key it."""
    if isinstance(v, _PLAIN):
        return (type(v).__name__, v)
    if isinstance(v, Tensor):
        return signature_of(v)
    if id(v) in seen:
        return ("cycle",)
    seen = seen | {id(v)}
    if isinstance(v, tuple | list):
        return (type(v).__name__, tuple(value_key(x, seen) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple(sorted((repr(k), value_key(x, seen)) for k, x in v.items())))
    state = _state(v)
    if state is not None:
        cls = type(v)
        return (
            "obj",
            cls.__module__,
            cls.__qualname__,
            tuple((k, value_key(x, seen)) for k, x in state),
        )
    try:
        hash(v)
    except TypeError:
        return ("opaque", Itself(v))
    return ("value", type(v).__qualname__, v)


def value_text(v: Any, seen: frozenset[int] = frozenset()) -> str:
    """`cell_init_args`' text of an init argument: its repr, or for an object whose
    repr is an address, its class and fields (the address would differ per process)."""
    text = repr(v)
    if " at 0x" not in text or id(v) in seen:
        return text if " at 0x" not in text else f"<{type(v).__name__}>"
    seen = seen | {id(v)}
    state = _state(v)
    if state is None:
        return f"<{type(v).__name__}>"
    inner = ", ".join(f"{k}={value_text(x, seen)}" for k, x in state)
    return f"{type(v).__name__}({inner})"


_WARNED: set[tuple[int, str]] = set()


def reuse_key(cell: Any) -> Any | None:
    """The key under which `cell` shares its graph, or None (no reuse for it)."""
    key = getattr(cell, "_lazy_inline_key", None)
    if key is None or type(cell) is not key[0]:
        return None  # not decorated, or a subclass that did not decorate its own __init__
    recorded = getattr(cell, "_lazy_inline_snapshot", {})
    current = attribute_snapshot(cell)
    changed = sorted(
        name for name in recorded.keys() | current.keys() if recorded.get(name) != current.get(name)
    )
    if changed:
        for name in changed:
            if (id(cell), name) not in _WARNED:
                _WARNED.add((id(cell), name))
                warnings.warn(
                    f"lazy_inline: attribute '{name}' of {type(cell).__name__} changed after "
                    "__init__; this instance gets its own graph instead of the shared one",
                    RuntimeWarning,
                    stacklevel=2,
                )
        return None
    return key
