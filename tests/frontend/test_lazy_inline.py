"""@lazy_inline: one graph per cell_init_args, equal results at every cell-reuse level."""

from __future__ import annotations

import sys
from pathlib import Path

import lazy_inline_programs as P
import numpy as np
import pytest

import mindjit as ms
from mindjit.frontend.graph import api
from mindjit.frontend.nn.init import set_seed

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import gpt  # noqa: E402 - examples/gpt.py, the model of the demo and the benchmark


def transformer(lazy: bool = True, layers: int = 3):
    """examples/gpt.py, small; hidden 40 makes its weights dense_resource Parameters."""
    set_seed(0)
    return gpt.GPT(gpt.GPTConfig(layers, hidden=40, seq=4), lazy)


def run_graph(net, x, reuse, monkeypatch):
    monkeypatch.setenv("MS_DEV_CELL_REUSE", reuse)
    ms.set_context(mode=ms.GRAPH_MODE)
    api.clear_cache()
    try:
        out = net(x)
        (program,) = api.cached_programs()
        return out, program
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def lazy_graphs(program):
    return [name for name, key in program.frontend_graphs if key is not None]


MODELS = {
    "gpt": (lambda: P.GPT(6), (2, 8)),
    "pipeline": (lambda: P.PipelineCell(P.Block(P.Config(8), 3), 4), (2, 8)),
    "nested": (lambda: P.Nested(), (2, 4)),
    "assigning": (lambda: P.AssignTwice(), (2,)),
    "called_twice": (lambda: P.CalledTwice(), (2,)),
    "transformer": (transformer, (1, 4, 40)),
}


@pytest.mark.parametrize("reuse", ["0", "1", "2"])
@pytest.mark.parametrize("model", sorted(MODELS))
def test_same_results_as_pynative(model, reuse, monkeypatch):
    make, shape = MODELS[model]
    x = ms.Tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager_net = make()
    expected = eager_net(x)
    net = make()
    out, _ = run_graph(net, x, reuse, monkeypatch)
    np.testing.assert_allclose(out.asnumpy(), expected.asnumpy(), rtol=1e-6, atol=1e-6)
    for (name, p), (_, q) in zip(net.parameters_and_names(), eager_net.parameters_and_names()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-6, err_msg=name)


def test_gpt_blocks_share_one_graph(monkeypatch):
    out, program = run_graph(P.GPT(6), ms.Tensor(np.ones((2, 8), np.float32)), "1", monkeypatch)
    assert len(lazy_graphs(program)) == 1
    assert lazy_graphs(program)[0].startswith("Block_construct")


def test_pipeline_cell_reuses_one_graph(monkeypatch):
    net = P.PipelineCell(P.Block(P.Config(8), 3), 4)
    _, program = run_graph(net, ms.Tensor(np.ones((2, 8), np.float32)), "1", monkeypatch)
    assert len(lazy_graphs(program)) == 1


def test_nested_reuse_keeps_one_graph_per_level(monkeypatch):
    _, program = run_graph(P.Nested(), ms.Tensor(np.ones((2, 4), np.float32)), "1", monkeypatch)
    names = lazy_graphs(program)
    assert len(names) == 2
    assert {n.split("_")[0] for n in names} == {"Outer", "Inner"}


def test_reuse_off_makes_no_lazy_graph(monkeypatch):
    _, program = run_graph(P.GPT(3), ms.Tensor(np.ones((2, 8), np.float32)), "0", monkeypatch)
    assert lazy_graphs(program) == []


def test_changed_attribute_gets_its_own_graph_with_a_warning(monkeypatch):
    net = P.TwoScaled()
    x = ms.Tensor(np.ones((2,), np.float32))
    with pytest.warns(RuntimeWarning, match="attribute 'factor' of Scaled changed after __init__"):
        out, program = run_graph(net, x, "1", monkeypatch)
    assert out.asnumpy().tolist() == [12.0, 12.0]
    assert len(lazy_graphs(program)) == 1  # only `first` uses the shared graph


def test_cell_init_args_recorded():
    block = P.Inner(4)
    assert block.cell_init_args == "lazy_inline_Inner(4)"


@pytest.mark.parametrize(("reuse", "kept"), [("1", True), ("2", False)])
def test_level_1_runs_the_shared_graph_as_calls(reuse, kept, monkeypatch):
    _, program = run_graph(P.GPT(4), ms.Tensor(np.ones((2, 8), np.float32)), reuse, monkeypatch)
    calls = [op for op in program.module.walk() if op.name == "func.call"]
    block_calls = [c for c in calls if c.callee.root_reference.data.startswith("Block_construct")]
    assert (len(block_calls) == 4) is kept


@pytest.mark.parametrize("reuse", ["0", "1", "2"])
def test_transformer_with_and_without_lazy_inline_is_bit_for_bit_equal(reuse, monkeypatch):
    x = ms.Tensor(np.random.default_rng(1).standard_normal((1, 4, 40)).astype(np.float32))
    plain, _ = run_graph(transformer(lazy=False), x, reuse, monkeypatch)
    lazy, program = run_graph(transformer(lazy=True), x, reuse, monkeypatch)
    np.testing.assert_array_equal(lazy.asnumpy(), plain.asnumpy())
    assert len(lazy_graphs(program)) == (0 if reuse == "0" else 1)


def test_transformer_call_sites_cost_one_node_each(monkeypatch):
    """Nodes after the mindir passes: the shared graph once, plus one call per Block."""
    x = ms.Tensor(np.ones((1, 4, 40), np.float32))
    sizes = {}
    for layers in (2, 6):
        _, program = run_graph(transformer(layers=layers), x, "1", monkeypatch)
        stages = program.report.stages
        sizes[layers] = next(s.nodes for s in stages if s.name == "verify-mindir")
    assert sizes[6] - sizes[2] == 4  # four more call sites, nothing else


def test_entry_takes_its_parameters_as_bound_arguments(monkeypatch):
    """MindSpore's top graph has its Parameters as inputs: the entry graph takes each
    one as an argument bound to it, so a call site is one op at both levels (no
    get_parameter, and after lowering no global_load, per Parameter per call)."""
    from xdsl.dialects import func

    from mindjit.dialects import mindir
    from mindjit.dialects.mindir.parameter_args import GLOBAL_ARG_ATTR, bound_symbols
    from mindjit.frontend.graph.program import new_compiler

    net = transformer(layers=3)
    x = ms.Tensor(np.ones((1, 4, 40), np.float32))
    monkeypatch.setenv("MS_DEV_CELL_REUSE", "1")
    compiler = new_compiler()
    graph, _ = compiler.entry(type(net).construct, net, (x,), {}, "GPT_construct")
    entry = graph.fn
    symbols = {symbol for symbol, _ in compiler.module.parameters.values()}
    assert set(bound_symbols(entry).values()) == symbols and len(symbols) == 36
    assert not any(isinstance(op, mindir.GetParameterOp) for op in entry.walk())
    block = next(
        op for op in compiler.module.module.ops if isinstance(op, func.FuncOp) and op is not entry
    )
    assert bound_symbols(block) == {}  # a reused graph takes plain ref arguments

    _, program = run_graph(net, x, "1", monkeypatch)
    counts = program.op_counts()
    assert counts["func.call"] == 3 and counts["ml_program.global_load"] == 0
    lowered = next(
        op
        for op in program.module.ops
        if isinstance(op, func.FuncOp) and bound_symbols(op, GLOBAL_ARG_ATTR)
    )
    assert set(bound_symbols(lowered, GLOBAL_ARG_ATTR).values()) == symbols


# -- training: the backward of a kept graph is a shared graph too ---------------------


def train_two_steps(make, x, y, mode):
    from mindjit import nn

    ms.set_context(mode=mode)
    net = make()
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), learning_rate=0.1)
    )
    step.set_train()
    losses = [float(step(x, y).asnumpy()) for _ in range(2)]
    return losses, {n: p.asnumpy().copy() for n, p in net.parameters_and_names()}


@pytest.mark.parametrize("reuse", ["0", "1", "2"])
@pytest.mark.parametrize("model", ["gpt", "transformer", "nested", "assigning", "called_twice"])
def test_training_same_as_pynative(model, reuse, monkeypatch):
    make, shape = MODELS[model]
    rng = np.random.default_rng(1)
    x = ms.Tensor(rng.standard_normal(shape).astype(np.float32))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    y = ms.Tensor(rng.standard_normal(make()(x).shape).astype(np.float32))
    expected = train_two_steps(make, x, y, ms.PYNATIVE_MODE)
    monkeypatch.setenv("MS_DEV_CELL_REUSE", reuse)
    api.clear_cache()
    got = train_two_steps(make, x, y, ms.GRAPH_MODE)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-6)
    for name, value in expected[1].items():
        np.testing.assert_allclose(got[1][name], value, rtol=1e-5, atol=1e-6, err_msg=name)


def test_train_step_calls_one_shared_backward_graph(monkeypatch, tmp_path):
    """At reuse 1 the train step of 6 GPT Blocks keeps the Block graph, its pure
    form and one vjp graph, called once per Block (nothing of a Block inlined)."""
    monkeypatch.setenv("MS_DEV_CELL_REUSE", "1")
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "1")
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS_PATH", str(tmp_path))
    make, shape = MODELS["gpt"]
    x = ms.Tensor(np.ones(shape, np.float32))
    train_two_steps(make, x, x, ms.GRAPH_MODE)
    (graded,) = tmp_path.glob("*_mindir_grad.mlir")
    text = graded.read_text()
    assert text.count("func.call @Block_construct_pure_vjp(") == 6
    assert text.count("func.call @Block_construct_pure(") == 6
    assert text.count("func.func private @Block_construct_pure_vjp(") == 1
