"""An argument object whose attributes the graph folds is keyed by their values: after
the attribute changes, graph mode gives PyNative's (the new value's) result, not the
first program's. Before, a config object, a `jit_class` instance or a dataclass kept
the program of its first call: a silently wrong result."""

from __future__ import annotations

import dataclasses

import numpy as np

import mindjit as ms
from mindjit import nn
from mindjit.frontend.graph import api
from mindjit.frontend.structure import signature_of


def ones():  # type: ignore[no-untyped-def]
    return ms.Tensor(np.ones(2, np.float32))


class Config:
    def __init__(self, scale: float) -> None:
        self.scale = scale


@ms.jit_class
class JitConfig:
    def __init__(self, scale: float) -> None:
        self.scale = scale


@dataclasses.dataclass
class DataConfig:  # eq=True and not frozen: unhashable
    scale: float


def test_a_changed_attribute_of_each_kind_of_object_gives_the_new_result():
    @ms.jit
    def f(x, c):
        return x * c.scale

    for make in (Config, JitConfig, DataConfig):
        c = make(2.0)
        assert f(ones(), c).asnumpy().tolist() == [2.0, 2.0]
        c.scale = 3.0
        assert f(ones(), c).asnumpy().tolist() == [3.0, 3.0], make.__name__
        c.scale = 2.0  # back to the first value: the first program again
        assert f(ones(), c).asnumpy().tolist() == [2.0, 2.0]


def test_an_unchanged_object_reuses_its_program():
    @ms.jit
    def f(x, c):
        return x + c.scale

    c = Config(1.0)
    f(ones(), c)
    before = len(api.cached_programs())
    for _ in range(3):
        assert f(ones(), c).asnumpy().tolist() == [2.0, 2.0]
    assert len(api.cached_programs()) == before


def test_a_tensor_attribute_is_keyed_by_its_contents():
    @ms.jit
    def f(x, c):
        return x * c.scale

    c = Config(ms.Tensor(np.full(2, 2.0, np.float32)))
    assert f(ones(), c).asnumpy().tolist() == [2.0, 2.0]
    c.scale = ms.Tensor(np.full(2, 5.0, np.float32))
    assert f(ones(), c).asnumpy().tolist() == [5.0, 5.0]


def test_an_object_argument_of_a_cell_is_keyed_by_its_attributes():
    ms.set_context(mode=ms.GRAPH_MODE)

    class Net(nn.Cell):
        def construct(self, x, c):
            return x * c.scale

    net, c = Net(), Config(2.0)
    assert net(ones(), c).asnumpy().tolist() == [2.0, 2.0]
    c.scale = 4.0
    assert net(ones(), c).asnumpy().tolist() == [4.0, 4.0]


def test_an_object_that_refers_to_itself_has_a_finite_key():
    c = Config(2.0)
    c.me = c  # type: ignore[attr-defined]
    first = signature_of(c)
    assert first == signature_of(c)
    c.scale = 3.0
    assert signature_of(c) != first


def test_cells_and_functions_are_keyed_by_identity_not_their_attributes():
    class Net(nn.Cell):
        def construct(self, x):
            return x

    net = Net()
    key = signature_of(net)
    net.extra = 1.0
    assert signature_of(net) == key
    assert signature_of(ones) == ("C", "function", ones)
