"""The jit_class examples of 'Advanced Programming Techniques for Static Graphs' (doc 000)."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
import mindjit.nn as nn


def test_class_attribute_tensor(capsys):
    @ms.jit_class
    class InnerNet:
        value = ms.Tensor(np.array([1, 2, 3]))

    class Net(nn.Cell):
        def construct(self):
            return InnerNet().value

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    out = net()
    print(out)
    assert capsys.readouterr().out == "[1 2 3]\n"


def test_decorating_a_cell_raises():
    with pytest.raises(TypeError) as info:

        @ms.jit_class
        class Net(nn.Cell):
            def construct(self, x):
                return x

    assert str(info.value) == (
        "Decorator jit_class is used for user-defined classes and cannot be used for nn.Cell: Net<>."
    )


def test_nested_jit_classes(capsys):
    @ms.jit_class
    class Inner:
        def __init__(self):
            self.value = ms.Tensor(np.array([1, 2, 3]))

    @ms.jit_class
    class InnerNet:
        def __init__(self):
            self.inner = Inner()

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner_net = InnerNet()

        def construct(self):
            out = self.inner_net.inner.value
            return out

    ms.set_context(mode=ms.GRAPH_MODE)
    print(Net()())
    assert capsys.readouterr().out == "[1 2 3]\n"


def test_attributes_and_methods(capsys):
    @ms.jit_class
    class InnerNet:
        def __init__(self, val):
            self.number = val

        def act(self, x, y):
            return self.number * (x + y)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner_net = InnerNet(2)

        def construct(self, x, y):
            return self.inner_net.number + self.inner_net.act(x, y)

    ms.set_context(mode=ms.GRAPH_MODE)
    x = ms.Tensor(2, dtype=ms.int32)
    y = ms.Tensor(3, dtype=ms.int32)
    out = Net()(x, y)
    print(out)
    assert capsys.readouterr().out == "12\n"
    assert out.dtype == ms.int32


def test_create_instance_in_construct(capsys):
    @ms.jit_class
    class InnerNet:
        def __init__(self, val):
            self.number = val + 3

    class Net(nn.Cell):
        def construct(self):
            net = InnerNet(2)
            return net.number

    ms.set_context(mode=ms.GRAPH_MODE)
    print(Net()())
    assert capsys.readouterr().out == "5\n"


def test_call_instance(capsys):
    @ms.jit_class
    class InnerNet:
        def __init__(self, number):
            self.number = number

        def __call__(self, x, y):
            return self.number * (x + y)

    class Net(nn.Cell):
        def construct(self, x, y):
            net = InnerNet(2)
            out = net(x, y)
            return out

    ms.set_context(mode=ms.GRAPH_MODE)
    x = ms.Tensor(2, dtype=ms.int32)
    y = ms.Tensor(3, dtype=ms.int32)
    print(Net()(x, y))
    assert capsys.readouterr().out == "10\n"


def test_call_instance_without_call_raises():
    @ms.jit_class
    class InnerNet:
        def __init__(self, number):
            self.number = number

    class Net(nn.Cell):
        def construct(self, x, y):
            net = InnerNet(2)
            out = net(x, y)
            return out

    ms.set_context(mode=ms.GRAPH_MODE)
    x = ms.Tensor(2, dtype=ms.int32)
    y = ms.Tensor(3, dtype=ms.int32)
    with pytest.raises(ValueError) as info:
        Net()(x, y)
    assert (
        str(info.value)
        == "MsClassObject: 'InnerNet' has no __call__ function, please check the code."
    )
