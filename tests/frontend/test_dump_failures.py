"""A graph dump that cannot be written (issue 29 §5) is debug output: one warning
naming the path, once per directory, and the user's call runs on."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor
from mindjit.frontend.graph import api


@pytest.fixture(autouse=True)
def _graph_mode_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, save_graphs=False, device_target="CPU")


def warnings_in(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("Warning: cannot save graphs")]


def test_save_graphs_path_naming_a_file_warns_once_and_runs(tmp_path, capsys):
    in_the_way = tmp_path / "graphs"
    in_the_way.write_text("not a directory")
    ms.set_context(save_graphs=True, save_graphs_path=str(in_the_way))
    api.clear_cache()
    x = Tensor(np.array([1.0, 2.0], np.float32))
    assert ms.jit(lambda v: v * 2)(x).asnumpy().tolist() == [2.0, 4.0]
    assert ms.jit(lambda v: v + 1)(x).asnumpy().tolist() == [2.0, 3.0]  # another compile
    (line,) = warnings_in(capsys.readouterr().err)
    assert str(in_the_way) in line and "a file is in the way" in line
    assert in_the_way.read_text() == "not a directory"


def test_the_device_model_dump_warns_and_runs(tmp_path, capsys):
    in_the_way = tmp_path / "device"
    in_the_way.write_text("x")
    ms.set_context(device_target="Ascend", save_graphs=True, save_graphs_path=str(in_the_way))
    api.clear_cache()
    x = Tensor(np.array([1.0, 2.0], np.float32))
    assert ms.jit(lambda v: v * 3)(x).asnumpy().tolist() == [3.0, 6.0]
    assert len(warnings_in(capsys.readouterr().err)) == 1


def test_the_pipeline_report_dump_warns_and_runs(tmp_path, capsys):
    from test_pipeline_api import pipelined

    name = "TrainOneStepCell_construct"
    (tmp_path / f"{name}.pipeline.json").mkdir()  # in the way of the report only
    ms.set_context(device_target="Ascend", save_graphs=True, save_graphs_path=str(tmp_path))
    ms.set_auto_parallel_context(pipeline_config={"pipeline_scheduler": "gpipe"})
    try:
        pipelined(2, 2, ms.GRAPH_MODE, lr=0.01, steps=1)
    finally:
        ms.reset_auto_parallel_context()
    (line,) = warnings_in(capsys.readouterr().err)
    assert f"{name}.pipeline.json: Is a directory" in line
    assert (tmp_path / f"{name}_stage0.msmodel").is_file()  # the rest is written
