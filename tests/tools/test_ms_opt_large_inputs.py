"""ms-opt on large inputs (issue 29 §4): it prints with the direct printer and holds
full garbage collections off while it works, and gives them back after."""

from __future__ import annotations

import gc

import pytest

from mindjit.ir.compat.direct_printer import DirectMLIRTarget
from mindjit.tools.ms_opt import MsOptMain


def test_prints_mlir_with_the_direct_printer(tmp_path) -> None:  # noqa: ANN001
    path = tmp_path / "in.mlir"
    path.write_text(
        "func.func @f(%x: tensor<f32>) -> tensor<f32> {\n  func.return %x : tensor<f32>\n}\n"
    )
    main = MsOptMain(args=[str(path)])
    assert main.available_targets["mlir"]() is DirectMLIRTarget


def test_no_full_collection_while_it_runs(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    path = tmp_path / "in.mlir"
    path.write_text(
        "func.func @f(%x: tensor<f32>) -> tensor<f32> {\n  func.return %x : tensor<f32>\n}\n"
    )
    main = MsOptMain(args=[str(path), "-o", str(tmp_path / "out.mlir")])
    seen = []
    original = MsOptMain.process_chunk

    def spy(self, name: str, text: str) -> str:  # noqa: ANN001
        seen.append(gc.get_threshold())
        return original(self, name, text)

    monkeypatch.setattr(MsOptMain, "process_chunk", spy)
    before = gc.get_threshold()
    assert main.run() == 0
    assert seen[0][:2] == before[:2] and seen[0][2] >= 1 << 30
    assert gc.get_threshold() == before
    assert "func.return" in (tmp_path / "out.mlir").read_text()


@pytest.mark.parametrize("depth", [300, 1200])
def test_nested_regions_parse_or_are_one_located_error(tmp_path, tool, depth) -> None:  # noqa: ANN001
    """300 nested `scf.if` parse (the tools raise the recursion limit); 1200 are more
    than the stack safely takes: one located line, exit 1, no 'malformed operation'."""
    path = tmp_path / "deep.mlir"
    path.write_text(
        "func.func @f(%c: i1) {\n"
        + "  scf.if %c {\n" * depth
        + "  }\n" * depth
        + "  func.return\n}\n"
    )
    done = tool("ms-opt", str(path))
    if depth == 300:
        assert done.returncode == 0, done.stderr
        assert done.stdout.count("scf.if") == depth
    else:
        assert done.returncode == 1
        (line,) = done.stderr.splitlines()
        assert line.startswith(f"{path}:") and "nested too deeply" in line, line
