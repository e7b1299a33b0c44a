"""gather / scatter / one_hot / nn.Embedding: PyNative against numpy, graph mode
against PyNative, gradients against numpy, and MindSpore's argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn, ops

RNG = np.random.default_rng(23)


def f32(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def i32(values) -> Tensor:
    return Tensor(np.asarray(values, np.int32))


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


# --- values ------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_gather_matches_numpy_take(axis: int) -> None:
    p = f32(3, 4, 5)
    idx = np.array([[0, 2, 1], [2, 2, 0]], np.int64)
    got = ops.gather(Tensor(p), Tensor(idx), axis)
    np.testing.assert_array_equal(got.asnumpy(), np.take(p, idx, axis=axis))
    np.testing.assert_array_equal(Tensor(p).gather(Tensor(idx), axis).asnumpy(), got.asnumpy())
    np.testing.assert_array_equal(
        ops.Gather()(Tensor(p), Tensor(idx), axis).asnumpy(), got.asnumpy()
    )


def test_gather_scalar_index_and_int_params() -> None:
    p = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = ops.gather(Tensor(p), Tensor(np.array(2, np.int32)), 1)
    np.testing.assert_array_equal(got.asnumpy(), p[:, 2])
    assert got.dtype == ms.int32


def test_gather_elements_and_gather_nd() -> None:
    x = f32(3, 4)
    index = np.array([[0, 3], [2, 1], [1, 1]], np.int32)
    np.testing.assert_array_equal(
        ops.gather_elements(Tensor(x), 1, Tensor(index)).asnumpy(),
        np.take_along_axis(x, index, axis=1),
    )
    index0 = np.array([[2, 0, 1, 1]], np.int64)
    np.testing.assert_array_equal(
        ops.GatherD()(Tensor(x), 0, Tensor(index0)).asnumpy(), np.take_along_axis(x, index0, 0)
    )
    y = f32(2, 3, 4)
    nd = np.array([[[1, 2], [0, 0]], [[1, 1], [0, 2]]], np.int32)
    np.testing.assert_array_equal(
        ops.gather_nd(Tensor(y), Tensor(nd)).asnumpy(), y[nd[..., 0], nd[..., 1]]
    )
    rows = np.array([[1], [0], [1]], np.int32)
    np.testing.assert_array_equal(Tensor(y).gather_nd(Tensor(rows)).asnumpy(), y[rows[:, 0]])


def test_tensor_scatter_elements_and_scatter() -> None:
    x = f32(3, 4)
    index = np.array([[2, 0, 1, 1], [0, 2, 2, 0]], np.int32)
    updates = f32(2, 4)
    want = x.copy()
    np.put_along_axis(want, index, updates, axis=0)
    got = ops.tensor_scatter_elements(Tensor(x), Tensor(index), Tensor(updates), 0)
    np.testing.assert_allclose(got.asnumpy(), want)
    np.testing.assert_allclose(
        ops.scatter(Tensor(x), 0, Tensor(index), Tensor(updates)).asnumpy(), want
    )
    dup = np.array([[1, 1, 3]], np.int32)  # 'add' sums duplicates
    upd = f32(1, 3)
    want_add = x.copy()
    np.add.at(want_add, (np.zeros(3, int), dup[0]), upd[0])
    got_add = ops.tensor_scatter_elements(Tensor(x), Tensor(dup), Tensor(upd), 1, "add")
    np.testing.assert_allclose(got_add.asnumpy()[:1], want_add[:1], rtol=1e-6)


def test_unsorted_segment_sum_drops_out_of_range_ids() -> None:
    x = f32(4, 3)
    ids = np.array([2, 0, 2, 5], np.int32)
    want = np.zeros((3, 3), np.float32)
    np.add.at(want, ids[:3], x[:3])
    got = ops.unsorted_segment_sum(Tensor(x), Tensor(ids), 3)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    got = ops.UnsortedSegmentSum()(Tensor(x), Tensor(ids), 3)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(axis: int) -> None:
    idx = np.array([[0, 3], [2, 7]], np.int32)  # 7 >= depth: a line of off_value
    full = np.where(idx[..., None] == np.arange(4), 2.0, -1.0).astype(np.float32)
    want = np.moveaxis(full, -1, axis if axis != -1 else -1)
    got = ops.one_hot(Tensor(idx), 4, Tensor(2.0, ms.float32), Tensor(-1.0, ms.float32), axis)
    assert got.dtype == ms.float32
    np.testing.assert_array_equal(got.asnumpy(), want)
    default = ops.one_hot(Tensor(idx), 4)
    assert default.dtype == ms.int64
    np.testing.assert_array_equal(default.asnumpy(), (idx[..., None] == np.arange(4)).astype(int))
    prim = ops.OneHot(axis)(Tensor(idx), 4, Tensor(2.0, ms.float32), Tensor(-1.0, ms.float32))
    np.testing.assert_array_equal(prim.asnumpy(), want)


# --- errors -----------------------------------------------------------------------------------


def test_errors_are_mindspore_exceptions() -> None:
    p = Tensor(f32(3, 4))
    with pytest.raises(TypeError, match="'input_indices' must be a Tensor of int32 or int64"):
        ops.gather(p, Tensor(np.zeros(2, np.float32)), 0)
    with pytest.raises(TypeError, match="'axis' must be an int"):
        ops.gather(p, i32([0]), 0.5)
    with pytest.raises(ValueError, match="only batch_dims=0"):
        ops.gather(p, i32([0]), 0, batch_dims=1)
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        ops.gather(p, i32([0]), 2)
    with pytest.raises(
        RuntimeError, match=r"'input_indices' must be in the range \[0, 3\), but got 3"
    ):
        ops.gather(p, i32([0, 3]), 0)
    with pytest.raises(RuntimeError, match="must be in the range"):
        ops.gather_elements(p, 0, i32([[0, -1, 0, 0]]))
    with pytest.raises(RuntimeError, match="must be in the range"):
        ops.gather_nd(p, i32([[0, 4]]))
    with pytest.raises(ValueError, match="rank of 'input'"):
        ops.gather_elements(p, 0, i32([0, 1]))
    with pytest.raises(ValueError, match="'reduction' must be one of"):
        ops.tensor_scatter_elements(p, i32([[0]]), Tensor(f32(1, 1)), 0, "mul")
    with pytest.raises(ValueError, match="'depth' must be >= 0"):
        ops.one_hot(i32([0]), -1)
    with pytest.raises(ValueError, match="'axis' must be in"):
        ops.one_hot(i32([0]), 3, axis=2)
    with pytest.raises(ValueError, match="must be a prefix"):
        ops.unsorted_segment_sum(p, i32([0, 1]), 2)


# --- graph mode ---------------------------------------------------------------------------------


def _program(p, idx, x, nd):
    a = ops.gather(p, idx, 1)
    b = ops.gather_elements(x, 1, ops.cast(idx, ms.int64))
    c = ops.gather_nd(p, nd)
    d = ops.one_hot(ops.reshape(idx, (-1,)), 5, Tensor(1.0, ms.float32), Tensor(0.0, ms.float32))
    e = ops.tensor_scatter_elements(x, idx, b * 2.0, 1, "add")
    return ops.reduce_sum(a) + ops.reduce_sum(c), d, e


def test_graph_mode_equals_pynative() -> None:
    p, x = Tensor(f32(3, 5)), Tensor(f32(2, 5))
    idx, nd = i32([[4, 0, 1], [2, 2, 3]]), i32([[0, 4], [2, 1]])
    eager = [t.asnumpy() for t in _program(p, idx, x, nd)]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = [t.asnumpy() for t in ms.jit(_program)(p, idx, x, nd)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for g, e in zip(graph, eager, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)


def test_runtime_indices_out_of_range_gather_zeros_in_graph_mode(graph_mode) -> None:
    p = f32(3, 2)

    def take(t, i):
        return ops.gather(t, i, 0)

    got = ms.jit(take)(Tensor(p), i32([2, 3, -1]))
    np.testing.assert_array_equal(got.asnumpy(), np.stack([p[2], np.zeros(2), np.zeros(2)]))


# --- gradients ----------------------------------------------------------------------------------


def test_gather_gradient_sums_into_rows() -> None:
    p = f32(4, 3)
    idx = np.array([[3, 1], [3, 3]], np.int32)
    w = f32(2, 2, 3)
    w1 = f32(4, 2, 2)

    def loss(t):
        rows = ops.reduce_sum(ops.gather(t, Tensor(idx), 0) * Tensor(w))
        cols = ops.reduce_sum(ops.gather(ops.transpose(t, (1, 0)), Tensor(idx[:, :1] - 1), 1))
        return rows + cols + ops.reduce_sum(ops.gather(t, Tensor(idx - 1), 1) * Tensor(w1))

    g = ms.grad(loss)(Tensor(p)).asnumpy()
    want = np.zeros_like(p)
    np.add.at(want, idx.reshape(-1), w.reshape(4, 3))
    want[2, :] += 2.0  # idx[:, :1] - 1 = [[2], [2]] on the transposed table
    gt = np.zeros_like(p)
    np.add.at(gt.T, (idx - 1).reshape(-1), np.moveaxis(w1, 0, -1).reshape(4, 4))
    np.testing.assert_allclose(g, want + gt, rtol=1e-5, atol=1e-6)


def test_composition_gradients_match_numpy() -> None:
    x = f32(3, 4)
    index = np.array([[1, 0, 2, 2]], np.int32)
    up = f32(1, 4)

    def f(a, u):
        s = ops.tensor_scatter_elements(a, Tensor(index), u, 0)
        e = ops.gather_elements(a, 0, Tensor(index))
        n = ops.gather_nd(a, Tensor(np.array([[2, 1], [2, 1]], np.int32)))
        return ops.reduce_sum(s * s) + ops.reduce_sum(e * 3.0) + ops.reduce_sum(n)

    ga, gu = (t.asnumpy() for t in ms.grad(f, (0, 1))(Tensor(x), Tensor(up)))
    s = x.copy()
    np.put_along_axis(s, index, up, 0)
    hit = np.zeros_like(x, bool)
    np.put_along_axis(hit, index, True, 0)
    want_a = np.where(hit, 0.0, 2 * s)
    np.add.at(want_a, (index[0], np.arange(4)), 3.0)
    want_a[2, 1] += 2.0
    np.testing.assert_allclose(ga, want_a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gu, 2 * up, rtol=1e-5, atol=1e-6)


# --- nn.Embedding -------------------------------------------------------------------------------


def _lookup(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    ok = (ids >= 0) & (ids < table.shape[0])
    return np.where(ok[..., None], table[np.clip(ids, 0, table.shape[0] - 1)], 0)


@pytest.mark.parametrize("use_one_hot", [False, True])
def test_embedding_forward_in_both_modes(use_one_hot: bool) -> None:
    ms.set_seed(1)
    net = nn.Embedding(10, 4, use_one_hot=use_one_hot)
    ids = np.array([[1, 2, 9], [0, 12, 1]], np.int32)  # 12: a row of zeros
    table = net.embedding_table.asnumpy()
    eager = net(Tensor(ids)).asnumpy()
    np.testing.assert_allclose(eager, _lookup(table, ids), rtol=1e-6)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        graph = net(Tensor(ids)).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(graph, eager, rtol=1e-6)


def test_embedding_padding_idx_and_errors() -> None:
    net = nn.Embedding(6, 3, embedding_table="ones", padding_idx=4)
    table = net.embedding_table.asnumpy()
    np.testing.assert_array_equal(table[4], 0)
    np.testing.assert_array_equal(np.delete(table, 4, 0), 1)
    assert net.embedding_table.name.endswith("embedding_table")
    with pytest.raises(ValueError, match="padding_idx"):
        nn.Embedding(6, 3, padding_idx=6)
    with pytest.raises(TypeError, match="'vocab_size' must be an int"):
        nn.Embedding(6.0, 3)
    with pytest.raises(TypeError, match="'use_one_hot' must be a bool"):
        nn.Embedding(6, 3, use_one_hot=1)


class _Bag(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(8, 3)
        self.dense = nn.Dense(3, 1)

    def construct(self, ids):
        return self.dense(ops.reduce_mean(self.embed(ids), 1))


def _train(mode: int, steps: int = 3):
    ms.set_context(mode=mode)
    try:
        ms.set_seed(5)
        net = _Bag()
        before = net.embed.embedding_table.asnumpy().copy()
        opt = nn.SGD(net.trainable_params(), learning_rate=0.5)

        def forward(i, y):
            return ops.reduce_mean((net(i) - y) ** 2)

        grad_fn = ms.value_and_grad(forward, None, opt.parameters)

        def step(i, y):
            loss, grads = grad_fn(i, y)
            opt(grads)
            return loss

        if mode == ms.GRAPH_MODE:
            step = ms.jit(step)
        ids = i32([[1, 3, 3], [6, 1, 1]])
        y = Tensor(np.array([[1.0], [-1.0]], np.float32))
        losses = [float(step(ids, y).asnumpy()) for _ in range(steps)]
        return before, losses, [p.asnumpy() for p in net.trainable_params()]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_embedding_training_changes_only_looked_up_rows_and_graph_equals_pynative() -> None:
    before, graph_losses, graph_params = _train(ms.GRAPH_MODE)
    _, eager_losses, eager_params = _train(ms.PYNATIVE_MODE)
    after = graph_params[0]
    changed = np.abs(after - before).max(axis=1) > 0
    assert changed.tolist() == [i in (1, 3, 6) for i in range(8)]
    assert graph_losses[-1] < graph_losses[0]
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-5)
    for g, e in zip(graph_params, eager_params, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
