"""The programs of MindSpore's compile-performance docs ("Using select Operator",
...), as the docs write them: benchmarks/compile_techniques.py measures them and
the tests check their results."""

from __future__ import annotations

import mindjit as ms
from mindjit import ops


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
