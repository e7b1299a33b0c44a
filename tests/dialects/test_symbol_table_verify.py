"""The unique-names check of SymbolTable (dialects/xdsl_fixes.py) gives xDSL's verdicts."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import StringAttr
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

from mindjit.dialects.parsing import parse_module
from mindjit.dialects.xdsl_fixes import _original_symbol_table_verify
from mindjit.support.errors import MindjitError

TEXT = """
mindir.parameter @w = dense<1.0> : tensor<f32>
mindir.parameter @v = dense<2.0> : tensor<f32>
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  func.return %x : tensor<f32>
}
func.func private @g(tensor<f32>) -> tensor<f32>
"""


def _verdict(check, op) -> str | None:  # type: ignore[no-untyped-def]
    try:
        check(SymbolTable(), op)
    except VerifyException as exc:
        return str(exc)
    return None


def test_unique_names_pass_both():
    module = parse_module(TEXT)
    assert _verdict(SymbolTable.verify, module) is None
    assert _verdict(_original_symbol_table_verify, module) is None


@pytest.mark.parametrize("renamed", ["v", "f", "g"])
def test_a_repeated_name_is_refused_with_xdsls_message(renamed: str):
    module = parse_module(TEXT)
    op = next(o for o in module.ops if o.get_attr_or_prop("sym_name") == StringAttr(renamed))
    op.properties["sym_name"] = StringAttr("w")
    fast = _verdict(SymbolTable.verify, module)
    assert fast == _verdict(_original_symbol_table_verify, module)
    assert fast == 'Redefinition of symbol "w"'


def test_a_name_given_as_an_attribute_counts():
    module = parse_module(TEXT)
    f = next(o for o in module.ops if o.get_attr_or_prop("sym_name") == StringAttr("f"))
    other = f.clone()
    del other.properties["sym_name"]
    other.attributes["sym_name"] = StringAttr("f")
    module.body.block.add_op(other)
    fast = _verdict(SymbolTable.verify, module)
    assert fast == _verdict(_original_symbol_table_verify, module) == 'Redefinition of symbol "f"'


def test_parsing_reports_a_redefinition_with_a_location():
    with pytest.raises(MindjitError, match='Redefinition of symbol "w"'):
        parse_module(TEXT + "mindir.parameter @w = dense<3.0> : tensor<f32>\n")
