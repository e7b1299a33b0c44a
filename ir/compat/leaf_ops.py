"""Building declarations cheaply: a model of N Blocks has 12N of them.

A `mindir.parameter` (after lowering an `ml_program.global`) has no operands,
results, regions or successors: only properties. xDSL's generic constructor
(`Operation.create`) still runs the operand and successor setters, IRDL's
default-filling `__post_init__` and builds empty tuples, ~8 us per op, which
the frontend and the lowering each pay once per Parameter. `leaf_op` sets the
same fields directly. It is only for op classes whose properties are all given
(nothing for IRDL to default); tests/dialects/test_leaf_ops.py checks that it
builds exactly what `create` builds, so an xDSL upgrade that adds a field fails
there.
"""

from __future__ import annotations

from typing import TypeVar

from xdsl.dialects.builtin import UNKNOWN_LOC
from xdsl.ir import Attribute, Operation
from xdsl.ir.core import SSAValues

from mindjit.ir.compat.touchpoint import Touchpoint

TOUCHPOINT = Touchpoint(
    name="leaf-ops",
    kind="private",
    reason="`Operation.create` runs the operand and successor setters and builds empty "
    "tuples for an op that has only properties; a model has one declaration per Parameter",
    cost="measured in docs/xdsl-compat.md (benchmarks/compat_costs.py)",
    upstream="no cheaper public constructor in xDSL",
    delete_when="`Operation.create` of a properties-only op costs about as little",
    xdsl_sources={
        "xdsl.ir.core.Operation.__init__": "bcaa510c5d19",
        "xdsl.ir.core.Operation.create": "9585288f3498",
    },
)

_Op = TypeVar("_Op", bound=Operation)
_NONE: SSAValues = SSAValues()


def leaf_op(cls: type[_Op], properties: dict[str, Attribute]) -> _Op:
    """`cls.create(properties=properties)` for an op without operands, results,
    regions or successors (see the module doc)."""
    op = cls.__new__(cls)
    op._operands = _NONE
    op._operand_uses = ()
    op.results = _NONE
    op._successors = ()
    op._successor_uses = ()
    op.properties = properties
    op.attributes = {}
    op.location = UNKNOWN_LOC
    op.regions = ()
    return op
