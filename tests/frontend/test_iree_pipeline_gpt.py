"""Pipeline stages on the IREE backend (backend/iree/pipeline_executable.py): the
GPT-like network of examples/gpt.py (4 Blocks, as benchmarks/pipeline.py builds
it) trained through `nn.PipelineCell` with X stages and Y micro-batches, each
stage its own IREE module, gives the numpy executor's losses and Parameters
after 3 steps (issue 39), under 1F1B and GPipe; lazy inline's shared Block is an IREE module of its
own that the stages import."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("iree.runtime")
pytest.importorskip("iree.compiler")

import mindjit as ms  # noqa: E402
from mindjit.backend.iree.pipeline_executable import IreePipelineExecutable  # noqa: E402
from mindjit.frontend import context as C  # noqa: E402
from mindjit.frontend.graph import api  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
STEPS = 3


@pytest.fixture(autouse=True)
def _fresh_context():
    C.reset_context()
    yield
    C.reset_context()


def _gpt(backend: str, stages: int, micro: int, lazy: bool, scheduler: str):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    sys.path.insert(0, str(ROOT / "examples"))
    from pipeline import build  # benchmarks/pipeline.py

    C.reset_context()
    ms.set_context(jit_config={"backend": backend})
    ms.set_seed(0)
    ms.set_auto_parallel_context(pipeline_config={"pipeline_scheduler": scheduler})
    step, x, y = build(4, 16, 4, stages, micro, lazy)
    losses = [float(step(x, y).asnumpy()) for _ in range(STEPS)]
    return losses, {n: p.asnumpy().copy() for n, p in step.parameters_and_names()}


@pytest.mark.parametrize(
    ("stages", "micro", "lazy", "scheduler"),
    [(2, 1, False, "1f1b"), (2, 4, True, "gpipe"), (4, 4, True, "1f1b")],
)
def test_gpt_trains_as_on_the_numpy_executor(stages, micro, lazy, scheduler):
    expected = _gpt("numpy", stages, micro, lazy, scheduler)
    got = _gpt("iree", stages, micro, lazy, scheduler)
    exe = api.cached_programs()[-1].executable
    assert isinstance(exe, IreePipelineExecutable) and len(exe.stages) == stages
    # lazy inline: the stages call the shared Block, an IREE module of its own
    assert any(s.prepared.parts for s in exe.stages.values()) == lazy
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-5)
    assert got[1].keys() == expected[1].keys()
    for name, value in expected[1].items():
        np.testing.assert_allclose(got[1][name], value, rtol=1e-5, atol=1e-5, err_msg=name)
    assert expected[0][0] != expected[0][-1]
