"""ms-translate --target=ascend-sim and ms-sim as a user runs them: the model file,
outputs, report JSON, timeline SVG, device settings, and one-line errors (exit 1,
no traceback) for bad settings, missing or damaged model files and bad programs."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from mindjit.backend.cpu import CpuExecutable
from mindjit.tools import ms_opt, ms_sim, ms_translate
from mindjit.tools.ms_run import load_module

ROOT = Path(__file__).resolve().parents[2]
MLP = ROOT / "examples" / "mlp.mlir"
MLP_SHAPES = [(4, 8), (8, 16), (16,), (16, 3), (3,)]

# Two independent branches: the second stream gets work.
BRANCHES = """\
func.func @branches(%a: tensor<8x16xf32>, %b: tensor<16xf32>, %w: tensor<4x16xf32>)
    -> (tensor<8x4xf32>, tensor<8xf32>) {
  %x = mindir.add %a, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %z = mindir.sigmoid %x : tensor<8x16xf32>
  %mm = mindir.matmul %z, %w {transpose_b = true}
      : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  %r = mindir.reduce_mean %z {axis = array<i64: 1>} : (tensor<8x16xf32>) -> tensor<8xf32>
  %t = mindir.tanh %r : tensor<8xf32>
  func.return %mm, %t : tensor<8x4xf32>, tensor<8xf32>
}
"""

SMALL = """\
func.func @twice(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = mindir.add %x, %x : tensor<3xf32>
  func.return %y : tensor<3xf32>
}
"""

REPORT_KEYS = {"total_time_us", "peak_memory_bytes", "lower_bound_bytes", "kernels", "float_status"}
KERNEL_KEYS = {"name", "unit", "stream", "start_us", "duration_us"}
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(autouse=True)
def no_debug(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MINDJIT_DEBUG", raising=False)  # errors as users see them


def translate(src: Path, out: Path, *extra: str) -> int:
    return ms_translate.main([str(src), "--target=ascend-sim", "-o", str(out), *extra])


def sim(*args: str | Path) -> int:
    return ms_sim.main([str(a) for a in args])


def one_error(capsys: pytest.CaptureFixture[str], code: int, pattern: str) -> str:
    """Exit 1 and exactly one `...: error: ...` line matching `pattern` on stderr."""
    err = capsys.readouterr().err
    assert code == 1, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert ": error: " in lines[0]
    assert re.search(pattern, lines[0]), lines[0]
    return lines[0]


@pytest.fixture
def mlp_model(tmp_path: Path) -> Path:
    out = tmp_path / "mlp.msmodel"
    assert translate(MLP, out) == 0
    return out


@pytest.fixture
def mlp_inputs(tmp_path: Path) -> tuple[list[np.ndarray], list[str]]:
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in MLP_SHAPES]
    args = []
    for i, a in enumerate(arrays):
        path = tmp_path / f"in{i}.npy"
        np.save(path, a)
        args += ["--input-npy", str(path)]
    return arrays, args


@pytest.fixture
def branches(tmp_path: Path) -> tuple[Path, list[str]]:
    src = tmp_path / "branches.mlir"
    src.write_text(BRANCHES)
    rng = np.random.default_rng(1)
    args = []
    for i, shape in enumerate([(8, 16), (16,), (4, 16)]):
        path = tmp_path / f"b{i}.npy"
        np.save(path, rng.standard_normal(shape).astype(np.float32))
        args += ["--input-npy", str(path)]
    return src, args


def report_of(model: Path, inputs: list[str], tmp_path: Path, *extra: str) -> dict:
    path = tmp_path / "report.json"
    assert sim(model, *inputs, "--report-json", path, *extra) == 0
    return json.loads(path.read_text())


# -- success ---------------------------------------------------------------------------------


def test_translate_writes_only_the_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mlp.msmodel"
    ir = tmp_path / "mlp.ascend.mlir"
    assert translate(MLP, out, "--emit-ir", str(ir)) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mlp.ascend.mlir", "mlp.msmodel"]
    capsys.readouterr()
    assert out.read_bytes().startswith(b"MSMODEL\0")
    text = ir.read_text()
    assert text.startswith("builtin.module") and "ascend.kernel" in text
    # MLIR, not xDSL's repr ("ModuleOp(..."): ms-opt reads it back unchanged (issue 27)
    assert ms_opt.main([str(ir), "-o", str(tmp_path / "again.mlir")]) == 0
    assert (tmp_path / "again.mlir").read_text().rstrip() == text.rstrip()


def test_sim_prints_outputs_and_report(
    mlp_model: Path,
    mlp_inputs: tuple[list[np.ndarray], list[str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    arrays, args = mlp_inputs
    assert sim(mlp_model, *args) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    out = captured.out
    assert out.count("array(") == 2  # logits and score
    for text in ("simulated time:", "stream 0: busy", "kernels:", "MatMul", "device memory: peak"):
        assert text in out
    assert "float status: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]" in out
    assert out.index("array(") < out.index("simulated time:")  # outputs first


def test_sim_output_npy_equals_the_cpu(
    tmp_path: Path,
    mlp_model: Path,
    mlp_inputs: tuple[list[np.ndarray], list[str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    arrays, args = mlp_inputs
    outs = [tmp_path / "logits.npy", tmp_path / "score.npy"]
    assert sim(mlp_model, *args, "--output-npy", outs[0], "--output-npy", outs[1]) == 0
    assert "array(" not in capsys.readouterr().out
    expected = CpuExecutable(load_module(str(MLP))).run("Net_construct", *arrays)
    for path, want in zip(outs, expected):
        got = np.load(path)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_sim_report_json_and_timeline(
    tmp_path: Path,
    mlp_model: Path,
    mlp_inputs: tuple[list[np.ndarray], list[str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, args = mlp_inputs
    report_path, svg_path = tmp_path / "report.json", tmp_path / "run.svg"
    code = sim(mlp_model, *args, "--report-json", report_path, "--timeline", svg_path)
    assert code == 0
    assert f"timeline: {svg_path}" in capsys.readouterr().out
    report = json.loads(report_path.read_text())
    assert REPORT_KEYS <= report.keys()
    assert report["peak_memory_bytes"] >= report["lower_bound_bytes"] > 0
    assert report["float_status"] == [0.0] * 8
    assert len(report["kernels"]) == 12
    for k in report["kernels"]:
        assert KERNEL_KEYS <= k.keys()
    root = ET.parse(svg_path).getroot()
    assert root.tag == f"{SVG}svg"
    rects = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "kernel"]
    assert len(rects) == len(report["kernels"])
    assert not [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name]


def test_literal_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, model = tmp_path / "small.mlir", tmp_path / "small.msmodel"
    src.write_text(SMALL)
    assert translate(src, model) == 0
    assert sim(model, "--input", "tensor<3xf32>=[1, 2, 3.5]") == 0
    assert "array([2., 4., 7.], dtype=float32)" in capsys.readouterr().out


def test_single_stream_gives_one_stream(tmp_path: Path, branches: tuple[Path, list[str]]) -> None:
    src, args = branches
    two, one = tmp_path / "two.msmodel", tmp_path / "one.msmodel"
    assert translate(src, two) == 0
    assert translate(src, one, "--single-stream") == 0
    report = report_of(two, args, tmp_path)
    assert {k["stream"] for k in report["kernels"]} == {0, 1}
    # the branches join: a stream waits for an event of the other, said in the report
    assert report["event_waits"]
    assert all(w["from_stream"] != w["to_stream"] for w in report["event_waits"])
    report = report_of(one, args, tmp_path)
    assert {k["stream"] for k in report["kernels"]} == {0}
    assert [s["stream"] for s in report["streams"]] == [0]
    assert report["event_waits"] == []


def test_streams_and_align_options(tmp_path: Path, branches: tuple[Path, list[str]]) -> None:
    src, args = branches
    small, big = tmp_path / "a1.msmodel", tmp_path / "a512.msmodel"
    assert translate(src, small, "--align", "1", "--streams", "1") == 0
    assert translate(src, big, "--align", "512", "--streams", "1") == 0
    r_small, r_big = report_of(small, args, tmp_path), report_of(big, args, tmp_path)
    assert r_small["peak_memory_bytes"] < r_big["peak_memory_bytes"]
    assert {k["stream"] for k in r_small["kernels"]} == {0}


def test_device_setting_changes_the_time(
    tmp_path: Path, mlp_model: Path, mlp_inputs: tuple[list[np.ndarray], list[str]]
) -> None:
    _, args = mlp_inputs
    default = report_of(mlp_model, args, tmp_path)
    fast = report_of(mlp_model, args, tmp_path, "--device", "launch_us=0.5")
    assert fast["total_time_us"] < default["total_time_us"]
    config = tmp_path / "device.json"
    config.write_text(json.dumps({"launch_us": 0.5}))
    from_file = report_of(mlp_model, args, tmp_path, "--device-config", config)
    assert from_file["total_time_us"] == fast["total_time_us"]
    # --device wins over the file
    both = report_of(
        mlp_model, args, tmp_path, "--device-config", config, "--device", "launch_us=5"
    )
    assert both["total_time_us"] == default["total_time_us"]


def test_entry_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, model = tmp_path / "small.mlir", tmp_path / "small.msmodel"
    src.write_text(SMALL)
    assert translate(src, model) == 0
    assert sim(model, "--entry", "twice", "--input", "tensor<3xf32>=[1,1,1]") == 0
    capsys.readouterr()
    code = sim(model, "--entry", "thrice", "--input", "tensor<3xf32>=[1,1,1]")
    one_error(capsys, code, r"no entry graph 'thrice' \(entries: twice\)")


# -- errors ---------------------------------------------------------------------------------


def test_unknown_device_setting(
    mlp_model: Path,
    mlp_inputs: tuple[list[np.ndarray], list[str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, args = mlp_inputs
    code = sim(mlp_model, *args, "--device", "warp_speed=9")
    line = one_error(capsys, code, r"error: unknown device setting 'warp_speed' \(known: ")
    assert "launch_us" in line


@pytest.mark.parametrize(
    ("setting", "pattern"),
    [
        ("launch_us", r"expected --device NAME=VALUE, got 'launch_us'"),
        ("launch_us=fast", r"device setting 'launch_us' must be a number, got 'fast'"),
        ("memory_bytes=-5", r"device setting 'memory_bytes' must be positive, got '-5'"),
    ],
)
def test_bad_device_values(
    mlp_model: Path, capsys: pytest.CaptureFixture[str], setting: str, pattern: str
) -> None:
    one_error(capsys, sim(mlp_model, "--device", setting), pattern)


def test_bad_device_config_file(
    tmp_path: Path, mlp_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "device.json"
    config.write_text("{launch_us: 1")
    one_error(capsys, sim(mlp_model, "--device-config", config), "device config is not valid JSON")
    one_error(
        capsys,
        sim(mlp_model, "--device-config", tmp_path / "none.json"),
        "cannot read device config",
    )


def test_device_too_small_for_the_model(
    mlp_model: Path,
    mlp_inputs: tuple[list[np.ndarray], list[str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, args = mlp_inputs
    code = sim(mlp_model, *args, "--device", "memory_bytes=1024")
    one_error(
        capsys, code, r"out of device memory: the model needs 3072 bytes, the device has 1024"
    )


def test_missing_model_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "absent.msmodel"
    line = one_error(capsys, sim(path), r"cannot read model file: No such file or directory")
    assert line.startswith(f"{path}: error: ")


@pytest.mark.parametrize(
    ("damage", "pattern"),
    [
        ("flip", r"invalid model file: checksum mismatch: the file is corrupted"),
        ("truncate", r"invalid model file: truncated or padded"),
        ("short", r"invalid model file: truncated: 10 bytes, shorter than the header"),
        ("magic", r"invalid model file: not a mindjit device model \(bad magic\)"),
        ("version", r"invalid model file: format version 7, this reader reads version 2"),
        ("empty", r"invalid model file: truncated: 0 bytes"),
    ],
)
def test_corrupted_model_file(
    mlp_model: Path,
    mlp_inputs: tuple[list[np.ndarray], list[str]],
    capsys: pytest.CaptureFixture[str],
    damage: str,
    pattern: str,
) -> None:
    _, args = mlp_inputs
    data = bytearray(mlp_model.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0x20
    elif damage == "truncate":
        del data[-7:]
    elif damage == "short":
        del data[10:]
    elif damage == "magic":
        data[0:2] = b"PK"
    elif damage == "version":
        data[8] = 7
    else:
        data = bytearray()
    mlp_model.write_bytes(bytes(data))
    line = one_error(capsys, sim(mlp_model, *args), pattern)
    assert line.startswith(f"{mlp_model}: error: invalid model file: ")


def test_bad_kernel_code_in_the_model_file(
    tmp_path: Path, mlp_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mindjit.backend.ascend.model_file import decode, encode

    model = decode(mlp_model.read_bytes())
    model.codes[0] = "not MLIR at all"
    mlp_model.write_bytes(encode(model))
    one_error(capsys, sim(mlp_model), r"kernel code does not parse")


def test_wrong_number_of_inputs(
    mlp_model: Path,
    mlp_inputs: tuple[list[np.ndarray], list[str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, args = mlp_inputs
    code = sim(mlp_model, *args[:2])
    one_error(capsys, code, r"mlp.msmodel: error: entry @Net_construct expects 5 inputs, got 1")
    one_error(capsys, sim(mlp_model), r"expects 5 inputs, got 0")


def test_wrong_input_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, model = tmp_path / "small.mlir", tmp_path / "small.msmodel"
    src.write_text(SMALL)
    assert translate(src, model) == 0
    code = sim(model, "--input", "tensor<2xf32>=[1,2]")
    one_error(
        capsys, code, r"small.msmodel: error: input 0 of @twice must have shape \(3,\), got \(2,\)"
    )


def test_wrong_number_of_output_paths(
    tmp_path: Path,
    mlp_model: Path,
    mlp_inputs: tuple[list[np.ndarray], list[str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, args = mlp_inputs
    code = sim(mlp_model, *args, "--output-npy", tmp_path / "only.npy")
    one_error(capsys, code, r"'Net_construct' has 2 result\(s\) but 1 --output-npy path\(s\)")
    assert not (tmp_path / "only.npy").exists()


def test_translate_bad_mlir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, out = tmp_path / "bad.mlir", tmp_path / "bad.msmodel"
    src.write_text(
        "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %y = mindir.add %x, %x : tensor<2xf32>\n"
        "  %z = mindir.add %y, %nope : tensor<2xf32>\n"
        "  func.return %z : tensor<2xf32>\n"
        "}\n"
    )
    line = one_error(capsys, translate(src, out), r"error: ")
    assert re.match(rf"^{re.escape(str(src))}:3:\d+: error: ", line), line
    assert not out.exists()


def test_translate_syntax_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, out = tmp_path / "syntax.mlir", tmp_path / "syntax.msmodel"
    src.write_text("func.func @f() {\n  func.return\n")  # no closing brace
    line = one_error(capsys, translate(src, out), r"error: ")
    assert re.match(rf"^{re.escape(str(src))}:\d+:\d+: error: ", line), line
    assert not out.exists()


def test_translate_missing_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = translate(tmp_path / "none.mlir", tmp_path / "none.msmodel")
    one_error(capsys, code, r"error: ")
    assert not (tmp_path / "none.msmodel").exists()


def test_translate_unwritable_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = translate(MLP, tmp_path / "no" / "such" / "dir" / "m.msmodel")
    one_error(capsys, code, r"cannot write file")


def test_translate_requires_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        ms_translate.main([str(MLP), "-o", str(tmp_path / "m.msmodel")])
    assert info.value.code == 2
    assert "--target" in capsys.readouterr().err
