"""Issue 38: MindSpore 2.10's functional in-place ops
(frontend/ops/inplace_functions.py): tanh_, inplace_sigmoid, zero_, uniform_,
exponential_, bernoulli_, put_. MindSpore 2.10's CPU build has no kernel for them,
so the values are their documented ones (numpy references; put_'s the example
MindSpore's docstring prints). In PyNative the input Tensor changes and is returned;
in a graph a Parameter is assigned (run by a Cell in both modes); a graph's value
is a TypeError, as for Tensor.fill_."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops

X = np.array([0.5, -1.0, 2.0], np.float32)


def _fresh():
    return Tensor(X.copy())


def test_elementwise_in_pynative():
    for fn, want in (
        (ops.tanh_, np.tanh(X)),
        (ops.inplace_sigmoid, 1 / (1 + np.exp(-X))),
        (ops.zero_, np.zeros(3)),
    ):
        x = _fresh()
        assert fn(x) is x
        np.testing.assert_allclose(x.asnumpy(), want, rtol=1e-6)
        assert str(x.dtype) == "Float32"
    x = Tensor(np.array([2, 2]))
    ops.zero_(x)  # MindSpore's docstring: [0 0]
    np.testing.assert_array_equal(x.asnumpy(), [0, 0])


def test_put():
    src = Tensor([[4, 3, 5], [6, 7, 8]], ms.float32)
    assert ops.put_(src, Tensor([1, 3], ms.int64), Tensor([9, 10], ms.float32)) is src
    # MindSpore's docstring: [[4. 9. 5.] [10. 7. 8.]]
    np.testing.assert_array_equal(src.asnumpy(), [[4, 9, 5], [10, 7, 8]])
    x = _fresh()
    ops.put_(x, Tensor([0, 0, -1], ms.int64), Tensor([9.0, 8.0, 1.0]), True)
    np.testing.assert_allclose(x.asnumpy(), [17.5, -1.0, 3.0])


def test_random_fills():
    ms.set_seed(38)
    x = Tensor(np.zeros((4000,), np.float32))
    assert ops.uniform_(x, 2, 3) is x
    u = x.asnumpy()
    assert u.min() >= 2 and u.max() < 3 and abs(u.mean() - 2.5) < 0.03
    ops.uniform_(x, Tensor(-1.0), Tensor([1.0]))
    assert x.asnumpy().min() >= -1 and x.asnumpy().max() < 1
    ops.exponential_(x, 2)
    e = x.asnumpy()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.05
    ops.bernoulli_(x, 0.25)
    b = x.asnumpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.25) < 0.05
    i = Tensor(np.zeros((100,), np.int32))
    ops.bernoulli_(i, 1.0)
    assert str(i.dtype) == "Int32" and (i.asnumpy() == 1).all()


class _Step(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(X.copy()), name="w")

    def construct(self, index, source):
        ops.tanh_(self.w)
        ops.put_(self.w, index, source)
        return self.w * 1


def test_on_a_parameter_in_both_modes(mode):
    net = _Step()
    ms.set_context(mode=mode)
    try:
        out = net(Tensor([1], ms.int64), Tensor([5.0]))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    want = np.tanh(X)
    want[1] = 5.0
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(net.w.value(), want, rtol=1e-6)


def test_bad_input():
    with pytest.raises(TypeError):
        ms.jit(lambda x: ops.tanh_(x * 2))(_fresh())
    with pytest.raises(TypeError):
        ops.zero_(np.zeros(2))
    with pytest.raises(TypeError):
        ops.put_(_fresh(), Tensor([0], ms.int32), Tensor([1.0]))
    with pytest.raises(TypeError):
        ops.put_(_fresh(), Tensor([0], ms.int64), Tensor([1.0], ms.float64))
    with pytest.raises(TypeError):
        ops.uniform_(_fresh(), "a", 1)
    with pytest.raises(TypeError):
        ops.uniform_(_fresh(), generator=object())
    with pytest.raises(ValueError):
        ops.exponential_(_fresh(), -1.0)
