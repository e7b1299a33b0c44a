"""ir/compat/direct_printer.py: ms-opt's printer prints xDSL's text, writing to its
stream directly and printing a plain shaped type object once."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.printer import Printer
from xdsl.targets.mlir import MLIRTarget

from mindjit.dialects.context import make_context
from mindjit.dialects.parsing import LocatingParser
from mindjit.ir.compat.direct_printer import DirectMLIRTarget, DirectPrinter

ROOT = Path(__file__).resolve().parents[2]


CTX = make_context()
CTX.allow_unregistered = True


def _modules() -> list[ModuleOp]:
    """Every chunk of the lit tests' inputs that parses: all dialects, regions,
    attributes, dense literals, resources, strings with escapes."""
    found = []
    for path in sorted((ROOT / "tests" / "filecheck").rglob("*.mlir")):
        for chunk in path.read_text().split("// -----"):
            try:
                found.append(LocatingParser(CTX, chunk, path.name).parse_module())
            except Exception:  # noqa: BLE001 - the invalid-input tests' chunks
                continue
    return found


MODULES = _modules()


@pytest.mark.parametrize(
    "flags",
    [
        {},
        {"print_generic_format": True},
        {"print_debuginfo": True},
        {"print_properties_as_attributes": True},
    ],
    ids=lambda f: ",".join(f) or "default",
)
def test_prints_what_xdsls_target_prints(flags: dict[str, bool]) -> None:
    assert len(MODULES) > 30
    for module in MODULES:
        ours, xdsls = StringIO(), StringIO()
        DirectMLIRTarget(**flags).emit(CTX, module, ours)
        MLIRTarget(**flags).emit(CTX, module, xdsls)
        assert ours.getvalue() == xdsls.getvalue()


def test_a_type_object_is_printed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "func.func @f(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {\n"
    text += "".join(f"  %v{i} = arith.addf %x, %x : tensor<4x?xf32>\n" for i in range(20))
    text += "  func.return %x : tensor<4x?xf32>\n}\n"
    module = LocatingParser(make_context(), text, "t.mlir").parse_module()
    printed = []
    original = TensorType.print_builtin
    monkeypatch.setattr(
        TensorType, "print_builtin", lambda self, p: printed.append(self) or original(self, p)
    )
    out = StringIO()
    DirectPrinter(stream=out).print_op(module)
    assert len(printed) == 1
    assert out.getvalue().count("tensor<4x?xf32>") == 23  # (arg, result) + 20 + return


def test_writes_text_to_the_stream_not_through_print(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only line breaks and their indentation still go through `print`."""
    calls: list[tuple[object, ...]] = []
    monkeypatch.setattr("builtins.print", lambda *a, **k: calls.append(a))
    counts = []
    for printer in (Printer, DirectPrinter):
        calls.clear()
        for module in MODULES:
            printer(stream=StringIO()).print_op(module)
        counts.append(len(calls))
    assert counts[1] * 3 < counts[0]
    assert all(not a or not a[0].strip() for a in calls)
