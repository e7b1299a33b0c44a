"""Programs for test_array_ops (graph mode reads their source from this file).

Each forward takes its float inputs and `r`, a fixed random weight of the output's
shape, so that every output element matters to the gradient; `GRADS` holds the
@ms.jit functions taking the gradient of the same forwards in graph mode.
"""

from __future__ import annotations

import numpy as np

import mindjit as ms
from mindjit import Tensor, nn, ops

MASK = Tensor(np.array([[True, False, True, False]]))


def lstm_gates(x, c, r):
    """An LSTM cell's gate arithmetic: the pre-activations split four ways, unpacked."""
    i, f, g, o = ops.split(x, x.shape[1] // 4, 1)
    c2 = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
    return ops.sigmoid(o) * ops.tanh(c2) * r


def split_iterate(x, r):
    """Pieces iterated in a loop, from split (sections), chunk, Split and Tensor.split."""
    acc = 0.0
    for k, piece in enumerate(ops.split(x, [1, 3, 2], 0)):
        acc = acc + piece.sum(0) * (k + 1)
    for piece in ops.chunk(x, 3, 0):
        acc = acc + ops.exp(piece).sum(0)
    a, b = ops.Split(0, 2)(x)
    c, d = x.split(3)
    return (acc + (a * b).sum(0) - (c * d).sum(0)) * r


def tile_repeat(x, r):
    t = ops.tile(x, (2, 1, 2))  # (2, 2, 6)
    u = ops.repeat_interleave(x, 2, 1)  # (2, 6)
    v = x.repeat([1, 2], axis=0)  # (3, 3)
    w = ops.repeat_interleave(x, 3)  # (18,)
    e = ops.expand(x[:, :1], (2, 3)) + x[:1].expand_as(x)
    return (
        ((t.sum(0) * u).sum() + (e * e).sum()) * r
        + v.sum()
        + (w * w).sum()
        + ops.Tile()(x, (2, 2)).sum()
    )


def clamp_fill(x, r):
    a = ops.clamp(x, -0.5, 0.5)
    b = x.clip(None, 0.25) + ops.clip_by_value(x, clip_value_min=-0.3)
    c = ops.masked_fill(x, x > 0.6, 2.0) + x.masked_fill(MASK, 0.5)
    return (a * 3 + b + c * c) * r


def statistics(x, r):
    v = ops.var(x, 1, 1, True)  # (3, 1)
    s = ops.std(x, 0)  # (4,)
    vm, mm = ops.var_mean(x, (0, 1), True, True)
    sm, ms_ = ops.std_mean(x, -1)
    t = x.var() + x.std(1, 0, True).sum() + vm.sum() + mm.sum() + sm.sum() + ms_.sum()
    return (v * r + s + t).sum(1)


def norms(x, r):
    a = ops.norm(x) + ops.norm(x, 1) + ops.norm(x, float("inf")) + ops.norm(x, -float("inf"))
    b = ops.norm(x, "fro") + ops.norm(x, -1) + ops.norm(x, None, 1).sum()
    c = ops.norm(x, 3, 0) + ops.norm(x, 1, -1, True).sum() + x.norm(float("inf"), 1).sum()
    return (a + b + c) * r


def interpolations(x, r):
    a = ops.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True)
    b = ops.interpolate(x, size=(5, 7), mode="bilinear", align_corners=False)
    c = ops.interpolate(x, size=(5, 7), mode="nearest")
    d = ops.interpolate(x, scale_factor=2.0)[:, :, ::2, 1:8:2]  # exact repeat: (5, 4)
    e = ops.interpolate(x[:, :, 1], size=7, mode="linear")
    return (a + b * 2 + c * 3 + e[:, :, None]).sum((0, 1)) * r + d.sum()


def batch_matmuls(x, y, r):
    return (
        ops.bmm(x, y)
        + ops.BatchMatMul()(x, y) * 2
        + ops.BatchMatMul(False, True)(x, y.transpose(0, 2, 1))
    ) * r


class Upsampler(nn.Cell):
    def __init__(self):
        super().__init__()
        self.up = nn.Upsample(scale_factor=2.0, mode="bilinear", align_corners=False)

    def construct(self, x):
        return self.up(x) + ops.interpolate(x, scale_factor=(2.0, 2.0))


@ms.jit
def grad_lstm_gates(x, c, r):
    return ms.grad(lstm_gates, (0, 1))(x, c, r)


@ms.jit
def grad_split_iterate(x, r):
    return ms.grad(split_iterate, 0)(x, r)


@ms.jit
def grad_tile_repeat(x, r):
    return ms.grad(tile_repeat, 0)(x, r)


@ms.jit
def grad_clamp_fill(x, r):
    return ms.grad(clamp_fill, 0)(x, r)


@ms.jit
def grad_statistics(x, r):
    return ms.grad(statistics, 0)(x, r)


@ms.jit
def grad_norms(x, r):
    return ms.grad(norms, 0)(x, r)


@ms.jit
def grad_interpolations(x, r):
    return ms.grad(interpolations, 0)(x, r)


@ms.jit
def grad_batch_matmuls(x, y, r):
    return ms.grad(batch_matmuls, (0, 1))(x, y, r)


# name -> (forward, graph-mode gradient, differentiated positions, input shapes)
PROGRAMS = {
    "lstm_gates": (lstm_gates, grad_lstm_gates, (0, 1), [(2, 12), (2, 3), (2, 3)]),
    "split_iterate": (split_iterate, grad_split_iterate, (0,), [(6, 3), (3,)]),
    "tile_repeat": (tile_repeat, grad_tile_repeat, (0,), [(2, 3), ()]),
    "clamp_fill": (clamp_fill, grad_clamp_fill, (0,), [(3, 4), (3, 4)]),
    "statistics": (statistics, grad_statistics, (0,), [(3, 4), (3, 1)]),
    "norms": (norms, grad_norms, (0,), [(3, 4), ()]),
    "interpolations": (interpolations, grad_interpolations, (0,), [(2, 2, 3, 4), (5, 7)]),
    "batch_matmuls": (batch_matmuls, grad_batch_matmuls, (0, 1), [(2, 3, 4), (2, 4, 5), (2, 3, 5)]),
}


def per_example(e):
    """One example of the vmap test: split, bilinear resize, norm and var."""
    a, b = ops.split(e, 1, 0)
    up = ops.interpolate(e, size=(5, 6), mode="bilinear", align_corners=True)
    return up.sum((0, 1)) + ops.norm(a - b) + ops.var(e)


@ms.jit
def vmap_per_example(x):
    return ms.vmap(per_example)(x)
