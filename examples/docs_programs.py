"""The programs of MindSpore's compile-performance docs ("Using select Operator",
...), as the docs write them: benchmarks/compile_techniques.py measures them and
the tests check their results."""

from __future__ import annotations

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
