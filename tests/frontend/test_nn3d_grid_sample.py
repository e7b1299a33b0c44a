"""Issue 38: spatial transformers (ops.affine_grid, ops.grid_sample, 2-d and 3-d, every
mode and padding mode MindSpore 2.10 runs on CPU), ops.crop_and_resize and ops.upsample
(ops.interpolate's alias). MS holds what MindSpore 2.10 printed on CPU for the same cases (`cases` ran
unchanged there): shape, dtype, sum, sum of |.| and the first values. Every case runs in
PyNative and graph mode; gradients (to the input and to the grid) against finite
differences; bad input raises MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run
from ms_inputs import g

import mindjit as ms
from mindjit import Tensor, nn, ops

RNG = np.random.default_rng(3841)


def cases(ops, nn, Tensor, g):
    """name: (function, its Tensor arguments); the same code printed MindSpore's values."""
    import numpy as np

    theta = Tensor(g(1, 2, 2, 3) * 0.5 + np.array([[1, 0, 0], [0, 1, 0]], np.float32))
    x, grid = Tensor(g(3, 2, 3, 4, 5)), Tensor(g(4, 2, 3, 6, 2) * 0.8)
    x5, grid5 = Tensor(g(5, 1, 2, 3, 4, 5)), Tensor(g(6, 1, 2, 3, 2, 3) * 0.8)
    img = Tensor(g(7, 2, 5, 6, 3))
    boxes = Tensor(
        np.array([[0.1, 0.2, 0.8, 0.9], [-0.2, 0.0, 0.5, 1.3], [0.6, 0.7, 0.2, 0.1]], np.float32)
    )
    bi = Tensor(np.array([0, 1, 1], np.int32))
    out = {
        "crop_and_resize": (
            lambda i, b, k: ops.crop_and_resize(i, b, k, (4, 3), "bilinear", 0.5),
            (img, boxes, bi),
        ),
        "crop_and_resize_nearest": (
            lambda i, b, k: ops.crop_and_resize(i, b, k, (4, 3), "nearest"),
            (img, boxes, bi),
        ),
        "crop_and_resize_1x1": (
            lambda i, b, k: ops.crop_and_resize(i, b, k, (1, 1)),
            (img, boxes, bi),
        ),
        "crop_and_resize_int": (
            lambda i, b, k: ops.crop_and_resize(i, b, k, (4, 3)),
            (Tensor(np.arange(180).reshape(2, 5, 6, 3).astype(np.int32)), boxes, bi),
        ),
        "affine_grid": (lambda t: ops.affine_grid(t, (2, 3, 4, 5)), (theta,)),
        "affine_grid_align": (lambda t: ops.affine_grid(t, (2, 3, 4, 5), True), (theta,)),
        "affine_grid_3d": (
            lambda t: ops.affine_grid(t, (2, 1, 2, 3, 4)),
            (Tensor(g(2, 2, 3, 4) * 0.5),),
        ),
        "grid_sample_3d": (lambda x, q: ops.grid_sample(x, q), (x5, grid5)),
        "grid_sample_3d_nearest": (
            lambda x, q: ops.grid_sample(x, q, "nearest", "border", True),
            (x5, grid5),
        ),
        "upsample": (
            lambda x: ops.upsample(x, scale_factor=2.0, recompute_scale_factor=True),
            (x,),
        ),
        "upsample_bilinear": (
            lambda x: ops.upsample(x, (5, 7), mode="bilinear", align_corners=True),
            (x,),
        ),
    }
    for m in ("bilinear", "nearest"):
        for p in ("zeros", "border", "reflection"):
            for ac in (False, True):
                out[f"grid_sample_{m}_{p}_{ac}"] = (
                    lambda x, q, m=m, p=p, ac=ac: ops.grid_sample(x, q, m, p, ac),
                    (x, grid),
                )
    return out


# printed by MindSpore 2.10 (CPU, PyNative) for cases(mindspore.ops, mindspore.nn, ...)
MS = {
    "crop_and_resize": (
        (3, 4, 3, 3),
        "Float32",
        -5.19178,
        53.27044,
        [-0.628392, -0.779781, -0.486482, -0.416125, 0.388218, -0.130915],
    ),
    "crop_and_resize_nearest": (
        (3, 4, 3, 3),
        "Float32",
        -16.3901,
        60.80181,
        [-0.890592, -0.454671, -0.991647, -0.620475, 0.489842, 0.356887],
    ),
    "crop_and_resize_1x1": (
        (3, 1, 1, 3),
        "Float32",
        -1.66445,
        6.01803,
        [-1.246264, 0.514236, 0.234536, -0.966878, 0.481908, -0.284206],
    ),
    "crop_and_resize_int": (
        (3, 4, 3, 3),
        "Float32",
        8099.55003,
        8099.55003,
        [10.200001, 11.200001, 12.200001, 15.450001, 16.450001, 17.450001],
    ),
    "affine_grid": (
        (2, 4, 5, 2),
        "Float32",
        16.88097,
        46.39663,
        [-1.081122, -0.345058, -0.612005, -0.60569, -0.142888, -0.866321],
    ),
    "affine_grid_align": (
        (2, 4, 5, 2),
        "Float32",
        16.88097,
        59.14848,
        [-1.418383, -0.577912, -0.831987, -0.903701, -0.245591, -1.229491],
    ),
    "affine_grid_3d": (
        (2, 2, 3, 4, 3),
        "Float32",
        -30.71022,
        72.38818,
        [-1.014113, -0.58802, -0.320517, -0.96685, -0.138093, -0.250214],
    ),
    "grid_sample_3d": (
        (1, 2, 2, 3, 2),
        "Float32",
        -2.44207,
        6.08743,
        [0.0, 0.268825, 0.055818, 0.942336, -0.469793, 0.0],
    ),
    "grid_sample_3d_nearest": (
        (1, 2, 2, 3, 2),
        "Float32",
        -0.8424,
        17.37099,
        [-0.488006, 0.568213, 0.224786, 1.600019, 0.02069, 0.641916],
    ),
    "upsample": (
        (2, 3, 8, 10),
        "Float32",
        -15.52002,
        407.9429,
        [2.040919, 2.040919, -2.555665, -2.555665, 0.418099, 0.418099],
    ),
    "upsample_bilinear": (
        (2, 3, 5, 7),
        "Float32",
        -5.28905,
        127.25358,
        [2.040919, -1.023471, -1.56441, 0.418099, -0.239147, -0.529396],
    ),
    "grid_sample_bilinear_zeros_False": (
        (2, 3, 3, 6),
        "Float32",
        -6.23889,
        38.23483,
        [-1.186682, 0.0, 0.0, -0.567595, 0.0, 0.0],
    ),
    "grid_sample_bilinear_zeros_True": (
        (2, 3, 3, 6),
        "Float32",
        -4.33269,
        43.80005,
        [-1.473799, -0.27255, 0.000874, -0.88739, 0.056842, 0.129154],
    ),
    "grid_sample_bilinear_border_False": (
        (2, 3, 3, 6),
        "Float32",
        -16.05855,
        62.89979,
        [-1.186682, -0.580743, 0.00142, -0.567595, 0.175837, 0.324625],
    ),
    "grid_sample_bilinear_border_True": (
        (2, 3, 3, 6),
        "Float32",
        -9.95388,
        59.89279,
        [-1.473799, -0.806263, 0.002339, -0.88739, 0.133152, 0.211989],
    ),
    "grid_sample_bilinear_reflection_False": (
        (2, 3, 3, 6),
        "Float32",
        -10.72623,
        63.13442,
        [-1.186682, -0.31406, -0.338389, -0.567595, 0.020663, 0.308076],
    ),
    "grid_sample_bilinear_reflection_True": (
        (2, 3, 3, 6),
        "Float32",
        -5.38598,
        55.65784,
        [-1.473799, -0.401615, -0.748554, -0.88739, -0.345798, -0.037675],
    ),
    "grid_sample_nearest_zeros_False": (
        (2, 3, 3, 6),
        "Float32",
        -11.91796,
        60.83728,
        [-2.019986, 0.0, 0.0, -0.352631, 0.0, 0.0],
    ),
    "grid_sample_nearest_zeros_True": (
        (2, 3, 3, 6),
        "Float32",
        -12.73758,
        73.02074,
        [-2.019986, 0.0, 0.0, -0.352631, 0.0, -0.238554],
    ),
    "grid_sample_nearest_border_False": (
        (2, 3, 3, 6),
        "Float32",
        -19.66607,
        91.89772,
        [-2.019986, -0.199802, -0.215597, -0.352631, 0.225787, -0.238554],
    ),
    "grid_sample_nearest_border_True": (
        (2, 3, 3, 6),
        "Float32",
        -17.09261,
        92.02423,
        [-2.019986, -1.055151, -0.215597, -0.352631, 0.225787, -0.238554],
    ),
    "grid_sample_nearest_reflection_False": (
        (2, 3, 3, 6),
        "Float32",
        -17.90582,
        96.33118,
        [-2.019986, -0.199802, -0.215597, -0.352631, 0.225787, -0.238554],
    ),
    "grid_sample_nearest_reflection_True": (
        (2, 3, 3, 6),
        "Float32",
        -12.08015,
        100.88459,
        [-2.019986, -0.668046, -2.019986, -0.352631, -0.352631, -0.238554],
    ),
}


def _summary(r):
    a = r.asnumpy().astype(np.float64)
    return tuple(a.shape), str(r.dtype), a.sum(), np.abs(a).sum(), a.ravel()[:6]


def _check(got, want):
    assert got[:2] == want[:2]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(got[4], want[4], rtol=1e-4, atol=1e-5)


CASES = cases(ops, nn, Tensor, g)


@pytest.mark.parametrize("name", list(MS))
def test_against_mindspore(name, mode):
    fn, args = CASES[name]
    _check(_summary(run(fn, mode, *args)), MS[name])


def _away_from_pixels(shape, size):
    """Grid coordinates whose pixel positions are not within 0.05 of an integer (the
    bilinear weights' kinks), in (-1.2, 1.2) so that padding modes matter."""
    q = RNG.uniform(-1.2, 1.2, shape)
    pix = (q + 1) * size / 2 - 0.5
    return np.where(np.abs(pix - np.round(pix)) < 0.05, q + 0.1 / size, q)


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_gradients(padding, align):
    x = RNG.standard_normal((1, 2, 3, 4))
    grid = _away_from_pixels((1, 2, 3, 2), 4)
    assert_grads_match_finite_differences(
        lambda x, q: ops.grid_sample(x, q, "bilinear", padding, align),
        [x, grid],
        RNG,
        eps=1e-7,
        rtol=1e-4,
        atol=1e-6,
    )


def test_grid_sample_3d_and_affine_grid_gradients():
    assert_grads_match_finite_differences(
        lambda x, q: ops.grid_sample(x, q), [RNG.standard_normal((1, 1, 2, 3, 3)),
                                             _away_from_pixels((1, 2, 2, 1, 3), 3)], RNG,
    )  # fmt: skip
    assert_grads_match_finite_differences(
        lambda t: ops.affine_grid(t, (2, 1, 3, 4), True), [RNG.standard_normal((2, 2, 3))], RNG
    )
    # nearest: the input's gradient only (the grid's is zero almost everywhere)
    q = Tensor(_away_from_pixels((1, 2, 2, 2), 3))
    assert_grads_match_finite_differences(
        lambda x: ops.grid_sample(x, q, "nearest", "reflection"),
        [RNG.standard_normal((1, 1, 3, 3))],
        RNG,
    )


def test_crop_and_resize_gradients():
    rng = np.random.default_rng(5)
    boxes = np.array([[0.13, 0.21, 0.77, 0.93], [0.61, 0.72, 0.18, 0.11]])
    k = Tensor(np.array([0, 1], np.int32))
    assert_grads_match_finite_differences(
        lambda i, b: ops.crop_and_resize(ops.cast(i, ms.float32), ops.cast(b, ms.float32), k,
                                         (3, 2)),
        [rng.standard_normal((2, 4, 5, 2)), boxes],
        RNG,
        eps=1e-3,
        rtol=2e-2,
        atol=2e-3,
    )  # fmt: skip


X, GRID = Tensor(g(3, 2, 3, 4, 5)), Tensor(g(4, 2, 3, 6, 2))
IMG, BOXES = Tensor(g(7, 2, 5, 6, 3)), Tensor(np.array([[0.1, 0.2, 0.8, 0.9]], np.float32))
THETA = Tensor(g(1, 2, 2, 3))


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: ops.affine_grid(THETA, (2, 3, 4)), ValueError),
        (lambda: ops.affine_grid(THETA, (3, 3, 4, 5)), ValueError),
        (lambda: ops.affine_grid(THETA, (2, 1, 2, 3, 4)), ValueError),
        (lambda: ops.grid_sample(X, GRID, "foo"), ValueError),
        (lambda: ops.grid_sample(X, GRID, "bicubic"), ValueError),
        (lambda: ops.grid_sample(X, GRID, padding_mode="edge"), ValueError),
        (lambda: ops.grid_sample(X, GRID[..., :1]), ValueError),
        (lambda: ops.grid_sample(X, X), ValueError),
        (
            lambda: ops.crop_and_resize(IMG, BOXES, Tensor(np.zeros(1, np.int32)), (2, 2), "foo"),
            ValueError,
        ),  # fmt: skip
        (
            lambda: ops.crop_and_resize(IMG[0], BOXES, Tensor(np.zeros(1, np.int32)), (2, 2)),
            ValueError,
        ),  # fmt: skip
        (
            lambda: ops.crop_and_resize(
                IMG, BOXES, Tensor(np.zeros(1, np.int32)), (2, 2), "bilinear_v2"
            ),
            NotImplementedError,
        ),  # fmt: skip
    ],
)
def test_errors(call, error):
    with pytest.raises(error):
        call()
