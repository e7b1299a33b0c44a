"""nn.CellDict (issue 38): MindSpore 2.x's dict of Cells, its Parameter names, its
use in construct in both modes (indexing, iteration, items, len, in) and training
through it, and MindSpore's errors for bad keys and values."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellDict({"dense": nn.Dense(3, 2), "relu": nn.ReLU()})
        self.blocks["tanh"] = nn.Tanh()

    def construct(self, x):
        y = self.blocks["dense"](x)
        for name in self.blocks:
            if name != "dense":
                y = self.blocks[name](y)
        names = ()
        for key, _ in self.blocks.items():
            names = names + (key,)
        if "relu" in self.blocks and names[0] == "dense":
            y = y + len(self.blocks)
        for cell in self.blocks.values():
            if not isinstance(cell, nn.Dense):
                y = cell(y)
        return y


def test_names_order_and_dict_methods():
    net = Net()
    # MindSpore 2.10 prints ['blocks.dense.weight', 'blocks.dense.bias'] and this order
    assert [p.name for p in net.trainable_params()] == ["blocks.dense.weight", "blocks.dense.bias"]
    assert list(net.blocks.keys()) == ["dense", "relu", "tanh"]
    assert list(net.blocks) == ["dense", "relu", "tanh"]
    assert len(net.blocks) == 3 and "tanh" in net.blocks and "x" not in net.blocks
    assert isinstance(net.blocks.pop("tanh"), nn.Tanh) and len(net.blocks) == 2
    d = nn.CellDict([("a", nn.ReLU()), ["b", nn.Tanh()]])
    d.update(OrderedDict(c=nn.Sigmoid()))
    assert [k for k, _ in d.items()] == ["a", "b", "c"]
    del d["a"]
    assert list(d.keys()) == ["b", "c"]
    d.clear()
    assert len(d) == 0


def test_construct_in_both_modes():
    net = Net()
    x = Tensor(np.random.default_rng(0).random((4, 3)).astype(np.float32))
    w, b = net.blocks["dense"].weight.asnumpy(), net.blocks["dense"].bias.asnumpy()
    want = np.tanh(np.maximum(x.asnumpy() @ w.T + b, 0)) + 3
    want = np.tanh(np.maximum(want, 0))
    eager = net(x).asnumpy()
    np.testing.assert_allclose(eager, want, rtol=1e-6)
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(x).asnumpy(), eager, rtol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_training_through_a_cell_dict(mode):
    class Model(nn.Cell):
        def __init__(self):
            super().__init__()
            self.heads = nn.CellDict({"a": nn.Dense(3, 2), "b": nn.Dense(2, 1)})

        def construct(self, x):
            return self.heads["b"](self.heads["a"](x))

    net = Model()
    train = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1)
    )
    x = Tensor(np.random.default_rng(1).random((8, 3)).astype(np.float32))
    y = Tensor(np.ones((8, 1), np.float32))
    ms.set_context(mode=mode)
    losses = [float(train(x, y).asnumpy()) for _ in range(5)]
    assert losses[-1] < losses[0]
    assert [p.name for p in net.trainable_params()] == [
        "heads.a.weight",
        "heads.a.bias",
        "heads.b.weight",
        "heads.b.bias",
    ]


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda d: d.__setitem__(1, nn.ReLU()), TypeError, "the type of key should be string"),
        (lambda d: d.__setitem__("a.b", nn.ReLU()), KeyError, "can not contain"),
        (lambda d: d.__setitem__("", nn.ReLU()), KeyError, "empty string"),
        (lambda d: d.__setitem__("training", nn.ReLU()), KeyError, "attributes of Cell"),
        (lambda d: d.__setitem__("x", nn.CellList()), TypeError, "can not be CellDict, CellList"),
        (lambda d: d.__setitem__("x", 3), TypeError, "the type of cell should be Cell"),
        (lambda d: d.__setitem__("x", None), TypeError, "cell can not be None"),
        (lambda d: d.update([("a",)]), ValueError, "length should be 2"),
        (lambda d: d.update(3), TypeError, "iterable of key-value pairs"),
        (lambda d: d["missing"], KeyError, "missing"),
    ],
)
def test_bad_keys_and_cells_raise_mindspores_errors(call, error, match):
    d = nn.CellDict([("a", nn.ReLU())])
    with pytest.raises(error, match=match):
        call(d)
