"""Index reductions, sort and scans from the frontend: PyNative against numpy,
dtypes and signatures as MindSpore 2.x, gradients against numpy, vmap in graph
mode, and the errors MindSpore raises."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import ops
from mindjit.frontend.graph import api

RNG = np.random.default_rng(23)


def _t(*shape: int) -> ms.Tensor:
    return ms.Tensor(RNG.standard_normal(shape).astype(np.float32))


def _graph(fn, *args):  # type: ignore[no-untyped-def]
    saved = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    api.clear_cache()
    try:
        return ms.jit(fn)(*args)
    finally:
        ms.set_context(mode=saved)


# -- argmax / argmin / max / min ---------------------------------------------------------------

TIES = np.array([[1, 5, 5, 2], [np.nan, 3, np.nan, 9], [-np.inf] * 4, [0, -1, 0, -1]], np.float32)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_argmax_argmin_match_numpy_with_ties_nan_and_inf(axis):
    x = ms.Tensor(TIES)
    got = ops.argmax(x, axis)
    assert got.dtype == ms.int64
    np.testing.assert_array_equal(got.asnumpy(), np.argmax(TIES, axis))
    got = ops.argmin(x, axis)
    assert got.dtype == ms.int32
    np.testing.assert_array_equal(got.asnumpy(), np.argmin(TIES, axis))


def test_keepdim_tensor_methods_ints_and_scalars():
    n = np.array([[3, 1, 3], [0, -2, -2]], np.int32)
    got = ops.argmax(ms.Tensor(n), dim=1, keepdim=True)
    np.testing.assert_array_equal(got.asnumpy(), np.argmax(n, 1, keepdims=True))
    np.testing.assert_array_equal(ms.Tensor(n).argmin(0, True).asnumpy(), [[1, 1, 1]])
    np.testing.assert_array_equal(ms.Tensor(n).argmax().asnumpy(), 0)
    assert ops.argmax(ms.Tensor(2.5)).asnumpy() == 0
    b = ms.Tensor(np.array([False, True, True]))
    assert ops.argmax(b).asnumpy() == 1


def test_primitives():
    x = _t(3, 4)
    xs = x.asnumpy()
    got = ops.Argmax(output_type=ms.int64)(x)
    assert got.dtype == ms.int64
    np.testing.assert_array_equal(got.asnumpy(), xs.argmax(-1))
    got = ops.Argmin(axis=0)(x)
    assert got.dtype == ms.int32
    np.testing.assert_array_equal(got.asnumpy(), xs.argmin(0))
    index, values = ops.ArgMaxWithValue(axis=1, keep_dims=True)(x)
    np.testing.assert_array_equal(index.asnumpy(), xs.argmax(1)[:, None])
    np.testing.assert_array_equal(values.asnumpy(), xs.max(1, keepdims=True))
    index, values = ops.ArgMinWithValue()(x)
    np.testing.assert_array_equal(index.asnumpy(), xs.argmin(0))
    np.testing.assert_array_equal(values.asnumpy(), xs.min(0))


def test_max_min_values_and_indices():
    x = ms.Tensor(TIES)
    values, index = ops.max(x, 1)
    assert index.dtype == ms.int32 and values.dtype == ms.float32
    np.testing.assert_array_equal(index.asnumpy(), np.argmax(TIES, 1))
    np.testing.assert_array_equal(values.asnumpy(), np.max(TIES, 1))
    values, index = ops.min(x, 0, keepdims=True)
    np.testing.assert_array_equal(index.asnumpy(), np.argmin(TIES, 0)[None])
    np.testing.assert_array_equal(values.asnumpy(), np.min(TIES, 0, keepdims=True))
    values, index = ops.max(ms.Tensor(np.array([0.0, 0.4, 0.7, 0.1], np.float32)))
    assert values.shape == () and float(values.asnumpy()) == np.float32(0.7)
    assert index.asnumpy() == 0  # MindSpore: the index is 0 when axis is None
    values, _ = ops.max(ms.Tensor(TIES[:1]), 1, initial=6.0)
    np.testing.assert_array_equal(values.asnumpy(), [6.0])
    where = ms.Tensor(np.array([[True, False, True, True]]))
    values, index = ops.min(ms.Tensor(TIES[3:]), 1, initial=-5.0, where=where)
    np.testing.assert_array_equal(values.asnumpy(), [-5.0])
    np.testing.assert_array_equal(index.asnumpy(), [1])


def _max_sum(x):  # type: ignore[no-untyped-def]
    values, _ = ops.max(x, 1)
    return (values * ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))).sum()


def _grad_max_sum(x):  # type: ignore[no-untyped-def]
    return ms.grad(_max_sum)(x)


def test_max_gradient_flows_to_the_first_chosen_element():
    x = np.array([[1, 5, 5, 2], [7, 3, 7, 7], [0, 0, 0, 0]], np.float32)
    want = np.zeros_like(x)
    want[0, 1], want[1, 0], want[2, 0] = 1.0, 2.0, 3.0
    got = ms.grad(_max_sum)(ms.Tensor(x))
    np.testing.assert_array_equal(got.asnumpy(), want)
    got = _graph(_grad_max_sum, ms.Tensor(x))
    np.testing.assert_array_equal(got.asnumpy(), want)


def _row_args(r):  # type: ignore[no-untyped-def]
    return ops.argmax(r, 0), ops.max(r, 1)[1]


def _vm_argmax(x):  # type: ignore[no-untyped-def]
    return ms.vmap(_row_args, in_axes=1)(x)


def test_vmap_moves_the_axis():
    x = _t(3, 4, 5)
    a, i = _graph(_vm_argmax, x)
    xs = x.asnumpy()
    np.testing.assert_array_equal(a.asnumpy(), xs.transpose(1, 0, 2).argmax(1))
    np.testing.assert_array_equal(i.asnumpy(), xs.transpose(1, 0, 2).argmax(2))


def test_argmax_errors():
    x = _t(2, 3)
    with pytest.raises(ValueError, match="argmax"):
        ops.argmax(x, 2)
    with pytest.raises(TypeError, match="keepdim"):
        ops.argmax(x, 1, keepdim=1)
    with pytest.raises(TypeError, match="axis"):
        ops.argmin(x, 0.5)
    with pytest.raises(TypeError, match="output_type"):
        ops.Argmax(output_type=ms.float32)
    with pytest.raises(TypeError, match="'axis' must be an int"):
        ops.max(x, (0, 1))
    with pytest.raises(TypeError, match="keepdims"):
        ops.min(x, 0, keepdims=None)
    with pytest.raises(ValueError, match="initial"):
        ops.max(x, 0, where=ms.Tensor(np.ones((2, 3), bool)))
    with pytest.raises(TypeError, match="Tensor"):
        ops.max([1.0, 2.0], 0)


# -- sort / topk -------------------------------------------------------------------------------


def _stable_desc(x: np.ndarray, axis: int) -> np.ndarray:
    """Indices of a stable descending sort (ties: the smaller index first, NaN first)."""
    xm = np.moveaxis(x, axis, -1)
    n = xm.shape[-1]
    order = n - 1 - np.argsort(xm[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return np.moveaxis(order, -1, axis)


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_a_stable_numpy_sort(axis, descending):
    x = RNG.integers(-3, 4, (5, 7)).astype(np.float32)
    x[1, 2] = x[3, 4] = np.nan
    values, indices = ops.sort(ms.Tensor(x), axis, descending)
    assert indices.dtype == ms.int32 and values.dtype == ms.float32
    want = _stable_desc(x, axis) if descending else np.argsort(x, axis, kind="stable")
    np.testing.assert_array_equal(indices.asnumpy(), want)
    np.testing.assert_array_equal(values.asnumpy(), np.take_along_axis(x, want, axis))


def test_sort_integers_and_tensor_methods():
    n = RNG.integers(-3, 4, (4, 6)).astype(np.int32)
    values, indices = ms.Tensor(n).sort(0, True)
    np.testing.assert_array_equal(indices.asnumpy(), _stable_desc(n, 0))
    np.testing.assert_array_equal(values.asnumpy(), -np.sort(-n, 0))
    values, indices = ops.Sort()(ms.Tensor(n))
    np.testing.assert_array_equal(values.asnumpy(), np.sort(n, -1))


def test_topk_as_mindspore_documents():
    x = np.array([[0.5368, 0.2447, 0.4302, 0.9673], [0.4388, 0.6525, 0.4685, 0.1868]], np.float32)
    values, indices = ops.topk(ms.Tensor(x), 2, dim=1)
    np.testing.assert_array_equal(indices.asnumpy(), [[3, 0], [1, 2]])
    np.testing.assert_array_equal(values.asnumpy(), np.take_along_axis(x, indices.asnumpy(), 1))
    values, indices = ms.Tensor(x).topk(1, 0, largest=False)
    np.testing.assert_array_equal(indices.asnumpy(), [[1, 0, 0, 1]])
    values, indices = ops.TopK()(ms.Tensor(np.array([1, 3, 3, 2], np.int32)), 3)
    np.testing.assert_array_equal(indices.asnumpy(), [1, 2, 3])  # ties: smaller index first
    np.testing.assert_array_equal(values.asnumpy(), [3, 3, 2])


def _top2_weighted(x):  # type: ignore[no-untyped-def]
    values, _ = ops.topk(x, 2)
    return (values * ms.Tensor(np.array([3.0, 1.0], np.float32))).sum()


def _grad_top2(x):  # type: ignore[no-untyped-def]
    return ms.grad(_top2_weighted)(x)


def test_topk_gradient_goes_back_to_the_chosen_positions():
    x = np.array([[0.1, 0.9, 0.5, 0.7], [2.0, -1.0, 3.0, 0.0]], np.float32)
    want = np.array([[0, 3, 0, 1], [1, 0, 3, 0]], np.float32)
    np.testing.assert_array_equal(ms.grad(_top2_weighted)(ms.Tensor(x)).asnumpy(), want)
    np.testing.assert_array_equal(_graph(_grad_top2, ms.Tensor(x)).asnumpy(), want)


def _row_sort(r):  # type: ignore[no-untyped-def]
    return ops.sort(r, 0, True)


def _vm_sort(x):  # type: ignore[no-untyped-def]
    return ms.vmap(_row_sort, in_axes=2)(x)


def test_sort_vmap_moves_the_axis():
    x = _t(3, 4, 2)
    values, indices = _graph(_vm_sort, x)
    xs = x.asnumpy().transpose(2, 0, 1)
    np.testing.assert_array_equal(indices.asnumpy(), _stable_desc(xs, 1))
    np.testing.assert_array_equal(values.asnumpy(), -np.sort(-xs, 1))


def test_sort_topk_errors():
    x = _t(2, 3)
    with pytest.raises(ValueError, match="sort"):
        ops.sort(x, 2)
    with pytest.raises(TypeError, match="descending"):
        ops.sort(x, descending=1)
    with pytest.raises(TypeError, match="Bool"):
        ops.sort(ms.Tensor(np.array([True, False])))
    with pytest.raises(TypeError, match="'k' must be an int"):
        ops.topk(x, 1.0)
    with pytest.raises(ValueError, match="'k' must be in"):
        ops.topk(x, 4)
    with pytest.raises(TypeError, match="Tensor"):
        ops.topk([1.0, 2.0], 1)


# -- cumsum / cumprod --------------------------------------------------------------------------


def _np_scan(x: np.ndarray, axis: int, product: bool, exclusive: bool, reverse: bool):
    run = np.cumprod if product else np.cumsum
    xm = np.moveaxis(x, axis, -1)
    xm = xm[..., ::-1] if reverse else xm
    out = run(xm, -1)
    if exclusive:
        first = np.ones_like(out[..., :1]) if product else np.zeros_like(out[..., :1])
        out = np.concatenate([first, out[..., :-1]], -1)
    out = out[..., ::-1] if reverse else out
    return np.moveaxis(out, -1, axis)


def test_cumsum_cumprod_match_numpy():
    x = _t(3, 4)
    xs = x.asnumpy()
    np.testing.assert_allclose(ops.cumsum(x, 0).asnumpy(), np.cumsum(xs, 0), rtol=1e-6)
    np.testing.assert_allclose(ops.cumprod(x, -1).asnumpy(), np.cumprod(xs, -1), rtol=1e-6)
    got = ops.cumsum(x, 1, dtype=ms.float64)
    assert got.dtype == ms.float64
    n = ms.Tensor(np.array([[1, 2, 3], [4, 5, 6]], np.int32))
    np.testing.assert_array_equal(ops.cumsum(n, 1).asnumpy(), [[1, 3, 6], [4, 9, 15]])
    assert ops.cumsum(n, 0).dtype == ms.int32
    np.testing.assert_array_equal(n.cumsum().asnumpy(), np.cumsum(n.asnumpy()))
    np.testing.assert_array_equal(n.cumprod(0).asnumpy(), np.cumprod(n.asnumpy(), 0))
    assert float(ops.cumsum(ms.Tensor(2.5), 0).asnumpy()) == 2.5


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cum_primitives_exclusive_reverse(exclusive, reverse):
    x = _t(4, 3)
    xs = x.asnumpy()
    got = ops.CumSum(exclusive, reverse)(x, 0).asnumpy()
    np.testing.assert_allclose(got, _np_scan(xs, 0, False, exclusive, reverse), rtol=1e-5)
    got = ops.CumProd(exclusive, reverse)(x, 1).asnumpy()
    np.testing.assert_allclose(got, _np_scan(xs, 1, True, exclusive, reverse), rtol=1e-5)


def _scans_loss(x):  # type: ignore[no-untyped-def]
    w = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    return (ops.cumsum(x, 1) * w).sum() + (ops.cumprod(x, 0) * w).sum()


def _grad_scans(x):  # type: ignore[no-untyped-def]
    return ms.grad(_scans_loss)(x)


def test_scan_gradients_against_numpy():
    xs = np.array([[0.5, -1.5, 2.0, 1.2], [1.1, 0.7, -0.9, 1.3], [-1.4, 0.6, 0.8, 2.1]], np.float32)
    w = np.arange(12, dtype=np.float64).reshape(3, 4)
    x64 = xs.astype(np.float64)
    want = np.cumsum(w[:, ::-1], 1)[:, ::-1]  # d/dx of sum(cumsum(x, 1) * w)
    out = np.cumprod(x64, 0)
    want += np.cumsum((w * out)[::-1], 0)[::-1] / x64
    np.testing.assert_allclose(ms.grad(_scans_loss)(ms.Tensor(xs)).asnumpy(), want, rtol=1e-4)
    np.testing.assert_allclose(_graph(_grad_scans, ms.Tensor(xs)).asnumpy(), want, rtol=1e-4)


def _row_scans(r):  # type: ignore[no-untyped-def]
    return ops.cumsum(r, 0), ops.CumProd(reverse=True)(r, -1)


def _vm_scans(x):  # type: ignore[no-untyped-def]
    return ms.vmap(_row_scans, in_axes=1)(x)


def test_scan_vmap_moves_the_axis():
    x = _t(3, 4, 2)
    s, p = _graph(_vm_scans, x)
    xs = x.asnumpy().transpose(1, 0, 2)
    np.testing.assert_allclose(s.asnumpy(), np.cumsum(xs, 1), rtol=1e-5)
    np.testing.assert_allclose(p.asnumpy(), _np_scan(xs, 2, True, False, True), rtol=1e-5)


def test_scan_errors():
    x = _t(2, 3)
    with pytest.raises(ValueError, match="cumsum"):
        ops.cumsum(x, 2)
    with pytest.raises(TypeError, match="axis"):
        ops.cumprod(x, None)
    with pytest.raises(TypeError, match="exclusive"):
        ops.CumSum(exclusive=1)(x, 0)
    with pytest.raises(TypeError, match="Tensor"):
        ops.cumsum([1.0, 2.0], 0)
