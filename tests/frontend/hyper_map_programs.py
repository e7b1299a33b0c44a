"""Programs for test_hyper_map (graph mode reads their source from this file)."""

from __future__ import annotations

import mindjit as ms
from mindjit import ops
from mindjit.ops import HyperMap, MultitypeFuncGraph

add = MultitypeFuncGraph("add")


@add.register("Tensor", "Tensor")
def add_tensor(x, y):
    return ops.add(x, y)


@add.register("Number", "Number")
def add_number(x, y):
    return x + y


@add.register("Tensor", "Number")
def add_tensor_number(x, y):
    if y > 1:  # Python control flow on a constant inside the registered function
        return x * y
    return x - y


scale = MultitypeFuncGraph("scale")


@scale.register("Tensor")
def scale_tensor(x):
    if x.sum() > 0:  # a tensor condition: the registered function is its own graph
        return x * 2
    return -x


@scale.register("Tuple")
def scale_tuple(t):
    return t[0] + t[1]


add_map = HyperMap(add)
LIST1 = [ms.Tensor(i) for i in range(20)]
LIST2 = [ms.Tensor(2 * i) for i in range(20)]


def hyper_map_net():
    """The docs' program (20 pairs here)."""
    return add_map(LIST1, LIST2)


def nested_net(x, y):
    """Nested tuples, a function given at the call, numbers mixed in."""
    return HyperMap()(add, (x, (y, 2), [x, 3.0]), (y, (x, 5), [1.5, 4.0]))


def dispatch_net(x):
    return scale(x), scale((x, x)), HyperMap(scale)([x, -x])


def keyword_net(x):
    return add_map((x,), y=(x,))
