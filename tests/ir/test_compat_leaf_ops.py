"""leaf_op builds exactly what Operation.create builds (see ir/compat/leaf_ops.py)."""

from __future__ import annotations

import dataclasses

import pytest
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    f32,
)
from xdsl.dialects.ml_program import GlobalOp
from xdsl.ir import Operation

from mindjit.dialects import mindir
from mindjit.ir.compat.leaf_ops import leaf_op

_T = TensorType(f32, [2])
_V = DenseIntOrFPElementsAttr.from_list(_T, [1.0, 2.0])
_CASES = [
    (mindir.ParameterOp, {"sym_name": StringAttr("w"), "type": _T, "initial_value": _V}),
    (
        GlobalOp,
        {
            "sym_name": StringAttr("w"),
            "type": _T,
            "is_mutable": UnitAttr(),
            "value": _V,
            "sym_visibility": StringAttr("private"),
        },
    ),
]


@pytest.mark.parametrize(("cls", "props"), _CASES, ids=lambda c: getattr(c, "name", ""))
def test_leaf_op_has_every_field_create_gives(cls: type[Operation], props: dict) -> None:
    fast, slow = leaf_op(cls, dict(props)), cls.create(properties=dict(props))
    for f in dataclasses.fields(Operation):
        assert getattr(fast, f.name) == getattr(slow, f.name), f.name
    assert set(vars(fast)) == set(vars(slow))  # no field xDSL sets that leaf_op misses
    fast.verify()
    assert str(fast) == str(slow)


def test_leaf_op_is_a_usable_op() -> None:
    from xdsl.dialects.builtin import ModuleOp

    op = leaf_op(mindir.ParameterOp, dict(_CASES[0][1]))
    module = ModuleOp([op])
    module.verify()
    assert op.parent is module.body.block and op.next_op is None and not op.operands
    op.detach()
    op.erase()
