"""ms-opt as a user runs it: pipelines in both syntaxes, flags, and one-line errors."""

from __future__ import annotations

import re

import pytest

GOOD = """\
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = mindir.add %a, %a : tensor<2xf32>
  %1 = mindir.add %a, %a : tensor<2xf32>
  %2 = mindir.mul %0, %1 : tensor<2xf32>
  func.return %2 : tensor<2xf32>
}
"""


def assert_one_error(result, pattern: str) -> None:
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert re.search(pattern, lines[0]), lines[0]


def test_reads_stdin_and_prints(tool):
    result = tool("ms-opt", stdin=GOOD)
    assert result.returncode == 0, result.stderr
    assert "mindir.mul %0, %1 : tensor<2xf32>" in result.stdout


def test_reads_file(tool, tmp_path):
    path = tmp_path / "in.mlir"
    path.write_text(GOOD)
    result = tool("ms-opt", str(path), "-p", "cse")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("mindir.add") == 1


@pytest.mark.parametrize(
    "args",
    [
        ["-p", "cse"],
        ["--pass-pipeline=builtin.module(cse)"],
        ["--pass-pipeline", "builtin.module(func.func(cse))"],
        ["--pass-pipeline", "builtin.module( cse , canonicalize )"],
    ],
)
def test_both_pipeline_syntaxes_run_the_pass(tool, args):
    result = tool("ms-opt", *args, stdin=GOOD)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("mindir.add") == 1


def test_print_ir_after_all(tool):
    result = tool("ms-opt", "-p", "cse,canonicalize", "--print-ir-after-all", stdin=GOOD)
    assert result.returncode == 0
    assert "// -----// IR Dump After cse //----- //" in result.stderr
    assert "// -----// IR Dump After canonicalize //----- //" in result.stderr


def test_timing_table(tool):
    result = tool(
        "ms-opt", "--pass-pipeline=builtin.module(cse,canonicalize)", "--timing", stdin=GOOD
    )
    assert result.returncode == 0
    assert "Execution time report" in result.stderr
    names = re.findall(r"\(\s*[\d.]+%\)\s+(\S+)", result.stderr)
    assert names[:5] == ["parse", "verify", "cse", "canonicalize", "output"]
    assert names[-1] == "Total"


def test_output_file_is_written(tool, tmp_path):
    out = tmp_path / "out.mlir"
    result = tool("ms-opt", "-o", str(out), stdin=GOOD)
    assert result.returncode == 0
    assert "mindir.mul" in out.read_text()


def test_parse_error_is_located(tool, tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text(
        "func.func @f(%a: tensor<2xf32>) {\n  %0 = mindir.add %a, %a tensor<2xf32>\n}\n"
    )
    assert_one_error(tool("ms-opt", str(path)), rf"^{re.escape(str(path))}:2:\d+: error: ")


def test_verify_error_is_located(tool, tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text(
        "func.func @f(%a: tensor<2xf32>, %b: tensor<3xf32>) {\n"
        "  %0 = mindir.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>\n"
        "  func.return\n}\n"
    )
    assert_one_error(
        tool("ms-opt", str(path)),
        rf"^{re.escape(str(path))}:2:3: error: 'mindir.add' op shapes are not broadcastable: 2, 3$",
    )


def test_type_mismatch_is_located(tool):
    text = (
        "func.func @f(%a: tensor<2xf32>) -> tensor<3xf32> {\n  func.return %a : tensor<2xf32>\n}\n"
    )
    assert_one_error(tool("ms-opt", stdin=text), r"^<stdin>:2:3: error: 'func.return' op ")


def test_unknown_op(tool):
    text = "func.func @f(%a: tensor<2xf32>) {\n  %0 = mindir.nope %a : tensor<2xf32>\n  func.return\n}\n"
    assert_one_error(tool("ms-opt", stdin=text), r"^<stdin>:2:\d+: error: .*mindir\.nope")


def test_undefined_value_points_at_use(tool):
    text = "func.func @f(%a: tensor<2xf32>) {\n  %0 = mindir.add %a, %zz : tensor<2xf32>\n  func.return\n}\n"
    assert_one_error(
        tool("ms-opt", stdin=text), r"^<stdin>:2:23: error: use of undefined value %zz"
    )


@pytest.mark.parametrize(
    ("spec", "pattern"),
    [
        ("cse,nopass", r"^<pass-pipeline>:1:5: error: unknown pass 'nopass'"),
        ("builtin.module(cse, nopass)", r"^<pass-pipeline>:1:21: error: unknown pass 'nopass'"),
        ("cse{foo=1}", r"^<pass-pipeline>:1:1: error: bad options for pass 'cse'"),
        (
            "cse,memref-streamify{streams=abc}",
            r"^<pass-pipeline>:1:5: error: bad options for pass 'memref-streamify': "
            r"Incompatible types: given \('abc',\), expected <class 'int'>",
        ),
        ("cse,,", r"^<pass-pipeline>:1:\d+: error: invalid pass pipeline"),
        ("builtin.module(cse", r"^<pass-pipeline>:1:\d+: error: unbalanced '\('"),
    ],
)
def test_bad_pipelines(tool, spec, pattern):
    assert_one_error(tool("ms-opt", "--pass-pipeline", spec, stdin=GOOD), pattern)


def test_missing_file(tool):
    assert_one_error(
        tool("ms-opt", "no/such/file.mlir"), r"^no/such/file\.mlir: error: cannot read file"
    )


def test_verify_diagnostics_reports_missing_and_unexpected(tool, tmp_path):
    path = tmp_path / "diag.mlir"
    path.write_text(
        "func.func @f(%a: tensor<2xf32>, %b: tensor<3xf32>) {\n"
        "  // expected-error @+1 {{some other message}}\n"
        "  %0 = mindir.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>\n"
        "  func.return\n}\n"
    )
    result = tool("ms-opt", str(path), "--verify-diagnostics")
    assert result.returncode == 1
    assert "unexpected error: 'mindir.add' op shapes are not broadcastable" in result.stderr
    assert 'expected error "some other message" on line 3 was not produced' in result.stderr


def test_verify_diagnostics_passes_when_matched(tool, tmp_path):
    path = tmp_path / "diag.mlir"
    path.write_text(
        "func.func @f(%a: tensor<2xf32>, %b: tensor<3xf32>) {\n"
        "  // expected-error @+1 {{not broadcastable}}\n"
        "  %0 = mindir.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>\n"
        "  func.return\n}\n"
    )
    result = tool("ms-opt", str(path), "--verify-diagnostics")
    assert result.returncode == 0, result.stderr


def test_split_input_file_keeps_line_numbers(tool, tmp_path):
    path = tmp_path / "split.mlir"
    path.write_text(
        GOOD + "// -----\n" + "func.func @g(%a: tensor<2xf32>, %b: tensor<3xf32>) {\n"
        "  %0 = mindir.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>\n  func.return\n}\n"
    )
    result = tool("ms-opt", str(path), "--split-input-file")
    assert_one_error(result, rf"^{re.escape(str(path))}:9:3: error: 'mindir.add' op")


def test_knows_upstream_and_mindjit_passes(tool):
    result = tool("ms-opt", "--help")
    assert result.returncode == 0
    listed = "".join(result.stdout.split())  # argparse wraps the long list
    for name in (
        "convert-mindir-to-tensor",
        "canonicalize",
        "cse",
        "dce",
        "convert-linalg-to-memref-stream",
    ):
        assert name in listed
