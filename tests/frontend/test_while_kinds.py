"""A loop variable whose kind the body of a `while` on a tensor changes: graph mode does
what MindSpore 2.10 does (frontend/graph/loop_values.py has the rule and the probe).

Accepted: a tuple (or list, nested) the body gives back with the same structure, and
a Python number the body makes a 0-d tensor (MindSpore refuses that one; mindjit keeps
Python's result). Refused with MindSpore's exception type: a number or tensor the body
makes a tuple (`loss = 0` then `loss = ms.value_and_grad(f)(x)`), a tuple that grows or
becomes a number, None made a tensor, a dtype that changes (TypeError), a shape that
changes (ValueError).
"""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn, ops
from mindjit.frontend import context as C


@pytest.fixture(autouse=True)
def _context():
    C.reset_context()
    yield
    C.reset_context()


X = Tensor(np.array([1.0, 2.0], np.float32))
N = Tensor(np.array(3, np.int32))


def both_modes(fn, *args):
    """fn's result in PyNative and as an @ms.jit graph, leaves as numpy arrays."""

    def flat(v):
        if isinstance(v, tuple | list):
            return [a for x in v for a in flat(x)]
        return [np.asarray(v.asnumpy() if isinstance(v, Tensor) else v)]

    return flat(fn(*args)), flat(ms.jit(fn)(*args))


def assert_same(fn, *args):
    eager, graph = both_modes(fn, *args)
    assert len(eager) == len(graph)
    for e, g in zip(eager, graph):
        np.testing.assert_allclose(g, e, rtol=1e-6)
    return graph


# -- accepted ------------------------------------------------------------------------------------


def tuple_same(x, n):
    i = Tensor(0, ms.int32)
    t = (x, x)
    while i < n:
        t = (t[0] * 2, t[1] + 1)
        i += 1
    return t


def test_a_tuple_the_body_gives_back_with_the_same_length():
    a, b = assert_same(tuple_same, X, N)
    np.testing.assert_allclose(a, [8.0, 16.0])
    np.testing.assert_allclose(b, [4.0, 5.0])


def nested_state(x):
    state = (x, [x * 0, Tensor(np.array(0.0, np.float32))], 1)
    while state[0].sum() < 10:
        a, (b, c), k = state
        state = (a * 2, [b + a, c + a.sum()], k + 1)
    return state


def test_a_nested_tuple_and_list_with_a_number_leaf():
    got = assert_same(nested_state, X)
    np.testing.assert_allclose(got[0], [4.0, 8.0])  # 1,2 -> 2,4 -> 4,8
    np.testing.assert_allclose(got[1], [3.0, 6.0])
    assert got[2] == 9.0 and got[3] == 3


def value_and_grad_into_tensors(x, n):
    def f(x):
        return (x * x).sum()

    i = Tensor(0, ms.int32)
    loss, g = Tensor(0.0, ms.float32), ops.zeros_like(x)
    while i < n:
        loss, g = ms.value_and_grad(f)(x)
        x = x - 0.1 * g
        i += 1
    return loss, g, x


def test_value_and_grad_into_variables_that_are_tensors_before_the_loop():
    assert_same(value_and_grad_into_tensors, X, N)


class StatefulLSTM(nn.Cell):
    """The LSTM state is one loop variable, a tuple (h, c)."""

    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(2, 3)

    def construct(self, x):
        state = (ops.zeros((1, 3), ms.float32), ops.zeros((1, 3), ms.float32))
        t = Tensor(0, ms.int32)
        while t < x.shape[0]:
            state = self.cell(x[t], state)
            t += 1
        return state[0].sum() + state[1].sum()


def test_a_tuple_state_through_a_cell_and_its_gradient():
    ms.set_seed(0)
    net = StatefulLSTM()
    x = Tensor(np.random.default_rng(0).standard_normal((4, 1, 2)).astype(np.float32))
    weights = net.trainable_params()
    grad = ms.grad(net, 0, weights)
    eager = grad(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = grad(x)
    np.testing.assert_allclose(net(x).asnumpy(), float(StatefulLSTM.construct(net, x).asnumpy()))
    for e, g in zip([eager[0], *eager[1]], [graph[0], *graph[1]]):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)


def number_to_scalar_tensor(x, n):
    i = Tensor(0, ms.int32)
    s = 0
    while i < n:
        s = s + x.sum()
        i += 1
    return s


def test_a_number_the_body_makes_a_0d_tensor_is_kept_as_python_would():
    """MindSpore 2.10 refuses this (TypeError: AbstractTensor cannot join with
    AbstractScalar); mindjit carries the number as a 0-d tensor from the start."""
    (s,) = assert_same(number_to_scalar_tensor, X, N)
    assert s == 9.0


# -- refused, with MindSpore's exception types ---------------------------------------------------


def number_to_value_and_grad(x, n):
    def f(x):
        return (x * x).sum()

    i = Tensor(0, ms.int32)
    out = 0
    while i < n:
        out = ms.value_and_grad(f)(x)
        i += 1
    return out


def tensor_to_tuple(x, n):
    i = Tensor(0, ms.int32)
    y = x
    while i < n:
        y = (x, x)
        i += 1
    return y


def tuple_grows(x, n):
    i = Tensor(0, ms.int32)
    t = (x,)
    while i < n:
        t = t + (x,)
        i += 1
    return t


def tuple_to_number(x, n):
    i = Tensor(0, ms.int32)
    t = (x, x)
    while i < n:
        t = 1
        i += 1
    return t


def none_to_tensor(x, n):
    i = Tensor(0, ms.int32)
    y = None
    while i < n:
        y = x * 2
        i += 1
    return y


def number_to_vector(x, n):
    i = Tensor(0, ms.int32)
    s = 0
    while i < n:
        s = s + x
        i += 1
    return s


def dtype_changes(x, n):
    i = Tensor(0, ms.int32)
    y = ops.cast(x, ms.int32)
    while i < n:
        y = y * 1.5
        i += 1
    return y


def shape_changes(x, n):
    i = Tensor(0, ms.int32)
    y = x
    while i < n:
        y = ops.concat((y, y))
        i += 1
    return y


@pytest.mark.parametrize(
    ("fn", "error", "text"),
    [
        (
            number_to_value_and_grad,
            TypeError,
            "'out' is a number (int) before the loop and a tuple",
        ),
        (tensor_to_tuple, TypeError, "'y' is a tensor before the loop and a tuple of 2"),
        (tuple_grows, TypeError, "'t' is a tuple of 1 before the loop and a tuple of 2"),
        (tuple_to_number, TypeError, "'t' is a tuple of 2 before the loop and a number (int)"),
        (none_to_tensor, TypeError, "'y' is None before this while on a tensor"),
        (number_to_vector, TypeError, "'s' is a number (int) before the loop and tensor<2xf32>"),
        (dtype_changes, TypeError, "'y' is tensor<2xi32> before the loop and tensor<2xf32>"),
        (shape_changes, ValueError, "'y' is tensor<2xf32> before the loop and tensor<4xf32>"),
    ],
    ids=lambda v: v.__name__ if callable(v) and not isinstance(v, type) else None,
)
def test_refused_with_mindspores_exception_type(fn, error, text):
    with pytest.raises(error) as info:
        ms.jit(fn)(X, N)
    first = str(info.value).splitlines()[0]
    assert "test_while_kinds.py:" in first and text in first, first
    assert f"def {fn.__name__}" not in first


def test_the_fuzzers_refusal_pattern_still_names_the_tuple_case():
    """fuzz/outcomes.py counts this refusal by its text: it must keep matching."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fuzz"))
    from outcomes import refusal

    with pytest.raises(TypeError) as info:
        ms.jit(number_to_value_and_grad)(X, N)
    assert refusal(info.value) is not None, str(info.value)
