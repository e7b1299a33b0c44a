"""ms-run as a user runs it: inputs in order, outputs, benchmark, one-line errors."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

PROG = """\
func.func @add(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}
func.func @pair(%a: tensor<2xi32>, %s: f32) -> (tensor<2xi32>, f32) {
  %c = arith.constant 1 : i32
  %e = tensor.empty() : tensor<2xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<2xi32>) outs(%e : tensor<2xi32>) {
  ^bb0(%x: i32, %o: i32):
    %y = arith.addi %x, %c : i32
    linalg.yield %y : i32
  } -> tensor<2xi32>
  func.return %r, %s : tensor<2xi32>, f32
}
"""

A = "tensor<2x3xf32>=[[1,2,3],[4,5,6]]"


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    path = tmp_path / "prog.mlir"
    path.write_text(PROG)
    return path


def ms_run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mindjit.tools.ms_run", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def assert_one_error(result: subprocess.CompletedProcess[str], pattern: str) -> None:
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert re.search(pattern, lines[0]), lines[0]


def test_literal_and_npy_inputs_in_order(prog, tmp_path):
    np.save(tmp_path / "b.npy", np.array([10, 20, 30], np.float32))
    result = ms_run(
        str(prog), "--entry", "add", "--input", A, "--input-npy", str(tmp_path / "b.npy")
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == repr(np.array([[11, 22, 33], [14, 25, 36]], np.float32))


def test_npy_first_then_literal_splat(prog, tmp_path):
    np.save(tmp_path / "a.npy", np.ones((2, 3), np.float32))
    result = ms_run(
        str(prog),
        "--entry",
        "add",
        "--input-npy",
        str(tmp_path / "a.npy"),
        "--input",
        "tensor<3xf32>=2",
    )
    assert result.returncode == 0, result.stderr
    assert "array([[3., 3., 3.]," in result.stdout


def test_scalar_input_and_several_results(prog):
    result = ms_run(
        str(prog),
        "--entry",
        "pair",
        "--input",
        "tensor<2xi32>=[-1, 2147483647]",
        "--input",
        "f32=2.5",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "array([          0, -2147483648], dtype=int32)",
        "array(2.5, dtype=float32)",
    ]


def test_output_npy_writes_each_result(prog, tmp_path):
    out0, out1 = tmp_path / "o0.npy", tmp_path / "o1.npy"
    result = ms_run(
        str(prog),
        "--entry",
        "pair",
        "--input",
        "tensor<2xi32>=[1,2]",
        "--input",
        "f32=1",
        "--output-npy",
        str(out0),
        "--output-npy",
        str(out1),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    np.testing.assert_array_equal(np.load(out0), np.array([2, 3], np.int32))
    assert np.load(out1) == np.float32(1) and np.load(out1).dtype == np.float32
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "o0.npy",
        "o1.npy",
        "prog.mlir",
    ]  # no temp files left


def test_benchmark_prints_median_last(prog):
    result = ms_run(
        str(prog),
        "--entry",
        "add",
        "--input",
        A,
        "--input",
        "tensor<3xf32>=[1,2,3]",
        "--benchmark",
        "20",
    )
    assert result.returncode == 0, result.stderr
    last = result.stdout.strip().splitlines()[-1]
    match = re.fullmatch(r"median (\S+) s/call over 20 runs", last)
    assert match and float(match.group(1)) > 0


def test_mindir_input_is_lowered_first(tmp_path):
    pytest.importorskip("mindjit.passes.pipelines")
    path = tmp_path / "m.mlir"
    path.write_text("""\
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = mindir.add %a, %a : tensor<2xf32>
  %1 = mindir.mul %0, %a : tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
""")
    result = ms_run(str(path), "--entry", "f", "--input", "tensor<2xf32>=[1,3]")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == repr(np.array([2, 18], np.float32))


def test_parameter_assign_and_print(tmp_path):
    pytest.importorskip("mindjit.passes.pipelines")
    path = tmp_path / "state.mlir"
    path.write_text("""\
mindir.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32>
func.func @step(%x: tensor<2xf32>, %u0: !mindir.u, %io0: !mindir.io) -> (tensor<2xf32>, !mindir.u, !mindir.io) {
  %p = mindir.get_parameter @w : !mindir.ref<tensor<2xf32>>
  %load = mindir.load %p, %u0 : tensor<2xf32>
  %old = mindir.tensor_move %load : tensor<2xf32>
  %new = mindir.add %old, %x : tensor<2xf32>
  %a = mindir.assign %p, %new, %u0 : tensor<2xf32>
  %io1 = mindir.print %old, %a, %io0 {format = ["old:", 0, "new:", 1]} : tensor<2xf32>, tensor<2xf32>
  func.return %a, %u0, %io1 : tensor<2xf32>, !mindir.u, !mindir.io
}
""")
    result = ms_run(str(path), "--entry", "step", "--input", "tensor<2xf32>=[0.5,-4]")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "old:",
        "Tensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00  2.00000000e+00])",
        "new:",
        "Tensor(shape=[2], dtype=Float32, value=[ 1.50000000e+00 -2.00000000e+00])",
        repr(np.array([1.5, -2.0], np.float32)),
    ]


def test_missing_entry(prog):
    assert_one_error(
        ms_run(str(prog), "--entry", "foo"),
        r"prog.mlir: error: no function @foo in .*prog.mlir; available: @add, @pair$",
    )


def test_wrong_input_count(prog):
    assert_one_error(
        ms_run(str(prog), "--entry", "add", "--input", A),
        r"prog.mlir:1:1: error: entry @add expects 2 inputs, got 1",
    )


def test_wrong_input_shape_and_dtype(prog, tmp_path):
    np.save(tmp_path / "b.npy", np.array([1, 2, 3], np.float64))
    assert_one_error(
        ms_run(str(prog), "--entry", "add", "--input", A, "--input-npy", str(tmp_path / "b.npy")),
        r"error: input 1 of @add: expected tensor<3xf32>, got array of shape \(3,\) float64",
    )
    assert_one_error(
        ms_run(str(prog), "--entry", "add", "--input", A, "--input", "tensor<2xf32>=[1,2]"),
        r"error: input 1 of @add: expected tensor<3xf32>, got array of shape \(2,\) float32",
    )


@pytest.mark.parametrize(
    "literal, pattern",
    [
        (
            "tensor<2x3xf32>=[1,2]",
            r"<input 0>: error: bad literal '\[1,2\]' for tensor<2x3xf32>: Shape mismatch",
        ),
        ("tensor<2x3xfoo>=1", r"<input 0>: error: bad type 'tensor<2x3xfoo>'"),
        ("tensor<2x3xf32>", r"<input 0>: error: expected TYPE=LITERAL"),
        ("tensor<2x3xf32>=1 2", r"<input 0>: error: bad literal '1 2'"),
    ],
)
def test_bad_literal(prog, literal, pattern):
    assert_one_error(ms_run(str(prog), "--entry", "add", "--input", literal), pattern)


def test_unreadable_npy(prog, tmp_path):
    assert_one_error(
        ms_run(str(prog), "--entry", "add", "--input-npy", str(tmp_path / "nope.npy")),
        r"nope.npy: error: cannot read npy file",
    )
    assert_one_error(
        ms_run(str(prog), "--entry", "add", "--input-npy", str(prog)),
        r"prog.mlir: error: cannot read npy file: not in .npy format",
    )


def test_bad_file_and_parse_error(tmp_path):
    assert_one_error(
        ms_run(str(tmp_path / "missing.mlir"), "--entry", "f"),
        r"missing.mlir: error: cannot read file",
    )
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {\n")
    assert_one_error(ms_run(str(bad), "--entry", "f"), r"bad.mlir:1:\d+: error: ")


def test_unsupported_op_is_located(tmp_path):
    path = tmp_path / "pad.mlir"
    path.write_text("""\
func.func @f(%a: tensor<4xf32>) -> tensor<6xf32> {
  %c = arith.constant 0.0 : f32
  %p = tensor.pad %a low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %c : f32
  } : tensor<4xf32> to tensor<6xf32>
  func.return %p : tensor<6xf32>
}
""")
    assert_one_error(
        ms_run(str(path), "--entry", "f", "--input", "tensor<4xf32>=1"),
        r"pad.mlir:3:3: error: 'tensor.pad' is not supported by the CPU executor",
    )


def test_output_npy_count_must_match(prog, tmp_path):
    assert_one_error(
        ms_run(
            str(prog),
            "--entry",
            "add",
            "--input",
            A,
            "--input",
            "tensor<3xf32>=1",
            "--output-npy",
            str(tmp_path / "a.npy"),
            "--output-npy",
            str(tmp_path / "b.npy"),
        ),
        r"error: @add has 1 result\(s\) but 2 --output-npy path\(s\) were given",
    )
    assert not (tmp_path / "a.npy").exists()


def test_unwritable_output(prog, tmp_path):
    assert_one_error(
        ms_run(
            str(prog),
            "--entry",
            "add",
            "--input",
            A,
            "--input",
            "tensor<3xf32>=1",
            "--output-npy",
            str(tmp_path / "no" / "dir.npy"),
        ),
        r"dir.npy: error: cannot write file",
    )


def test_usage_errors_exit_2(prog):
    assert ms_run(str(prog)).returncode == 2
    assert ms_run(str(prog), "--entry", "add", "--benchmark", "0").returncode == 2


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("f32=2.5", np.float32(2.5)),
        ("i1=true", np.bool_(True)),
        ("index=4", np.int64(4)),
        ("tensor<2xi1>=[true,false]", np.array([True, False])),
        ("tensor<2x2xf16>=1.5", np.full((2, 2), 1.5, np.float16)),
        ("tensor<2xf32>=[0x7F800000, -2]", np.array([np.inf, -2], np.float32)),
    ],
)
def test_literal_forms(spec, expected):
    from mindjit.tools.ms_run import parse_literal

    value = parse_literal(spec, 0)
    assert value.dtype == expected.dtype and np.shape(value) == np.shape(expected)
    np.testing.assert_array_equal(value, expected)
