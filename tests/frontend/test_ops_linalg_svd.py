"""Issue 38: MindSpore 2.10's svd, pinv, matrix_norm and vector_norm
(frontend/ops/linalg_svd.py, one-sided Jacobi of mindir ops) and Tensor.svd.
Values are what MindSpore 2.10 printed on CPU (pasted as constants); singular
vectors are compared up to the sign of each (u, v) pair (unique only up to it);
every case runs in PyNative and graph mode; gradients against finite differences;
bad input raises MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run

import mindjit as ms
from mindjit import Tensor, ops

RNG = np.random.default_rng(3841)
A = np.array([[2.0, -1.0, 0.5], [1.0, 3.0, -1.0]], np.float32)
B = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 10
INF = float("inf")


def _check(got, want, dtype=None, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=rtol, atol=atol)
    assert got.shape == np.asarray(want).shape
    if dtype is not None:
        assert str(got.dtype) == dtype


def _check_vectors(got, want, atol=1e-5):
    """Columns equal up to sign."""
    g, w = got.asnumpy(), np.asarray(want)
    assert g.shape == w.shape
    signs = np.sign(np.sum(g * w, axis=-2, keepdims=True))
    np.testing.assert_allclose(g * signs, w, atol=atol)


def test_vector_norm(mode):
    got = run(
        lambda a, b: (
            *(ops.vector_norm(a, o) for o in (2, 1, 0, 3, INF, -INF, -1, 0.5)),
            ops.vector_norm(b, 2, (0, 2)),
            ops.vector_norm(b, 1, -1, True),
            ops.vector_norm(a, dtype=ms.float64),
            ops.vector_norm(Tensor([3, 4])),
        ),
        mode,
        Tensor(A),
        Tensor(B),
    )
    # MindSpore 2.10's printed values
    for g, w in zip(
        got[:8],
        [
            4.031128883361816,
            8.5,
            6.0,
            3.3656578063964844,
            3.0,
            0.5,
            0.17142856121063232,
            46.96869659423828,
        ],
    ):
        _check(g, w, "Float32")
    _check(got[8], [18.65475845336914, 17.77638816833496, 23.237899780273438])
    _check(got[9], [[[34.0], [18.0], [4.0]], [[14.0], [30.0], [46.0]]])
    _check(got[10], 4.031128874149275, "Float64")
    _check(got[11], 5.0, "Float32")


def test_matrix_norm(mode):
    ords = ("fro", "nuc", 1, -1, 2, -2, INF, -INF)
    got = run(
        lambda a, b: (
            *(ops.matrix_norm(a, o) for o in ords),
            ops.matrix_norm(b, "fro"),
            ops.matrix_norm(b, 1, (0, 2)),
            ops.matrix_norm(b, "nuc", keepdims=True),
            ops.matrix_norm(Tensor([[1, 2], [3, 4]])),
            ops.matrix_norm(a, dtype=ms.float64),
        ),
        mode,
        Tensor(A),
        Tensor(B),
    )
    # MindSpore 2.10's printed values
    want = [
        4.031128883361816,
        5.581188201904297,
        4.0,
        1.5,
        3.3716139793395996,
        2.2095744609832764,
        5.0,
        3.5,
    ]
    for g, w in zip(got[:8], want):
        _check(g, w, "Float32")
    _check(got[8], [19.646883010864258, 28.600698471069336])
    _check(got[9], [12.0, 12.0, 14.0])
    _check(got[10], [[[21.76317024230957]], [[30.093780517578125]]])
    _check(got[11], 5.4772257804870605, "Float32")
    _check(got[12], 4.031128874149275, "Float64")


def test_norm_from_singular_values(mode):
    got = run(
        lambda a: (
            ops.norm(a, "nuc"),
            ops.norm(a, 2),
            ops.norm(a, -2),
            ops.norm(a, 2, (0, 1), True),
        ),
        mode,
        Tensor(A),
    )
    # MindSpore 2.10's printed values (ops.norm: mindjit had no singular values before)
    _check(got[0], 5.581188, "Float32")
    _check(got[1], 3.371614)
    _check(got[2], 2.2095745)
    _check(got[3], [[3.371614]])


def test_svd(mode):
    got = run(
        lambda a, b: (
            ops.svd(a),
            ops.svd(a, full_matrices=True),
            ops.svd(a.T),
            ops.svd(b, compute_uv=False),
            a.svd(compute_uv=False),
        ),
        mode,
        Tensor(A),
        Tensor(B),
    )
    # MindSpore 2.10's printed values
    s = [3.3716139793395996, 2.2095744609832764]
    u = [[0.2381334900856018, 0.9712324142456055], [-0.9712324142456055, 0.2381334900856018]]
    v = [
        [-0.14680373668670654, 0.9868861436843872],
        [-0.9348136782646179, -0.1162358969449997],
        [0.3233760595321655, 0.1120046079158783],
    ]
    _check(got[0][0], s, "Float32")
    _check_vectors(got[0][1], u)
    _check_vectors(got[0][2], v)
    _check(got[1][0], s)
    _check_vectors(got[1][1], u)
    v_full = [
        [-0.14680373668670654, 0.9868861436843872, -0.06711558252573013],
        [-0.9348136782646179, -0.1162358969449997, 0.3355780243873596],
        [0.3233760595321655, 0.1120046079158783, 0.9396184682846069],
    ]
    _check_vectors(got[1][2], v_full)
    _check(got[2][0], s)
    _check_vectors(got[2][1], v)
    _check_vectors(got[2][2], u)
    _check(
        got[3],
        [
            [19.518199920654297, 2.2449710369110107, 0.0],
            [28.559518814086914, 1.5342624187469482, 0.0],
        ],
        atol=2e-6,
    )
    _check(got[4], s)
    f64 = ops.svd(Tensor(np.array([[3.0, 1.0], [1.0, 2.0]])))
    _check(f64[0], [3.6180339887498945, 1.381966011250105], "Float64", rtol=1e-13)
    _check_vectors(
        f64[1],
        [[0.8506508083520399, -0.5257311121191335], [0.5257311121191335, 0.8506508083520399]],
        atol=1e-13,
    )


def test_pinv(mode):
    got = run(
        lambda a, b: (
            ops.pinv(a),
            ops.pinv(Tensor(np.array([[1.0, 2.0], [2.0, 4.0]], np.float32))),
            ops.pinv(Tensor(np.array([[2.0, 1.0], [1.0, 2.0]], np.float32)), hermitian=True),
            ops.pinv(a, rtol=0.5),
            ops.pinv(b),
            ops.pinv(Tensor(np.array([[3.0, 1.0], [1.0, 2.0]]))),
        ),
        mode,
        Tensor(A),
        Tensor(B),
    )
    # MindSpore 2.10's printed values
    want = [
        [0.4234234392642975, 0.14864864945411682],
        [-0.11711710691452026, 0.2567567229270935],
        [0.07207203656435013, -0.0810810849070549],
    ]
    _check(got[0], want, "Float32")
    _check(
        got[1],
        [[0.04000000283122063, 0.08000000566244125], [0.08000000566244125, 0.1600000113248825]],
    )
    _check(
        got[2],
        [[0.6666666865348816, -0.3333333134651184], [-0.3333333134651184, 0.6666666865348816]],
    )
    _check(got[3], want)
    _check(
        got[4],
        [
            [
                [0.0375, -0.1, -0.2375],
                [-0.008333330042660236, -0.03333333134651184, -0.05833334103226662],
                [-0.05416667461395264, 0.03333333879709244, 0.1208333671092987],
                [-0.1, 0.1, 0.3],
            ],
            [
                [-0.4125, -0.1, 0.2125],
                [-0.15833333, -0.03333333134651184, 0.09166667],
                [0.09583333, 0.033333342522382736, -0.029166667],
                [0.35, 0.1, -0.15],
            ],
        ],
        atol=2e-6,
    )
    _check(got[5], [[0.4, -0.2], [-0.2, 0.6]], "Float64", rtol=1e-13)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: ops.svd(x, compute_uv=False),
        lambda x: ops.matrix_norm(x, "nuc") + ops.matrix_norm(x, 2),
        ops.pinv,
        lambda x: ops.vector_norm(x, 3, 1),
    ],
    ids=["singular_values", "matrix_norm", "pinv", "vector_norm"],
)
def test_gradients(fn):
    x = np.array([[2.0, -1.0, 0.5], [1.0, 3.0, -1.0], [0.5, 0.2, 1.5]]) + RNG.uniform(
        -0.1, 0.1, (3, 3)
    )
    assert_grads_match_finite_differences(fn, [x], RNG)


def test_errors():
    with pytest.raises(ValueError):
        ops.vector_norm(Tensor(A), "fro")
    with pytest.raises(TypeError):
        ops.vector_norm(Tensor(B), 2, [0, 2])
    with pytest.raises(ValueError):
        ops.vector_norm(Tensor(B), 2, 5)
    with pytest.raises(ValueError):
        ops.matrix_norm(Tensor(A), 3)
    with pytest.raises(ValueError):
        ops.matrix_norm(Tensor([1.0, 2.0]))
    with pytest.raises(TypeError):
        ops.svd(Tensor([[1, 2], [3, 4]]))
    with pytest.raises(ValueError):
        ops.svd(Tensor([1.0, 2.0]))
    with pytest.raises(TypeError):
        ops.pinv(Tensor([[1, 2], [3, 4]]))


@pytest.mark.parametrize("shape", [(9, 6), (2, 5, 7), (8, 8)])
def test_svd_random_matches_numpy(shape, mode):
    a = RNG.standard_normal(shape).astype(np.float32)
    s, u, v = (t.asnumpy() for t in run(lambda x: ops.svd(x), mode, Tensor(a)))
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose((u * s[..., None, :]) @ np.swapaxes(v, -1, -2), a, atol=1e-5)
    k = min(shape[-2:])
    np.testing.assert_allclose(
        np.swapaxes(u, -1, -2) @ u, np.broadcast_to(np.eye(k), u.shape[:-2] + (k, k)), atol=4e-6
    )  # float32 products of k unit columns: a few ulps of 1.0
    np.testing.assert_allclose(
        np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(k), v.shape[:-2] + (k, k)), atol=4e-6
    )
