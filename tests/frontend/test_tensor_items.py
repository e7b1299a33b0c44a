"""Tensor item assignment (`x[i] = v`, augmented forms) and tensor/list indices in
reads, in PyNative mode against numpy, graph mode against PyNative, gradients,
and MindSpore's exception types (issue 24)."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import nn, ops

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


@pytest.fixture(autouse=True)
def pynative():
    saved = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=saved)


def both(fn, *arrays):
    """fn in PyNative mode and compiled, each on fresh Tensors; the results agree."""
    eager = fn(*[ms.Tensor(a.copy()) for a in arrays])
    graph = ms.jit(fn)(*[ms.Tensor(a.copy()) for a in arrays])
    e = eager if isinstance(eager, tuple) else (eager,)
    g = graph if isinstance(graph, tuple) else (graph,)
    for a, b in zip(e, g, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    return eager


# --- item assignment ------------------------------------------------------------------


def set_int(x):
    x[0] = 1.0
    return x


def set_int_int(x):
    x[1, 2] = -3
    return x


def set_neg_int(x):
    x[-1, -1, -1] = 9
    return x


def set_slice_step(x):
    x[:, 1:-1:2] = 7.0
    return x


def set_neg_step(x):
    x[:, ::-2] = 5.0
    return x


def set_ellipsis(x):
    x[..., 0] = ms.Tensor(np.array([10.0, 20.0, 30.0], np.float32))
    return x


def set_tuple_value(x):
    x[0, 0] = (1.0, 2.0, 3.0, 4.0)
    return x


def set_list_value(x):
    x[1, :, 1] = [4, 5, 6]
    return x


def set_tensor_value_broadcast(x):
    x[0] = x[1, 0] * 2
    return x


def set_list_index(x):
    x[[0, 1], 1] = 0.5
    return x


def set_mixed_list(x):
    x[:, [0, 2]] = x[:, [2, 0]]
    return x


def set_mask(x):
    x[x > 10] = 0
    return x


def set_mask_tensor_value(x):
    x[x < 5] = ms.Tensor(np.array(-1.0, np.float32))
    return x


def aug_int(x, y):
    x[1] += y[0]
    return x


def aug_mask(x):
    x[x > 12] *= 2
    return x


def aug_slice(x):
    x[:, 1:] -= 1
    return x


def set_int_tensor_index(x, i):
    x[i] = 0.0
    return x


def set_argmax(x):
    i = ops.argmax(x[:, 0, 0])
    x[i] = -1.0
    return x


def set_nested(x):
    x[0][1] = 8.0
    return x


def set_in_tensor_if(x):
    if x.sum() > 0:
        x[0, 0, 0] = 100.0
    else:
        x[1, 0, 0] = 100.0
    return x


def set_in_loop(x):
    for i in range(3):
        x[:, i, i] = i * 10
    return x


def set_keeps_alias(x):
    z = x * 1
    x[0] = 0.0
    return x, z


def set_int_dtype(x):
    y = x.astype(ms.int32)
    y[0, 0] = 7.9
    return y


def set_bool(x):
    m = x > 3
    m[0] = True
    return m


NP = {
    set_int: lambda w: _do(w, 0, 1.0),
    set_int_int: lambda w: _do(w, (1, 2), -3),
    set_neg_int: lambda w: _do(w, (-1, -1, -1), 9),
    set_slice_step: lambda w: _do(w, (slice(None), slice(1, -1, 2)), 7.0),
    set_neg_step: lambda w: _do(w, (slice(None), slice(None, None, -2)), 5.0),
    set_ellipsis: lambda w: _do(w, (Ellipsis, 0), [10.0, 20.0, 30.0]),
    set_tuple_value: lambda w: _do(w, (0, 0), (1.0, 2.0, 3.0, 4.0)),
    set_list_value: lambda w: _do(w, (1, slice(None), 1), [4, 5, 6]),
    set_tensor_value_broadcast: lambda w: _do(w, 0, w[1, 0] * 2),
    set_list_index: lambda w: _do(w, ([0, 1], 1), 0.5),
    set_mixed_list: lambda w: _do(w, (slice(None), [0, 2]), w[:, [2, 0]].copy()),
    set_mask: lambda w: _do(w, w > 10, 0),
    set_mask_tensor_value: lambda w: _do(w, w < 5, -1.0),
    aug_mask: lambda w: _do(w, w > 12, w[w > 12] * 2),
    aug_slice: lambda w: _do(w, (slice(None), slice(1, None)), w[:, 1:] - 1),
    set_argmax: lambda w: _do(w, 1, -1.0),
    set_nested: lambda w: _do(w, (0, 1), 8.0),
    set_in_tensor_if: lambda w: _do(w, (0, 0, 0), 100.0),
}


def _do(w, index, value):
    w = w.copy()
    w[index] = value
    return w


@pytest.mark.parametrize("fn", list(NP), ids=lambda f: f.__name__)
def test_setitem_against_numpy_and_graph(fn):
    out = both(fn, A)
    np.testing.assert_array_equal(out.asnumpy(), NP[fn](A))


def test_setitem_in_loop():
    want = A.copy()
    for i in range(3):
        want[:, i, i] = i * 10
    np.testing.assert_array_equal(both(set_in_loop, A).asnumpy(), want)


def test_augmented_int_with_tensor():
    y = np.ones((3, 4), np.float32)
    want = A.copy()
    want[1] += y[0]
    np.testing.assert_array_equal(both(aug_int, A, y).asnumpy(), want)


def test_int_tensor_index_assignment():
    for idx in (np.array(1, np.int32), np.array([1], np.int64), np.array([-1, 0], np.int32)):
        want = A.copy()
        want[idx] = 0
        np.testing.assert_array_equal(both(set_int_tensor_index, A, idx).asnumpy(), want)


def test_dtypes_follow_the_tensor():
    out = both(set_int_dtype, A)
    assert out.dtype == ms.int32 and out.asnumpy()[0, 0, 0] == 7
    m = both(set_bool, A)
    assert m.dtype == ms.bool_ and m.asnumpy()[0].all()


def test_functional_semantics():
    """Graph mode rebinds the name: another name for the old value is unchanged.
    PyNative mode (as MindSpore's Tensor.__setitem__) gives the Tensor object the
    new value: every name for that object sees it; tensors computed from it before
    do not."""
    x = ms.Tensor(A.copy())
    y = x
    z = x * 1
    arr = x.asnumpy()
    x[0] = 0.0
    assert y is x and (y.asnumpy()[0] == 0).all()
    assert (z.asnumpy() == A).all()
    assert (arr == A).all()  # a new array: memory handed out before is not written
    out, kept = both(set_keeps_alias, A)
    np.testing.assert_array_equal(kept.asnumpy(), A)

    def alias(x):
        y = x
        x[0] = 0.0
        return y

    graph_y = ms.jit(alias)(ms.Tensor(A.copy()))
    np.testing.assert_array_equal(graph_y.asnumpy(), A)  # the graph's y keeps the old value
    inp = ms.Tensor(A.copy())
    ms.jit(set_int)(inp)
    np.testing.assert_array_equal(inp.asnumpy(), A)  # the caller's Tensor is not written


class Writes(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), name="p")

    def construct(self, x):
        q = self.p
        q[0] = x
        return q


class WritesAttr(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), name="p")

    def construct(self, x):
        self.p[0] = x
        return self.p


def test_parameter_not_changed_in_graph():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Writes()
    out = net(ms.Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), [[1, 1, 1], [0, 0, 0]])
    np.testing.assert_array_equal(net.p.asnumpy(), np.zeros((2, 3)))
    with pytest.raises(TypeError, match=r"test_tensor_items.py:\d+: .*'self.p'.*ops.assign"):
        WritesAttr()(ms.Tensor(np.ones(3, np.float32)))


def sq_after_set(x, v):
    x = x * 1
    x[0, 1:] = v
    x[x > 20] *= 3
    return (x * x).sum()


def grad_sq_after_set(x, v):
    return ms.grad(sq_after_set, grad_position=(0, 1))(x, v)


def sum_after_index_set(x, i):
    x = x * 1
    x[i] = x[0] * 2
    return x.sum()


def grad_sum_after_index_set(x, i):
    return ms.grad(sum_after_index_set)(x, i)


def read_both(x, i):
    return (x[:, i] * x[[1, 0]][:, i]).sum()


def grad_read_both(x, i):
    return ms.grad(read_both)(x, i)


def test_gradients_through_setitem():
    x = ms.Tensor(A.copy())
    v = ms.Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    gx, gv = grad_sq_after_set(x, v)
    w = A.copy()
    w[0, 1:] = [1, 2, 3, 4]
    scale = np.where(w > 20, 3.0, 1.0)
    w = w * scale
    want_gx = 2 * w * scale
    want_gx[0, 1:] = 0
    want_gv = (2 * w * scale)[0, 1:].sum(axis=0)
    np.testing.assert_allclose(gx.asnumpy(), want_gx)
    np.testing.assert_allclose(gv.asnumpy(), want_gv)
    ggx, ggv = ms.jit(grad_sq_after_set)(x, v)
    np.testing.assert_allclose(ggx.asnumpy(), want_gx)
    np.testing.assert_allclose(ggv.asnumpy(), want_gv)


def test_gradient_through_dynamic_index_assignment():
    x = ms.Tensor(A.copy())
    i = ms.Tensor(np.array([1], np.int32))
    g = grad_sum_after_index_set(x, i)
    gg = ms.jit(grad_sum_after_index_set)(x, i)
    want = np.ones_like(A)
    want[1] = 0
    want[0] += 2
    np.testing.assert_allclose(g.asnumpy(), want)
    np.testing.assert_allclose(gg.asnumpy(), want)


# --- reads ----------------------------------------------------------------------------


def read_list(x):
    return x[[1, 0]]


def read_tensor(x, i):
    return x[i]


def read_mixed(x, i):
    return x[:, i], x[i, 1:], x[0, :, i], x[..., i]


def read_argmax(x):
    return x[ops.argmax(x[:, 0, 0])]


def read_list_mixed(x):
    return x[:, [2, 0]], x[[1, 0], 1:], x[0, :, [1, 3]], x[[0, 1], :, [1, 3]]


def read_neg_step(x):
    return x[::-1, 1:-1:2, ::-3]


def read_const_mask(x):
    return x[ms.Tensor(np.array([False, True]))]


@pytest.mark.parametrize(
    "i", [np.array([2, 0, 1], np.int32), np.array(1, np.int64), np.array([[0, -1]], np.int32)]
)
def test_tensor_index_reads(i):
    src = np.arange(27, dtype=np.float32).reshape(3, 3, 3)
    np.testing.assert_array_equal(both(read_tensor, src, i).asnumpy(), src[i])
    outs = both(read_mixed, src, i)
    for got, want in zip(outs, (src[:, i], src[i, 1:], src[0, :, i], src[..., i]), strict=True):
        np.testing.assert_array_equal(got.asnumpy(), want)


def test_list_and_step_reads():
    np.testing.assert_array_equal(both(read_list, A).asnumpy(), A[[1, 0]])
    outs = both(read_list_mixed, A)
    wants = (A[:, [2, 0]], A[[1, 0], 1:], A[0, :, [1, 3]], A[[0, 1], :, [1, 3]])
    for got, want in zip(outs, wants, strict=True):
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.asnumpy(), want)
    outs = both(read_neg_step, A)
    np.testing.assert_array_equal(outs.asnumpy(), A[::-1, 1:-1:2, ::-3])
    np.testing.assert_array_equal(both(read_argmax, A).asnumpy(), A[1])
    np.testing.assert_array_equal(both(read_const_mask, A).asnumpy(), A[[False, True]])


def test_mask_read_pynative_and_graph_refusal():
    x = ms.Tensor(A.copy())
    np.testing.assert_array_equal(x[x > 10].asnumpy(), A[A > 10])

    def f(x):
        return x[x > 10]

    with pytest.raises(ValueError, match=r"test_tensor_items.py:\d+: .*shape depends on the data"):
        ms.jit(f)(x)


def test_read_gradients():
    x = ms.Tensor(A.copy())
    i = ms.Tensor(np.array([2, 0], np.int32))
    g = grad_read_both(x, i)
    gg = ms.jit(grad_read_both)(x, i)
    want = np.zeros_like(A)
    for k in (2, 0):
        want[:, k] += A[::-1, k] + A[::-1, k]
    np.testing.assert_allclose(g.asnumpy(), want)
    np.testing.assert_allclose(gg.asnumpy(), want)


# --- errors ---------------------------------------------------------------------------


def out_of_range_read(x):
    return x[2]


def out_of_range_list(x):
    return x[:, [0, 3]]


def out_of_range_set(x):
    x[0, 5] = 1.0
    return x


def float_index(x):
    return x[1.5]


def str_value(x):
    x[0] = "a"
    return x


def bad_broadcast(x):
    x[0] = ms.Tensor(np.ones((2, 2), np.float32))
    return x


@pytest.mark.parametrize(
    "fn,exc",
    [
        (out_of_range_read, IndexError),
        (out_of_range_list, IndexError),
        (out_of_range_set, IndexError),
        (float_index, TypeError),
        (str_value, TypeError),
        (bad_broadcast, ValueError),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_errors_in_both_modes(fn, exc):
    with pytest.raises(exc):
        fn(ms.Tensor(A.copy()))
    with pytest.raises(exc, match=r"test_tensor_items.py:\d+: ") as info:
        ms.jit(fn)(ms.Tensor(A.copy()))
    assert "GraphValue" not in str(info.value) and "Evaluator" not in str(info.value)


def sq_after_input_set(x):
    x[0] = 0.0
    x[1, 0] += 1.0
    return (x * x).sum()


def grad_sq_after_input_set(x):
    return ms.grad(sq_after_input_set)(x)


def test_gradient_of_an_input_assigned_in_place():
    """PyNative gives the input Tensor object the new value; its gradient is still the
    gradient of the value it had (graph mode: the name is rebound)."""
    want = 2 * A.copy()
    want[0] = 0
    want[1, 0] += 2
    g = grad_sq_after_input_set(ms.Tensor(A.copy()))
    gg = ms.jit(grad_sq_after_input_set)(ms.Tensor(A.copy()))
    np.testing.assert_allclose(g.asnumpy(), want)
    np.testing.assert_allclose(gg.asnumpy(), want)


def mask_selecting_nothing(x):
    v = x * 2.0
    v[v > 100.0] = 0.5  # no element is selected: v keeps its value
    v[v > 20.0] = 0.5
    return (v * v).sum()


def grad_mask_selecting_nothing(x):
    return ms.grad(mask_selecting_nothing)(x)


def test_gradient_through_a_mask_that_selects_nothing():
    """Found by fuzz/differential.py (seed 1503): in PyNative an assignment through an
    all-False mask left the tensor itself as its new value, and rebinding it to itself
    took it off the tape: every gradient through it was zero."""
    v = 2 * A
    want = np.where(v > 20, 0.0, 8 * A)
    np.testing.assert_allclose(grad_mask_selecting_nothing(ms.Tensor(A.copy())).asnumpy(), want)
    got = ms.jit(grad_mask_selecting_nothing)(ms.Tensor(A.copy()))
    np.testing.assert_allclose(got.asnumpy(), want)


def test_repeated_indices_last_write_wins():
    idx = np.array([1, 0, 1, -2], np.int32)
    want = A.copy()
    want[idx] = np.arange(4, dtype=np.float32)[:, None, None]

    def f(x, i):
        x[i] = ms.Tensor(np.arange(4, dtype=np.float32).reshape(4, 1, 1))
        return x

    np.testing.assert_array_equal(both(f, A, idx).asnumpy(), want)


def set_in_while(x):
    while x.sum() < 45:
        x[0] += 5
        x[x > 12] = 12
    return x


def test_setitem_carried_by_a_tensor_while():
    """`x[i] = v` in the body rebinds x: the while carries it."""
    want = np.array([[10, 11, 12], [3, 4, 5]], np.float32)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(both(set_in_while, a).asnumpy(), want)


def empty_selections(x):
    y = x * 1
    y[[]] = 5.0
    return x[[]], x[:, []], x[ms.Tensor(np.zeros((2,), np.bool_))], y


def test_empty_selections():
    outs = both(empty_selections, A)
    assert [o.shape for o in outs] == [(0, 3, 4), (2, 0, 4), (0, 3, 4), (2, 3, 4)]
    np.testing.assert_array_equal(outs[3].asnumpy(), A)
