"""Programs graph mode must reject with a located error (read by test_graph_errors)."""

from __future__ import annotations

import mindjit as ms
from mindjit import nn, ops

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


# --- errors raised inside mindjit's own Cells and functions (issue 29 §6) -------------------
# Each is reported at the user's line, with the call chain down into mindjit's code.


class DenseWrongFeatures(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(5, 4)

    def construct(self, x):
        return self.dense(x)  # LINE: dense


DENSE = nn.Dense(5, 4)


@ms.jit
def dense_in_jit(x):
    return DENSE(x) * 2  # LINE: dense_jit


class LayerNormWrongShape(nn.Cell):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm((7,))

    def construct(self, x):
        return self.norm(x)  # LINE: layer_norm


class ConvWrongChannels(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def construct(self, x):
        y = x * 2
        return self.conv(y)  # LINE: conv


class ConvIntInput(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def construct(self, x):
        return self.conv(x)  # LINE: conv_dtype


def product(x, y):
    return x * y


@ms.jit
def grad_position_out_of_range(x, y):
    return ms.grad(product, grad_position=2)(x, y)  # LINE: grad_position


def grad_position_at_top_level(x, y):
    return ms.grad(product, grad_position=2)(x, y)  # LINE: grad_position_top


@ms.jit
class RecursiveConstruct(nn.Cell):
    def construct(self, x):
        return self.construct(x) + 1  # LINE: recursive


class RecursionWithoutBaseCase(nn.Cell):
    def construct(self, x, n):
        return self.construct(x, n + 1)  # LINE: no_base_case


class MutualFirst(nn.Cell):
    def __init__(self):
        super().__init__()
        self.second = MutualSecond()

    def construct(self, x):
        return self.second(x) * 2  # LINE: mutual_first


class MutualSecond(nn.Cell):
    def construct(self, x):
        return MUTUAL[0](x) + 1  # LINE: mutual_second


MUTUAL: list = []


@ms.jit
def recursive_function(x):
    return recursive_function(x - 1)  # LINE: recursive_fn


class RecursionWithBaseCase(nn.Cell):
    """Unrolled on the constant n, as MindSpore does: compiles."""

    def construct(self, x, n):
        if n == 0:
            return x
        return self.construct(x, n - 1) + 1
