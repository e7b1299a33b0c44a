"""Programs for test_hyper_map_batched (graph mode reads their source from this file)."""

from __future__ import annotations

import numpy as np
from hyper_map_programs import add_map  # `add` on Tensor and Number pairs

import mindjit as ms
from mindjit import nn, ops
from mindjit.ops import HyperMap, MultitypeFuncGraph

LIST1 = [ms.Tensor(i) for i in range(200)]
LIST2 = [ms.Tensor(2 * i) for i in range(200)]


def docs_net():
    """The docs' HyperMap over two lists of 200 constant tensors."""
    return add_map(LIST1, LIST2)


def mixed_shapes_net(a, b, c):
    """Three types, interleaved, plus numbers: elements 0 and 2 form a group, the
    others are calls of their own, the numbers fold."""
    return add_map((a, b, a, c, 1), (a, b, a, c, 2))


def pair(x, y):
    return x * y, ops.reduce_sum(x - y)


def tuple_results_net(xs, ys):
    return HyperMap(pair)(xs, ys)


def chained_net(x):
    """The second map takes the first one's pieces: they are stacked already."""
    first = HyperMap(ops.exp)(ops.unstack(x))
    return HyperMap(ops.neg)(first)


def used_in_graph_net(x):
    """Mapped results used by the graph, not returned."""
    out = HyperMap(ops.tanh)(ops.unstack(x))
    return out[0] + out[2] * 2, ops.addn(out)


def shared_column_net(x, w):
    """One argument is the same tensor for every element: not stacked."""
    return HyperMap(ops.mul)(ops.unstack(x), (w, w, w))


def printing(x):
    print("element", x)
    return x + 1


def print_net(x):
    """A function with an io effect: traced once per element, in order."""
    return HyperMap(printing)(ops.unstack(x))


def looping(x):
    while x.sum() < 10:
        x = x * 2
    return x


def loop_net(x):
    """No batching rule for a loop: traced once per element."""
    return HyperMap(looping)(ops.unstack(x))


class Accumulate(nn.Cell):
    """A map whose function assigns a Parameter: effects keep their order."""

    def __init__(self, reverse):
        super().__init__()
        self.total = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="total")
        self.map = HyperMap(self.accumulate, reverse)

    def accumulate(self, x):
        ops.assign(self.total, self.total * 2 + x)
        return self.total + 0

    def construct(self, x):
        return self.map(ops.unstack(x))


class ParameterMap(nn.Cell):
    """A map over Parameters (read, not stacked)."""

    def __init__(self):
        super().__init__()
        self.a = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="a")
        self.b = ms.Parameter(ms.Tensor(np.full(2, 3.0, np.float32)), name="b")

    def construct(self, x):
        return HyperMap(ops.mul)((self.a, self.b), (x, x))


# --- functions the random test maps (tests/frontend/test_hyper_map_batched.py) -------------

mixed = MultitypeFuncGraph("mixed")


@mixed.register("Tensor", "Tensor")
def mixed_tensors(x, y):
    if x.sum() > y.sum():  # a tensor condition: a select once batched
        return ops.tanh(x) * y
    return ops.reshape(ops.matmul(ops.reshape(x, (1, -1)), ops.reshape(y, (-1, 1))), (1,)) + x


@mixed.register("Tensor", "Number")
def mixed_number(x, y):
    return ops.reduce_max(x * y, -1), ops.transpose(ops.broadcast_to(x, (2, x.shape[0])), (1, 0))


def random_map(xs, ys, zs):
    return HyperMap(mixed)(xs, ys), HyperMap(mixed)(xs, zs)


def shape_of(x):
    return x.shape[0]


def constant_results_net(x):
    """The function gives numbers, not tensors: traced per element."""
    return HyperMap(shape_of)(ops.unstack(x))


def wrong_shapes(x):
    return ops.matmul(x, ops.reshape(x, (1, -1)))


def error_net(x):
    """An error in a function traced for a group: located, nothing left behind."""
    return HyperMap(wrong_shapes)(ops.unstack(x))
