"""Adjoints as mindir-grad keeps them: summed as they arrive, made values on demand.

An adjoint is an SSA value, None (zero), or, for a tuple, a list of element
adjoints; `accumulate` adds one to a table, `materialize` turns one into a value
of a given type. `used_values` is what an op (with its regions) reads from
outside, the values its adjoint flows to.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import TensorType, TupleType
from xdsl.ir import Attribute, Operation, SSAValue

from mindjit.dialects import mindir as M
from mindjit.dialects.mindir.shapes import is_bool
from mindjit.passes.analysis.effects import values_from_outside
from mindjit.passes.mindir_grad.emitter import GradEmitter

Adjoint = Any  # SSAValue | list[Adjoint | None] for a tuple


def differentiable(t: Attribute) -> bool:
    """Values that carry gradients: non-bool tensors, and tuples of them."""
    if isinstance(t, TensorType):
        return not is_bool(t.get_element_type())
    if isinstance(t, TupleType):
        return any(differentiable(e) for e in t.types.data)
    return False


def accumulate(e: GradEmitter, adj: dict[Any, Adjoint], key: Any, g: Adjoint) -> None:
    """adj[key] += g (tuple adjoints element by element)."""
    if g is None:
        return
    old = adj.get(key)
    adj[key] = g if old is None else _sum(e, old, g)


def _sum(e: GradEmitter, a: Adjoint, b: Adjoint) -> Adjoint:
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, list):
        return [_sum(e, x, y) for x, y in zip(a, b)]
    return e.add(a, b)


def materialize(e: GradEmitter, g: Adjoint, t: Attribute) -> SSAValue:
    """An adjoint as one value of type `t` (zeros where it is None)."""
    if isinstance(t, TupleType):
        parts = g if isinstance(g, list) else [None] * len(t.types.data)
        return e.v(M.MakeTupleOp.get([materialize(e, p, et) for p, et in zip(parts, t.types.data)]))
    if g is None:
        return e.zeros(t)
    return g


def used_values(op: Operation) -> set[SSAValue]:
    """Operands of `op` and of the ops nested in it, defined outside `op`."""
    return set(values_from_outside(op))
