"""`ops.MultitypeFuncGraph` and `ops.HyperMap`, as MindSpore defines them.

A `MultitypeFuncGraph` is one name with several Python functions registered
for argument type names ("Tensor", "Number", "Bool", "String", "Tuple",
"List", "Dictionary", "None", "Function"); a call picks the one whose types
match its arguments (the most specific when several do: "Bool" before
"Number"), and a call nothing matches is a TypeError listing what is
registered. `HyperMap(fn)(seq1, seq2, ...)` applies `fn` to the elements of
sequences of equal length (tuples or lists, nested ones recursively) and
gives the results in the same structure; `HyperMap()(fn, seq1, ...)` takes the
function first, as in MindSpore. `Map` is the same over the top level only.

Both run as plain Python in PyNative mode. In graph mode the frontend applies
them while tracing (see `mindjit.frontend.graph.calls`): the chosen function
of a MultitypeFuncGraph becomes a graph specialized on its arguments, like any
user function, and a HyperMap calls it once per element.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.tensor import Tensor

#: The type names `register` accepts, each with its test (GraphValue: a tensor the
#: graph computes) and its specificity (a more specific name wins a tie).
_TYPE_NAMES: dict[str, tuple[Callable[[Any], bool], int]] = {}


def _is_tensor(x: Any) -> bool:

    return isinstance(x, Tensor | GraphValue)


_TYPE_NAMES.update(
    {
        "Tensor": (_is_tensor, 1),
        "Number": (lambda x: isinstance(x, int | float) and not _is_tensor(x), 1),
        "Bool": (lambda x: isinstance(x, bool), 2),
        "String": (lambda x: isinstance(x, str), 1),
        "Tuple": (lambda x: isinstance(x, tuple), 1),
        "List": (lambda x: isinstance(x, list), 1),
        "Dictionary": (lambda x: isinstance(x, dict), 1),
        "None": (lambda x: x is None, 1),
        "Function": (lambda x: callable(x) and not _is_tensor(x) and not isinstance(x, type), 1),
    }
)


def type_name(x: Any) -> str:
    """The name `register` would use for `x` (for messages)."""
    for name in ("Bool", "Tensor", "Number", "String", "Tuple", "List", "Dictionary", "None"):
        if _TYPE_NAMES[name][0](x):
            return name
    return "Function" if _TYPE_NAMES["Function"][0](x) else type(x).__name__


class MultitypeFuncGraph:
    """Functions registered per argument types under one name (MindSpore's
    `ops.MultitypeFuncGraph(name, read_value=False)`)."""

    def __init__(self, name: str, read_value: bool = False):
        if not isinstance(name, str):
            raise TypeError(f"MultitypeFuncGraph name must be a str, got {type(name).__name__}")
        self.name = name
        self.read_value = read_value
        self.entries: list[tuple[tuple[str, ...], Callable[..., Any]]] = []

    def register(self, *type_names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """`@mfg.register("Tensor", "Number")`: the decorated function handles those types."""
        for t in type_names:
            if t not in _TYPE_NAMES:
                known = ", ".join(f'"{k}"' for k in _TYPE_NAMES)
                raise TypeError(
                    f"MultitypeFuncGraph '{self.name}': unknown type name {t!r} in register(); "
                    f"use one of {known}"
                )

        def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
            if any(types == tuple(type_names) for types, _ in self.entries):
                raise ValueError(
                    f"MultitypeFuncGraph '{self.name}': ({', '.join(type_names)}) "
                    "is registered twice"
                )
            self.entries.append((tuple(type_names), fn))
            return fn

        return deco

    def resolve(self, args: Sequence[Any]) -> Callable[..., Any]:
        """The registered function for these arguments (a TypeError if none)."""
        best: tuple[int, Callable[..., Any]] | None = None
        for types, fn in self.entries:
            if len(types) != len(args):
                continue
            if all(_TYPE_NAMES[t][0](a) for t, a in zip(types, args)):
                score = sum(_TYPE_NAMES[t][1] for t in types)
                if best is None or score > best[0]:
                    best = (score, fn)
        if best is None:
            got = ", ".join(type_name(a) for a in args)
            known = "; ".join(f"({', '.join(types)})" for types, _ in self.entries) or "nothing"
            raise TypeError(
                f"MultitypeFuncGraph '{self.name}' has no function registered for ({got}); "
                f"registered: {known}"
            )
        return best[1]

    def __call__(self, *args: Any) -> Any:
        return self.resolve(args)(*args)

    def __repr__(self) -> str:
        return f"MultitypeFuncGraph({self.name!r})"


class HyperMap:
    """Apply a function to the elements of (nested) sequences (MindSpore's
    `ops.HyperMap(ops=None, reverse=False)`)."""

    def __init__(self, ops: Callable[..., Any] | None = None, reverse: bool = False):
        if ops is not None and not callable(ops):
            raise TypeError(f"HyperMap needs a function, got {type(ops).__name__}")
        self.ops = ops
        self.reverse = bool(reverse)

    def __call__(self, *args: Any) -> Any:
        return self.map(args, lambda fn, xs: fn(*xs))

    def map(self, args: Sequence[Any], apply: Callable[[Any, list[Any]], Any]) -> Any:
        """`self(*args)` with `apply(fn, leaves)` calling the function (graph mode
        passes its own, which traces the call)."""
        if self.ops is None:
            if not args or not callable(args[0]):
                raise TypeError("HyperMap() without a function takes it as first argument")
            fn, seqs = args[0], list(args[1:])
        else:
            fn, seqs = self.ops, list(args)
        if not seqs:
            raise TypeError("HyperMap needs at least one sequence to map over")
        return self._map(fn, seqs, apply)

    def _map(self, fn: Any, args: list[Any], apply: Callable[[Any, list[Any]], Any]) -> Any:
        if not any(isinstance(a, tuple | list) for a in args):
            return apply(fn, args)
        return self._level(fn, args, lambda xs: self._map(fn, xs, apply))

    def _level(self, fn: Any, args: list[Any], each: Callable[[list[Any]], Any]) -> Any:
        """`each` of the i-th elements of sequences `args` (all tuples or all lists, of
        one length), in the same kind of sequence."""
        kinds = {isinstance(a, list) for a in args}  # a ParameterTuple is a tuple
        if not all(isinstance(a, tuple | list) for a in args) or len(kinds) != 1:
            got = ", ".join(type_name(a) for a in args)
            raise TypeError(
                f"{type(self).__name__}: the arguments at one level must all be tuples or all "
                f"lists, got ({got})"
            )
        lengths = {len(a) for a in args}
        if len(lengths) != 1:
            raise ValueError(
                f"{type(self).__name__}: the sequences must have the same length, got "
                f"{', '.join(str(len(a)) for a in args)}"
            )
        n = lengths.pop()
        order = range(n - 1, -1, -1) if self.reverse else range(n)
        out: list[Any] = [None] * n
        for i in order:
            out[i] = each([a[i] for a in args])
        return tuple(out) if isinstance(args[0], tuple) else out

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.ops!r})"


class Map(HyperMap):
    """`ops.Map(ops=None, reverse=False)`: the function applied to the i-th elements of
    sequences of one length, one level deep (an element that is itself a tuple is
    passed whole, where HyperMap would map into it). In graph mode it is traced as
    HyperMap is (its calls grouped into one vmap where they can be)."""

    def _map(self, fn: Any, args: list[Any], apply: Callable[[Any, list[Any]], Any]) -> Any:
        return self._level(fn, args, lambda xs: apply(fn, xs))


__all__ = ["HyperMap", "Map", "MultitypeFuncGraph"]
