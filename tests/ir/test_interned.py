"""Interned attributes are the attributes xDSL would build, shared."""

from __future__ import annotations

from xdsl.dialects.builtin import SymbolRefAttr, TensorType, f32

from mindjit.dialects.mindir.types import RefType, ref_type
from mindjit.ir import interned


def test_equal_to_the_constructed_attributes_and_shared():
    t = interned.tensor_type(f32, (2, 3))
    assert t == TensorType(f32, [2, 3]) and interned.tensor_type(f32, (2, 3)) is t
    assert interned.symbol_ref("w") == SymbolRefAttr("w")
    assert interned.symbol_ref("w") is interned.symbol_ref("w")
    assert ref_type(t) == RefType(t) and ref_type(t) is ref_type(t)


def test_invalid_attributes_are_still_refused():
    import pytest
    from xdsl.utils.exceptions import VerifyException

    with pytest.raises(VerifyException):
        ref_type(TensorType(f32, [-1]))
