"""Functions for test_grad_fd: `ms.grad` checked against finite differences.

Graph mode reads their source from this file. Each forward takes its float
inputs first and `r` (a fixed random weight of the output's shape) last, so
every output element matters; `PROGRAMS` maps a name to (forward, the @jit
function taking its gradient w.r.t. the differentiated positions, those
positions, and a factory of float64 inputs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import mindjit as ms
from mindjit import Tensor, ops


def matmul_tanh_mean(x, w, r):
    h = ops.tanh(ops.matmul(x, w))
    return ops.reduce_mean(h * r, 1)


def slice_exp(x, r):
    return ops.exp(x[1:3, ::2]) * r


def concat_stack_sigmoid(x, y, r):
    c = ops.concat((x, y), 1)
    s = ops.stack((ops.sigmoid(c), c * c), -1)
    return s * r


def maximum_log_sqrt(x, y, r):
    return (ops.maximum(x, y) + ops.log(x) * ops.sqrt(y)) * r


def pow_select(x, y, c, r):
    return ops.select(c, ops.pow(x, y), ops.exp(y) * x) * r


def reshape_transpose(x, r):
    t = ops.transpose(ops.reshape(x, (3, 2, 4)), (2, 0, 1))
    return ops.tanh(t) * r


def tensor_if(x, y, r):
    if ops.reduce_sum(x) > 0:
        z = ops.tanh(x) * y
    else:
        z = x * x - ops.sigmoid(y)
    return z * r


def mixed_chain(x, w, r):
    h = ops.matmul(x, w, transpose_b=True)
    m = ops.maximum(ops.sigmoid(h), ops.exp(h) * 0.1)
    return ops.reduce_mean(ops.sqrt(m + 1.0) * r, 0, True)


@ms.jit
def grad_matmul_tanh_mean(x, w, r):
    return ms.grad(matmul_tanh_mean, (0, 1))(x, w, r)


@ms.jit
def grad_slice_exp(x, r):
    return ms.grad(slice_exp, (0,))(x, r)


@ms.jit
def grad_concat_stack_sigmoid(x, y, r):
    return ms.grad(concat_stack_sigmoid, (0, 1))(x, y, r)


@ms.jit
def grad_maximum_log_sqrt(x, y, r):
    return ms.grad(maximum_log_sqrt, (0, 1))(x, y, r)


@ms.jit
def grad_pow_select(x, y, c, r):
    return ms.grad(pow_select, (0, 1))(x, y, c, r)


@ms.jit
def grad_reshape_transpose(x, r):
    return ms.grad(reshape_transpose, (0,))(x, r)


@ms.jit
def grad_tensor_if(x, y, r):
    return ms.grad(tensor_if, (0, 1))(x, y, r)


@ms.jit
def grad_mixed_chain(x, w, r):
    return ms.grad(mixed_chain, (0, 1))(x, w, r)


def _no_ties(rng: np.random.Generator, shape: tuple[int, ...]) -> list[np.ndarray]:
    """Positive x, y (log, sqrt) whose elements differ by at least 0.05 (maximum)."""
    while True:
        x, y = rng.uniform(0.2, 2.0, shape), rng.uniform(0.2, 2.0, shape)
        if np.abs(x - y).min() > 0.05:
            return [x, y]


def _if_inputs(positive: bool):
    """x whose sum is 1.5 or -1.5 (the branch taken), y."""

    def make(rng: np.random.Generator) -> list[np.ndarray]:
        x = rng.standard_normal((2, 3))
        x += (0.25 if positive else -0.25) - x.mean()
        return [x, rng.standard_normal((2, 3))]

    return make


@dataclass(frozen=True)
class Program:
    forward: Callable[..., Any]  # inputs..., r
    graph_grad: Callable[..., Any]  # @jit: ms.grad(forward, positions)(inputs..., r)
    positions: tuple[int, ...]  # the float inputs, differentiated
    make_inputs: Callable[[np.random.Generator], list[np.ndarray]]  # without r
    r_shape: tuple[int, ...]


MASK = np.array([[True, False, True], [False, True, True]])

PROGRAMS: dict[str, Program] = {
    "matmul_tanh_mean": Program(
        matmul_tanh_mean,
        grad_matmul_tanh_mean,
        (0, 1),
        lambda g: [g.standard_normal((3, 4)), g.standard_normal((4, 5)) * 0.5],
        (3, 5),
    ),
    "slice_exp": Program(
        slice_exp, grad_slice_exp, (0,), lambda g: [g.standard_normal((4, 5))], (2, 3)
    ),
    "concat_stack_sigmoid": Program(
        concat_stack_sigmoid,
        grad_concat_stack_sigmoid,
        (0, 1),
        lambda g: [g.standard_normal((2, 3)), g.standard_normal((2, 2))],
        (2, 5, 2),
    ),
    "maximum_log_sqrt": Program(
        maximum_log_sqrt, grad_maximum_log_sqrt, (0, 1), lambda g: _no_ties(g, (3, 4)), (3, 4)
    ),
    "pow_select": Program(
        pow_select,
        grad_pow_select,
        (0, 1),
        lambda g: [g.uniform(0.5, 2.0, (2, 3)), g.uniform(-1.5, 2.5, (2, 3)), MASK],
        (2, 3),
    ),
    "reshape_transpose": Program(
        reshape_transpose,
        grad_reshape_transpose,
        (0,),
        lambda g: [g.standard_normal((6, 4))],
        (4, 3, 2),
    ),
    "tensor_if_then": Program(tensor_if, grad_tensor_if, (0, 1), _if_inputs(True), (2, 3)),
    "tensor_if_else": Program(tensor_if, grad_tensor_if, (0, 1), _if_inputs(False), (2, 3)),
    "mixed_chain": Program(
        mixed_chain,
        grad_mixed_chain,
        (0, 1),
        lambda g: [g.standard_normal((3, 4)), g.standard_normal((2, 4))],
        (3, 2),
    ),
}


def inputs_of(name: str, seed: int = 0) -> list[np.ndarray]:
    """The program's inputs, r last (float64; a condition stays bool)."""
    rng = np.random.default_rng(seed + sum(map(ord, name)))
    program = PROGRAMS[name]
    arrays = [np.asarray(a) for a in program.make_inputs(rng)]
    arrays = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in arrays]
    return [*arrays, rng.standard_normal(program.r_shape)]


def tensors(arrays: list[np.ndarray]) -> list[Tensor]:
    return [Tensor(a) for a in arrays]
