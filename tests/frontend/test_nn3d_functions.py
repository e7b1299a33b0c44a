"""Issue 38: the functional forms of layers (ops.glu, channel_shuffle, hardswish,
bias_add, bidense, mirror_pad, rrelu, gumbel_softmax, dropout1d, dropout3d) and the
margin / embedding / Gaussian losses (ops.margin_ranking_loss, multi_margin_loss,
multilabel_soft_margin_loss, hinge_embedding_loss, gaussian_nll_loss,
cosine_embedding_loss). MS holds what MindSpore 2.10 printed on CPU for the same cases
(`cases` ran unchanged there): shape, dtype, sum, sum of |.| and the first values. Every
case runs in PyNative and graph mode; the random ops are checked in distribution;
gradients against finite differences; bad input raises MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run
from ms_inputs import g

import mindjit as ms
from mindjit import Tensor, nn, ops

RNG = np.random.default_rng(3839)


def cases(ops, nn, Tensor, g):
    """name: (function, its Tensor arguments); the same code printed MindSpore's values."""
    import numpy as np

    x, a, b = Tensor(g(1, 2, 6, 3)), Tensor(g(1, 3, 4)), Tensor(g(2, 3, 4))
    t = Tensor(np.sign(g(3, 3, 4)))
    tgt = Tensor(np.array([1, 3, 0], np.int64))
    lab = Tensor((g(4, 3, 4) > 0).astype(np.float32))
    v, w4 = Tensor(np.abs(g(5, 3, 4))), Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    y = Tensor(np.array([1, -1, 1], np.int32))
    i6 = Tensor(np.arange(24).reshape(1, 6, 2, 2).astype(np.int32))
    return {
        "glu": (lambda x: ops.glu(x, 1), (x,)),
        "channel_shuffle": (lambda x: ops.channel_shuffle(x, 3), (i6,)),
        "channel_shuffle_5d": (
            lambda x: ops.channel_shuffle(x, 2),
            (Tensor(np.arange(12).reshape(1, 6, 2, 1, 1).astype(np.float32)),),
        ),
        "hardswish": (lambda x: ops.hardswish(x), (x,)),
        "hardswish_int": (
            lambda x: ops.hardswish(x),
            (Tensor(np.array([-4, -1, 0, 2, 5], np.int32)),),
        ),
        "bias_add": (lambda x, b: ops.bias_add(x, b), (x, Tensor(g(2, 6)))),
        "bias_add_int": (
            lambda x, b: ops.bias_add(x, b),
            (Tensor(np.ones((2, 3), np.int32)), Tensor(np.arange(3).astype(np.int32))),
        ),
        "bidense": (
            lambda p, q, w, b: ops.bidense(p, q, w, b),
            (Tensor(g(3, 2, 3)), Tensor(g(4, 2, 4)), Tensor(g(5, 5, 3, 4)), Tensor(g(6, 5))),
        ),
        "bidense_3d": (
            lambda p, q, w: ops.bidense(p, q, w),
            (Tensor(g(3, 2, 2, 3)), Tensor(g(4, 2, 2, 4)), Tensor(g(5, 5, 3, 4))),
        ),
        "mirror_pad_reflect": (
            lambda x: ops.mirror_pad(
                x, Tensor(np.array([[0, 0], [1, 2], [2, 1]], np.int64)), "REFLECT"
            ),
            (x,),
        ),
        "mirror_pad_symmetric": (
            lambda x: ops.mirror_pad(
                x, Tensor(np.array([[1, 0], [1, 2], [2, 3]], np.int32)), "SYMMETRIC"
            ),
            (x,),
        ),
        "dropout1d_eval": (lambda x: ops.dropout1d(x, 0.5, False), (x,)),
        "dropout3d_p0": (lambda x: ops.dropout3d(x, 0.0), (Tensor(g(7, 2, 3, 2, 2, 2)),)),
        "rrelu_fixed": (lambda x: ops.rrelu(x, 0.5, 0.5), (x,)),
        "margin_ranking_loss": (lambda a, b, t: ops.margin_ranking_loss(a, b, t, 0.3), (a, b, t)),
        "margin_ranking_loss_none": (
            lambda a, b, t: ops.margin_ranking_loss(a, b, t, 0.3, "none"),
            (a, b, t),
        ),
        "multi_margin_loss": (lambda a, t: ops.multi_margin_loss(a, t), (a, tgt)),
        "multi_margin_loss_w": (
            lambda a, t, w: ops.multi_margin_loss(a, t, 2, 2, w, "sum"),
            (a, tgt, w4),
        ),
        "multi_margin_loss_none": (
            lambda a, t: ops.multi_margin_loss(a, t, reduction="none"),
            (a, tgt),
        ),
        "multilabel_soft_margin_loss": (
            lambda a, lb: ops.multilabel_soft_margin_loss(a, lb),
            (a, lab),
        ),
        "multilabel_soft_margin_loss_w": (
            lambda a, lb, w: ops.multilabel_soft_margin_loss(a, lb, w, "none"),
            (a, lab, w4),
        ),
        "hinge_embedding_loss": (lambda a, t: ops.hinge_embedding_loss(a, t, 0.5), (a, t)),
        "hinge_embedding_loss_none": (
            lambda a, t: ops.hinge_embedding_loss(a, t, 1.0, "none"),
            (a, t),
        ),
        "gaussian_nll_loss": (lambda a, b, v: ops.gaussian_nll_loss(a, b, v), (a, b, v)),
        "gaussian_nll_loss_full": (
            lambda a, b, v: ops.gaussian_nll_loss(a, b, v, True, 1e-3, "sum"),
            (a, b, v),
        ),
        "gaussian_nll_loss_var_n": (
            lambda a, b, v: ops.gaussian_nll_loss(a, b, v, reduction="none"),
            (a, b, Tensor(np.abs(g(5, 3)))),
        ),
        "gaussian_nll_loss_var_c": (
            lambda a, b, v: ops.gaussian_nll_loss(a, b, v, reduction="none"),
            (a, b, Tensor(np.abs(g(5, 4)))),
        ),
        "cosine_embedding_loss": (
            lambda a, b, y: ops.cosine_embedding_loss(a, b, y, 0.2),
            (a, b, y),
        ),
        "cosine_embedding_loss_none": (
            lambda a, b, y: ops.cosine_embedding_loss(a, b, y, 0.2, "none"),
            (a, b, y),
        ),
        "cosine_embedding_loss_3d": (
            lambda a, b, y: ops.cosine_embedding_loss(a, b, y),
            (
                Tensor(g(1, 2, 3, 4)),
                Tensor(g(2, 2, 3, 4)),
                Tensor(np.array([[1, -1, 1, 1], [-1, -1, 1, 1]], np.float32)),
            ),
        ),
    }


# printed by MindSpore 2.10 (CPU, PyNative) for cases(mindspore.ops, mindspore.nn, ...)
MS = {
    "glu": (
        (2, 3, 3),
        "Float32",
        -2.62478,
        7.81803,
        [0.198022, 0.416647, 0.20929, -0.421936, 0.415886, 0.170404],
    ),
    "channel_shuffle": ((1, 6, 2, 2), "Int32", 276.0, 276.0, [0.0, 1.0, 2.0, 3.0, 8.0, 9.0]),
    "channel_shuffle_5d": ((1, 6, 2, 1, 1), "Float32", 66.0, 66.0, [0.0, 1.0, 6.0, 7.0, 2.0, 3.0]),
    "hardswish": (
        (2, 6, 3),
        "Float32",
        6.26055,
        12.39818,
        [0.192697, 0.523318, 0.183417, -0.368542, 0.589289, 0.256396],
    ),
    "hardswish_int": ((5,), "Int32", 6.0, 6.0, [0.0, 0.0, 0.0, 1.0, 5.0]),
    "bias_add": (
        (2, 6, 3),
        "Float32",
        0.53153,
        48.8216,
        [0.534638, 1.010671, 0.51949, -1.825906, 0.382607, -0.076374],
    ),
    "bias_add_int": ((2, 3), "Int32", 12.0, 12.0, [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]),
    "bidense": (
        (2, 5),
        "Float32",
        23.43356,
        46.17286,
        [7.453999, 3.625973, -6.387348, 11.15364, 8.087831, 1.262596],
    ),
    "bidense_3d": (
        (2, 2, 5),
        "Float32",
        5.2341,
        92.71841,
        [6.400883, 1.849481, -3.834057, 11.291605, 7.074112, 0.20948],
    ),
    "mirror_pad_reflect": (
        (2, 9, 6),
        "Float32",
        12.36211,
        68.29489,
        [0.446375, 0.905356, -1.303157, 0.905356, 0.446375, 0.905356],
    ),
    "mirror_pad_symmetric": (
        (3, 9, 8),
        "Float32",
        20.40723,
        137.78771,
        [0.821618, 0.345584, 0.345584, 0.821618, 0.330437, 0.330437],
    ),
    "dropout1d_eval": (
        (2, 6, 3),
        "Float32",
        1.99765,
        25.02869,
        [0.345584, 0.821618, 0.330437, -1.303157, 0.905356, 0.446375],
    ),
    "dropout3d_p0": (
        (2, 3, 2, 2, 2),
        "Float32",
        -15.99166,
        32.83634,
        [0.00123, 0.298746, -0.274138, -0.890592, -0.454671, -0.991647],
    ),
    "rrelu_fixed": (
        (2, 6, 3),
        "Float32",
        7.75541,
        19.27093,
        [0.345584, 0.821618, 0.330437, -0.651579, 0.905356, 0.446375],
    ),
    "margin_ranking_loss": ((), "Float32", 0.51764, 0.51764, [0.517642]),
    "margin_ranking_loss_none": (
        (3, 4),
        "Float32",
        6.2117,
        6.2117,
        [0.143469, 1.644367, 0.0, 1.43831, 0.0, 0.0],
    ),
    "multi_margin_loss": ((), "Float32", 0.49982, 0.49982, [0.499819]),
    "multi_margin_loss_w": ((), "Float32", 14.7719, 14.7719, [14.771898]),
    "multi_margin_loss_none": ((3,), "Float32", 1.49946, 1.49946, [0.258196, 0.547374, 0.693888]),
    "multilabel_soft_margin_loss": ((), "Float32", 0.81891, 0.81891, [0.818909]),
    "multilabel_soft_margin_loss_w": (
        (3,),
        "Float32",
        5.80144,
        5.80144,
        [2.762858, 1.571193, 1.467391],
    ),
    "hinge_embedding_loss": ((), "Float32", 0.33564, 0.33564, [0.335645]),
    "hinge_embedding_loss_none": (
        (3, 4),
        "Float32",
        7.17293,
        7.17293,
        [0.345584, 0.178382, 0.330437, 2.303157, 0.094644, 0.553625],
    ),
    "gaussian_nll_loss": ((), "Float32", 0.42988, 0.42988, [0.429878]),
    "gaussian_nll_loss_full": ((), "Float32", 16.1858, 16.1858, [16.185797]),
    "gaussian_nll_loss_var_n": (
        (3, 4),
        "Float32",
        4.90076,
        6.45582,
        [-0.095089, 1.016489, 0.234298, 0.697527, 0.442446, 0.324294],
    ),
    "gaussian_nll_loss_var_c": (
        (3, 4),
        "Float32",
        3.83293,
        6.22601,
        [-0.095089, 0.822802, 0.416445, 1.107705, 0.388345, 0.324294],
    ),
    "cosine_embedding_loss": ((), "Float32", 0.77327, 0.77327, [0.773267]),
    "cosine_embedding_loss_none": ((3,), "Float32", 2.3198, 2.3198, [0.345078, 0.740483, 1.234239]),
    "cosine_embedding_loss_3d": ((), "Float32", 0.42425, 0.42425, [0.424248]),
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


def test_random_ops_in_distribution(mode):
    ones = Tensor(np.ones((4, 400, 3), np.float32))
    x = Tensor(-np.ones((200, 50), np.float32))
    logits = Tensor(g(8, 300, 5))
    d1, d3, rr, hard, soft = run(
        lambda o, x, z: (
            ops.dropout1d(o, 0.25),
            ops.dropout3d(ops.reshape(o, (4, 400, 3, 1, 1)), 0.5),
            ops.rrelu(x, 0.2, 0.4),
            ops.gumbel_softmax(z, 0.5, True),
            ops.gumbel_softmax(z, 2.0, False, 0),
        ),
        mode,
        ones,
        x,
        logits,
    )
    d1 = d1.asnumpy()
    assert set(np.unique(d1)) <= {0.0, np.float32(1 / 0.75)}
    assert (d1 == d1[:, :, :1]).all()  # one draw per channel
    assert abs((d1[:, :, 0] == 0).mean() - 0.25) < 0.05
    d3 = d3.asnumpy()
    assert set(np.unique(d3)) <= {0.0, 2.0} and abs((d3 == 0).mean() - 0.5) < 0.05
    slopes = -rr.asnumpy()
    assert (slopes >= 0.2).all() and (slopes <= 0.4).all() and abs(slopes.mean() - 0.3) < 0.01
    hard = hard.asnumpy()
    assert set(np.unique(hard)) <= {0.0, 1.0} and (hard.sum(1) == 1).all()
    np.testing.assert_allclose(soft.asnumpy().sum(0), np.ones(5), rtol=1e-5)


def test_gumbel_softmax_frequencies():
    logits = Tensor(np.tile(np.log(np.array([[0.1, 0.2, 0.7]], np.float32)), (4000, 1)))
    hard = ops.gumbel_softmax(logits, 1.0, True).asnumpy()
    np.testing.assert_allclose(hard.mean(0), [0.1, 0.2, 0.7], atol=0.03)


def test_gumbel_softmax_hard_gradient_is_the_soft_one():
    z, r = Tensor(g(9, 2, 3)), Tensor(g(10, 2, 3))
    ms.set_seed(5)
    gh = ms.grad(lambda z: ops.reduce_sum(ops.gumbel_softmax(z, 1.0, True) * r))(z)
    ms.set_seed(5)
    gs = ms.grad(lambda z: ops.reduce_sum(ops.gumbel_softmax(z, 1.0, False) * r))(z)
    np.testing.assert_allclose(gh.asnumpy(), gs.asnumpy(), rtol=1e-6)


_PADS = Tensor(np.array([[1, 0], [2, 1]], np.int64))


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda x: ops.glu(x, 0), [(4, 3)]),
        (lambda x: ops.hardswish(x * 4), [(3, 4)]),
        (lambda x, b: ops.bias_add(x, b), [(2, 3, 2), (3,)]),
        (lambda p, q, w, b: ops.bidense(p, q, w, b), [(2, 3), (2, 2), (4, 3, 2), (4,)]),
        (lambda x: ops.mirror_pad(x, _PADS, "REFLECT"), [(3, 4)]),
        (lambda x: ops.mirror_pad(x, _PADS, "SYMMETRIC"), [(2, 3)]),
        (
            lambda a, b: ops.margin_ranking_loss(a, b, Tensor(np.array([1.0, -1.0, 1.0])), 0.1),
            [(3,), (3,)],
        ),  # fmt: skip
        (lambda a: ops.multi_margin_loss(a, Tensor(np.array([1, 0], np.int64)), 2, 1), [(2, 3)]),
        (
            lambda a: ops.multilabel_soft_margin_loss(a, Tensor(np.array([[1.0, 0.0, 1.0]]))),
            [(2, 3)],
        ),  # fmt: skip
        (
            lambda a: ops.hinge_embedding_loss(a, Tensor(np.array([1.0, -1.0, -1.0])), 2.0),
            [(2, 3)],
        ),  # fmt: skip
        (lambda a, b, v: ops.gaussian_nll_loss(a, b, ops.abs(v) + 0.5, True), [(2, 3)] * 3),
        (
            lambda a, b: ops.cosine_embedding_loss(a, b, Tensor(np.array([1, -1])), -0.5),
            [(2, 3), (2, 3)],
        ),  # fmt: skip
    ],
)
def test_gradients(fn, shapes):
    arrays = [RNG.standard_normal(s) for s in shapes]
    assert_grads_match_finite_differences(fn, arrays, RNG, rtol=1e-4, atol=1e-6)


def test_cells_share_the_functions(mode):
    a, b = Tensor(g(1, 3, 4)), Tensor(g(2, 3, 4))
    t = Tensor(np.sign(g(3, 3, 4)))
    got = run(
        lambda a, b, t: (
            nn.MarginRankingLoss(0.3)(a, b, t),
            nn.GLU(1)(ops.reshape(a, (3, 2, 2))),
            nn.HingeEmbeddingLoss(0.5)(a, t),
        ),
        mode,
        a,
        b,
        t,
    )
    _check(_summary(got[0]), MS["margin_ranking_loss"])
    np.testing.assert_allclose(
        got[1].asnumpy(), ops.glu(ops.reshape(a, (3, 2, 2)), 1).asnumpy(), rtol=1e-6
    )
    _check(_summary(got[2]), MS["hinge_embedding_loss"])


X = Tensor(g(1, 2, 6, 3))


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: ops.glu(X), ValueError),
        (lambda: ops.glu(Tensor(np.ones((2, 4), np.int32))), TypeError),
        (lambda: ops.channel_shuffle(X, 3), TypeError),
        (lambda: ops.channel_shuffle(ops.reshape(X, (1, 6, 3, 2)), 4), ValueError),
        (lambda: ops.channel_shuffle(ops.reshape(X, (1, 6, 3, 2)), 0), ValueError),
        (lambda: ops.hardswish(Tensor(np.ones((2,), np.bool_))), TypeError),
        (lambda: ops.bias_add(X, Tensor(g(2, 3))), ValueError),
        (lambda: ops.bias_add(Tensor(g(1, 3)), Tensor(g(2, 3))), ValueError),
        (lambda: ops.bias_add(X, Tensor(np.ones(6, np.float16))), TypeError),
        (
            lambda: ops.mirror_pad(X, Tensor(np.array([[0, 0], [1, 2], [3, 1]])), "REFLECT"),
            ValueError,
        ),  # fmt: skip
        (
            lambda: ops.mirror_pad(X, Tensor(np.array([[0, 0], [1, 2], [2, 1]])), "reflect"),
            ValueError,
        ),  # fmt: skip
        (lambda: ops.mirror_pad(X, ((0, 0), (1, 2), (2, 1)), "REFLECT"), TypeError),
        (lambda: ops.mirror_pad(X, Tensor(np.array([[1, 1]])), "REFLECT"), ValueError),
        (
            lambda: ops.mirror_pad(X, Tensor(np.array([[-1, 0], [0, 0], [0, 0]])), "SYMMETRIC"),
            ValueError,
        ),  # fmt: skip
        (lambda: ops.dropout1d(X[0, 0], 0.5), ValueError),
        (lambda: ops.dropout3d(X, 0.5), ValueError),
        (lambda: ops.rrelu(X, 0.6, 0.5), ValueError),
        (lambda: ops.gumbel_softmax(Tensor(np.ones((2, 3), np.int32))), TypeError),
        (lambda: ops.gumbel_softmax(X, 0.0), ValueError),
        (lambda: ops.margin_ranking_loss(X, X, X, 1), TypeError),
        (lambda: ops.margin_ranking_loss(X, X, X, 0.1, "foo"), ValueError),
        (lambda: ops.margin_ranking_loss(X, ops.cast(X, ms.float16), X), TypeError),
        (lambda: ops.multi_margin_loss(X[0], Tensor(np.zeros(6, np.int64)), 3), ValueError),
        (lambda: ops.multi_margin_loss(X[0], Tensor(np.zeros(6, np.int64)), 1, 0.5), TypeError),
        (lambda: ops.multi_margin_loss(X[0], Tensor(np.zeros(6, np.int32))), TypeError),
        (lambda: ops.multilabel_soft_margin_loss(X, X, reduction="foo"), ValueError),
        (lambda: ops.hinge_embedding_loss(X, X, "1"), TypeError),
        (lambda: ops.gaussian_nll_loss(X, X, X, eps=0.0), ValueError),
        (lambda: ops.cosine_embedding_loss(X, X, X, 2.0), ValueError),
    ],
)
def test_errors(call, error):
    with pytest.raises(error):
        call()


def test_mirror_pad_paddings_must_be_constant_in_a_graph():
    with pytest.raises(ValueError, match="constant"):
        ms.jit(lambda x, p: ops.mirror_pad(x, p, "REFLECT"))(X, Tensor(np.zeros((3, 2), np.int64)))
