"""The programs of MindSpore's compile-performance docs ("Using HyperMap", "Using
select Operator", "Using Vmap for Batch Processing"), as the docs write them:
benchmarks/compile_techniques.py measures them and the tests check their results."""

from __future__ import annotations

import mindjit as ms
from mindjit import Tensor, ops
from mindjit.ops import HyperMap, MultitypeFuncGraph

add = MultitypeFuncGraph("add")


@add.register("Tensor", "Tensor")
def add_Tensor(x, y):  # noqa: N802 - the docs' name
    return ops.add(x, y)


add_map = HyperMap(add)
list1 = [Tensor(i) for i in range(200)]
list2 = [Tensor(i) for i in range(200)]


def hyper_map_net():
    output = add_map(list1, list2)
    return output


def for_loop_net():
    """The same 200 tensor additions, one by one (the docs' `for_loop_net` adds Python
    ints, which fold to constants and measure nothing)."""
    out = []
    for i in range(200):
        out.append(ops.add(list1[i], list2[i]))
    return out


def if_net(x, y):
    out = 0
    for _ in range(100):
        if x < y:
            x = x - y
        else:
            x = x + y
        out = out + x
    return out


def select_net(x, y):
    out = x
    for _ in range(100):
        cond = x < y
        x = ops.select(cond, x - y, x + y)
        out = out + x
    return out


def hswish_func(x):
    return ops.HSwish()(x)


def manually_batched(xs):
    output = []
    for i in range(xs.shape[0]):
        output.append(hswish_func(xs[i]))
    return ops.stack(output)


def vmap_batched(xs):
    """The docs' `vmap(hswish_func, in_axes=(0,))(x)`, compiled like `manually_batched`."""
    return ms.vmap(hswish_func, in_axes=(0,))(xs)
