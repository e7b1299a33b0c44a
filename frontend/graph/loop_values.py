"""What a `while` on a tensor carries from one iteration to the next.

A loop variable is a tensor, a Python number, or a tuple/list of them (nested);
the `mindir.while` carries its leaves, and the structure (a template with `LEAF`
where a leaf goes) is rebuilt around the loop's block arguments and results. So
`state = (h, c)` ... `state = cell(x[t], state)` is one loop variable of two
leaves, and `mindir-grad` sees only tensors.

What the body may do to a loop variable's kind is MindSpore 2.10's rule (probed
in graph mode, issue 40): it must give back the same structure. MindSpore accepts
a tuple that stays a tuple of the same length, and refuses with a TypeError
("Cannot join the return values of different branches") a number or tensor the
body makes a tuple (`loss = 0` then `loss = ms.value_and_grad(f)(x)`), a tuple it
makes a number, a None it makes a tensor in a data-dependent loop, a tensor whose
dtype changes. A tuple that grows every iteration it accepts but runs with an
iteration count that is not the loop's (2 for n = 5); mindjit refuses it with the
same TypeError, since a static graph cannot hold a tuple whose length is only known
at run time. One difference is kept on purpose: a Python number the body makes a
0-d tensor (`s = 0` ... `s = s + x.sum()`) is carried as a 0-d tensor from the
start (control_flow._retyped), which MindSpore refuses; the result is the one
Python gives, and earlier mindjit programs rely on it.
"""

from __future__ import annotations

from typing import Any

from mindjit.frontend.graph_value import GraphValue
from mindjit.frontend.tensor import Tensor


class _Leaf:
    __slots__ = ()

    def __repr__(self) -> str:
        return "LEAF"


LEAF = _Leaf()


def is_leaf(value: Any) -> bool:
    """A value a `mindir.while` carries as one value: a tensor or a Python number."""
    return isinstance(value, GraphValue | Tensor | bool | int | float)


def carriable(value: Any) -> bool:
    """A tensor, a number, or a tuple/list whose items are all carriable."""
    if isinstance(value, tuple | list):
        return all(carriable(v) for v in value)
    return is_leaf(value)


def template(value: Any) -> Any:
    """`value`'s structure, `LEAF` for each tensor or number (`value` is carriable)."""
    if isinstance(value, tuple | list):
        return type(value)(template(v) for v in value)
    return LEAF


def leaves(value: Any) -> list[Any]:
    if isinstance(value, tuple | list):
        return [x for v in value for x in leaves(v)]
    return [value]


def fits(shape: Any, value: Any) -> bool:
    """Whether `value` has the structure `shape` (a template) describes."""
    if shape is LEAF:
        return is_leaf(value)
    if not isinstance(value, tuple | list) or type(value) is not type(shape):
        return False
    return len(value) == len(shape) and all(fits(s, v) for s, v in zip(shape, value))


def rebuild(shape: Any, values: list[Any]) -> Any:
    """The structure `shape` with `values` at its leaves, in order."""
    it = iter(values)

    def walk(s: Any) -> Any:
        if s is LEAF:
            return next(it)
        return type(s)(walk(x) for x in s)

    out = walk(shape)
    assert next(it, None) is None, "more values than leaves"
    return out


def count(shape: Any) -> int:
    if shape is LEAF:
        return 1
    return sum(count(s) for s in shape)


def kind(value: Any) -> str:
    """A value's kind in an error message: 'a tuple of 2', 'a tensor', 'a number', 'None'."""
    if isinstance(value, tuple | list):
        return f"a {type(value).__name__} of {len(value)}"
    if isinstance(value, GraphValue | Tensor):
        return "a tensor"
    if isinstance(value, bool | int | float):
        return f"a number ({type(value).__name__})"
    if value is None:
        return "None"
    return f"a {type(value).__name__}"


__all__ = ["LEAF", "carriable", "count", "fits", "is_leaf", "kind", "leaves", "rebuild", "template"]
