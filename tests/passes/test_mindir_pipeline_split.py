"""mindir-pipeline-split: differential checks (the stages, run at once by the CPU
executor, give the unsplit graph's outputs, Parameter values and prints), on random
programs with random stages and on pipelined train steps from the frontend; the
stage graphs' shape (Parameters on one stage, tags paired, lazy-inline calls kept);
the runner's errors (an unpaired receive, a failing stage)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from mindjit import nn
from mindjit.backend.cpu import CpuExecutable
from mindjit.backend.cpu.errors import ExecutionError, RuntimeCheckError
from mindjit.dialects import mindir
from mindjit.dialects.mindir.discardable import pipeline_stage_graphs, stage_of_attr
from mindjit.dialects.parsing import parse_module
from mindjit.frontend.graph.program import new_compiler
from mindjit.passes.analysis.effects import parameter_symbol
from mindjit.passes.pipelines import lower_to_tensor, parse_pipeline, run_passes
from mindjit.support import config

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "frontend"))
import test_pipeline_api as api  # noqa: E402

BEFORE = "mindir-auto-monad,mindir-inline,mindir-grad,func.func(canonicalize,cse)"


def after(level: int) -> str:
    return f"mindir-depend-order,mindir-load-elim{{level={level}}}"


def run(module: ModuleOp, spec: str) -> ModuleOp:
    run_passes(parse_pipeline(spec), module)
    return module


def execute(module: ModuleOp, name: str, args: list[np.ndarray], symbols: list[str], calls=2):
    """Run `calls` times: each call's outputs, the Parameters after, the prints."""
    exe = CpuExecutable(lower_to_tensor(module.clone()))
    printed: list[list] = []
    exe.print_hook = lambda items: printed.append(
        [i if isinstance(i, str) else np.asarray(i).tolist() for i in items]
    )
    outputs = [[np.asarray(o) for o in exe.run(name, *args)] for _ in range(calls)]
    values = {s: np.array(exe.get_global(s)) for s in symbols}
    return outputs, values, printed


def assert_same(got, want) -> None:
    for a, b in zip(got[0], want[0], strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-6)
    assert got[1].keys() == want[1].keys()
    for k in want[1]:
        np.testing.assert_allclose(got[1][k], want[1][k], rtol=1e-6, atol=1e-6, err_msg=k)
    assert sorted(map(str, got[2])) == sorted(map(str, want[2]))


def split_and_compare(text: str, name: str, args, symbols, stages: int, level: int = 1):
    base = run(parse_module(text), "mindir-auto-monad")
    split = run(base.clone(), f"mindir-pipeline-split{{stages={stages}}}")
    assert len(pipeline_stage_graphs(split, name)) == stages
    want = execute(run(base, after(level)), name, args, symbols)
    got = execute(run(split, after(level)), name, args, symbols)
    assert_same(got, want)
    return split


# -- random programs with random stages --------------------------------------------------

UNARY = ("neg", "tanh", "exp", "abs")
BINARY = ("add", "sub", "mul", "maximum")


def random_program(seed: int, stages: int) -> tuple[str, list[str]]:
    """Straight-line code on tensor<4xf32>: loads, assigns, prints and arithmetic,
    each op on a random stage or none (placed by the pass)."""
    rng = random.Random(seed)
    params = [f"p{i}" for i in range(rng.randint(1, 4))]
    lines = [
        f"mindir.parameter @{p} = dense<{rng.uniform(-1, 1):.3f}> : tensor<4xf32>" for p in params
    ]
    lines.append(
        "func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>, %u0: !mindir.u, %io0: !mindir.io)"
        " -> (tensor<4xf32>, tensor<4xf32>) {"
    )
    values = ["%x", "%y"]
    for p in params:
        lines.append(f"  %r_{p} = mindir.get_parameter @{p} : !mindir.ref<tensor<4xf32>>")

    def stage() -> str:
        if rng.random() < 0.3:
            return ""
        return f" {{mindir.pipeline_stage = {rng.randrange(stages)} : i64}}"

    for i in range(rng.randint(4, 18)):
        kind = rng.random()
        v = f"%v{i}"
        if kind < 0.2:
            lines.append(
                f"  {v} = mindir.load %r_{rng.choice(params)}, %u0{stage()} : tensor<4xf32>"
            )
        elif kind < 0.3:
            src = rng.choice(values)
            p = rng.choice(params)
            lines.append(f"  {v} = mindir.assign %r_{p}, {src}, %u0{stage()} : tensor<4xf32>")
        elif kind < 0.36:
            src = rng.choice(values)
            lines.append(f"  %pr{i} = mindir.print {src}, %io0{stage()} : tensor<4xf32>")
            continue
        elif kind < 0.6:
            op = rng.choice(UNARY)
            src = rng.choice(values)
            lines.append(f"  {v} = mindir.{op} {src}{stage()} : tensor<4xf32>")
        else:
            op = rng.choice(BINARY)
            a, b = rng.choice(values), rng.choice(values)
            lines.append(f"  {v} = mindir.{op} {a}, {b}{stage()} : tensor<4xf32>")
        values.append(v)
    # every stage runs something
    for k in range(stages):
        v = f"%s{k}"
        lines.append(
            f"  {v} = mindir.tanh {rng.choice(values)} {{mindir.pipeline_stage = {k} : i64}} : tensor<4xf32>"
        )
        values.append(v)
    lines.append(f"  func.return {rng.choice(values)}, {values[-1]} : tensor<4xf32>, tensor<4xf32>")
    lines.append("}")
    return "\n".join(lines), params


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_equal_unsplit(seed: int) -> None:
    stages = 2 + seed % 3
    text, params = random_program(seed, stages)
    rng = np.random.default_rng(seed)
    args = [rng.standard_normal(4).astype(np.float32) for _ in range(2)]
    split = split_and_compare(text, "f", args, params, stages, level=seed % 3)
    # every Parameter is loaded and assigned on one stage only
    owners: dict[str, set[int]] = {}
    for fn in pipeline_stage_graphs(split, "f"):
        for op in fn.walk():
            if isinstance(op, mindir.LoadOp | mindir.AssignOp):
                owners.setdefault(parameter_symbol(op.ref), set()).add(stage_of_attr(fn))
    assert all(len(s) == 1 for s in owners.values()), owners


def test_every_send_has_its_receive() -> None:
    text, _ = random_program(7, 3)
    split = run(run(parse_module(text), "mindir-auto-monad"), "mindir-pipeline-split")
    sends = {
        (op.sr_tag.value.data, stage_of_attr(fn), op.dest_rank.value.data)
        for fn in pipeline_stage_graphs(split, "f")
        for op in fn.walk()
        if isinstance(op, mindir.SendOp)
    }
    receives = {
        (op.sr_tag.value.data, op.src_rank.value.data, stage_of_attr(fn))
        for fn in pipeline_stage_graphs(split, "f")
        for op in fn.walk()
        if isinstance(op, mindir.ReceiveOp)
    }
    assert sends and sends == receives


# -- pipelined train steps from the frontend --------------------------------------------------


def train_step_module(stages: int, micro: int, lazy: bool, order: list[int] | None = None):
    """TrainOneStepCell(PipelineCell(WithLossCell(net))) traced to mindir; Block i on
    stage `order[i]` (default i * stages // 4), the head on the last stage."""
    config.set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=stages)
    try:
        net = api.Net(lazy).assign_stages(stages)
        if order is not None:
            for block, k in zip(net.blocks, order):
                block.pipeline_stage = k
        loss = nn.PipelineCell(nn.WithLossCell(net, nn.MSELoss(reduction="sum")), micro_size=micro)
        step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), learning_rate=0.05))
        step.set_train()
        x, y = api.data()
        compiler = new_compiler(1 if lazy else 0)
        name = "TrainOneStepCell_construct"
        compiler.entry(type(step).construct, step, (x, y), {}, name)
        symbols = [s for s, _ in compiler.module.parameters.values()]
        return compiler.module.module, name, [x.asnumpy(), y.asnumpy()], symbols
    finally:
        config.reset_auto_parallel_context()


@pytest.mark.parametrize(
    ("stages", "micro", "lazy", "level"),
    [(2, 1, False, 1), (2, 4, False, 0), (4, 4, False, 2), (4, 8, True, 1), (2, 4, True, 2)],
)
def test_train_step_equals_unsplit(stages: int, micro: int, lazy: bool, level: int) -> None:
    module, name, args, symbols = train_step_module(stages, micro, lazy)
    run(module, BEFORE)
    split = run(module.clone(), f"mindir-pipeline-split{{stages={stages}}}")
    want = execute(run(module, after(level)), name, args, symbols)
    got = execute(run(split, after(level)), name, args, symbols)
    assert_same(got, want)


def test_stages_out_of_order_still_train_the_same() -> None:
    """Blocks on stages 1, 0, 1, 0: values go back and forth; still the same step."""
    module, name, args, symbols = train_step_module(2, 2, False, order=[1, 0, 1, 0])
    run(module, BEFORE)
    split = run(module.clone(), "mindir-pipeline-split{stages=2}")
    assert_same(
        execute(run(split, after(1)), name, args, symbols),
        execute(run(module, after(1)), name, args, symbols),
    )


def test_lazy_inline_keeps_one_block_graph_and_calls_it_per_micro_batch() -> None:
    module, name, _, _ = train_step_module(4, 8, True)
    run(module, BEFORE)
    run(module, "mindir-pipeline-split{stages=4}")
    graphs = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    shared = [g for g, op in graphs.items() if "mindir.lazy_inline" in op.attributes]
    assert shared, graphs.keys()
    for fn in pipeline_stage_graphs(module, name):
        calls = [op for op in fn.walk() if isinstance(op, func.CallOp)]
        # one Block per stage, called for each micro-batch's forward (8); the
        # backward's calls go to the shared graph's adjoint
        assert calls and all(c.callee.root_reference.data in graphs for c in calls)
        callees = [c.callee.root_reference.data for c in calls]
        # the backward of each micro-batch's Block is a call of the one vjp graph,
        # not an inlined copy (it could not be told apart from inlining otherwise)
        assert sum(c.endswith("_vjp") for c in callees) == 8, callees


# -- the runner -----------------------------------------------------------------------------

UNPAIRED = """
func.func @g_stage0(%x: tensor<2xf32>) -> tensor<2xf32> attributes {mindir.pipeline_stage = 0 : i64, mindir.pipeline_of = "g", mindir.pipeline_results = array<i64: 0>} {
  %y = ml_program.global_load @__mindjit_channel_3 : tensor<2xf32>
  func.return %y : tensor<2xf32>
}
func.func @g_stage1(%x: tensor<2xf32>) attributes {mindir.pipeline_stage = 1 : i64, mindir.pipeline_of = "g", mindir.pipeline_results = array<i64>} {
  ml_program.global_store @__mindjit_channel_4 = %x : tensor<2xf32>
  func.return
}
ml_program.global private mutable @__mindjit_channel_3(dense<0.0> : tensor<2xf32>) : tensor<2xf32>
ml_program.global private mutable @__mindjit_channel_4(dense<0.0> : tensor<2xf32>) : tensor<2xf32>
"""


def test_a_receive_nobody_sends_is_an_error_not_a_hang() -> None:
    exe = CpuExecutable(parse_module(UNPAIRED))
    assert exe.pipeline("g") is not None and "g" not in exe.entry_names()
    with pytest.raises(ExecutionError, match="nothing sends channel @__mindjit_channel_3"):
        exe.run("g", np.ones(2, np.float32))
    # outside a pipelined call a channel is an ordinary global
    np.testing.assert_array_equal(exe.run("g_stage0", np.ones(2, np.float32))[0], [0, 0])


FAILING = """
func.func @h(%x: tensor<2xf32>, %u0: !mindir.u, %io0: !mindir.io) -> tensor<2xf32> {
  %a = mindir.neg %x {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
  %c = mindir.check_range %a {min = 0.0 : f64, max = 1.0 : f64, message = "out of range", mindir.pipeline_stage = 1 : i64} : tensor<2xf32>
  %b = mindir.exp %c {mindir.pipeline_stage = 1 : i64} : tensor<2xf32>
  %d = mindir.add %b, %a {mindir.pipeline_stage = 0 : i64} : tensor<2xf32>
  func.return %d : tensor<2xf32>
}
"""


def test_a_failing_stage_raises_its_own_error() -> None:
    module = run(parse_module(FAILING), "mindir-auto-monad,mindir-pipeline-split")
    exe = CpuExecutable(lower_to_tensor(run(module, after(1))))
    np.testing.assert_allclose(
        exe.run("h", np.array([-0.5, -0.25], np.float32))[0],
        np.exp([0.5, 0.25]) + [0.5, 0.25],
        rtol=1e-6,
    )
    with pytest.raises(RuntimeCheckError, match="out of range"):
        exe.run("h", np.array([1.0, 2.0], np.float32))
    # the next call is not disturbed by the failed one
    exe.run("h", np.array([-0.5, -0.25], np.float32))


TWICE = """
func.func @t_stage0(%x: tensor<2xf32>) attributes {mindir.pipeline_stage = 0 : i64, mindir.pipeline_of = "t", mindir.pipeline_results = array<i64>} {
  ml_program.global_store @__mindjit_channel_3 = %x : tensor<2xf32>
  ml_program.global_store @__mindjit_channel_3 = %x : tensor<2xf32>
  func.return
}
func.func @t_stage1(%x: tensor<2xf32>) -> tensor<2xf32> attributes {mindir.pipeline_stage = 1 : i64, mindir.pipeline_of = "t", mindir.pipeline_results = array<i64: 0>} {
  func.return %x : tensor<2xf32>
}
ml_program.global private mutable @__mindjit_channel_3(dense<0.0> : tensor<2xf32>) : tensor<2xf32>
"""


def test_a_tag_sent_twice_before_it_is_received_is_an_error() -> None:
    exe = CpuExecutable(parse_module(TWICE))
    with pytest.raises(ExecutionError, match="channel @__mindjit_channel_3 is sent twice"):
        exe.run("t", np.ones(2, np.float32))
