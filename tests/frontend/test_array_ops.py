"""split/chunk/Split, tile/repeat_interleave/expand, clamp/masked_fill, var/std/norm, bmm,
interpolate and nn.Upsample: PyNative against numpy, graph mode == PyNative (forward
and `ms.grad`), gradients against central finite differences in float64, vmap, and
the error cases with MindSpore's exception types."""

from __future__ import annotations

import array_ops_programs as P
import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn, ops
from mindjit.frontend import context as C
from mindjit.frontend.ops.interpolate import axis_matrix


@pytest.fixture(autouse=True)
def _pynative():
    C.reset_context()
    yield
    C.reset_context()


def rand(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def arrays(out):
    return [t.asnumpy() for t in out]


# --- split / chunk / Split -------------------------------------------------------------------


@pytest.mark.parametrize(("size", "axis"), [(3, 1), (5, 1), (10, 1), (1, 0), (2, -2), (4, -1)])
def test_split_int_matches_numpy(size, axis):
    x = rand(3, 10)
    n = x.shape[axis]
    want = np.split(x, list(range(size, n, size)), axis)
    got = ops.split(Tensor(x), size, axis)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(arrays(got), want):
        np.testing.assert_array_equal(g, w)


def test_split_sections_and_methods():
    x = rand(6, 4)
    got = arrays(ops.split(Tensor(x), [1, 0, 3, 2]))
    want = np.split(x, [1, 1, 4])
    assert [g.shape for g in got] == [(1, 4), (0, 4), (3, 4), (2, 4)]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    for g, w in zip(arrays(Tensor(x).split((2, 2), 1)), np.split(x, 2, 1)):
        np.testing.assert_array_equal(g, w)
    for g, w in zip(arrays(ops.Split(1, 2)(Tensor(x))), np.split(x, 2, 1)):
        np.testing.assert_array_equal(g, w)
    assert len(ops.Split()(Tensor(x))) == 1


@pytest.mark.parametrize(("n", "chunks"), [(10, 3), (10, 4), (5, 4), (6, 6), (3, 5), (8, 2)])
def test_chunk_matches_ceil_sized_pieces(n, chunks):
    x = np.arange(n * 2, dtype=np.int32).reshape(2, n)
    size = -(-n // chunks)
    want = np.split(x, list(range(size, n, size)), 1)
    got = arrays(ops.chunk(Tensor(x), chunks, 1))
    assert len(got) == len(want) <= chunks
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert len(Tensor(x).chunk(chunks, -1)) == len(want)


def test_split_errors():
    x = Tensor(rand(4, 6))
    with pytest.raises(TypeError, match="For 'split'"):
        ops.split(np.ones(3), 1)
    with pytest.raises(TypeError, match="For 'split'"):
        ops.split(x, 2.0)
    with pytest.raises(TypeError, match="For 'split'"):
        ops.split(x, [2, 2.0])
    with pytest.raises(ValueError, match="For 'split'.*greater than 0"):
        ops.split(x, 0)
    with pytest.raises(ValueError, match="For 'split'.*sum"):
        ops.split(x, [1, 2], 0)
    with pytest.raises(ValueError, match="For 'split'"):
        ops.split(x, [5, -1], 0)
    with pytest.raises(ValueError, match="For 'split'"):
        ops.split(x, 2, 2)
    with pytest.raises(TypeError, match="For 'split'"):
        ops.split(x, 2, 1.0)
    with pytest.raises(ValueError, match="For 'split'"):
        ops.split(Tensor(np.float32(1)), 1)
    with pytest.raises(TypeError, match="For 'chunk'"):
        ops.chunk(x, 2.0)
    with pytest.raises(ValueError, match="For 'chunk'"):
        ops.chunk(x, 0)
    with pytest.raises(ValueError, match="For 'Split'.*divisible"):
        ops.Split(1, 4)(x)
    with pytest.raises(ValueError, match="For 'Split'"):
        ops.Split(0, 0)(x)


# --- tile / repeat_interleave / expand ------------------------------------------------------


@pytest.mark.parametrize("dims", [(2, 3), (1, 1), (3,), (2, 1, 2), (1, 2, 1, 1)])
def test_tile_matches_numpy(dims):
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    np.testing.assert_array_equal(ops.tile(Tensor(x), dims).asnumpy(), np.tile(x, dims))
    np.testing.assert_array_equal(ops.Tile()(Tensor(x), dims).asnumpy(), np.tile(x, dims))
    np.testing.assert_array_equal(Tensor(x).tile(*dims).asnumpy(), np.tile(x, dims))
    np.testing.assert_array_equal(Tensor(x).tile(dims).asnumpy(), np.tile(x, dims))
    assert ops.tile(Tensor(x), (0, 2)).shape == (0, 6)


@pytest.mark.parametrize(
    ("repeats", "axis"), [(2, None), (3, 0), (2, 1), (1, -1), (0, 1), ([1, 0, 2], 1), ([2], 0)]
)
def test_repeat_interleave_matches_numpy(repeats, axis):
    x = rand(2, 3)
    want = np.repeat(x, repeats, axis)
    np.testing.assert_array_equal(ops.repeat_interleave(Tensor(x), repeats, axis).asnumpy(), want)
    np.testing.assert_array_equal(Tensor(x).repeat(repeats, axis=axis).asnumpy(), want)
    np.testing.assert_array_equal(Tensor(x).repeat_interleave(repeats, axis).asnumpy(), want)


def test_repeat_bool_and_scalar():
    b = np.array([[True, False]])
    np.testing.assert_array_equal(ops.repeat_interleave(Tensor(b), 2, 0).asnumpy(), b.repeat(2, 0))
    np.testing.assert_array_equal(Tensor(np.array(3)).repeat(4).asnumpy(), [3, 3, 3, 3])


def test_expand_and_expand_as():
    x = rand(3, 1)
    np.testing.assert_array_equal(
        ops.expand(Tensor(x), (2, 3, 4)).asnumpy(), np.broadcast_to(x, (2, 3, 4))
    )
    np.testing.assert_array_equal(
        ops.expand(Tensor(x), Tensor(np.array([-1, 5]))).asnumpy(), np.broadcast_to(x, (3, 5))
    )
    np.testing.assert_array_equal(Tensor(x).expand((3, 2)).asnumpy(), np.broadcast_to(x, (3, 2)))
    np.testing.assert_array_equal(
        Tensor(x).expand(2, 3, 2).asnumpy(), np.broadcast_to(x, (2, 3, 2))
    )
    np.testing.assert_array_equal(
        Tensor(x).expand(Tensor(np.array([3, 4]))).asnumpy(), np.broadcast_to(x, (3, 4))
    )
    y = Tensor(rand(3, 6))
    np.testing.assert_array_equal(Tensor(x).expand_as(y).asnumpy(), np.broadcast_to(x, (3, 6)))


def test_tile_repeat_errors():
    x = Tensor(rand(2, 3))
    with pytest.raises(TypeError, match="For 'tile'"):
        ops.tile(x, 2)
    with pytest.raises(TypeError, match="For 'tile'"):
        ops.tile(np.ones(2), (2,))
    with pytest.raises(ValueError, match="For 'tile'"):
        ops.tile(x, (-1, 2))
    with pytest.raises(TypeError, match="For 'repeat_interleave'"):
        ops.repeat_interleave(x, 1.5)
    with pytest.raises(ValueError, match="For 'repeat_interleave'"):
        ops.repeat_interleave(x, -1, 0)
    with pytest.raises(ValueError, match="For 'repeat_interleave'"):
        ops.repeat_interleave(x, [1, 2], 1)
    with pytest.raises(ValueError, match="For 'repeat_interleave'"):
        ops.repeat_interleave(x, 2, 2)
    with pytest.raises(ValueError, match="For 'expand'"):
        ops.expand(x, (4, 3))


# --- clamp / masked_fill ----------------------------------------------------------------------


def test_clamp_matches_numpy():
    x = rand(4, 5)
    t = Tensor(x)
    np.testing.assert_array_equal(ops.clamp(t, -0.5, 0.5).asnumpy(), np.clip(x, -0.5, 0.5))
    np.testing.assert_array_equal(ops.clamp(t, min=0.1).asnumpy(), np.maximum(x, 0.1))
    np.testing.assert_array_equal(ops.clip(t, max=0.1).asnumpy(), np.minimum(x, 0.1))
    lo = rand(5, seed=1) - 1
    np.testing.assert_array_equal(
        ops.clamp(t, Tensor(lo), 0.2).asnumpy(), np.minimum(np.maximum(x, lo), 0.2)
    )
    # min > max gives max, as MindSpore documents
    np.testing.assert_array_equal(ops.clamp(t, 1.0, -1.0).asnumpy(), np.full_like(x, -1.0))
    np.testing.assert_array_equal(ops.clip_by_value(t, -0.2, 0.3).asnumpy(), np.clip(x, -0.2, 0.3))
    np.testing.assert_array_equal(t.clip(-0.2, 0.3).asnumpy(), np.clip(x, -0.2, 0.3))
    pair = ops.clip_by_value([t, Tensor(x * 2)], -0.2, 0.3)
    assert isinstance(pair, list) and len(pair) == 2
    np.testing.assert_array_equal(pair[1].asnumpy(), np.clip(x * 2, -0.2, 0.3))
    np.testing.assert_array_equal(t.clamp(None, 0.3).asnumpy(), np.minimum(x, 0.3))
    i = Tensor(np.arange(-3, 4, dtype=np.int32))
    out = ops.clamp(i, -1, 2)
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), np.clip(np.arange(-3, 4), -1, 2))
    h = ops.clamp(Tensor(x.astype(np.float16)), -0.5, 0.5)
    assert h.dtype == ms.float16


def test_masked_fill_matches_numpy():
    x = rand(3, 4)
    mask = np.array([True, False, True, False])
    out = ops.masked_fill(Tensor(x), Tensor(mask), 9.0)
    np.testing.assert_array_equal(out.asnumpy(), np.where(mask, np.float32(9.0), x))
    out = Tensor(x).masked_fill(Tensor(x > 0), Tensor(np.float32(-1)))
    np.testing.assert_array_equal(out.asnumpy(), np.where(x > 0, np.float32(-1), x))
    i = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = ops.masked_fill(Tensor(i), Tensor(i % 2 == 0), 7)
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), np.where(i % 2 == 0, 7, i))


def test_clamp_masked_fill_errors():
    x = Tensor(rand(2, 3))
    with pytest.raises(ValueError, match="For 'clamp'"):
        ops.clamp(x)
    with pytest.raises(TypeError, match="For 'clamp'"):
        ops.clamp(x, "a")
    with pytest.raises(TypeError, match="For 'clamp'"):
        ops.clamp(Tensor(np.array([True])), 0)
    with pytest.raises(TypeError, match="For 'clamp'"):
        ops.clamp([1.0, 2.0], 0)
    with pytest.raises(ValueError, match="For 'clip_by_value'"):
        ops.clip_by_value(x)
    with pytest.raises(TypeError, match="For 'masked_fill'.*bool"):
        ops.masked_fill(x, Tensor(np.ones((2, 3), np.float32)), 1.0)
    with pytest.raises(TypeError, match="For 'masked_fill'.*dtype"):
        ops.masked_fill(x, x > 0, Tensor(np.int32(1)))
    with pytest.raises(ValueError, match="For 'masked_fill'"):
        ops.masked_fill(x, x > 0, Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="For 'masked_fill'"):
        ops.masked_fill(x, x > 0, "a")


# --- var / std / norm ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("axis", "ddof", "keepdims"),
    [(None, 0, False), (1, 1, True), ((0, 2), 0, False), (-1, True, False), (0, 2, True)],
)
def test_var_std_match_numpy(axis, ddof, keepdims):
    x = rand(3, 4, 5)
    d = int(ddof)
    t = Tensor(x)
    kw = dict(axis=axis, ddof=d, keepdims=keepdims)
    np.testing.assert_allclose(ops.var(t, axis, ddof, keepdims).asnumpy(), np.var(x, **kw), 1e-5)
    np.testing.assert_allclose(ops.std(t, axis, ddof, keepdims).asnumpy(), np.std(x, **kw), 1e-5)
    v, m = ops.var_mean(t, axis, ddof, keepdims)
    np.testing.assert_allclose(v.asnumpy(), np.var(x, **kw), 1e-5)
    np.testing.assert_allclose(m.asnumpy(), np.mean(x, axis=axis, keepdims=keepdims), 1e-5, 1e-6)
    s, m = ops.std_mean(t, axis, ddof, keepdims)
    np.testing.assert_allclose(s.asnumpy(), np.std(x, **kw), 1e-5)
    assert m.shape == np.mean(x, axis=axis, keepdims=keepdims).shape
    np.testing.assert_allclose(t.var(axis, ddof, keepdims).asnumpy(), np.var(x, **kw), 1e-5)
    np.testing.assert_allclose(t.std(axis, ddof, keepdims).asnumpy(), np.std(x, **kw), 1e-5)


def test_var_documented_example_and_ints():
    x = Tensor(np.array([[1, 2, 3, 4], [-1, 1, 4, -10]], np.float32))
    np.testing.assert_allclose(ops.var(x, 1, 2, True).asnumpy(), [[2.5], [54.5]])
    i = ops.var(Tensor(np.arange(6, dtype=np.int32)))
    assert i.dtype == ms.float32
    np.testing.assert_allclose(i.asnumpy(), np.var(np.arange(6)))


VECTOR_ORDS = [None, 2, 1, 3, 0.5, float("inf"), -float("inf"), 0, -1]


@pytest.mark.filterwarnings("ignore:divide by zero")
@pytest.mark.parametrize("ord", VECTOR_ORDS)
def test_vector_norm_matches_numpy(ord):
    x = rand(3, 4)
    x[0, 1] = 0.0
    for dim in (0, 1, -1):
        want = np.linalg.norm(x, ord, dim, keepdims=True)
        got = ops.norm(Tensor(x), ord, dim, True).asnumpy()
        np.testing.assert_allclose(got, want, 1e-5, 1e-6)
    v = x[1]
    np.testing.assert_allclose(ops.norm(Tensor(v), ord).asnumpy(), np.linalg.norm(v, ord), 1e-5)


@pytest.mark.parametrize("ord", [None, "fro", 1, -1, float("inf"), -float("inf")])
def test_matrix_norm_matches_numpy(ord):
    x = rand(2, 3, 4)
    np.testing.assert_allclose(
        ops.norm(Tensor(x[0]), ord).asnumpy(), np.linalg.norm(x[0], ord), 1e-5
    )
    for dim in ((1, 2), (2, 1), (-2, 0)):
        want = np.linalg.norm(x, ord, dim, keepdims=False)
        np.testing.assert_allclose(ops.norm(Tensor(x), ord, dim).asnumpy(), want, 1e-5)
        want = np.linalg.norm(x, ord, dim, keepdims=True)
        np.testing.assert_allclose(Tensor(x).norm(ord, dim, True).asnumpy(), want, 1e-5)


def test_norm_defaults_dtype_and_errors():
    x = rand(2, 3, 4)
    np.testing.assert_allclose(ops.norm(Tensor(x)).asnumpy(), np.linalg.norm(x.ravel()), 1e-5)
    out = ops.norm(Tensor(np.array([3, 4], np.int32)), dtype=ms.float16)
    assert out.dtype == ms.float16 and float(out.asnumpy()) == 5.0
    t = Tensor(x)
    with pytest.raises(ValueError, match="For 'norm'"):
        ops.norm(t, 1)  # 3-D without dim
    with pytest.raises(TypeError, match="For 'norm'"):
        ops.norm(t, "fro", 1)
    with pytest.raises(ValueError, match="For 'norm'"):
        ops.norm(t, 3, (1, 2))
    with pytest.raises(ValueError, match="For 'norm'"):
        ops.norm(t, "abc", (1, 2))
    # 'nuc', 2, -2 come from the singular values (frontend/ops/linalg_svd.py)
    np.testing.assert_allclose(
        ops.norm(t, "nuc", (1, 2)).asnumpy(), np.linalg.norm(t.asnumpy(), "nuc", (1, 2)), 1e-5
    )
    with pytest.raises(ValueError, match="For 'norm'"):
        ops.norm(t, None, (1, 1))
    with pytest.raises(ValueError, match="For 'norm'"):
        ops.norm(t, None, 3)
    with pytest.raises(TypeError, match="For 'norm'"):
        ops.norm(t, None, 1.0)
    with pytest.raises(TypeError, match="For 'var'"):
        ops.var(t, 1.5)
    with pytest.raises(TypeError, match="For 'var'"):
        ops.var(t, 1, 0.5)
    with pytest.raises(TypeError, match="For 'std'"):
        ops.std(t, 1, 0, 1)
    with pytest.raises(ValueError, match="For 'var'"):
        ops.var(t, 3)


# --- bmm / BatchMatMul / Tensor methods ---------------------------------------------------------


def test_bmm_and_batch_matmul():
    a, b = rand(2, 3, 4), rand(2, 4, 5, seed=1)
    want = np.matmul(a, b)
    np.testing.assert_allclose(ops.bmm(Tensor(a), Tensor(b)).asnumpy(), want, 1e-5)
    np.testing.assert_allclose(ops.BatchMatMul()(Tensor(a), Tensor(b)).asnumpy(), want, 1e-5)
    bt = Tensor(b.transpose(0, 2, 1).copy())
    np.testing.assert_allclose(ops.BatchMatMul(False, True)(Tensor(a), bt).asnumpy(), want, 1e-5)
    with pytest.raises(ValueError, match="For 'bmm'"):
        ops.bmm(Tensor(a[0]), Tensor(b[0]))
    with pytest.raises(ValueError, match="For 'bmm'"):
        ops.bmm(Tensor(a), Tensor(b[0]))


def test_tensor_shape_methods():
    x = rand(2, 3, 4)
    t = Tensor(x)
    np.testing.assert_array_equal(t.ravel().asnumpy(), x.ravel())
    np.testing.assert_array_equal(t.flatten().asnumpy(), x.flatten())
    np.testing.assert_array_equal(t.unsqueeze(1).asnumpy(), x[:, None])
    np.testing.assert_array_equal(t.permute(2, 0, 1).asnumpy(), x.transpose(2, 0, 1))
    np.testing.assert_array_equal(t.square().asnumpy(), x * x)
    np.testing.assert_array_equal(t.view(6, 4).asnumpy(), x.reshape(6, 4))
    np.testing.assert_array_equal(ops.square(t).asnumpy(), x * x)
    np.testing.assert_array_equal(ops.full_like(t, 2.5).asnumpy(), np.full_like(x, 2.5))


# --- interpolate -------------------------------------------------------------------------------


def coords(n, m, align_corners):
    """MindSpore's documented source coordinate of every output position, clamped."""
    i = np.arange(m, dtype=np.float64)
    if m == 1:
        src = np.zeros(1)
    elif align_corners:
        src = i * (n - 1) / (m - 1)
    else:
        src = (i + 0.5) * n / m - 0.5
    return np.clip(src, 0, n - 1)


def bilinear_ref(x, out_h, out_w, align_corners):
    """Gather the four neighbours of every output pixel and blend them."""
    x = x.astype(np.float64)
    h, w = x.shape[-2:]
    sy, sx = coords(h, out_h, align_corners), coords(w, out_w, align_corners)
    y0, x0 = np.floor(sy).astype(int), np.floor(sx).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    ty, tx = (sy - y0)[:, None], (sx - x0)[None, :]
    top = x[..., y0, :][..., :, x0] * (1 - tx) + x[..., y0, :][..., :, x1] * tx
    bottom = x[..., y1, :][..., :, x0] * (1 - tx) + x[..., y1, :][..., :, x1] * tx
    return top * (1 - ty) + bottom * ty


def nearest_ref(x, out_h, out_w):
    h, w = x.shape[-2:]
    rows = np.minimum(np.floor(np.arange(out_h) * h / out_h).astype(int), h - 1)
    cols = np.minimum(np.floor(np.arange(out_w) * w / out_w).astype(int), w - 1)
    return x[..., rows, :][..., :, cols]


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(6, 8), (5, 7), (2, 3), (3, 4), (1, 1), (7, 2)])
def test_bilinear_matches_reference(size, align_corners):
    x = rand(2, 3, 3, 4)
    got = ops.interpolate(Tensor(x), size=size, mode="bilinear", align_corners=align_corners)
    assert got.shape == (2, 3, *size) and got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), bilinear_ref(x, *size, align_corners), 1e-5, 1e-6)


def test_bilinear_known_values():
    x = Tensor(np.array([[[[1.0, 2.0], [3.0, 4.0]]]], np.float32))
    out = ops.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False)
    np.testing.assert_allclose(out.asnumpy()[0, 0, 0], [1.0, 1.25, 1.75, 2.0])
    np.testing.assert_allclose(out.asnumpy()[0, 0, :, 0], [1.0, 1.5, 2.5, 3.0])
    out = ops.interpolate(x, size=(3, 3), mode="bilinear", align_corners=True)
    np.testing.assert_allclose(out.asnumpy()[0, 0], [[1, 1.5, 2], [2, 2.5, 3], [3, 3.5, 4]])


@pytest.mark.parametrize("size", [(6, 8), (5, 7), (2, 3), (3, 2), (1, 1), (9, 12)])
def test_nearest_matches_reference(size):
    x = rand(2, 3, 3, 4)
    got = ops.interpolate(Tensor(x), size=size)
    np.testing.assert_array_equal(got.asnumpy(), nearest_ref(x, *size))
    # an inf stays where nearest puts it, also through the general (matrix) path
    y = x.copy()
    y[0, 0, 1, 2] = np.inf
    if size in ((6, 8), (9, 12)):
        np.testing.assert_array_equal(
            ops.interpolate(Tensor(y), size=size).asnumpy(), nearest_ref(y, *size)
        )


def test_linear_3d_and_scale_factor():
    x = rand(2, 3, 5)
    got = ops.interpolate(Tensor(x), size=8, mode="linear", align_corners=True)
    want = bilinear_ref(x[:, :, None, :], 1, 8, True)[:, :, 0]
    np.testing.assert_allclose(got.asnumpy(), want, 1e-5, 1e-6)
    got = ops.interpolate(Tensor(x), scale_factor=1.5, mode="linear")
    assert got.shape == (2, 3, 7)
    np.testing.assert_allclose(
        got.asnumpy(), bilinear_ref(x[:, :, None, :], 1, 7, False)[:, :, 0], 1e-5, 1e-6
    )
    up = ops.interpolate(Tensor(rand(1, 1, 3, 5)), scale_factor=(2.0, 0.5), mode="nearest")
    assert up.shape == (1, 1, 6, 2)


def test_interpolation_rows_sum_to_one():
    for n, m in ((3, 7), (7, 3), (1, 4), (4, 1)):
        for mode, corners in (("nearest", False), ("bilinear", False), ("bilinear", True)):
            np.testing.assert_allclose(axis_matrix(n, m, mode, corners).sum(1), 1.0)


def test_interpolate_errors():
    x = Tensor(rand(1, 2, 3, 4))
    with pytest.raises(TypeError, match="For 'interpolate'"):
        ops.interpolate(np.ones((1, 1, 2, 2)), size=2)
    with pytest.raises(TypeError, match="For 'interpolate'"):
        ops.interpolate(Tensor(np.ones((1, 1, 2, 2), np.int32)), size=2)
    with pytest.raises(ValueError, match="For 'interpolate'"):
        ops.interpolate(x)
    with pytest.raises(ValueError, match="For 'interpolate'"):
        ops.interpolate(x, size=2, scale_factor=2.0)
    with pytest.raises(ValueError, match="For 'interpolate'"):
        ops.interpolate(x, size=(2, 3, 4))
    with pytest.raises(TypeError, match="For 'interpolate'"):
        ops.interpolate(x, size=2.5)
    with pytest.raises(ValueError, match="For 'interpolate'"):
        ops.interpolate(x, size=2, mode="cubic")
    with pytest.raises(NotImplementedError, match="bicubic"):
        ops.interpolate(x, size=2, mode="bicubic")
    with pytest.raises(ValueError, match="For 'interpolate'.*3-D"):
        ops.interpolate(x, size=2, mode="linear")
    with pytest.raises(ValueError, match="For 'interpolate'.*4-D"):
        ops.interpolate(Tensor(rand(1, 2, 3)), size=2, mode="bilinear")
    with pytest.raises(ValueError, match="For 'interpolate'"):
        ops.interpolate(x, size=2, align_corners=True)
    with pytest.raises(ValueError, match="For 'interpolate'"):
        ops.interpolate(Tensor(rand(2, 3)), size=2)
    with pytest.raises(ValueError, match="For 'interpolate'"):
        ops.interpolate(x, scale_factor=-1.0)
    with pytest.raises(ValueError, match="For 'interpolate'"):
        ops.interpolate(x, size=2, recompute_scale_factor=True)


def test_upsample_graph_equals_pynative():
    x = Tensor(rand(2, 3, 4, 5))
    net = P.Upsampler()
    eager = net(x).asnumpy()
    want = bilinear_ref(x.asnumpy(), 8, 10, False) + nearest_ref(x.asnumpy(), 8, 10)
    np.testing.assert_allclose(eager, want, 1e-5, 1e-5)
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_array_equal(net(x).asnumpy(), eager)
    assert isinstance(nn.Upsample(size=3), nn.Cell)


def test_vmap_over_interpolate_split_and_norm():
    x = rand(3, 2, 2, 3, 4, dtype=np.float64)
    got = ms.vmap(P.per_example)(Tensor(x))
    want = np.stack([P.per_example(Tensor(e)).asnumpy() for e in x])
    np.testing.assert_allclose(got.asnumpy(), want, 1e-12)
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(P.vmap_per_example(Tensor(x)).asnumpy(), want, 1e-12)


# --- graph mode and gradients --------------------------------------------------------------------

NAMES = sorted(P.PROGRAMS)
EPS = 1e-6


def inputs(name, seed=3):
    shapes = P.PROGRAMS[name][3]
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def as_tuple(g):
    return g if isinstance(g, tuple) else (g,)


@pytest.mark.parametrize("name", NAMES)
def test_graph_equals_pynative(name):
    fwd, grad_fn, positions, _ = P.PROGRAMS[name]
    args = [Tensor(a) for a in inputs(name)]
    eager = fwd(*args)
    eager_grads = as_tuple(ms.grad(fwd, positions)(*args))
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = ms.jit(fwd)(*args)
    graph_grads = as_tuple(grad_fn(*args))
    np.testing.assert_array_equal(graph.asnumpy(), eager.asnumpy())
    assert len(graph_grads) == len(eager_grads) == len(positions)
    for g, e in zip(graph_grads, eager_grads):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), 1e-12, 1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_grad_matches_finite_differences(name):
    fwd, _, positions, _ = P.PROGRAMS[name]
    arrays_ = inputs(name)

    def objective(values):
        return float(fwd(*[Tensor(v) for v in values]).asnumpy().sum())

    grads = as_tuple(ms.grad(fwd, positions)(*[Tensor(a) for a in arrays_]))
    for p, g in zip(positions, grads):
        fd = np.zeros(arrays_[p].shape)
        for k in np.ndindex(*arrays_[p].shape):
            plus = [a.copy() for a in arrays_]
            minus = [a.copy() for a in arrays_]
            plus[p][k] += EPS
            minus[p][k] -= EPS
            fd[k] = (objective(plus) - objective(minus)) / (2 * EPS)
        np.testing.assert_allclose(g.asnumpy(), fd, rtol=1e-5, atol=1e-6)


def test_masked_fill_gradient_is_zero_where_masked():
    x = rand(3, 4, dtype=np.float64)
    mask = Tensor(x > 0.3)
    g = ms.grad(lambda t: (ops.masked_fill(t, mask, 5.0) * 3).sum())(Tensor(x))
    np.testing.assert_array_equal(g.asnumpy(), np.where(x > 0.3, 0.0, 3.0))


@pytest.mark.parametrize("name", NAMES)
def test_simulated_ascend_device_matches_the_cpu(name):
    """The compositions need no kernel of their own: the device runs them as the CPU does."""
    from mindjit.frontend.graph import api

    fwd, grad_fn, _, _ = P.PROGRAMS[name]
    args = [Tensor(a.astype(np.float32)) for a in inputs(name)]
    ms.set_context(mode=ms.GRAPH_MODE)
    cpu = [ms.jit(fwd)(*args), *as_tuple(grad_fn(*args))]
    ms.set_context(device_target="Ascend")
    try:
        dev = [ms.jit(fwd)(*args), *as_tuple(grad_fn(*args))]
    finally:
        ms.set_context(device_target="CPU")
        api.clear_cache()
    for d, c in zip(dev, cpu):
        np.testing.assert_allclose(d.asnumpy(), c.asnumpy(), 1e-5, 1e-5)
