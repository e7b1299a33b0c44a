"""Pipeline stages on the IREE backend (backend/iree/pipeline_executable.py):
training a small MLP (Dense + tanh blocks, tests/frontend/test_pipeline_api.py)
through `nn.PipelineCell` with X stages and Y micro-batches, each stage its own
IREE module, gives the single-process numpy run's losses and Parameters after 3
steps (issue 39), under 1F1B and GPipe. The GPT-like network:
test_iree_pipeline_gpt.py."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

import test_pipeline_api as P  # noqa: E402

import mindjit as ms  # noqa: E402
from mindjit.backend.iree.pipeline_executable import IreePipelineExecutable  # noqa: E402
from mindjit.frontend import context as C  # noqa: E402
from mindjit.frontend.graph import api  # noqa: E402

STEPS = 3


@pytest.fixture(autouse=True)
def _fresh_context():
    C.reset_context()
    yield
    C.reset_context()


def _on(backend: str) -> None:
    C.reset_context()
    ms.set_context(jit_config={"backend": backend})


def _assert_same(got, expected) -> None:
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-5)
    assert got[1].keys() == expected[1].keys()
    for name, value in expected[1].items():
        np.testing.assert_allclose(got[1][name], value, rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.fixture(scope="module")
def mlp_reference():
    C.reset_context()
    return P.reference(ms.GRAPH_MODE, lr=0.01, steps=STEPS)


# both schedules (mindir-pipeline-schedule): each orders a stage's sends and
# receives differently, and IREE must keep that order (backend/iree/channels.py)
@pytest.mark.parametrize(
    ("stages", "micro", "scheduler"),
    [(2, 1, "1f1b"), (2, 4, "gpipe"), (4, 1, "gpipe"), (4, 4, "1f1b")],
)
def test_mlp_trains_as_the_single_process_run(stages, micro, scheduler, mlp_reference, capfd):
    _on("iree")
    ms.set_auto_parallel_context(pipeline_config={"pipeline_scheduler": scheduler})
    api.clear_cache()
    got = P.pipelined(stages, micro, ms.GRAPH_MODE, lr=0.01, steps=STEPS)
    (program,) = api.cached_programs()
    exe = program.executable
    assert isinstance(exe, IreePipelineExecutable)  # on IREE, not the numpy fallback
    assert len(exe.stages) == stages
    assert "numpy executor" not in capfd.readouterr().err
    _assert_same(got, mlp_reference)
    assert got[0][0] != got[0][-1]  # the steps changed the Parameters


def test_the_compile_cache_keeps_every_stages_modules(tmp_path, mlp_reference, capfd):
    for _ in range(2):
        _on("iree")
        ms.set_context(enable_compile_cache=True, compile_cache_path=str(tmp_path))
        api.clear_cache()
        got = P.pipelined(2, 4, ms.GRAPH_MODE, lr=0.01, steps=STEPS)
        _assert_same(got, mlp_reference)
    (program,) = api.cached_programs()
    # the hit loads the stages' IREE modules, compiling nothing
    assert [s.name for s in program.report.stages] == ["cache-load", "iree-load"]
    assert isinstance(program.executable, IreePipelineExecutable)
    assert "Use the compilation cache" in capfd.readouterr().err
