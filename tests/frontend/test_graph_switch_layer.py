"""MindSpore's switch_layer in graph mode (issue 38): a tuple or CellList of Cells
indexed by a 0-d int tensor runs the Cell the index names (nested mindir.if ops),
negative indices count from the end, and an index out of range is an IndexError
when the graph runs. PyNative indexes a tuple through `Tensor.__index__`."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import nn


class TupleNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = (nn.Dense(3, 2), nn.Dense(3, 2), nn.Dense(3, 2))

    def construct(self, x, i):
        return self.layers[i](x) * 2


class ListNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(3, 2), nn.Dense(3, 2)])

    def construct(self, x, i):
        return self.layers[i](x)


class FloatIndex(ListNet):
    def construct(self, x, i):
        return self.layers[i.astype(ms.float32)](x)


X = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)


def _dense(cell, x):
    return x @ cell.weight.asnumpy().T + cell.bias.asnumpy()


@pytest.mark.parametrize("i", [0, 1, 2, -1, -3])
def test_tuple_of_cells_by_a_tensor_matches_pynative(i: int) -> None:
    net = TupleNet()
    index = ms.Tensor(i, ms.int32)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = net(ms.Tensor(X), index).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = net(ms.Tensor(X), index).asnumpy()
    np.testing.assert_allclose(eager, _dense(net.layers[i], X) * 2, rtol=1e-5)
    np.testing.assert_allclose(graph, eager, rtol=1e-6)


def test_celllist_by_a_tensor_and_its_gradient() -> None:
    ms.set_context(mode=ms.GRAPH_MODE)
    net = ListNet()
    grad_fn = ms.value_and_grad(lambda x, i: net(x, i).sum(), None, net.trainable_params())
    loss, grads = grad_fn(ms.Tensor(X), ms.Tensor(1, ms.int32))
    np.testing.assert_allclose(loss.asnumpy(), _dense(net.layers[1], X).sum(), rtol=1e-5)
    names = [p.name for p in net.trainable_params()]
    by_name = dict(zip(names, (g.asnumpy() for g in grads)))
    np.testing.assert_allclose(by_name["layers.1.weight"], np.ones((2, 2)) @ X, rtol=1e-5)
    np.testing.assert_allclose(by_name["layers.1.bias"], [2.0, 2.0], rtol=1e-6)
    assert not by_name["layers.0.weight"].any() and not by_name["layers.0.bias"].any()


def test_index_out_of_range_is_an_index_error_at_run_time() -> None:
    ms.set_context(mode=ms.GRAPH_MODE)
    net = TupleNet()
    net(ms.Tensor(X), ms.Tensor(0, ms.int32))  # compiles
    with pytest.raises(IndexError, match="index out of range"):
        net(ms.Tensor(X), ms.Tensor(3, ms.int32))


def test_a_float_index_is_a_located_type_error() -> None:
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(TypeError, match="0-d int tensor") as info:
        FloatIndex()(ms.Tensor(X), ms.Tensor(0, ms.int32))
    assert "test_graph_switch_layer.py" in str(info.value)
