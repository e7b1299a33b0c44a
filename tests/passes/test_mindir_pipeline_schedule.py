"""mindir-pipeline-schedule: pipelined training under 1F1B and GPipe equals the
unpipelined run (and the split's random programs scheduled equal them unsplit);
each stage graph, after lowering, runs its micro-batches' forwards and backwards
in `device_order`; and the measured activation memory of stage s under 1F1B is
at most (X - s)/Y of GPipe's (backend/cpu/memory_meter.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func

import mindjit as ms
from mindjit import nn
from mindjit.backend.cpu.memory_meter import MemoryMeter, Peak, stage_peaks, work_of
from mindjit.dialects.mindir.discardable import pipeline_stage_graphs
from mindjit.dialects.parsing import parse_module
from mindjit.frontend import context as C
from mindjit.frontend.graph import api
from mindjit.passes.analysis.pipeline_order import device_order

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "frontend"))
sys.path.insert(0, str(ROOT / "tests" / "passes"))
sys.path.insert(0, str(ROOT / "examples"))
import test_mindir_pipeline_split as S  # noqa: E402
import test_pipeline_api as T  # noqa: E402
from gpt import GPT, GPTConfig  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_context():
    C.reset_context()
    api.clear_cache()
    yield
    C.reset_context()


def scheduled(stages: int, micro: int, schedule: str, lazy: bool = False, steps: int = 3):
    ms.set_auto_parallel_context(pipeline_config={"pipeline_scheduler": schedule})
    return T.pipelined(stages, micro, ms.GRAPH_MODE, lazy=lazy, lr=0.01, steps=steps)


def works(fn: func.FuncOp) -> list[str]:
    """The stage graph's works in the order it runs them (consecutive ops of one
    work, and the ops of none, collapsed)."""
    out: list[str] = []
    for op in fn.body.block.ops:
        w = work_of(op)
        if w is not None and (not out or out[-1] != w):
            out.append(w)
    return out


@pytest.mark.parametrize("schedule", ["1f1b", "gpipe"])
@pytest.mark.parametrize("micro", [1, 4, 8])
@pytest.mark.parametrize("stages", [2, 4])
def test_training_equals_unpipelined_and_runs_in_device_order(stages, micro, schedule):
    expected = T.reference(ms.GRAPH_MODE, lr=0.01, steps=3)
    api.clear_cache()
    got = scheduled(stages, micro, schedule)
    T.assert_same(got, expected)
    (program,) = api.cached_programs()
    for s, fn in enumerate(pipeline_stage_graphs(program.module, program.entry_name)):
        want = [f"{k}{m}" for k, m in device_order(s, stages, micro, schedule)]
        assert works(fn) == want, f"stage {s}"


@pytest.mark.parametrize("stages,micro", [(2, 4), (4, 8)])
def test_lazy_inline_blocks_schedule_and_train_the_same(monkeypatch, stages, micro):
    """Each call of the shared Block graph is one unit of work."""
    monkeypatch.setenv("MS_DEV_CELL_REUSE", "1")
    expected = T.reference(ms.GRAPH_MODE, lazy=True, lr=0.01, steps=3)
    one = scheduled(stages, micro, "1f1b", lazy=True)
    api.clear_cache()
    other = scheduled(stages, micro, "gpipe", lazy=True)
    T.assert_same(one, expected)
    T.assert_same(other, expected)
    T.assert_same(one, other)


def gpt_peaks(stages: int, micro: int, schedule: str, lazy: bool) -> tuple[list[Peak], list]:
    """Each stage's measured peaks for the second train step of the GPT-like model
    (two Blocks a stage, hidden 16, sequence 8, one sequence a micro-batch), and the
    two steps' losses and the Parameters after them."""
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(
        parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL,
        pipeline_stages=stages,
        pipeline_config={"pipeline_scheduler": schedule},
    )
    layers = 2 * stages
    ms.set_seed(1)  # the same initial weights under both schedules
    net = GPT(GPTConfig(layers, hidden=16, seq=8, batch=micro), lazy=lazy)
    for i, block in enumerate(net.blocks):
        block.pipeline_stage = i * stages // layers
    loss = nn.PipelineCell(nn.WithLossCell(net, nn.MSELoss()), micro_size=micro)
    step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), learning_rate=0.01))
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((micro, 8, 16)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((micro, 8, 16)).astype(np.float32))
    losses = [float(step(x, y).asnumpy())]
    (program,) = api.cached_programs()
    exe = program.executable
    meter = MemoryMeter()
    exe.memory_meter = meter
    losses.append(float(step(x, y).asnumpy()))
    exe.memory_meter = None
    names = [f.sym_name.data for f in pipeline_stage_graphs(program.module, program.entry_name)]
    trained = (losses, {n: p.asnumpy().copy() for n, p in net.parameters_and_names()})
    return [meter.peak(n) for n in names], trained


@pytest.mark.parametrize(
    "stages,micro,lazy", [(2, 4, True), (4, 4, True), (4, 8, True), (2, 4, False)]
)
def test_1f1b_holds_at_most_x_minus_s_micro_batches_activations(monkeypatch, stages, micro, lazy):
    """Measured: the activations stage s holds between two works (memory_meter.py's
    held_activation_bytes) under 1F1B are at most (X - s)/Y of GPipe's. The slack is
    the micro-batches' losses (an f32 each), which the loss sum, not a backward,
    holds a little longer under 1F1B."""
    monkeypatch.setenv("MS_DEV_CELL_REUSE", "1" if lazy else "0")
    one, trained = gpt_peaks(stages, micro, "1f1b", lazy)
    api.clear_cache()
    gpipe, trained_gpipe = gpt_peaks(stages, micro, "gpipe", lazy)
    T.assert_same(trained, trained_gpipe)  # the GPT-like model trains the same too
    for s, (a, b) in enumerate(zip(one, gpipe)):
        assert a.calls == b.calls == 1
        assert 0 < a.held_activation_bytes <= a.activation_bytes <= a.intermediate_bytes
        bound = (stages - s) / micro * b.held_activation_bytes + 4 * micro
        assert a.held_activation_bytes <= bound, (s, a, b)
        if stages - s < micro:  # GPipe holds all Y: strictly more than 1F1B's X - s
            assert b.held_activation_bytes > a.held_activation_bytes
        assert a.intermediate_bytes <= b.intermediate_bytes


def test_stage_peaks_runs_a_split_graph_once_with_a_meter():
    T.pipelined(2, 4, ms.GRAPH_MODE, lr=0.01, steps=1)
    (program,) = api.cached_programs()
    exe = program.executable
    x, y = T.data()
    args = [np.asarray(x.asnumpy()), np.asarray(y.asnumpy())]
    peaks = stage_peaks(exe, program.entry_name, args)
    assert len(peaks) == 2 and all(p.calls == 1 and p.held_activation_bytes > 0 for p in peaks)
    assert exe.memory_meter is None
    with pytest.raises(ValueError, match="is not split into pipeline stages"):
        stage_peaks(exe, "nope", args)


@pytest.mark.parametrize("seed", range(0, 40, 3))
def test_random_split_programs_scheduled_equal_unsplit(seed: int) -> None:
    """The split's random programs (loads, assigns, prints on random stages; one
    micro-batch): scheduled after the split, outputs, Parameters and prints are the
    unsplit program's."""
    stages = 2 + seed % 3
    text, params = S.random_program(seed, stages)
    rng = np.random.default_rng(seed)
    args = [rng.standard_normal(4).astype(np.float32) for _ in range(2)]
    base = S.run(parse_module(text), "mindir-auto-monad")
    for schedule in ("1f1b", "gpipe"):
        spec = f"mindir-pipeline-split{{stages={stages}}},mindir-pipeline-schedule{{schedule={schedule}}}"
        got = S.run(base.clone(), spec)
        want = S.execute(S.run(base.clone(), S.after(1)), "f", args, params)
        S.assert_same(S.execute(S.run(got, S.after(1)), "f", args, params), want)
