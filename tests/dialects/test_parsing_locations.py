"""dialects/parsing.py: every parsed op knows its file:line:col, counted once through
the text (issue 29: counting from the start for every op was quadratic)."""

from __future__ import annotations

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr

from mindjit.dialects.parsing import LocatingParser, parse_module
from mindjit.ir.locations import loc_of_op


def chain(n: int, indent: str = "  ") -> str:
    body = "".join(f"{indent}%v{i} = arith.addf %x, %x : tensor<f32>\n" for i in range(n))
    return f"func.func @f(%x: tensor<f32>) -> tensor<f32> {{\n{body}  func.return %x : tensor<f32>\n}}\n"


def test_each_op_of_a_long_file_is_at_its_line_and_column() -> None:
    module = parse_module(chain(3000, indent="    "), "long.mlir")
    adds = [op for op in module.walk() if op.name == "arith.addf"]
    assert [(loc_of_op(op).line, loc_of_op(op).col) for op in adds[:2]] == [(2, 5), (3, 5)]
    last = loc_of_op(adds[-1])
    assert (last.file, last.line, last.col) == ("long.mlir", 3001, 5)


def test_the_line_count_scans_the_text_once(monkeypatch) -> None:
    """The newlines before an op are counted from the previous op, not from the start:
    the characters scanned add up to about the text's length."""
    scanned = []
    original = LocatingParser._line_col

    def counting(self, pos):  # noqa: ANN001
        before = self.__dict__.get("_line_cursor", (0, 1))[0]
        scanned.append(max(0, pos - before))
        return original(self, pos)

    monkeypatch.setattr(LocatingParser, "_line_col", counting)
    text = chain(2000)
    parse_module(text, "long.mlir")
    assert sum(scanned) <= len(text)


def test_the_locations_share_their_parts() -> None:
    """One file-name attribute per parse and one IntAttr per number, not three new
    verified attributes per op: equal to xDSL's own `FileLineColLoc`."""
    module = parse_module(chain(50), "long.mlir")
    locs = [op.location for op in module.walk() if op.name == "arith.addf"]
    assert all(loc.filename is locs[0].filename for loc in locs)
    assert all(loc.column is locs[0].column for loc in locs)
    assert locs[3] == FileLineColLoc(StringAttr("long.mlir"), IntAttr(5), IntAttr(3))
