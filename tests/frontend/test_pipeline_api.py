"""Pipeline parallelism, its API (issue 26): the auto-parallel context,
`Cell.pipeline_stage`, `nn.PipelineCell`'s micro-batches, and training with it
equal to training without it (one device: no stage split yet)."""

from __future__ import annotations

import json

import lazy_inline_programs as P
import numpy as np
import pytest

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops
from mindjit.dialects.mindir.discardable import pipeline_stage_graphs, stage_of_attr
from mindjit.frontend import context as C
from mindjit.frontend.graph import api
from mindjit.frontend.nn.pipeline import stage_plan
from mindjit.support import config
from mindjit.support.errors import MindjitError

BATCH, HIDDEN = 8, 6


@pytest.fixture(autouse=True)
def _fresh_context():
    C.reset_context()
    yield
    C.reset_context()


class Block(nn.Cell):
    def __init__(self, seed: int):
        super().__init__()
        rng = np.random.default_rng(seed)
        w = (rng.standard_normal((HIDDEN, HIDDEN)) * 0.4).astype(np.float32)
        self.dense = nn.Dense(HIDDEN, HIDDEN, weight_init=Tensor(w))
        self.scale = Parameter(Tensor(np.full((HIDDEN,), 0.9, np.float32)), name="scale")

    def construct(self, x):
        return ops.tanh(self.dense(x)) * self.scale + x


class Net(nn.Cell):
    """Four Blocks and a head; Block i on stage i * X // 4, the head on the last."""

    def __init__(self, lazy: bool = False):
        super().__init__()
        config = P.Config(HIDDEN)  # one cell_init_args for the four lazy Blocks
        self.blocks = nn.CellList([P.Block(config, 0) if lazy else Block(i) for i in range(4)])
        rng = np.random.default_rng(7)
        if lazy:  # distinct weights after construction, as lazy_inline_programs.GPT
            for block in self.blocks:
                block.dense.weight.set_data(
                    Tensor(rng.standard_normal((HIDDEN, HIDDEN)).astype(np.float32) * 0.4)
                )
        self.head = nn.Dense(
            HIDDEN, 2, weight_init=Tensor(rng.standard_normal((2, HIDDEN)).astype(np.float32) * 0.3)
        )

    def construct(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)

    def assign_stages(self, stages: int) -> Net:
        for i, block in enumerate(self.blocks):
            block.pipeline_stage = i * stages // 4
        self.head.pipeline_stage = stages - 1
        return self


def data():
    rng = np.random.default_rng(3)
    x = Tensor(rng.standard_normal((BATCH, HIDDEN)).astype(np.float32))
    y = Tensor(rng.standard_normal((BATCH, 2)).astype(np.float32))
    return x, y


def train(net, wrap, lr: float, reduction: str = "sum", steps: int = 2, opt=nn.SGD):
    """`steps` TrainOneStepCell steps of `opt` (SGD); the losses and the final Parameters."""
    loss_net = wrap(nn.WithLossCell(net, nn.MSELoss(reduction=reduction)))
    step = nn.TrainOneStepCell(loss_net, opt(net.trainable_params(), learning_rate=lr))
    step.set_train()
    x, y = data()
    losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
    return losses, {n: p.asnumpy().copy() for n, p in net.parameters_and_names()}


def pipelined(stages: int, micro: int, mode: int, lazy: bool = False, **kw):
    ms.set_context(mode=mode)
    ms.set_auto_parallel_context(
        parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, pipeline_stages=stages
    )
    net = Net(lazy).assign_stages(stages)
    return train(net, lambda n: nn.PipelineCell(n, micro_size=micro), **kw)


def reference(mode: int, lazy: bool = False, **kw):
    ms.set_context(mode=mode)
    ms.reset_auto_parallel_context()
    return train(Net(lazy), lambda n: n, **kw)


def assert_same(got, expected, scale: float = 1.0):
    np.testing.assert_allclose(
        np.array(got[0]), scale * np.array(expected[0]), rtol=1e-5, atol=1e-5
    )
    assert got[1].keys() == expected[1].keys()
    for name, value in expected[1].items():
        np.testing.assert_allclose(got[1][name], value, rtol=1e-5, atol=1e-5, err_msg=name)


# --- training equals training without pipelining ---------------------------------------


@pytest.mark.parametrize("opt", [nn.Momentum, nn.Adam], ids=["momentum", "adam"])
def test_in_place_optimizer_steps_run_on_their_parameters_stage(opt):
    """Momentum's and Adam's one-op steps (mindir.apply_momentum / apply_adam, writing
    the Parameter and its moments) land on the stage that owns the Parameter."""
    make = (lambda ps, learning_rate: opt(ps, learning_rate, 0.9)) if opt is nn.Momentum else opt
    expected = reference(ms.GRAPH_MODE, lr=0.01, opt=make, steps=3)
    api.clear_cache()
    got = pipelined(2, 4, ms.GRAPH_MODE, lr=0.01, opt=make, steps=3)
    assert_same(got, expected)


@pytest.mark.parametrize("micro", [1, 4, 8])
@pytest.mark.parametrize("stages", [2, 4])
def test_graph_mode_training_equals_unpipelined(stages, micro):
    expected = reference(ms.GRAPH_MODE, lr=0.01)
    api.clear_cache()
    got = pipelined(stages, micro, ms.GRAPH_MODE, lr=0.01)
    (program,) = api.cached_programs()  # the whole train step, compiled
    # ... as one graph per stage (mindir-pipeline-split), run at once
    split = pipeline_stage_graphs(program.module, program.entry_name)
    assert [stage_of_attr(fn) for fn in split] == list(range(stages))
    assert_same(got, expected)
    assert got[0][1] != got[0][0]  # the step changed the Parameters


def test_iree_backend_runs_the_stages_on_iree(capfd):
    """Each stage is an IREE module of its own, its sends and receives host
    imports (backend/iree/pipeline_executable.py; more in test_iree_pipeline_*.py):
    no fallback to the numpy executor, and the same training."""
    pytest.importorskip("iree.runtime")
    expected = reference(ms.GRAPH_MODE, lr=0.01)
    ms.set_context(jit_config={"backend": "iree"})
    api.clear_cache()
    got = pipelined(2, 4, ms.GRAPH_MODE, lr=0.01)
    assert_same(got, expected)
    (program,) = api.cached_programs()
    assert type(program.executable).__name__ == "IreePipelineExecutable"
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("micro", [1, 4, 8])
@pytest.mark.parametrize("stages", [2, 4])
def test_simulated_devices_train_the_same(stages, micro):
    """One simulated device per stage, each with its own model, run at once: the
    training equals the unpipelined one (on the device too)."""
    expected = reference(ms.GRAPH_MODE, lr=0.01)
    ms.set_context(device_target="Ascend")
    api.clear_cache()
    assert_same(pipelined(stages, micro, ms.GRAPH_MODE, lr=0.01), expected)
    (program,) = api.cached_programs()
    report = program.executable.report
    assert report["stages"] == stages and report["micro_batches"] == micro
    devices = report["devices"]
    assert [d["device"] for d in devices] == list(range(stages))
    busy = [d["busy_us"] for d in devices]
    # the step is no shorter than the busiest device; with micro-batches the stages
    # overlap (with one, the step is the stages in turn plus the link's transfers)
    assert max(busy) <= report["step_time_us"]
    if micro > 1:
        assert report["step_time_us"] < report["serial_time_us"]
    total = stages * report["step_time_us"]
    assert report["bubble_fraction"] == pytest.approx(1 - sum(busy) / total)
    assert report["theoretical_bubble"] == pytest.approx((stages - 1) / (micro + stages - 1))
    assert all(d["peak_memory_bytes"] > 0 and 0 < d["forward_share"] < 1 for d in devices)
    assert len(report["slots"]) == 2 * stages * micro
    with pytest.raises(MindjitError, match="no device of the pipeline holds Parameter @nope"):
        program.executable.get_global("nope")


def test_device_pipeline_saves_a_model_per_stage_its_report_and_timeline(tmp_path, monkeypatch):
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "1")
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS_PATH", str(tmp_path))
    ms.set_context(device_target="Ascend")
    ms.set_auto_parallel_context(pipeline_config={"pipeline_scheduler": "gpipe"})
    pipelined(2, 4, ms.GRAPH_MODE, lr=0.01, steps=1)
    name = "TrainOneStepCell_construct"
    assert (tmp_path / f"{name}_stage0.msmodel").is_file()
    assert (tmp_path / f"{name}_stage1.msmodel").is_file()
    report = json.loads((tmp_path / f"{name}.pipeline.json").read_text())
    assert report["schedule"] == "gpipe" and report["micro_batches"] == 4
    svg = (tmp_path / f"{name}.pipeline.svg").read_text()
    assert "device 0" in svg and "device 1" in svg and 'class="transfer"' in svg


def test_pynative_training_equals_unpipelined():
    assert_same(pipelined(2, 4, ms.PYNATIVE_MODE, lr=0.01), reference(ms.PYNATIVE_MODE, lr=0.01))


def test_mean_loss_is_summed_over_micro_batches():
    """MindSpore adds the micro-batches' losses: a mean loss comes out Y times the
    whole batch's, and so do its gradients (lr / Y gives the same training)."""
    expected = reference(ms.GRAPH_MODE, lr=0.02, reduction="mean")
    got = pipelined(2, 4, ms.GRAPH_MODE, lr=0.02 / 4, reduction="mean")
    assert_same(got, expected, scale=4.0)


def test_lazy_inline_block_keeps_its_graph(monkeypatch):
    monkeypatch.setenv("MS_DEV_CELL_REUSE", "1")
    expected = reference(ms.GRAPH_MODE, lazy=True, lr=0.01)
    api.clear_cache()
    got = pipelined(4, 4, ms.GRAPH_MODE, lazy=True, lr=0.01)
    assert_same(got, expected)
    lazy = [name for name, key in api.cached_programs()[-1].frontend_graphs if key is not None]
    assert len(lazy) == 1 and lazy[0].startswith("Block_construct")


def test_micro_batches_are_slices_of_axis_0():
    """Each call of the network sees one consecutive slice of every input."""
    seen = []

    class Record(nn.Cell):
        def construct(self, x, y):
            seen.append((x.asnumpy().copy(), y.asnumpy().copy()))
            return x.sum() + y.sum()

    x, y = data()
    out = nn.PipelineCell(Record(), 4)(x, y)
    assert len(seen) == 4
    for i, (a, b) in enumerate(seen):
        np.testing.assert_array_equal(a, x.asnumpy()[2 * i : 2 * i + 2])
        np.testing.assert_array_equal(b, y.asnumpy()[2 * i : 2 * i + 2])
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy().sum() + y.asnumpy().sum(), rtol=1e-5)


# --- the auto-parallel context ----------------------------------------------------------


def test_parallel_mode_names_are_mindspores():
    assert ms.ParallelMode.STAND_ALONE == "stand_alone"
    assert ms.ParallelMode.DATA_PARALLEL == "data_parallel"
    assert ms.ParallelMode.SEMI_AUTO_PARALLEL == "semi_auto_parallel"
    assert ms.ParallelMode.AUTO_PARALLEL == "auto_parallel"


def test_set_get_reset():
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
    assert ms.get_auto_parallel_context("pipeline_stages") == 1
    ms.set_auto_parallel_context(
        parallel_mode="SEMI_AUTO_PARALLEL", pipeline_stages=4, device_num=4
    )
    assert ms.get_auto_parallel_context("parallel_mode") == "semi_auto_parallel"
    assert ms.get_auto_parallel_context("pipeline_stages") == 4
    assert config.pipeline_stages() == 4
    ms.set_auto_parallel_context(pipeline_config={"pipeline_scheduler": "gpipe"})
    assert ms.get_auto_parallel_context("pipeline_config")["pipeline_scheduler"] == "gpipe"
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("pipeline_stages") == 1
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"


def test_pipeline_stages_is_part_of_the_compile_key():
    before = config.context_fingerprint()
    ms.set_auto_parallel_context(pipeline_stages=2)
    assert config.context_fingerprint() != before


@pytest.mark.parametrize(
    "kwargs, error, text",
    [
        ({"parallel_mode": "model_parallel"}, ValueError, "parallel_mode"),
        ({"parallel_mode": 1}, ValueError, "parallel_mode"),
        ({"pipeline_stages": 0}, ValueError, "pipeline_stages"),
        ({"pipeline_stages": "2"}, TypeError, "pipeline_stages"),
        ({"pipeline_stages": True}, TypeError, "pipeline_stages"),
        ({"pipeline_config": {"pipeline_scheduler": "zb"}}, ValueError, "pipeline_scheduler"),
        ({"pipeline_config": "1f1b"}, TypeError, "pipeline_config"),
        ({"device_num": 0}, ValueError, "device_num"),
        ({"gradients_mean": 1}, TypeError, "gradients_mean"),
        ({"no_such_key": 1}, ValueError, "no_such_key"),
    ],
)
def test_bad_auto_parallel_values(kwargs, error, text):
    with pytest.raises(error, match=text):
        ms.set_auto_parallel_context(**kwargs)


def test_nothing_applied_when_one_key_is_bad():
    with pytest.raises(ValueError):
        ms.set_auto_parallel_context(pipeline_stages=4, parallel_mode="nope")
    assert ms.get_auto_parallel_context("pipeline_stages") == 1
    with pytest.raises(ValueError, match="no_such_key"):
        ms.get_auto_parallel_context("no_such_key")


# --- Cell.pipeline_stage and the checked set-up -------------------------------------


@pytest.mark.parametrize("value, error", [(-1, ValueError), (1.0, TypeError), (True, TypeError)])
def test_bad_pipeline_stage(value, error):
    cell = nn.Dense(2, 2)
    assert cell.pipeline_stage == -1
    with pytest.raises(error, match="pipeline_stage"):
        cell.pipeline_stage = value


def test_stage_plan_inherits_from_the_enclosing_cell():
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=2)
    net = Net().assign_stages(2)
    plan = nn.PipelineCell(net, 2).stage_plan
    assert plan == stage_plan(net)
    assert plan[""] == -1 and plan["blocks.1.dense"] == 0 and plan["blocks.2.dense"] == 1
    assert plan["head"] == 1


def test_stage_without_pipeline_stages():
    net = Net().assign_stages(2)
    with pytest.raises(ValueError, match=r"Cell 'blocks\.0' \(Block\).*pipeline_stages is 1"):
        nn.PipelineCell(net, 2)


def test_stage_out_of_range():
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=2)
    net = Net().assign_stages(2)
    net.head.pipeline_stage = 2
    with pytest.raises(ValueError, match=r"Cell 'head' \(Dense\) has pipeline_stage=2.*0\.\.1"):
        nn.PipelineCell(net, 2)


def test_stage_with_no_cell():
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=4)
    net = Net().assign_stages(4)
    net.blocks[2].pipeline_stage = 1
    with pytest.raises(ValueError, match="pipeline stage 2 of 0..3 has no Cell"):
        nn.PipelineCell(net, 4)


def test_stages_need_a_semi_auto_or_auto_parallel_mode():
    ms.set_auto_parallel_context(pipeline_stages=2)
    with pytest.raises(ValueError, match="semi_auto_parallel or auto_parallel"):
        nn.PipelineCell(Net().assign_stages(2), 2)


def test_no_stages_is_plain_micro_batching():
    out = nn.PipelineCell(nn.WithLossCell(Net(), nn.MSELoss(reduction="sum")), 4)(*data())
    ref = nn.WithLossCell(Net(), nn.MSELoss(reduction="sum"))(*data())
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=1e-5)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_batch_not_divisible(mode):
    ms.set_context(mode=mode)
    net = nn.PipelineCell(nn.WithLossCell(Net(), nn.MSELoss()), 4)
    x = Tensor(np.ones((6, HIDDEN), np.float32))
    with pytest.raises(ValueError, match="batch size 6 is not divisible by micro_size 4"):
        net(x, Tensor(np.ones((6, 2), np.float32)))


@pytest.mark.parametrize(
    "args, error",
    [((Net(), 0), ValueError), ((Net(), "2"), TypeError), ((lambda x: x, 2), TypeError)],
)
def test_bad_pipeline_cell_arguments(args, error):
    with pytest.raises(error):
        nn.PipelineCell(*args)


def test_every_forward_op_of_a_staged_cell_carries_its_stage(tmp_path, monkeypatch):
    """The frontend puts each staged Cell's `pipeline_stage` on its call, and
    mindir-inline gives it to every op it inlines: after inlining, each Block's ops
    say their stage (what mindir-pipeline-split will cut along)."""
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "1")
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS_PATH", str(tmp_path))
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=2)
    net = Net().assign_stages(2)
    net(data()[0])
    frontend = next(tmp_path.glob("*_00_frontend.mlir")).read_text()
    assert frontend.count("mindir.pipeline_stage = 0 : i64") == 2  # blocks 0, 1
    assert frontend.count("mindir.pipeline_stage = 1 : i64") == 3  # blocks 2, 3, head
    (inlined,) = tmp_path.glob("*_mindir_inline.mlir")
    lines = [line for line in inlined.read_text().splitlines() if "mindir.matmul" in line]
    assert [("stage = 0" in line, "stage = 1" in line) for line in lines] == [
        (True, False),
        (True, False),
        (False, True),
        (False, True),
        (False, True),
    ]


def test_backward_ops_carry_their_forward_ops_stage(tmp_path, monkeypatch):
    """mindir-grad gives each adjoint op its forward op's stage (MindSpore runs a
    node's backward on its stage): after the grad pass, the train step's matmuls
    are on stages 0 and 1, none without a stage (stage 1 holds 3 of the 5 Dense
    layers; both micro-batches have the same ops)."""
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "1")
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS_PATH", str(tmp_path))
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=2)
    train(Net().assign_stages(2), lambda n: nn.PipelineCell(n, micro_size=2), lr=0.1, steps=1)
    (graded,) = tmp_path.glob("*_mindir_grad.mlir")
    matmuls = [line for line in graded.read_text().splitlines() if "mindir.matmul" in line]
    unstaged = [line for line in matmuls if "mindir.pipeline_stage" not in line]
    assert not unstaged, unstaged[:3]
    stage_0 = sum("pipeline_stage = 0" in line for line in matmuls)
    stage_1 = sum("pipeline_stage = 1" in line for line in matmuls)
    assert 0 < stage_0 < stage_1 and stage_0 % 2 == 0 and stage_1 % 2 == 0
    assert stage_0 + stage_1 == len(matmuls)


@pytest.mark.parametrize("target", ["CPU", "Ascend"])
def test_compile_cache_hit_runs_the_stages(tmp_path, target):
    """A warm compile-cache hit restores the split program (its stages, their plans or
    device models) and trains the same."""
    expected = reference(ms.GRAPH_MODE, lr=0.01)
    ms.set_context(enable_compile_cache=True, compile_cache_path=str(tmp_path))
    ms.set_context(device_target=target)
    api.clear_cache()
    cold = pipelined(2, 4, ms.GRAPH_MODE, lr=0.01)
    api.clear_cache()
    warm = pipelined(2, 4, ms.GRAPH_MODE, lr=0.01)
    (program,) = api.cached_programs()
    assert program.from_cache
    assert_same(cold, expected)
    assert_same(warm, expected)
