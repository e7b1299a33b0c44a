"""Programs for test_vmap (graph mode reads their source from this file)."""

from __future__ import annotations

import mindjit as ms
from mindjit import Tensor, nn, ops


def affine(x, w, b):
    return ops.matmul(x.reshape((1, 3)), w).reshape((4,)) + b


def two_outputs(x, scale):
    s = x.sum()
    return x * scale - s, (ops.exp(x), s)


def vm_affine(x, w, b):
    return ms.vmap(affine, in_axes=(1, None, 0), out_axes=1)(x, w, b)


def vm_two_outputs(x):
    return ms.vmap(two_outputs, in_axes=(0, None), out_axes=(0, (1, 0)))(x, 2.0)


def vm_nested(x):
    return ms.vmap(ms.vmap(ops.tanh), in_axes=-1)(x)


def vm_negative_out_axis(x):
    return ms.vmap(ops.neg, out_axes=-1)(x)


class Scaled(nn.Cell):
    """A Cell's Parameter is shared by every example."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor([1.0, -2.0, 0.5], ms.float32), name="w")

    def construct(self, x):
        return ms.vmap(self.one)(x)

    def one(self, row):
        return row * self.w + row.max()


def branchy(v):
    if v.sum() > 0:
        return v
    return -v


def with_if(x):
    return ms.vmap(branchy)(x)


def looping(v):
    while v.sum() < 10:
        v = v * 2
    return v


def with_while(x):
    return ms.vmap(looping)(x)


def counted(x, n):
    i = Tensor(0, ms.int32)
    while i < n:
        x = ops.sin(x) * x + x
        i = i + 1
    return x.sum()


def vmap_grad_counted(x, n):
    return ms.vmap(ms.grad(counted), in_axes=(0, None))(x, n)


def squaring_until_large(x):
    while x.sum() < 10.0:
        x = x * x + 0.5
    return x.sum()


def vmap_grad_per_example(x):
    return ms.vmap(ms.grad(squaring_until_large))(x)


def vm_keyword(x):
    return ms.vmap(ops.neg)(input=x)


def scaled_and_weight(x, w):
    return x * w, ops.exp(w)


def vm_out_axes_none(x, w):
    """The second output only depends on the shared w: out_axes None returns it once."""
    return ms.vmap(scaled_and_weight, in_axes=(0, None), out_axes=(0, None))(x, w)


def vm_out_axes_none_batched(x, w):
    return ms.vmap(scaled_and_weight, in_axes=(0, None), out_axes=(None, None))(x, w)
