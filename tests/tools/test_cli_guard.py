"""Every tool maps failures to one stderr line and an exit code, never a traceback."""

from __future__ import annotations

import pytest

from mindjit.support.errors import MindjitError, SourceLoc
from mindjit.tools.cli import guarded


def fail(exc: BaseException):
    def body():
        raise exc

    return body


def test_user_error_is_one_located_line(capsys):
    assert guarded("ms-x", fail(MindjitError("bad thing", SourceLoc("a.mlir", 3, 7)))) == 1
    assert capsys.readouterr().err == "a.mlir:3:7: error: bad thing\n"


def test_internal_error_exit_2_without_traceback(capsys, monkeypatch):
    monkeypatch.delenv("MINDJIT_DEBUG", raising=False)
    assert guarded("ms-x", fail(RuntimeError("oops"))) == 2
    err = capsys.readouterr().err
    assert err.startswith("ms-x: internal error: RuntimeError: oops")
    assert "Traceback" not in err


def test_debug_reraises(monkeypatch):
    monkeypatch.setenv("MINDJIT_DEBUG", "1")
    with pytest.raises(RuntimeError):
        guarded("ms-x", fail(RuntimeError("oops")))


def test_success_is_zero():
    assert guarded("ms-x", lambda: None) == 0
    assert guarded("ms-x", lambda: 3) == 3


def test_warnings_are_one_tool_line(capsys):
    import warnings

    def body():
        warnings.warn("results may be wrong", stacklevel=1)
        return 0

    assert guarded("ms-x", body) == 0
    assert capsys.readouterr().err == "ms-x: warning: results may be wrong\n"


# -- a closed pipe on standard output ----------------------------------------------------


def _mlp_model(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    model = tmp_path / "mlp.msmodel"
    bin_dir = Path(sys.executable).parent
    subprocess.run(
        [
            bin_dir / "ms-translate",
            root / "examples" / "mlp.mlir",
            "--target=ascend-sim",
            "-o",
            model,
        ],
        check=True,
    )
    return root, bin_dir, model


def test_every_tool_ends_quietly_when_its_reader_stops(tmp_path):
    """`tool ... | head -1` (issue 27): exit 0, nothing on stderr, for each tool."""
    import subprocess

    root, bin_dir, model = _mlp_model(tmp_path)
    big = tmp_path / "big.mlir"
    lines = "".join(f"  %v{i} = arith.addf %x, %x : tensor<f32>\n" for i in range(20000))
    big.write_text(
        f"func.func @f(%x: tensor<f32>) -> tensor<f32> {{\n{lines}  func.return %x : tensor<f32>\n}}\n"
    )
    mlp_inputs = [
        "--input=tensor<4x8xf32>=0.5",
        "--input=tensor<8x16xf32>=0.1",
        "--input=tensor<16xf32>=0",
        "--input=tensor<16x3xf32>=0.2",
        "--input=tensor<3xf32>=0",
    ]
    runs = {
        "ms-opt": [big],
        "ms-run": [big, "--entry", "f", "--input=tensor<f32>=1", "--benchmark", "3"],
        "ms-translate": [root / "examples" / "mlp.mlir", "--target=iree-input", "-o", "-"],
        "ms-sim": [model, *mlp_inputs],
    }
    for tool, args in runs.items():
        proc = subprocess.Popen(
            [bin_dir / tool, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.read(1)
        proc.stdout.close()  # the reader is gone before the tool has written it all
        err = proc.stderr.read().decode()
        assert proc.wait() == 0, (tool, err)
        assert err == "", (tool, err)


def test_a_full_standard_output_is_one_line_and_exit_1(tmp_path):
    """`tool ... > /dev/full` (issue 29): one line naming standard output, exit 1."""
    import os
    import subprocess

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    root, bin_dir, model = _mlp_model(tmp_path)
    mlp = root / "examples" / "mlp.mlir"
    runs = {
        "ms-opt": [mlp],
        "ms-run": [
            mlp,
            "--entry",
            "Net_construct",
            *[
                f"--input={t}"
                for t in (
                    "tensor<4x8xf32>=0.5",
                    "tensor<8x16xf32>=0.1",
                    "tensor<16xf32>=0",
                    "tensor<16x3xf32>=0.2",
                    "tensor<3xf32>=0",
                )
            ],
        ],
        "ms-translate": [mlp, "--target=iree-input", "-o", "-"],
    }
    for tool, args in runs.items():
        with open("/dev/full", "w") as full:
            proc = subprocess.run(
                [bin_dir / tool, *map(str, args)], stdout=full, stderr=subprocess.PIPE, text=True
            )
        assert proc.returncode == 1, (tool, proc.stderr)
        assert (
            proc.stderr == f"{tool}: error: cannot write standard output: No space left on device\n"
        )
