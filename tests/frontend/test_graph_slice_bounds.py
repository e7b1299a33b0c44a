"""Slices bounded by 0-d integer Tensors in graph mode (graph/slice_bounds.py).

MindSpore 2.10's graph mode runs `x[start:start + 2]` and `seq[:n]` with a Tensor
`start` / `n` (a dynamic shape); mindjit specializes the program on the value of
such an input, or computes a bound made from constants while compiling. Each
result is PyNative's (Python's slicing: `x[9:11]` of 10 elements has 1).
"""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import nn, ops
from mindjit.frontend.graph import api
from mindjit.frontend.graph.slice_bounds import DynamicSliceBound

X = np.arange(10, dtype=np.float32) * 1.5


def window(x, start):
    return x[start : start + 2] * 2.0


def prefix_sum(x, n):
    return ops.reduce_sum(x[:n])


def from_constants(x):
    s = ms.Tensor(3)
    return x[s - 1 : s * 2]


def from_data(x):
    return x[: ops.argmax(x)]


class Head(nn.Cell):
    def construct(self, seq, n):
        return seq[:n] + 1.0


def _graph(fn, *args):
    return ms.jit(fn)(*args).asnumpy()


@pytest.mark.parametrize("start", [0, 3, 8, 9, -3])
def test_a_window_at_an_input_start_is_pynatives(start: int) -> None:
    x, s = ms.Tensor(X), ms.Tensor(start)
    want = window(x, s).asnumpy()  # PyNative
    np.testing.assert_array_equal(want, X[start : start + 2] * 2.0)
    np.testing.assert_array_equal(_graph(window, x, s), want)


def test_one_program_per_value_of_the_bound() -> None:
    api.clear_cache()
    f = ms.jit(prefix_sum)
    x = ms.Tensor(X)
    got = [float(f(x, ms.Tensor(n)).asnumpy()) for n in (2, 5, 2, 5, 7)]
    assert got == [float(X[:n].sum()) for n in (2, 5, 2, 5, 7)]
    assert len(api.cached_programs()) == 3  # 2, 5, 7


def test_a_cell_with_a_length_input(mode) -> None:
    ms.set_context(mode=mode)
    head = Head()
    seq = ms.Tensor(X.reshape(5, 2))
    for n in (1, 4):
        np.testing.assert_array_equal(
            head(seq, ms.Tensor(n, ms.int32)).asnumpy(), X.reshape(5, 2)[:n] + 1.0
        )


def test_a_bound_computed_from_constants() -> None:
    np.testing.assert_array_equal(_graph(from_constants, ms.Tensor(X)), X[2:6])


def test_the_gradient_through_a_specialized_slice() -> None:
    grad = ms.jit(ms.grad(prefix_sum, grad_position=0))
    g = grad(ms.Tensor(X), ms.Tensor(4)).asnumpy()
    np.testing.assert_array_equal(g, [1, 1, 1, 1, 0, 0, 0, 0, 0, 0])


def test_a_bound_from_the_data_is_a_clear_error() -> None:
    with pytest.raises(DynamicSliceBound, match="slice bound must be known when the graph"):
        ms.jit(from_data)(ms.Tensor(X))


def test_a_float_bound_is_refused_as_python_does() -> None:
    with pytest.raises(Exception, match="slice bound must be known|slice indices"):
        ms.jit(window)(ms.Tensor(X), ms.Tensor(1.0))
