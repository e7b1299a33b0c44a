"""Issue 38: MindSpore 2.10's scatter families that write a Parameter (scatter_*,
scatter_nd_*, inplace_index_add; frontend/ops/scatter_params.py), tensor_scatter_
sub/mul/div/max/min (scatter_ops.py), the row ops inplace_add/sub/update, and
unsorted_segment_max/min/prod (segment_reduce.py). Values are what MindSpore 2.10
printed on CPU for the same inputs (pasted as constants); every case runs in
PyNative and graph mode; gradients against finite differences; bad input raises
MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops

X = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
ROW_IDX = np.array([[0, 1], [1, 1]], np.int32)  # repeated row 1
ROW_UPD = np.arange(12, dtype=np.float32).reshape(2, 2, 3) + 1
ND_IDX = np.array([[0, 1], [1, 2], [0, 1]], np.int32)  # repeated [0, 1]
ND_UPD = np.array([10.0, 20.0, 30.0], np.float32)

# MindSpore 2.10's printed values (the result, and the Parameter after the call)
ROW_WANT = {
    "scatter_add": [[2.0, 4.0, 6.0], [25.0, 29.0, 33.0]],
    "scatter_div": [[1.0, 1.0, 1.0], [0.014285715, 0.011363637, 0.009259259]],
    "scatter_max": [[1.0, 2.0, 3.0], [10.0, 11.0, 12.0]],
    "scatter_min": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
    "scatter_mul": [[1.0, 4.0, 9.0], [1120.0, 2200.0, 3888.0]],
    "scatter_update": [[1.0, 2.0, 3.0], [10.0, 11.0, 12.0]],
}
ND_WANT = {
    "scatter_nd_add": [[1.0, 42.0, 3.0], [4.0, 5.0, 26.0]],
    "scatter_nd_div": [[1.0, 0.0066666668, 3.0], [4.0, 5.0, 0.3]],
    "scatter_nd_max": [[1.0, 30.0, 3.0], [4.0, 5.0, 20.0]],
    "scatter_nd_min": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
    "scatter_nd_mul": [[1.0, 600.0, 3.0], [4.0, 5.0, 120.0]],
    "scatter_nd_sub": [[1.0, -38.0, 3.0], [4.0, 5.0, -14.0]],
    "scatter_nd_update": [[1.0, 30.0, 3.0], [4.0, 5.0, 20.0]],
}


class _Writer(nn.Cell):
    def __init__(self, name):
        super().__init__()
        self.f = getattr(ops, name)
        self.w = Parameter(Tensor(X), name="w")

    def construct(self, i, u):
        out = self.f(self.w, i, u)
        return out, self.w * 1


def _write(name, mode, idx, upd):
    net = _Writer(name)
    ms.set_context(mode=mode)
    try:
        out, after = net(Tensor(idx), Tensor(upd))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return out.asnumpy(), after.asnumpy(), net.w.asnumpy()


@pytest.mark.parametrize("name", sorted(ROW_WANT))
def test_scatter_rows_write_the_parameter(name, mode):
    out, after, param = _write(name, mode, ROW_IDX, ROW_UPD)
    for got in (out, after, param):
        np.testing.assert_allclose(got, ROW_WANT[name], rtol=1e-6)


@pytest.mark.parametrize("name", sorted(ND_WANT))
def test_scatter_nd_write_the_parameter(name, mode):
    out, after, param = _write(name, mode, ND_IDX, ND_UPD)
    for got in (out, after, param):
        np.testing.assert_allclose(got, ND_WANT[name], rtol=1e-6)


def test_scatter_writes_a_plain_tensor_in_pynative():
    x = Tensor(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32))
    out = ops.scatter_add(x, Tensor(np.array([0], np.int32)), Tensor(np.ones((1, 2), np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [[2.0, 3.0], [3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_allclose(x.asnumpy(), out.asnumpy())  # MindSpore writes x too


def test_integer_division_truncates():
    p = Parameter(Tensor(np.array([7, -7, 9], np.int32)), name="q")
    out = ops.scatter_div(p, Tensor(np.array([0, 1, 2], np.int32)), Tensor([2, 2, -2], ms.int32))
    assert out.asnumpy().tolist() == [3, -3, -4] == p.asnumpy().tolist()  # MindSpore's


def test_tensor_scatter_combiners(mode):
    got = run(
        lambda x, i, u, xi, ii, ui, z: (
            ops.tensor_scatter_div(x, i, u),
            ops.tensor_scatter_max(x, i, u),
            ops.tensor_scatter_min(x, i, u),
            ops.tensor_scatter_mul(x, i, u),
            ops.tensor_scatter_sub(x, i, u),
            ops.tensor_scatter_div(xi, ii, ui),
            ops.tensor_scatter_div(z, ii, ops.zeros((3,), ms.float32)),
        ),
        mode,
        Tensor(X),
        Tensor(ND_IDX),
        Tensor(ND_UPD),
        Tensor([7, -7, 9, 8], ms.int32),
        Tensor([[0], [1], [2]], ms.int32),
        Tensor([2, 2, -2], ms.int32),
        Tensor([1.0, 0.0, -1.0], ms.float32),
    )
    # MindSpore 2.10's printed values
    np.testing.assert_allclose(got[0].asnumpy(), ND_WANT["scatter_nd_div"], rtol=1e-6)
    np.testing.assert_allclose(got[1].asnumpy(), ND_WANT["scatter_nd_max"])
    np.testing.assert_allclose(got[2].asnumpy(), ND_WANT["scatter_nd_min"])
    np.testing.assert_allclose(got[3].asnumpy(), ND_WANT["scatter_nd_mul"])
    np.testing.assert_allclose(got[4].asnumpy(), ND_WANT["scatter_nd_sub"])
    assert got[5].asnumpy().tolist() == [3, -3, -4, 8] and str(got[5].dtype) == "Int32"
    np.testing.assert_array_equal(got[6].asnumpy(), [np.inf, np.nan, -np.inf])


def test_unsorted_segment_reductions(mode):
    got = run(
        lambda xi, ids, x, ids2: (
            ops.unsorted_segment_max(xi, ids, 5),
            ops.unsorted_segment_min(xi, ids, 5),
            ops.unsorted_segment_prod(xi, ids, 5),
            ops.unsorted_segment_max(x, ids2, 3),
            ops.unsorted_segment_min(x, ids2, 3),
            ops.unsorted_segment_prod(x, ids2, 3),
        ),
        mode,
        Tensor([[1, 2], [3, 4], [5, 6], [7, 8]], ms.int32),
        Tensor([0, 2, 0, 3], ms.int32),
        Tensor(X),
        Tensor([[1, 0, 1], [1, 2, 2]], ms.int32),
    )
    lo, hi = -(2**31), 2**31 - 1  # MindSpore 2.10's printed values: empty segments
    assert got[0].asnumpy().tolist() == [[5, 6], [lo, lo], [3, 4], [7, 8], [lo, lo]]
    assert got[1].asnumpy().tolist() == [[1, 2], [hi, hi], [3, 4], [7, 8], [hi, hi]]
    assert got[2].asnumpy().tolist() == [[5, 12], [1, 1], [3, 4], [7, 8], [1, 1]]
    assert str(got[0].dtype) == "Int32"
    np.testing.assert_allclose(got[3].asnumpy(), [2.0, 4.0, 6.0])
    np.testing.assert_allclose(got[4].asnumpy(), [2.0, 1.0, 5.0])
    np.testing.assert_allclose(got[5].asnumpy(), [2.0, 12.0, 30.0])
    empty = ops.unsorted_segment_max(Tensor(X), Tensor([1, 1], ms.int32), 3).asnumpy()
    assert (empty[0] == np.finfo(np.float32).min).all()  # -FLT_MAX, not -inf


def test_segment_gradients_split_ties_as_mindspore():
    x = Tensor(np.array([1.0, 3.0, 3.0, 2.0], np.float32))
    ids = Tensor([0, 0, 0, 1], ms.int32)
    gmax = ms.grad(lambda a: ops.unsorted_segment_max(a, ids, 2).sum())(x)
    gprod = ms.grad(lambda a: ops.unsorted_segment_prod(a, ids, 2).sum())(x)
    np.testing.assert_allclose(gmax.asnumpy(), [0.0, 0.5, 0.5, 1.0])  # MindSpore's
    np.testing.assert_allclose(gprod.asnumpy(), [9.0, 3.0, 3.0, 1.0])  # MindSpore's


def test_gradients_against_finite_differences():
    rng = np.random.default_rng(7)
    ids = Tensor([2, 0, 2, 1], ms.int32)
    idx = Tensor([[0], [2], [3]], ms.int32)  # distinct: MindSpore's gradient is then exact
    x, seg = rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    u = rng.uniform(1.0, 2.0, (3, 2))
    for f in (ops.unsorted_segment_max, ops.unsorted_segment_min, ops.unsorted_segment_prod):
        assert_grads_match_finite_differences(lambda a, f=f: f(a, ids, 3), [seg], rng)
    for f in (
        ops.tensor_scatter_max,
        ops.tensor_scatter_min,
        ops.tensor_scatter_mul,
        ops.tensor_scatter_div,
        ops.tensor_scatter_sub,
    ):
        assert_grads_match_finite_differences(lambda a, b, f=f: f(a, idx, b), [x, u], rng)


def test_inplace_rows(mode):
    got = run(
        lambda x, v, v2, i: (
            ops.inplace_add(x, v, (1,)),
            ops.inplace_add(x, v2, (1, 1)),
            ops.inplace_sub(x, v2, (1, 1)),
            ops.inplace_update(x, v2, (1, 1)),
            ops.inplace_update(x, v, i),
            x,
        ),
        mode,
        Tensor(X),
        Tensor([[10.0, 20.0, 30.0]]),
        Tensor([[10.0, 20.0, 30.0], [1.0, 1.0, 1.0]]),
        Tensor([0], ms.int32),
    )
    # MindSpore 2.10's printed values; x itself is not written
    np.testing.assert_allclose(got[0].asnumpy(), [[1.0, 2.0, 3.0], [14.0, 25.0, 36.0]])
    np.testing.assert_allclose(got[1].asnumpy(), [[1.0, 2.0, 3.0], [15.0, 26.0, 37.0]])
    np.testing.assert_allclose(got[2].asnumpy(), [[1.0, 2.0, 3.0], [-7.0, -16.0, -25.0]])
    np.testing.assert_allclose(got[3].asnumpy(), [[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
    np.testing.assert_allclose(got[4].asnumpy(), [[10.0, 20.0, 30.0], [4.0, 5.0, 6.0]])
    np.testing.assert_allclose(got[5].asnumpy(), X)


class _IndexAdd(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([[1, 2], [3, 4], [5, 6]], np.float32)), name="w")

    def construct(self, i, u):
        return ops.inplace_index_add(self.w, i, u, 1)


def test_inplace_index_add_writes(mode):
    net = _IndexAdd()
    ms.set_context(mode=mode)
    try:
        out = net(Tensor([1], ms.int32), Tensor([[0.5], [1.0], [2.0]]))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    want = [[1.0, 2.5], [3.0, 5.0], [5.0, 8.0]]  # MindSpore 2.10's
    np.testing.assert_allclose(out.asnumpy(), want)
    np.testing.assert_allclose(net.w.asnumpy(), want)
    p = Parameter(Tensor(np.array([[1, 2], [3, 4], [5, 6]], np.float32)), name="v")
    ops.inplace_index_add(p, Tensor([0, 0], ms.int32), Tensor([[0.5, 1.0], [1.0, 1.5]]), 0)
    np.testing.assert_allclose(p.asnumpy(), [[2.5, 4.5], [3.0, 4.0], [5.0, 6.0]])


def test_bad_input():
    p = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="z")
    with pytest.raises(RuntimeError):
        ops.scatter_max(p, Tensor([5], ms.int32), Tensor([1.0]))
    with pytest.raises(ValueError):
        ops.scatter_max(p, Tensor([1], ms.int32), Tensor([1.0, 2.0]))
    with pytest.raises(TypeError):
        ops.tensor_scatter_max(Tensor([1.0, 2.0]), Tensor([[0]], ms.int32), Tensor([1], ms.int32))
    with pytest.raises(RuntimeError):
        ops.tensor_scatter_max(Tensor([1.0, 2.0]), Tensor([[5]], ms.int32), Tensor([1.0]))
    with pytest.raises(ValueError):
        ops.unsorted_segment_max(Tensor(X), Tensor([1, 1], ms.int32), 0)
    with pytest.raises(TypeError):
        ops.unsorted_segment_min(Tensor(X), Tensor([1.0, 1.0]), 3)
    with pytest.raises(RuntimeError):
        ops.unsorted_segment_prod(Tensor(X), Tensor([1, 3], ms.int32), 3)
    with pytest.raises(TypeError):
        ops.inplace_add(Tensor(X), Tensor([[1, 2, 3]], ms.int32), (1,))
    with pytest.raises(ValueError):
        ops.inplace_add(Tensor(X), Tensor([[1.0, 2.0, 3.0]]), (5,))
    with pytest.raises(ValueError):
        ops.inplace_sub(Tensor(X), Tensor([[1.0, 2.0, 3.0]]), (0, 1))
    with pytest.raises(ValueError):
        ops.inplace_update(Tensor(X), Tensor([1.0, 2.0, 3.0]), 1)
