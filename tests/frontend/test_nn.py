"""nn.Cell registration and naming, containers, Dense and activations (PyNative)."""

from __future__ import annotations

import inspect
from collections import OrderedDict

import numpy as np
import pytest

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops
from mindjit.frontend import context as C
from mindjit.frontend.graph import api


@pytest.fixture(autouse=True)
def _pynative():
    C.reset_context()
    yield
    C.reset_context()


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones((2, 2), np.float32)))
        self.fc = nn.Dense(2, 2)

    def construct(self, x):
        return self.fc(ops.matmul(x, self.w))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 2
        self.named = Parameter(Tensor([1.0]), name="my_param")
        self.block = Block()
        self.layers = nn.CellList([nn.Dense(2, 3), nn.ReLU()])

    def construct(self, x):
        x = self.block(x)
        for layer in self.layers:
            x = layer(x)
        return x * self.scale + self.named


def test_registration_order_and_names():
    net = Net()
    names = [n for n, _ in net.parameters_and_names()]
    assert names == [
        "named",
        "block.w",
        "block.fc.weight",
        "block.fc.bias",
        "layers.0.weight",
        "layers.0.bias",
    ]
    # Parameter.name: user names stay at the top level, sub-cell params follow the path
    assert [p.name for p in net.get_parameters()] == [
        "my_param",
        "block.w",
        "block.fc.weight",
        "block.fc.bias",
        "layers.0.weight",
        "layers.0.bias",
    ]
    assert [n for n, _ in net.cells_and_names()] == [
        "",
        "block",
        "block.fc",
        "layers",
        "layers.0",
        "layers.1",
    ]
    assert list(net.name_cells()) == ["block", "layers"]
    assert list(net.cells()) == [net.block, net.layers]
    assert "w" not in net.block.__dict__ and net.block.w.name == "block.w"
    assert net.scale == 2


def test_unnamed_parameter_takes_attribute_name():
    class Cell(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor([1.0]))

    c = Cell()
    assert c.w.name == "w"
    outer = nn.Cell()
    outer.inner = c
    assert c.w.name == "inner.w"


def test_trainable_params_and_requires_grad():
    net = Net()
    net.block.w.requires_grad = False
    assert all(p is not net.block.w for p in net.trainable_params())
    assert [p.name for p in net.untrainable_params()] == ["block.w"]
    assert len(net.trainable_params()) == 5
    assert list(net.parameters_dict()) == [p.name for p in net.get_parameters()]


def test_shared_parameter_listed_once():
    shared = Parameter(Tensor([1.0]), name="s")
    c = nn.Cell()
    c.a = shared
    c.b = shared
    assert [n for n, _ in c.parameters_and_names()] == ["a"]


def test_reassignment_rules():
    c = nn.Cell()
    c.p = Parameter(Tensor([1.0]), name="p")
    with pytest.raises(TypeError, match="Parameter"):
        c.p = Tensor([2.0])
    c.p = None
    assert c.p is None and list(c.parameters_and_names()) == []
    c.sub = nn.ReLU()
    c.sub = 3  # a plain value replaces the cell
    assert c.sub == 3 and list(c.cells()) == []
    c.x = Parameter(Tensor([1.0]), name="x")
    del c.x
    with pytest.raises(AttributeError):
        _ = c.x
    with pytest.raises(AttributeError, match="nothing"):
        _ = c.nothing


def test_missing_super_init_still_registers():
    class Lazy(nn.Cell):
        def __init__(self):  # no super().__init__()
            self.w = Parameter(Tensor([1.0]))

    assert [n for n, _ in Lazy().parameters_and_names()] == ["w"]


def test_insert_child_and_param():
    c = nn.Cell()
    c.insert_child_to_cell("fc", nn.Dense(2, 2))
    c.insert_param_to_cell("p", Parameter(Tensor([1.0])))
    # a Cell's own Parameters come before its children's, as in MindSpore
    assert [n for n, _ in c.parameters_and_names()] == ["p", "fc.weight", "fc.bias"]
    assert c.fc.weight.name == "fc.weight"
    with pytest.raises(TypeError):
        c.insert_child_to_cell("bad", 3)
    with pytest.raises(KeyError):
        c.insert_child_to_cell("a.b", nn.ReLU())
    with pytest.raises(KeyError):
        c.insert_param_to_cell("a.b", Parameter(Tensor([1.0])))


def test_pynative_call_runs_construct():
    net = Net()
    x = np.ones((1, 2), np.float32)
    out = net(Tensor(x))
    b = net.block
    h = (x @ b.w.asnumpy()) @ b.fc.weight.asnumpy().T + b.fc.bias.asnumpy()
    d = net.layers[0]
    ref = np.maximum(h @ d.weight.asnumpy().T + d.bias.asnumpy(), 0) * 2 + 1.0
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-6, atol=1e-7)


def test_graph_mode_call_and_compile_delegate(monkeypatch):
    calls = []
    monkeypatch.setattr(
        api, "run_cell", lambda cell, args, kwargs: calls.append(("run", args)) or 7
    )
    monkeypatch.setattr(api, "compile_cell", lambda cell, args: calls.append(("compile", args)))
    net = nn.ReLU()
    x = Tensor([1.0])
    assert net(x).asnumpy().tolist() == [1.0]  # PyNative: construct
    ms.set_context(mode=ms.GRAPH_MODE)
    assert net(x) == 7
    net.compile(x)
    assert calls == [("run", (x,)), ("compile", (x,))]


def test_construct_source_is_readable():
    for cls in (nn.Dense, nn.ReLU, nn.Tanh, nn.Sigmoid, nn.SequentialCell):
        assert "def construct" in inspect.getsource(cls.construct)


def test_base_construct_is_missing():
    with pytest.raises(AttributeError, match="construct"):
        nn.Cell()(1)


def test_set_train_and_jit_config():
    net = Net()
    assert net.training is False
    assert net.set_train() is net
    assert net.training and net.block.fc.training
    net.set_train(False)
    assert not net.block.training
    cfg = ms.JitConfig(jit_level="O0")
    net.set_jit_config(cfg)
    assert net._jit_config is cfg and net.jit_config_dict["jit_level"] == "O0"
    with pytest.raises(TypeError):
        net.set_jit_config({"jit_level": "O0"})


# --- containers ---------------------------------------------------------------------------------


def test_cell_list_api():
    cl = nn.CellList([nn.Dense(2, 2), nn.ReLU()])
    assert len(cl) == 2
    cl.append(nn.Tanh())
    cl.extend([nn.Sigmoid()])
    cl.insert(0, nn.Dense(2, 2))
    assert [type(c).__name__ for c in cl] == ["Dense", "Dense", "ReLU", "Tanh", "Sigmoid"]
    assert isinstance(cl[-1], nn.Sigmoid) and isinstance(cl[0], nn.Dense)
    assert [n for n, _ in cl.parameters_and_names()] == [
        "0.weight",
        "0.bias",
        "1.weight",
        "1.bias",
    ]
    assert [p.name for p in cl.get_parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias"]
    view = cl[1:3]
    assert isinstance(view, nn.CellList) and len(view) == 2
    assert cl[1].weight.name == "1.weight"  # slicing does not rename
    del cl[0]
    assert cl[0].weight.name == "0.weight" and len(cl) == 4
    cl[1] = nn.Dense(2, 2)
    assert cl[1].weight.name == "1.weight"
    with pytest.raises(IndexError):
        cl[10]
    with pytest.raises(TypeError):
        cl.append(3)


def test_get_parameters_is_parameters_and_names_without_names():
    """Shared Cells and Parameters come once, in the same order."""
    net = Net()
    net.again = net.block
    net.block.fc.tied = net.named
    assert list(net.get_parameters()) == [p for _, p in net.parameters_and_names()]
    assert len(list(net.get_parameters())) == 6
    assert list(net.block.get_parameters(expand=False)) == [net.block.w]


def test_cell_list_names_under_parent():
    net = nn.Cell()
    net.blocks = nn.CellList()
    net.blocks.append(nn.Dense(2, 2))
    net.blocks.insert(0, nn.Dense(2, 2))
    assert [p.name for p in net.get_parameters()] == [
        "blocks.0.weight",
        "blocks.0.bias",
        "blocks.1.weight",
        "blocks.1.bias",
    ]


def test_sequential_cell():
    seq = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    ref = x
    for cell in seq:
        if isinstance(cell, nn.Dense):
            ref = ref @ cell.weight.asnumpy().T + cell.bias.asnumpy()
        else:
            ref = np.maximum(ref, 0)
    np.testing.assert_allclose(seq(Tensor(x)).asnumpy(), ref, rtol=1e-6)
    assert len(seq) == 3 and seq.cell_list == tuple(seq)
    named = nn.SequentialCell(OrderedDict([("dense", nn.Dense(3, 2)), ("act", nn.Tanh())]))
    assert [n for n, _ in named.parameters_and_names()] == ["dense.weight", "dense.bias"]
    assert named(Tensor(x)).shape == (2, 2)
    varargs = nn.SequentialCell(nn.ReLU(), nn.Tanh())
    assert len(varargs) == 2
    varargs.append(nn.Sigmoid())
    assert len(varargs) == 3


# --- layers -----------------------------------------------------------------------------------------


def test_dense_defaults():
    d = nn.Dense(3, 4)
    assert d.weight.shape == (4, 3) and d.bias.shape == (4,)
    assert d.weight.dtype == ms.float32
    assert d.weight.name == "weight" and d.bias.name == "bias"
    assert np.all(d.bias.asnumpy() == 0)
    w = d.weight.asnumpy()
    assert 0 < w.std() < 0.05  # N(0, 0.01)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(d(Tensor(x)).asnumpy(), x @ w.T, rtol=1e-6, atol=1e-7)
    assert repr(d) == "Dense<input_channels=3, output_channels=4, has_bias=True>"


def test_dense_initializers_and_activation():
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    d = nn.Dense(3, 2, weight_init=Tensor(w), bias_init=np.array([1.0, -1.0]), activation="relu")
    x = np.array([[1.0, -2.0, 0.5]], np.float32)
    np.testing.assert_allclose(d(Tensor(x)).asnumpy(), np.maximum(x @ w.T + [1.0, -1.0], 0))
    d = nn.Dense(3, 2, weight_init="ones", has_bias=False, activation=nn.Tanh())
    assert not hasattr(d, "bias") or "bias" not in d._params
    np.testing.assert_allclose(d(Tensor(x)).asnumpy(), np.tanh(x @ np.ones((3, 2))), rtol=1e-6)
    assert nn.Dense(3, 2, weight_init=0.5).weight.asnumpy().tolist() == [[0.5] * 3] * 2
    assert nn.Dense(3, 2, dtype=ms.float16).weight.dtype == ms.float16
    # 1-D and batched inputs
    assert nn.Dense(3, 2)(Tensor(x[0])).shape == (2,)
    assert nn.Dense(3, 2)(Tensor(np.zeros((4, 5, 3), np.float32))).shape == (4, 5, 2)
    with pytest.raises(ValueError):
        nn.Dense(3, 2, weight_init=np.zeros((3, 3)))
    with pytest.raises(KeyError):
        nn.Dense(3, 2, activation="gelu2")


def test_dense_weights_are_reproducible():
    ms.set_seed(3)
    a = nn.Dense(4, 4).weight.asnumpy().copy()
    ms.set_seed(3)
    b = nn.Dense(4, 4).weight.asnumpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(nn.Dense(4, 4).weight.asnumpy(), b)


def test_activations():
    x = np.array([-2.0, 0.0, 3.0], np.float32)
    np.testing.assert_allclose(nn.ReLU()(Tensor(x)).asnumpy(), np.maximum(x, 0))
    np.testing.assert_allclose(nn.Tanh()(Tensor(x)).asnumpy(), np.tanh(x), rtol=1e-6)
    np.testing.assert_allclose(nn.Sigmoid()(Tensor(x)).asnumpy(), 1 / (1 + np.exp(-x)), rtol=1e-6)


def test_cell_repr():
    net = nn.SequentialCell([nn.Dense(2, 3), nn.ReLU()])
    assert repr(net) == (
        "SequentialCell<\n  (0): Dense<input_channels=2, output_channels=3, has_bias=True>\n"
        "  (1): ReLU<>\n  >"
    )
