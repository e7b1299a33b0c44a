"""Programs graph mode must reject with a located error (read by test_graph_errors)."""

from __future__ import annotations

import mindjit as ms
from mindjit import ops

COUNTER = [0]


def uses_try(x):
    try:  # LINE: try
        return x + 1
    except ValueError:
        return x


def uses_with(x):
    with open("f") as f:  # LINE: with
        return x + len(f.read())


def uses_global(x):
    global COUNTER  # LINE: global
    return x


def uses_tensor_index(x, i):
    return x[i]  # LINE: index


def uses_undefined(x):
    return x + not_defined_anywhere  # noqa: F821  LINE: undefined


def uses_raise(x):
    raise ValueError("no")  # LINE: raise


def branch_types_differ(x):
    if x.sum() > 0:  # LINE: branches
        y = x
    else:
        y = ops.reshape(x, (1, 3))
    return y


def creates_jit_class_from_tensor(x):
    return Holder(x).k  # LINE: jit_class_args


@ms.jit_class
class Holder:
    def __init__(self, k):
        self.k = k


def ambiguous_condition(x):
    if x > 0:  # LINE: ambiguous
        return x
    return -x
