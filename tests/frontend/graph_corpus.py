"""Small graph-mode programs: control flow, tuples, sub-cells, broadcasting.

Each entry runs in PYNATIVE_MODE (eagerly) and in GRAPH_MODE (compiled); the
differential test requires identical results. Kept in a module of its own so
graph mode can read the source, as it reads a user's file.
"""

from __future__ import annotations

import numpy as np

import mindjit as ms
from mindjit import nn, ops

RNG = np.random.default_rng(7)


def f32(*shape):
    return ms.Tensor(RNG.standard_normal(shape).astype(np.float32))


def i32(*shape):
    return ms.Tensor(RNG.integers(-5, 6, size=shape).astype(np.int32))


def helper_scale(x, k):
    return x * k + 1


def helper_pair(x, y):
    return x + y, x - y


def broadcast_add(x, b):
    return x + b


def scalars(x):
    return x * 2 + 1 - 0.5 / 2


def mlp(x, w, b):
    return ops.relu(ops.matmul(x, w) + b)


def tuple_out(x, y):
    return x * y, (x + y, x - y)


def tuple_unpack(pair):
    a, b = pair
    return a * b


def call_helper(x):
    return helper_scale(x, 3)


def call_twice(x, y):
    s, d = helper_pair(x, y)
    s2, d2 = helper_pair(s, d)
    return s2 * d2


def const_arg_if(x, flag):
    if flag:
        return x + 1
    return x - 1


def tensor_if_merge(x, y):
    z = x
    if x.sum() > y.sum():
        z = x * 2
    else:
        z = y * 3
    return z + 1


def tensor_if_return(x):
    if x.mean() > 0:
        return x * 2
    else:
        return x - 2


def early_return(x):
    if x.sum() > 0:
        return x
    y = x * x
    return y + 1


def elif_chain(x):
    s = x.sum()
    if s > 1:
        r = x + 1
    elif s > -1:
        r = x * 0
    else:
        r = x - 1
    return r


def for_range(x):
    acc = x
    for i in range(4):
        acc = acc + x * i
    return acc


def for_tuple(xs):
    total = 0
    for t in xs:
        total = total + t
    return total


def while_counter(x, n):
    i = ms.Tensor(0, ms.int32)
    while i < n:
        x = x * 2
        i = i + 1
    return x, i


def while_two_vars(a, b):
    while a.sum() < 100:
        a = a + b
        b = b + 1
    return a, b


def if_in_for(x, y):
    out = x
    for _ in range(5):
        if out.sum() > 0:
            out = out - y
        else:
            out = out + y
    return out


def list_stack(x):
    items = []
    for i in range(3):
        items.append(x * i)
    return ops.stack(items)


def indexing(x):
    return x[0], x[:, 1:3], x[-1, ::2], x[1]


def reductions(x):
    return ops.sum(x, 1, True), ops.mean(x, 0, False), ops.amax(x, -1, False), x.sum()


def shapes(x):
    return ops.reshape(x, (3, 4)), ops.transpose(x, (1, 0)), x.reshape(-1)


def joins(x, y):
    return ops.concat((x, y), 0), ops.stack((x, y), 1)


def unstack_addn(x):
    a, b, c = ops.unstack(x, 1)
    return ops.addn((a, b * 2, c)), ops.unstack(x)[1]


def casts(x):
    return ops.cast(x, ms.int32), (x > 0), ops.cast(x > 0, ms.float32) * x


def selects(x, y):
    return ops.select(x > y, x, y)


def ifexp(x):
    y = x * 2 if x.sum() > 0 else x / 2
    return y


def bool_ops(x, y):
    both = (x > 0) & (y > 0)
    return ops.select(both, x, y)


def unary_chain(x):
    return ops.sigmoid(ops.tanh(ops.exp(x) - 1)) + ops.log(ops.abs(x) + 1) + x.sin() * ops.cos(x)


def rounding_and_erf(x):
    y = x * 3
    return ops.floor(y) + y.ceil() + ops.round(y) + ops.erf(x) + ops.gelu(x)


def shape_constants(x):
    n = x.shape[0]
    return x * n + len(x.shape)


def while_float_and_int(x):
    i = 0
    acc = x
    while acc.sum() < 50:
        acc = acc * 1.5 + 1
        i = i + 1
    return acc, i


def if_one_branch_changes(x):
    y = x + 1
    if x.max() > 0.5:
        y = y * 10
    return y


def chained_constants(x):
    if 0 < 1 < 2:
        return x + 1
    return x


def maximum_minimum(x, y):
    return ops.maximum(x, y) - ops.minimum(x, y) + ops.sqrt(ops.abs(x))


def int_arith(a, b):
    return a + b * 2, a - b, a * b


class Block(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.dense = nn.Dense(n, n)
        self.act = nn.ReLU()

    def construct(self, x):
        return self.act(self.dense(x))


class Stack(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([Block(4) for _ in range(3)])

    def construct(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class Sequential(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = nn.SequentialCell([nn.Dense(4, 8), nn.Tanh(), nn.Dense(8, 2)])

    def construct(self, x):
        return self.body(x)


class Reuse(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block(4)

    def construct(self, x):
        return self.block(self.block(x)) + self.block(x)


@ms.jit_class
class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        return x * self.k


class UsesJitClass(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scaler = Scaler(3.0)

    def construct(self, x):
        return self.scaler.apply(x) + 1


def dropouts(x):
    a = ops.dropout(x, 0.5)
    b = ops.dropout(x * 2, p=0.2, seed=4)
    c = ops.dropout(x, 0.9, training=False)
    out, mask = ops.Dropout(keep_prob=0.7, Seed0=1, Seed1=2)(x)
    return a + b + c, out, mask


class DropoutCell(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 6)
        self.drop = nn.Dropout(p=0.3)
        self.drop.set_train()

    def construct(self, x):
        return self.drop(self.fc(x)) + self.drop(x).sum()


def losses(x, t, y):
    t = ops.minimum(ops.abs(t), 3)  # class indices in [0, 4) for any int input
    ce = ops.cross_entropy(x, t, label_smoothing=0.1)
    ce_w = ops.cross_entropy(x, t, ms.Tensor(np.arange(1, 5, dtype=np.float32)), 2, "none")
    nll = ops.nll_loss(ops.log_softmax(x, 1), t, reduction="sum")
    soft = ops.cross_entropy(x, ops.softmax(y, 1), reduction="none")
    return ce, ce_w, nll, soft, ops.l1_loss(x, y), ops.smooth_l1_loss(x, y, 0.5, "mean")


FUNCTIONS = {
    "broadcast_add": (broadcast_add, lambda: (f32(2, 3), f32(3))),
    "scalars": (scalars, lambda: (f32(4),)),
    "mlp": (mlp, lambda: (f32(2, 3), f32(3, 4), f32(4))),
    "tuple_out": (tuple_out, lambda: (f32(3), f32(3))),
    "tuple_unpack": (tuple_unpack, lambda: ((f32(2), f32(2)),)),
    "call_helper": (call_helper, lambda: (f32(3),)),
    "call_twice": (call_twice, lambda: (f32(3), f32(3))),
    "const_arg_if_true": (const_arg_if, lambda: (f32(3), True)),
    "const_arg_if_false": (const_arg_if, lambda: (f32(3), False)),
    "tensor_if_merge": (tensor_if_merge, lambda: (f32(4), f32(4))),
    "tensor_if_return": (tensor_if_return, lambda: (f32(5),)),
    "early_return": (early_return, lambda: (f32(5),)),
    "elif_chain": (elif_chain, lambda: (f32(3),)),
    "for_range": (for_range, lambda: (f32(2, 2),)),
    "for_tuple": (for_tuple, lambda: ((f32(3), f32(3), f32(3)),)),
    "while_counter": (while_counter, lambda: (f32(2), ms.Tensor(5, ms.int32))),
    "while_two_vars": (while_two_vars, lambda: (ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 1.0]))),
    "if_in_for": (if_in_for, lambda: (f32(3), f32(3))),
    "list_stack": (list_stack, lambda: (f32(2),)),
    "indexing": (indexing, lambda: (f32(3, 4),)),
    "reductions": (reductions, lambda: (f32(3, 4),)),
    "shapes": (shapes, lambda: (f32(4, 3),)),
    "joins": (joins, lambda: (f32(2, 3), f32(2, 3))),
    "unstack_addn": (unstack_addn, lambda: (f32(2, 3),)),
    "casts": (casts, lambda: (f32(5) * 3,)),
    "selects": (selects, lambda: (f32(4), f32(4))),
    "ifexp": (ifexp, lambda: (f32(3),)),
    "bool_ops": (bool_ops, lambda: (f32(5), f32(5))),
    "unary_chain": (unary_chain, lambda: (f32(6),)),
    "rounding_and_erf": (rounding_and_erf, lambda: (f32(6),)),
    "shape_constants": (shape_constants, lambda: (f32(3, 2),)),
    "while_float_and_int": (while_float_and_int, lambda: (ms.Tensor([1.0, 2.0]),)),
    "if_one_branch_changes": (if_one_branch_changes, lambda: (f32(4),)),
    "chained_constants": (chained_constants, lambda: (f32(2),)),
    "maximum_minimum": (maximum_minimum, lambda: (f32(4), f32(4))),
    "int_arith": (int_arith, lambda: (i32(3), i32(3))),
    "dropouts": (dropouts, lambda: (f32(5, 6),)),
    "losses": (
        losses,
        lambda: (f32(5, 4), ms.Tensor(np.array([0, 3, 2, 2, 1], np.int32)), f32(5, 4)),
    ),
}

CELLS = {
    "cell_list": (Stack, lambda: (f32(2, 4),)),
    "sequential": (Sequential, lambda: (f32(3, 4),)),
    "reuse_sub_cell": (Reuse, lambda: (f32(2, 4),)),
    "jit_class_method": (UsesJitClass, lambda: (f32(3),)),
    "dropout_cell": (DropoutCell, lambda: (f32(3, 4),)),
}
