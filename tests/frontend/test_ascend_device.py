"""Graph mode on the simulated Ascend-like device (`set_context(device_target="Ascend")`):
the docs' programs give the device's results, and the device agrees with the CPU."""

from __future__ import annotations

import os
import sys

import grad_programs as G
import numpy as np
import pytest
import side_effect_programs as S
import test_training as T

import mindjit as ms
from mindjit import Tensor
from mindjit import dtype as mstype
from mindjit.backend.ascend.model_file import read_model
from mindjit.frontend.graph import api
from mindjit.frontend.graph.api import compile_cell
from mindjit.frontend.nn.init import set_seed

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "seeds"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))

from gpt import GPT, GPTConfig  # noqa: E402
from test_static_graph_examples import FloatStatusNet  # noqa: E402


@pytest.fixture(autouse=True)
def ascend():
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    yield
    ms.set_context(device_target="CPU")
    api.clear_cache()


def test_depend_with_float_status_on_the_device(capsys):
    """Doc 003's example, on the device it was written for."""
    res = FloatStatusNet()(Tensor(np.full((2, 3), 5, dtype=np.float16), dtype=mstype.float16))
    print(res)
    assert capsys.readouterr().out == "[[10. 10. 10.]\n [10. 10. 10.]]\n"
    assert res.dtype == mstype.float16


class Overflow(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.alloc_status = ms.ops.NPUAllocFloatStatus()
        self.get_status = ms.ops.NPUGetFloatStatus()
        self.clear_status = ms.ops.NPUClearFloatStatus()

    def construct(self, x):
        init = self.alloc_status()
        clear_status = self.clear_status(init)
        x = ms.ops.depend(x, clear_status)
        res = x * x
        init = ms.ops.depend(init, res)
        return res, self.get_status(init)


def test_device_sets_the_float_status_on_overflow():
    net = Overflow()
    _, status = net(Tensor(np.full((2,), 300.0, dtype=np.float16)))
    assert status.asnumpy()[0] == 1.0
    _, status = net(Tensor(np.full((2,), 3.0, dtype=np.float16)))
    assert not status.asnumpy().any()
    report = compile_cell(net, (Tensor(np.full((2,), 3.0, dtype=np.float16)),)).executable.report
    assert report["float_status"] == [0.0] * 8


@pytest.mark.parametrize("level", ["0", "1", "2"])
def test_backward_net_right_at_levels_0_to_2(level, monkeypatch):
    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", level)
    grads = G.BackwardNet(G.ForwardNet())(ms.tensor(np.array(1), ms.int32))
    assert grads[0].asnumpy().tolist() == 3


def test_backward_net_wrong_at_level_3_as_the_docs_warn(monkeypatch):
    """No TensorMove: the Loads read the Parameter's memory after the last Assign."""
    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", "3")
    with pytest.warns(UserWarning):
        grads = G.BackwardNet(G.ForwardNet())(ms.tensor(np.array(1), ms.int32))
    assert grads[0].asnumpy().tolist() == 6


@pytest.mark.parametrize("level", ["0", "1", "2", "3"])
def test_tensor_move_bytes_per_level(level, monkeypatch):
    monkeypatch.setenv("MS_DEV_SIDE_EFFECT_LOAD_ELIM", level)
    net = G.BackwardNet(G.ForwardNet())
    x = ms.tensor(np.array(1), ms.int32)
    if level == "3":
        with pytest.warns(UserWarning):
            net(x)
    else:
        net(x)
    (program,) = api.cached_programs()
    moved = program.executable.report["tensor_move_bytes"]
    assert moved == (0 if level == "3" else 3 * 4)


def test_forward_net_and_parameters_match_the_cpu():
    x = Tensor(np.array(2, np.int32))
    net = S.ForwardNet()
    out = net(x)
    assert out.asnumpy().tolist() == 6
    assert net.weight.asnumpy().tolist() == 2


def _gpt_outputs(level: str, monkeypatch, layers: int = 4):
    monkeypatch.setenv("MS_DEV_CELL_REUSE", level)
    set_seed(0)
    net = GPT(GPTConfig(layers, hidden=32, seq=8), True)
    x = Tensor(np.random.default_rng(0).standard_normal((1, 8, 32)).astype(np.float32))
    out = net(x).asnumpy()
    program = compile_cell(net, (x,))
    return out, program.executable


def test_cell_reuse_levels_agree_and_level_2_needs_no_more_memory(monkeypatch):
    out1, exe1 = _gpt_outputs("1", monkeypatch)
    out2, exe2 = _gpt_outputs("2", monkeypatch)
    ms.set_context(device_target="CPU")
    out_cpu, _ = _gpt_outputs("1", monkeypatch)
    np.testing.assert_allclose(out1, out_cpu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out2, out_cpu, rtol=1e-5, atol=1e-6)
    graphs1 = exe1.simulator.model.graphs
    graphs2 = exe2.simulator.model.graphs
    assert len(graphs1) == 2 and len(graphs2) == 1  # level 1: the Block is one sub-sequence
    calls = [s for s in graphs1[-1].sequence + graphs1[0].sequence if s.op == "call"]
    assert len(calls) == 4
    assert exe2.report["peak_memory_bytes"] <= exe1.report["peak_memory_bytes"]
    assert exe1.report["peak_memory_bytes"] >= exe1.report["lower_bound_bytes"]


def test_save_graphs_writes_the_model_file(monkeypatch, tmp_path):
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "1")
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS_PATH", str(tmp_path))
    net = S.ForwardNet()
    net(Tensor(np.array(2, np.int32)))
    (path,) = tmp_path.glob("*.msmodel")
    model = read_model(str(path))
    assert any(s.name == "Assign" for g in model.graphs for s in g.sequence)
    assert list(tmp_path.glob("*.ascend.mlir"))


def test_training_on_the_device_matches_the_cpu():
    data = T.regression_data()
    losses = {}
    for device in ("CPU", "Ascend"):
        ms.set_context(device_target=device)
        network, (train_step, _) = T.build("mlp", "adam")
        losses[device] = [float(train_step(*data).asnumpy()) for _ in range(5)]
        losses[device + " w"] = network.fc1.weight.asnumpy().copy()
    np.testing.assert_allclose(losses["Ascend"], losses["CPU"], rtol=1e-5)
    np.testing.assert_allclose(losses["Ascend w"], losses["CPU w"], rtol=1e-5, atol=1e-6)
    assert losses["Ascend"][-1] < losses["Ascend"][0]


def test_a_graph_with_an_input_it_never_reads_runs_on_the_device():
    """An unused input's buffer is free before the first kernel: no stream waits on
    it (ascend-assign-streams indexed kernel -1 for it)."""

    @ms.jit
    def twice(x, y):
        return x * 2.0

    x, y = Tensor(np.array([1.0, -2.0], np.float32)), Tensor(np.zeros(2, np.float32))
    assert twice(x, y).asnumpy().tolist() == [2.0, -4.0]


class _MaskedBlock(ms.nn.Cell):
    @ms.lazy_inline
    def __init__(self):
        super().__init__()

    def construct(self, x, mask):
        m = mask.reshape(mask.shape[0], 1, mask.shape[1])  # a view of a graph argument
        return ms.ops.masked_fill(x, m == 0, -1.0) + m


class _TwoMaskedBlocks(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = ms.nn.CellList([_MaskedBlock(), _MaskedBlock()])

    def construct(self, x, mask):
        for block in self.blocks:
            x = block(x, mask)
        return x


@pytest.mark.parametrize("reuse", ["1", "2"])
def test_a_reused_graph_reshaping_its_argument(reuse, monkeypatch):
    """A view of a reused graph's argument takes the view's shape, not the caller's
    (BERT's attention-mask reshape inside its lazy-inline layer)."""
    monkeypatch.setenv("MS_DEV_CELL_REUSE", reuse)
    x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    mask = Tensor(np.array([[1, 0, 1, 1], [0, 1, 1, 0]], np.int32))
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    try:
        api.clear_cache()
        got = _TwoMaskedBlocks()(x, mask).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    np.testing.assert_array_equal(got, _TwoMaskedBlocks()(x, mask).asnumpy())


class _AssignInWhile(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(Tensor(np.array([1.0, -1.0], np.float32)), name="p")

    def construct(self, x):
        i = ms.ops.zeros((), ms.int32)
        while i < 3:  # a tensor while: its body assigns the Parameter
            ms.ops.assign(self.p, self.p * 0.5 + 0.25)
            i = i + 1
        return x + self.p


def test_assign_inside_a_while_is_kept_on_the_device():
    """Issue 29: an Assign in a tensor `while` body must reach the Parameter on the
    device as on the CPU, call after call."""
    results = {}
    for device in ("CPU", "Ascend"):
        ms.set_context(mode=ms.GRAPH_MODE, device_target=device)
        net = _AssignInWhile()
        outs = [net(Tensor(np.ones(2, np.float32))).asnumpy() for _ in range(2)]
        results[device] = (outs, net.p.asnumpy().copy())
    np.testing.assert_allclose(results["Ascend"][1], results["CPU"][1], rtol=1e-6)
    np.testing.assert_allclose(results["Ascend"][0], results["CPU"][0], rtol=1e-6)
    np.testing.assert_allclose(results["CPU"][1], [0.5078125, 0.4765625], rtol=1e-6)


class _InnerBlock(ms.nn.Cell):
    @ms.lazy_inline
    def __init__(self):
        super().__init__()
        self.b = ms.Parameter(Tensor(np.full((3,), 0.5, np.float32)), name="b")

    def construct(self, h):
        ms.ops.assign(self.b, self.b * 0.5 + h)
        return h + self.b


class _OuterBlock(ms.nn.Cell):
    @ms.lazy_inline
    def __init__(self):
        super().__init__()
        self.inner = _InnerBlock()
        self.c = ms.Parameter(Tensor(np.full((3,), 0.25, np.float32)), name="c")

    def construct(self, h):
        return self.inner(h) * self.c


class _BlocksInControlFlow(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = ms.nn.CellList([_OuterBlock(), _OuterBlock()])

    def construct(self, x):
        i = ms.ops.zeros((), ms.int32)
        while i < 2:  # a tensor while calling the reused graphs
            for block in self.blocks:
                x = block(x)
            i = i + 1
        if x.sum() > 0:  # a tensor if calling one
            x = self.blocks[0](x)
        return x


@pytest.mark.parametrize("reuse", ["1", "2"])
def test_lazy_inline_blocks_called_inside_control_flow_on_the_device(reuse, monkeypatch):
    """Found by fuzz/differential.py (seed 7): at cell reuse 1 a Block called in a
    tensor while or if left a call of its graph in the AI CPU kernel's code, which
    holds no other graph ('@Block_construct' could not be found in symbol table)."""
    monkeypatch.setenv("MS_DEV_CELL_REUSE", reuse)
    x = Tensor(np.array([0.1, -0.2, 0.3], np.float32))
    results = {}
    for device in ("CPU", "Ascend"):
        ms.set_context(mode=ms.GRAPH_MODE, device_target=device)
        try:
            net = _BlocksInControlFlow()
            outs = [net(x).asnumpy() for _ in range(2)]
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
        results[device] = (outs, [p.asnumpy().copy() for p in net.get_parameters()])
    np.testing.assert_allclose(results["Ascend"][0], results["CPU"][0], rtol=1e-6)
    np.testing.assert_allclose(results["Ascend"][1], results["CPU"][1], rtol=1e-6)
