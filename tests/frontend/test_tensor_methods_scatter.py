"""Issue 38: Tensor's scatter/segment/sampling/editing methods (frontend/
tensor_methods_scatter.py, ops/tensor_edits.py) and its in-place and memory
methods (tensor_methods_inplace.py). Values are what MindSpore 2.10 printed on CPU
for the same inputs (pasted as constants); every case runs in PyNative and graph
mode; the in-place methods change the Tensor in PyNative and a Parameter (by
ops.assign) in a graph; bad input raises MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from modes import run

import mindjit as ms
from mindjit import Parameter, Tensor, nn

A = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], np.float32)
M22 = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)


def _eq(got, want, dtype=None):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-6)
    assert tuple(got.shape) == np.asarray(want).shape
    if dtype is not None:
        assert str(got.dtype) == dtype


def test_scatter_methods(mode):
    got = run(
        lambda x, i, s, nd, u, seg: (
            x.scatter(1, i, s),
            x.scatter(1, i, 7.0),
            x.scatter(axis=1, index=i, src=s),
            x.scatter_sub(nd, u),
            x.scatter_mul(nd, u),
            x.scatter_div(nd, u),
            x.scatter_max(nd, u),
            x.scatter_min(nd, u),
            x.unsorted_segment_max(seg, 3),
            x.unsorted_segment_min(seg, 3),
            x.unsorted_segment_prod(seg, 3),
            x,
        ),
        mode,
        Tensor(A),
        Tensor([[0], [2]], ms.int64),
        Tensor([[9.0], [8.0]]),
        Tensor([[0, 1], [1, 2]], ms.int32),
        Tensor([10.0, 2.0]),
        Tensor([1, 1], ms.int32),
    )
    # MindSpore 2.10's printed values (scatter_*: ops.tensor_scatter_*)
    _eq(got[0], [[9.0, -2.0, 3.0], [4.0, 5.0, 8.0]])
    _eq(got[1], [[7.0, -2.0, 3.0], [4.0, 5.0, 7.0]])
    _eq(got[2], [[9.0, -2.0, 3.0], [4.0, 5.0, 8.0]])
    _eq(got[3], [[1.0, -12.0, 3.0], [4.0, 5.0, -8.0]])
    _eq(got[4], [[1.0, -20.0, 3.0], [4.0, 5.0, -12.0]])
    _eq(got[5], [[1.0, -0.2, 3.0], [4.0, 5.0, -3.0]])
    _eq(got[6], [[1.0, 10.0, 3.0], [4.0, 5.0, 2.0]])
    _eq(got[7], [[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
    lo = np.finfo(np.float32).min
    _eq(got[8], [[lo] * 3, [4.0, 5.0, 3.0], [lo] * 3])
    _eq(got[9], [[-lo] * 3, [1.0, -2.0, -6.0], [-lo] * 3])
    _eq(got[10], [[1.0] * 3, [4.0, -10.0, -18.0], [1.0] * 3])
    _eq(got[11], A)  # self is not changed


def test_sequence_and_statistics_methods(mode):
    got = run(
        lambda x, seq, y, u: (
            x.reverse_sequence(seq, 1),
            y.inplace_update(Tensor([[10.0, 20.0, 30.0]]), (1,)),
            u.unique_with_pad(0),
            y.quantile(0.5, 1),
            y.nanquantile(Tensor([0.25, 0.5]), 1, True),
        ),
        mode,
        Tensor(np.arange(12, dtype=np.float32).reshape(3, 4)),
        Tensor([1, 2, 3], ms.int32),
        Tensor(A),
        Tensor([1, 2, 5, 2, 3, 5], ms.int32),
    )
    # MindSpore 2.10's printed values (quantile: numpy's, MindSpore has no CPU kernel)
    _eq(got[0], [[0.0, 1.0, 2.0, 3.0], [5.0, 4.0, 6.0, 7.0], [10.0, 9.0, 8.0, 11.0]])
    _eq(got[1], [[1.0, -2.0, 3.0], [10.0, 20.0, 30.0]])
    _eq(got[2][0], [1, 2, 5, 3, 0, 0], "Int32")
    _eq(got[2][1], [0, 1, 2, 1, 3, 2], "Int32")
    _eq(got[3], np.quantile(A, 0.5, axis=1))
    np.testing.assert_allclose(
        got[4].asnumpy(), np.quantile(A, [0.25, 0.5], axis=1, keepdims=True), rtol=1e-6
    )


def test_editing_methods(mode):
    got = run(
        lambda m, z, tall, a, c: (
            m.index_put((Tensor([0, 1], ms.int32), Tensor([1, 0], ms.int32)), Tensor([9.0, 8.0])),
            m.index_put((Tensor([0, 0], ms.int32), Tensor([1, 1], ms.int32)), Tensor([9.0]), True),
            m.index_put((Tensor([1], ms.int32),), Tensor([7.0])),
            a.masked_scatter(Tensor([True, False, True, True]), Tensor([5.0, 6, 7, 8, 9])),
            z.masked_scatter(Tensor([True, False, True]), Tensor(np.arange(6.0, dtype=np.float32))),
            c.choose([[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23], [30, 31, 32, 33]]),
            z.fill_diagonal(5.0),
            tall.fill_diagonal(5.0, True),
            m.itemset((0, 1), 9.0),
            m.itemset(3, 7),
            m.resize(3, 2),
            m.resize(5),
            m,
        ),
        mode,
        Tensor(M22),
        Tensor(np.zeros((2, 3), np.float32)),
        Tensor(np.zeros((7, 3), np.float32)),
        Tensor([1.0, 2, 3, 4]),
        Tensor([2, 3, 1, 0]),
    )
    # MindSpore 2.10's printed values
    _eq(got[0], [[1.0, 9.0], [8.0, 4.0]])
    _eq(got[1], [[1.0, 20.0], [3.0, 4.0]])
    _eq(got[2], [[1.0, 2.0], [7.0, 7.0]])
    _eq(got[3], [5.0, 2.0, 6.0, 7.0])
    _eq(got[4], [[0.0, 0.0, 1.0], [2.0, 0.0, 3.0]])
    _eq(got[5], [20, 31, 12, 3])
    _eq(got[6], [[5.0, 0.0, 0.0], [0.0, 5.0, 0.0]])
    tall = np.zeros((7, 3), np.float32)
    tall[[0, 1, 2, 4, 5, 6], [0, 1, 2, 0, 1, 2]] = 5.0
    _eq(got[7], tall)
    _eq(got[8], [[1.0, 9.0], [3.0, 4.0]])
    _eq(got[9], [[1.0, 2.0], [3.0, 7.0]])
    _eq(got[10], [[1.0, 2.0], [3.0, 4.0], [0.0, 0.0]])
    _eq(got[11], [1.0, 2.0, 3.0, 4.0, 0.0])
    _eq(got[12], M22)  # self is not changed


def test_choose_modes_and_broadcast():
    choices = [[0, 1, 2, 3], [10, 11, 12, 13]]
    index = Tensor([5, -1, 1, 0])
    # MindSpore 2.10's printed values
    _eq(index.choose(choices, "clip"), [10, 1, 12, 3])
    _eq(index.choose(choices, "wrap"), [10, 11, 12, 3])
    pair = (Tensor([1.0, 2, 3]), Tensor([4.0, 5, 6]))
    _eq(Tensor([[1], [0]]).choose(pair), [[4.0, 5.0, 6.0], [1.0, 2.0, 3.0]])
    _eq(Tensor(np.zeros((2, 2, 2), np.float32)).fill_diagonal(5.0)[1], [[0.0, 0.0], [0.0, 5.0]])


def test_sampling_methods():
    ms.set_seed(9)
    w = Tensor(np.array([[0.0, 9.0, 4.0, 0.0]], np.float32))
    m = w.multinomial(3)
    assert m.dtype == ms.int32 and m.shape == (1, 3) and set(m.asnumpy().ravel()) <= {1, 2}
    logits = Tensor(np.array([[-1e9, 0.0, 0.0, -1e9]], np.float32))
    r = logits.random_categorical(4000, 1, ms.int32)
    assert r.dtype == ms.int32 and r.shape == (1, 4000)
    freq = np.bincount(r.asnumpy().ravel(), minlength=4) / 4000
    np.testing.assert_allclose(freq, [0.0, 0.5, 0.5, 0.0], atol=0.03)
    assert logits.random_categorical(2).dtype == ms.int64
    b = Tensor(np.full(20000, 0.25, np.float32)).bernoulli()
    assert b.dtype == ms.float32 and abs(b.asnumpy().mean() - 0.25) < 0.02
    _eq(Tensor([0.0, 1.0, 1.0, 0.0]).bernoulli(), [0.0, 1.0, 1.0, 0.0])


def test_in_place_in_pynative():
    x = Tensor(A)
    assert x.add_(2.0) is x
    _eq(x, A + 2)
    x.sub_(Tensor([1.0, 1.0, 1.0]), alpha=3)
    _eq(x, A - 1)
    x.div_(2.0)
    _eq(x, (A - 1) / 2)
    x.div_(0.5, rounding_mode="floor")
    _eq(x, np.floor((A - 1) / 2 / 0.5))
    y = Tensor(A)
    y.clamp_(-1.0, 2.0)
    _eq(y, np.clip(A, -1, 2))
    y.exp_()
    _eq(y, np.exp(np.clip(A, -1, 2)))
    y.log_()
    np.testing.assert_allclose(y.asnumpy(), np.clip(A, -1, 2), rtol=1e-6, atol=1e-6)
    y.floor_()
    _eq(y, np.floor(np.clip(A, -1, 2)))
    z = Tensor(A)
    z.sign_()
    _eq(z, np.sign(A))
    z.sigmoid_()
    _eq(z, 1 / (1 + np.exp(-np.sign(A))))
    m = Tensor(A)
    m.masked_fill_(Tensor([True, False, True]), 9.0)
    _eq(m, [[9.0, -2.0, 9.0], [9.0, 5.0, 9.0]])
    m.addmm_(
        Tensor(np.ones((2, 4), np.float32)), Tensor(np.ones((4, 3), np.float32)), beta=2, alpha=0.5
    )
    _eq(m, 2 * np.array([[9.0, -2.0, 9.0], [9.0, 5.0, 9.0]]) + 2.0)
    i = Tensor([1, 2, 3], ms.int32)
    i.add_(1.5)  # the Tensor keeps its dtype
    _eq(i, [2, 3, 4], "Int32")


class _Step(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(A), name="w")

    def construct(self, x):
        self.w.add_(x)
        self.w.clamp_(max=10.0)
        self.w.fill_diagonal(0.0)  # not in place: no effect
        return self.w * 1


def test_in_place_on_a_parameter_in_a_graph(mode):
    net = _Step()
    ms.set_context(mode=mode)
    try:
        first = net(Tensor(np.full((2, 3), 4.0, np.float32)))
        second = net(Tensor(np.full((2, 3), 4.0, np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _eq(first, np.minimum(A + 4, 10))
    _eq(second, np.minimum(np.minimum(A + 4, 10) + 4, 10))  # written at every call
    _eq(net.w.value(), second.asnumpy())


def test_in_place_on_a_graph_value_is_a_type_error():
    def f(x):
        y = x * 2
        y.add_(1.0)
        return y

    with pytest.raises(TypeError):
        ms.jit(f)(Tensor(A))


def test_memory_methods():
    x = Tensor(M22)
    # MindSpore 2.10's printed values
    assert x.stride() == [2, 1] and x.stride(0) == 2 and x.storage_offset() == 0
    assert x.is_contiguous() and x.contiguous() is x and isinstance(x.data_ptr(), int)
    t = x.transpose()
    assert t.stride() == [1, 2] and not t.is_contiguous()
    c = t.contiguous()
    assert c.stride() == [2, 1] and c.is_contiguous()
    _eq(c, M22.T)
    assert x.to(ms.float16).dtype == ms.float16 and x.to(ms.float32) is not x
    assert x.to("cpu") is x
    e = x.new_empty((2, 3))
    assert e.shape == (2, 3) and e.dtype == ms.float32
    assert x.new_empty(3, dtype=ms.int32).dtype == ms.int32
    assert x.new_empty([2]).shape == (2,)


def test_memory_methods_in_a_graph():
    def f(x):
        return x.to(ms.float16), x.contiguous(), x.new_empty((2, 2), dtype=ms.int32)

    half, same, empty = ms.jit(f)(Tensor(M22))
    assert half.dtype == ms.float16 and empty.dtype == ms.int32
    _eq(same, M22)


def test_bad_input():
    with pytest.raises(TypeError):
        Tensor([0, 1], ms.int32).bernoulli()
    with pytest.raises(ValueError):
        Tensor(A).masked_scatter(Tensor([True, True, True]), Tensor([1.0, 2.0]))
    with pytest.raises(NotImplementedError):
        Tensor([1, 0]).choose([[1, 2], [3, 4]], "raise")
    with pytest.raises(ValueError):
        Tensor(np.zeros((2, 3, 2), np.float32)).fill_diagonal(5.0)
    with pytest.raises(ValueError):
        Tensor(A).scatter_max(
            Tensor([[0, 1], [1, 1]], ms.int32), Tensor(np.ones((2, 2, 3), np.float32))
        )
