"""ms-sim with several model files: the stages of a pipeline that graph mode saved,
one simulated device each, run at once; the report, the timeline, the errors."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import mindjit as ms
from mindjit.backend.ascend.model_file import read_model
from mindjit.backend.ascend.pipeline_executable import DevicePipeline
from mindjit.backend.ascend.simulator import Simulator
from mindjit.frontend import context as C
from mindjit.support.errors import MindjitError
from mindjit.tools import ms_sim

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "frontend"))
import test_pipeline_api as api  # noqa: E402

NAME = "TrainOneStepCell_construct"


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, float]:
    """One pipelined train step on 2 devices, Y = 4, its stages' model files saved."""
    path = tmp_path_factory.mktemp("pipeline")
    mp = pytest.MonkeyPatch()
    mp.setenv("MS_DEV_SAVE_GRAPHS", "1")
    mp.setenv("MS_DEV_SAVE_GRAPHS_PATH", str(path))
    try:
        C.reset_context()
        ms.set_context(device_target="Ascend")
        losses, _ = api.pipelined(2, 4, ms.GRAPH_MODE, lr=0.01, steps=1)
        x, y = api.data()
        np.save(path / "x.npy", x.asnumpy())
        np.save(path / "y.npy", y.asnumpy())
    finally:
        C.reset_context()
        mp.undo()
    return path, losses[0]


def stages(path: Path) -> list[str]:
    return [str(path / f"{NAME}_stage{k}.msmodel") for k in range(2)]


def test_runs_the_saved_stages_as_the_program_did(saved, capsys) -> None:
    path, loss = saved
    report, svg = path / "r.json", path / "t.svg"
    code = ms_sim.main(
        [
            *stages(path),
            "--micro-batches",
            "4",
            "--input-npy",
            str(path / "x.npy"),
            "--input-npy",
            str(path / "y.npy"),
            "--report-json",
            str(report),
            "--timeline",
            str(svg),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "device 1:" in out
    printed = float(re.search(r"array\(([-0-9.e+]+)", out).group(1))
    assert printed == pytest.approx(loss, rel=1e-6)
    assert "pipeline: 2 devices, 4 micro-batches, 1f1b schedule" in out
    data = json.loads(report.read_text())
    assert data["theoretical_bubble"] == pytest.approx(1 / 5)
    assert data["step_time_us"] < data["serial_time_us"]
    assert svg.read_text().count('class="slot"') == 2 * 2 * 4


def test_gpipe_holds_every_micro_batch(saved, capsys) -> None:
    path, _ = saved
    report = path / "g.json"
    inputs = ["--input-npy", str(path / "x.npy"), "--input-npy", str(path / "y.npy")]
    args = [*stages(path), "--micro-batches", "4", "--schedule", "gpipe", *inputs]
    assert ms_sim.main([*args, "--report-json", str(report)]) == 0
    capsys.readouterr()
    held = [d["micro_batches_held"] for d in json.loads(report.read_text())["devices"]]
    assert held == [4, 4]


@pytest.mark.parametrize(
    ("extra", "pattern"),
    [
        (["--micro-batches", "0"], "micro-batches must be at least 1, got 0"),
        (["--entry", "f"], "--entry and --output-npy take one model file"),
    ],
)
def test_bad_pipeline_options_are_one_line(saved, capsys, extra, pattern) -> None:
    path, _ = saved
    code = ms_sim.main([*stages(path), *extra])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and re.search(pattern, lines[0]), err


def test_a_pipeline_that_has_not_run_has_no_timeline(saved, tmp_path) -> None:
    path, _ = saved
    sims = [Simulator(read_model(f)) for f in stages(path)]
    pipeline = DevicePipeline(sims, [f"{NAME}_stage0", f"{NAME}_stage1"], 4)
    with pytest.raises(MindjitError, match="has not run yet"):
        pipeline.write_timeline(str(tmp_path / "t.svg"))
