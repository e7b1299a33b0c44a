"""ir/compat/parsed_types.py: a repeated plain shaped type is parsed once per parse,
and the module read is the one xDSL reads."""

from __future__ import annotations

from io import StringIO

import pytest
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.parser import Parser
from xdsl.printer import Printer

from mindjit.dialects.context import make_context
from mindjit.dialects.parsing import LocatingParser, parse_module
from mindjit.support.errors import MindjitError

# plain types (memoized), types with encodings, nesting, scalable dims, comments and
# whitespace inside (xDSL's own code), hex-looking dims, in op and function types
TEXT = """\
func.func @f(%x: tensor<4x?xf32>, %v: vector<4xi8>, %m: memref<2x3xindex>) -> tensor<4x?xf32> {
  %a = arith.addf %x, %x : tensor<4x?xf32>
  %b = arith.addf %a, %a : tensor<4x?xf32> // tensor<4xf32>
  %c = "test.op"(%a) : (tensor<4x?xf32>) -> tensor<4x?xf32, "enc">
  %d = "test.op"(%v) : (vector<4xi8>) -> vector<[4]xi8>
  %e = "test.op"() : () -> tuple<tensor<2xf32>, tensor<2xf32>>
  %f = "test.op"() : () -> tensor< 2xf32 >
  %g = "test.op"() : () -> tensor<0x10xf32>
  %h = "test.op"() : () -> tensor<0x10xf32>
  %i = "test.op"(%m) : (memref<2x3xindex>) -> memref<2x3xindex, strided<[3, 1]>>
  %j = "test.op"() : () -> tensor<*xf32>
  func.return %b : tensor<4x?xf32>
}
"""


def _printed(parser: Parser) -> str:
    out = StringIO()
    Printer(stream=out).print_op(parser.parse_module())
    return out.getvalue()


def test_the_module_read_is_the_one_xdsl_reads() -> None:
    ctx = make_context()
    ctx.allow_unregistered = True
    assert _printed(LocatingParser(ctx, TEXT, "t.mlir")) == _printed(Parser(ctx, TEXT, "t.mlir"))


def test_a_repeated_type_is_one_object() -> None:
    ctx = make_context()
    ctx.allow_unregistered = True
    module = LocatingParser(ctx, TEXT, "t.mlir").parse_module()
    func = next(op for op in module.walk() if op.name == "func.func")
    x = func.body.block.args[0].type  # tensor<4x?xf32>, read first
    uses = [r.type for op in module.walk() for r in (*op.operands, *op.results) if r.type == x]
    assert len(uses) >= 6 and all(t is x for t in uses)
    results = [op.results[0].type for op in module.walk() if op.name == "test.op"]
    assert results[0] == TensorType(x.element_type, x.shape, StringAttr("enc"))
    assert results[4] is results[5]  # tensor<0x10xf32> twice


def test_a_bad_type_errs_at_each_use() -> None:
    text = (
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  func.return %x : tensor<4xfoo>\n}\n"
    )
    with pytest.raises(MindjitError) as err:
        parse_module(text, "bad.mlir")
    assert str(err.value).startswith("bad.mlir:2:")
