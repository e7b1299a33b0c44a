"""The compile cache's binary module form: every module lit tests hold reads back
as the same IR, and damaged bytes are a ModuleFormatError, never another error."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from mindjit.backend.cache.module_codec import Encoded, ModuleFormatError, decode, encode
from mindjit.dialects.context import make_context
from mindjit.dialects.parsing import parse_module
from mindjit.support.errors import MindjitError

FILECHECK = Path(__file__).resolve().parents[1] / "filecheck"


def _modules() -> list[tuple[str, str]]:
    found = []
    for path in sorted(FILECHECK.rglob("*.mlir")):
        for k, chunk in enumerate(path.read_text().split("// -----")):
            found.append((f"{path.relative_to(FILECHECK)}#{k}", chunk))
    return found


def _roundtrip(module):
    encoded = encode(module)
    # through JSON, as the cache entry stores the table
    again = Encoded(
        json.loads(json.dumps(encoded.attrs)),
        encoded.ops,
        encoded.forward,
        encoded.blob,
        encoded.names,
    )
    return decode(again, make_context())


@pytest.mark.parametrize("name, text", _modules(), ids=[n for n, _ in _modules()])
def test_every_lit_module_reads_back_the_same(name, text):
    try:
        module = parse_module(text, name)
    except MindjitError:
        pytest.skip("an invalid-input case")
    back = _roundtrip(module)
    assert str(back) == str(module)
    back.verify()


CFG = """
func.func @f(%a: i32, %c: i1) -> i32 {
  cf.br ^bb2(%a : i32)
^bb1(%y: i32):
  func.return %y : i32
^bb2(%x: i32):
  %s = arith.addi %x, %x : i32
  cf.cond_br %c, ^bb1(%s : i32), ^bb2(%s : i32)
}
"""

GRAPH = """
"test.graph"() ({
  %b = "test.op"(%a) : (i32) -> i32
  %a = "test.op"() : () -> i32
}) : () -> ()
"""


def test_blocks_out_of_order_and_successors():
    module = parse_module(CFG)
    assert str(_roundtrip(module)) == str(module)


def test_dense_literals_keep_their_bytes():
    text = (
        "func.func @f() -> tensor<2x2xf32> {\n"
        "  %c = arith.constant dense<[[1.5, -0.0], [0x7F800000, 3.25]]> : tensor<2x2xf32>\n"
        "  func.return %c : tensor<2x2xf32>\n}\n"
    )
    module = parse_module(text)
    back = _roundtrip(module)
    assert str(back) == str(module)
    assert "0x7f800000" in str(back).lower()


def test_locations_survive():
    module = parse_module(CFG, "prog.mlir")
    back = _roundtrip(module)
    ops = [(o.name, str(o.location)) for o in back.walk()]
    assert ops == [(o.name, str(o.location)) for o in module.walk()]
    assert any("prog.mlir" in loc for _, loc in ops)


def test_random_damage_is_always_a_module_format_error():
    module = parse_module(CFG)
    encoded = encode(module)
    rng = random.Random(0)
    for _ in range(300):
        ops = bytearray(encoded.ops)
        i = rng.randrange(len(ops))
        ops[i] = rng.randrange(256)
        attrs = json.loads(json.dumps(encoded.attrs))
        if rng.random() < 0.3:
            attrs[rng.randrange(len(attrs))] = rng.choice(
                [["s", 1], ["a", [99]], ["zz"], ["i", "x", 0], ["t", "!"], ["loc"]]
            )
        try:
            decode(Encoded(attrs, bytes(ops), encoded.forward, encoded.blob), make_context())
        except ModuleFormatError:
            pass


def test_unknown_op_and_cut_stream():
    encoded = encode(parse_module(CFG))
    with pytest.raises(ModuleFormatError, match="cut"):
        decode(Encoded(encoded.attrs, encoded.ops[:-3], {}, b""), make_context())
    attrs = [["s", "nope.op"] if a == ["s", "arith.addi"] else a for a in encoded.attrs]
    with pytest.raises(ModuleFormatError, match="unknown op 'nope.op'"):
        decode(Encoded(attrs, encoded.ops, encoded.forward, encoded.blob), make_context())
