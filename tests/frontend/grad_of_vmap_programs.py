"""Programs for test_grad_of_vmap.py: gradients of vmaps, and deeper nestings of the two.

Module level, so that graph mode can read their source; each runs in PyNative
mode as it is."""

from __future__ import annotations

import numpy as np

import mindjit as ms
from mindjit import nn, ops

#: a weight the vmapped body captures from the module (a constant of the graph)
CAPTURED = ms.Tensor(np.linspace(-1.0, 1.0, 4))


def sin_x(x):
    return ops.sin(x) * x


def loss_axis0(x):
    return ms.vmap(sin_x)(x).sum()


def column_stats(c):
    return ops.tanh(c) * c.sum()


def loss_axis1(x):
    # columns in, columns out: in_axes 1, out_axes 1
    return (ms.vmap(column_stats, in_axes=1, out_axes=1)(x) * ops.cos(x)).sum()


def row_out_axis(r):
    return ops.exp(r * 0.5) + r


def loss_out_axis(x):
    # rows in, the batch axis of the result last (out_axes -1)
    y = ms.vmap(row_out_axis, out_axes=-1)(x)
    return (y * y).sum()


def affine_row(r, w):
    return ops.tanh(ops.matmul(r, w))


def loss_shared(x, w):
    # w is shared by every example (in_axes None): its gradient sums over the batch
    return (ms.vmap(affine_row, in_axes=(0, None))(x, w) ** 2).sum()


def captured_row(r):
    return ops.sin(r * CAPTURED).sum() * r


def loss_captured(x):
    return ms.vmap(captured_row)(x).mean()


def two_outputs(r):
    return r * r, ops.sigmoid(r).sum()


def loss_two_outputs(x):
    a, b = ms.vmap(two_outputs)(x)
    return a.sum() + (b * b).sum()


# --- deeper nestings -------------------------------------------------------------------------
def cube_sum(x):
    return (x * x * x).sum()


def loss_vmap_grad(x):
    # grad(vmap(grad(f))): the inner grad is expanded, then the vmap, then the outer grad
    return (ms.vmap(ms.grad(cube_sum))(x) * ops.sin(x)).sum()


def row_loss(r):
    return ms.vmap(sin_x)(r).sum()


def vmap_grad_vmap(x):
    # vmap(grad(vmap(f))): per row, the gradient of a vmap
    return ms.vmap(ms.grad(row_loss))(x)


def loss_grad_vmap_grad_vmap(x):
    # grad(vmap(grad(vmap(f)))): four levels
    return (ms.vmap(ms.grad(row_loss))(x) ** 2).sum()


class RowNet(nn.Cell):
    """A Cell whose Parameters every example shares."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.linspace(-0.5, 0.7, 12).reshape(4, 3)), name="w")
        self.b = ms.Parameter(ms.Tensor(np.array([0.1, -0.2, 0.3])), name="b")

    def construct(self, r):
        return ops.tanh(ops.matmul(r, self.w) + self.b)


class VmapLoss(nn.Cell):
    """The loss of a vmap over a Cell that reads Parameters."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x):
        y = ms.vmap(self.net)(x)
        return (y * y).sum()


class GradByList(nn.Cell):
    """GradOperation(get_by_list=True) through the vmap."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.params = net.trainable_params()
        self.grad = ops.GradOperation(get_all=True, get_by_list=True)

    def construct(self, x):
        return self.grad(self.net, self.params)(x)
