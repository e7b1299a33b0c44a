"""Issue 38: sliding blocks (ops.unfold, fold, col2im and their Tensor methods), local
response normalization (ops.lrn, nn.LRN), ops.lp_pool1d / lp_pool2d, max unpooling
(ops.max_unpool1d/2d/3d, nn.MaxUnpool1d/2d/3d) and the CTC loss (ops.ctc_loss,
nn.CTCLoss). MS holds what MindSpore 2.10 printed on CPU for the same cases (`cases` ran
unchanged there): shape, dtype, sum, sum of |.| and the first values. Every case runs in
PyNative and graph mode; gradients against finite differences; bad input raises
MindSpore's exception type."""

from __future__ import annotations

import numpy as np
import pytest
from grad_check import assert_grads_match_finite_differences
from modes import run
from ms_inputs import g

import mindjit as ms
from mindjit import Tensor, nn, ops

RNG = np.random.default_rng(3840)
inf = float("inf")


def cases(ops, nn, Tensor, g):
    """name: (function or Cell, its Tensor arguments); the same code printed MindSpore's values."""
    import numpy as np

    x = Tensor(g(1, 2, 3, 5, 6))
    u, c = Tensor(g(2, 2, 12, 8)), Tensor(g(4, 2, 3, 4, 8))
    pooled, where = ops.max_pool2d(Tensor(g(6, 2, 3, 5, 6)), 2, 1, return_indices=True)
    p1, w1 = Tensor(g(8, 2, 3, 3)), Tensor(np.array([[[0, 3, 4]] * 3] * 2, np.int64))
    p3, w3 = ops.max_pool3d(Tensor(g(9, 1, 2, 4, 4, 4)), 2, 2, return_indices=True)
    lp = Tensor(g(11, 6, 2, 4))
    tg = Tensor(np.array([[1, 2, 2], [3, 1, 0]], np.int32))
    il, tl = Tensor(np.array([6, 5], np.int32)), Tensor(np.array([3, 2], np.int32))
    return {
        "unfold": (lambda x: ops.unfold(x, 2), (x,)),
        "unfold_args": (lambda x: ops.unfold(x, (2, 3), 2, 1, (2, 1)), (x,)),
        "Tensor.unfold": (lambda x: x.unfold((2, 3), 2, 1, (2, 1)), (x,)),
        "fold": (lambda u: ops.fold(u, Tensor(np.array([4, 5], np.int32)), 2, 1, 0, (2, 1)), (u,)),
        "fold_args": (
            lambda u: ops.fold(u, Tensor(np.array([5, 6], np.int64)), (2, 3), 2, 1, (2, 1)),
            (Tensor(g(3, 2, 18, 12)),),
        ),
        "Tensor.fold": (
            lambda u: u.fold(Tensor(np.array([4, 5], np.int32)), 2, 1, 0, (2, 1)),
            (u,),
        ),
        "col2im": (
            lambda c: ops.col2im(c, Tensor(np.array([4, 5], np.int32)), 2, 1, 0, (2, 1)),
            (c,),
        ),
        "col2im_args": (
            lambda c: ops.col2im(c, Tensor(np.array([5, 6], np.int32)), (2, 3), 2, 1, (2, 1)),
            (Tensor(g(5, 1, 2, 6, 12)),),
        ),
        "Tensor.col2im": (
            lambda c: c.col2im(Tensor(np.array([4, 5], np.int32)), 2, 1, 0, (2, 1)),
            (c,),
        ),
        "lrn": (lambda x: ops.lrn(x, 2, 1.0, 0.5, 0.75), (x,)),
        "lrn_default": (lambda x: ops.lrn(x), (x,)),
        "LRN": (nn.LRN(1, 2.0, 0.1, 0.5), (x,)),
        "lp_pool1d": (lambda x: ops.lp_pool1d(x, 2, 2), (Tensor(g(1, 3, 5, 6)),)),
        "lp_pool1d_frac": (lambda x: ops.lp_pool1d(x, 1.5, 3, 2, True), (Tensor(g(1, 5, 6)),)),
        "lp_pool2d": (lambda x: ops.lp_pool2d(x, 2, (2, 3), (1, 2)), (x,)),
        "max_unpool2d": (lambda p, w: ops.max_unpool2d(p, w, 2, 1), (pooled, where)),
        "max_unpool2d_size": (
            lambda p, w: ops.max_unpool2d(p, w, 3, 2, 1, (2, 3, 8, 10)),
            (pooled, where),
        ),
        "max_unpool2d_3d": (lambda p, w: ops.max_unpool2d(p[0], w[0], 2, 1), (pooled, where)),
        "MaxUnpool2d": (nn.MaxUnpool2d(2, 1), (pooled, where)),
        "max_unpool1d": (lambda p, w: ops.max_unpool1d(p, w, 2), (p1, w1)),
        "max_unpool1d_size": (lambda p, w: ops.max_unpool1d(p, w, 2, 2, 0, (7,)), (p1, w1)),
        "MaxUnpool1d": (nn.MaxUnpool1d(2), (p1, w1)),
        "max_unpool3d": (lambda p, w: ops.max_unpool3d(p, w, 2), (p3, w3)),
        "MaxUnpool3d": (nn.MaxUnpool3d(2, 2), (p3, w3)),
        "ctc_loss": (lambda a, b, c, d: ops.ctc_loss(a, b, c, d), (lp, tg, il, tl)),
        "ctc_loss_none_blank": (
            lambda a, b, c, d: ops.ctc_loss(a, b, c, d, 3, "none"),
            (lp, Tensor(np.array([[1, 2, 2], [0, 1, 0]], np.int64)), il, tl),
        ),
        "ctc_loss_sum": (lambda a, b, c, d: ops.ctc_loss(a, b, c, d, 0, "sum"), (lp, tg, il, tl)),
        "ctc_loss_inf": (
            lambda a, b, c, d: ops.ctc_loss(a, b, c, d, 0, "none"),
            (lp, tg, Tensor(np.array([3, 5], np.int32)), tl),
        ),
        "CTCLoss": (nn.CTCLoss(), (lp, tg, il, tl)),
        "CTCLoss_unbatched": (nn.CTCLoss(reduction="sum"), (lp[:, 0], tg[0], il[:1], tl[:1])),
    }


# printed by MindSpore 2.10 (CPU, PyNative) for cases(mindspore.ops, mindspore.nn, ...)
MS = {
    "unfold": (
        (2, 12, 20),
        "Float32",
        -32.459,
        308.99288,
        [0.345584, 0.821618, 0.330437, -1.303157, 0.905356, -0.536953],
    ),
    "unfold_args": (
        (2, 18, 12),
        "Float32",
        -25.53003,
        145.56253,
        [0.0, 0.0, 0.0, 0.0, 0.0, -0.536953],
    ),
    "Tensor.unfold": (
        (2, 18, 12),
        "Float32",
        -25.53003,
        145.56253,
        [0.0, 0.0, 0.0, 0.0, 0.0, -0.536953],
    ),
    "fold": (
        (2, 3, 4, 5),
        "Float32",
        -1.84162,
        115.77648,
        [0.189053, -0.241538, -0.966886, -1.4639, -0.310557, 0.545289],
    ),
    "fold_args": ((2, 3, 5, 6), "Float32", 18.33094, 96.48327, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    "Tensor.fold": (
        (2, 3, 4, 5),
        "Float32",
        -1.84162,
        115.77648,
        [0.189053, -0.241538, -0.966886, -1.4639, -0.310557, 0.545289],
    ),
    "col2im": (
        (2, 3, 4, 5),
        "Float32",
        8.86843,
        120.86004,
        [-0.651791, -1.782905, 1.905496, 0.894529, 1.575626, -1.915646],
    ),
    "col2im_args": ((1, 2, 5, 6), "Float32", -14.56569, 36.1311, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    "Tensor.col2im": (
        (2, 3, 4, 5),
        "Float32",
        8.86843,
        120.86004,
        [-0.651791, -1.782905, 1.905496, 0.894529, 1.575626, -1.915646],
    ),
    "lrn": (
        (2, 3, 5, 6),
        "Float32",
        -5.70494,
        67.05709,
        [0.141024, 0.489818, 0.231381, -0.41839, 0.625046, 0.341638],
    ),
    "lrn_default": (
        (2, 3, 5, 6),
        "Float32",
        -5.85279,
        66.69492,
        [0.145937, 0.475467, 0.221951, -0.457956, 0.599886, 0.327583],
    ),
    "LRN": (
        (2, 3, 5, 6),
        "Float32",
        -8.36539,
        82.23271,
        [0.220316, 0.55505, 0.232197, -0.810194, 0.621246, 0.310711],
    ),
    "lp_pool1d": (
        (3, 5, 3),
        "Float32",
        45.6489,
        45.6489,
        [0.891339, 1.344398, 1.009416, 0.791212, 0.46843, 0.547451],
    ),
    "lp_pool1d_frac": (
        (5, 3),
        "Float32",
        6.63753,
        6.63753,
        [1.089905, 0.0, 1.44639, 0.0, 0.528712, 0.722047],
    ),
    "lp_pool2d": (
        (2, 3, 4, 2),
        "Float32",
        95.66242,
        95.66242,
        [1.28942, 1.687398, 1.249109, 0.901592, 1.216116, 1.53077],
    ),
    "max_unpool2d": (
        (2, 3, 5, 6),
        "Float32",
        60.1193,
        62.39012,
        [0.0, 1.776491, 0.0, 0.0, 1.013719, 1.352142],
    ),
    "max_unpool2d_size": (
        (2, 3, 8, 10),
        "Float32",
        60.1193,
        62.39012,
        [0.0, 1.776491, 0.0, 0.0, 1.013719, 1.352142],
    ),
    "max_unpool2d_3d": (
        (3, 5, 6),
        "Float32",
        30.86104,
        31.2173,
        [0.0, 1.776491, 0.0, 0.0, 1.013719, 1.352142],
    ),
    "MaxUnpool2d": (
        (2, 3, 5, 6),
        "Float32",
        60.1193,
        62.39012,
        [0.0, 1.776491, 0.0, 0.0, 1.013719, 1.352142],
    ),
    "max_unpool1d": (
        (2, 3, 6),
        "Float32",
        -0.56982,
        17.42146,
        [-1.738266, 0.0, 0.0, -1.336643, -1.361107, 0.0],
    ),
    "max_unpool1d_size": (
        (2, 3, 7),
        "Float32",
        -0.56982,
        17.42146,
        [-1.738266, 0.0, 0.0, -1.336643, -1.361107, 0.0],
    ),
    "MaxUnpool1d": (
        (2, 3, 6),
        "Float32",
        -0.56982,
        17.42146,
        [-1.738266, 0.0, 0.0, -1.336643, -1.361107, 0.0],
    ),
    "max_unpool3d": (
        (1, 2, 4, 4, 4),
        "Float32",
        25.77569,
        25.77569,
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    ),
    "MaxUnpool3d": ((1, 2, 4, 4, 4), "Float32", 25.77569, 25.77569, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    "ctc_loss": [
        ((), "Float32", -1.88091, 1.88091, [-1.880909]),
        ((2, 6, 7), "Float32", -inf, inf, [0.034193, 1.359748, -inf, -inf, -inf, -inf]),
    ],
    "ctc_loss_none_blank": [
        ((2,), "Float32", -9.29383, 9.29383, [-5.871512, -3.422315]),
        ((2, 6, 7), "Float32", -inf, inf, [-0.510307, 1.359748, -inf, -inf, -inf, -inf]),
    ],
    "ctc_loss_sum": [
        ((), "Float32", -9.523, 9.523, [-9.522999]),
        ((2, 6, 7), "Float32", -inf, inf, [0.034193, 1.359748, -inf, -inf, -inf, -inf]),
    ],
    "ctc_loss_inf": [
        ((2,), "Float32", inf, inf, [inf, -3.524907]),
        ((2, 6, 7), "Float32", -inf, inf, [0.034193, 1.359748, -inf, -inf, -inf, -inf]),
    ],
    "CTCLoss": ((), "Float32", -1.88091, 1.88091, [-1.880909]),
    "CTCLoss_unbatched": ((), "Float32", -5.99809, 5.99809, [-5.998092]),
}


def _summary(r):
    if isinstance(r, tuple):
        return [_summary(q) for q in r]
    a = r.asnumpy().astype(np.float64)
    return tuple(a.shape), str(r.dtype), a.sum(), np.abs(a).sum(), a.ravel()[:6]


def _check(got, want):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for q, w in zip(got, want):
            _check(q, w)
        return
    assert got[:2] == want[:2]
    np.testing.assert_allclose(got[2], want[2], rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(got[4], want[4], rtol=1e-4, atol=1e-5)


CASES = cases(ops, nn, Tensor, g)


@pytest.mark.parametrize("name", list(MS))
def test_against_mindspore(name, mode):
    fn, args = CASES[name]
    _check(_summary(run(fn, mode, *args)), MS[name])


def _ctc_numpy(lp, targets, il, tl, blank):
    """The CTC negative log-likelihood by brute force over all alignments."""
    import itertools

    out = []
    for n in range(lp.shape[1]):
        want = list(targets[n, : tl[n]])
        total = 0.0
        for path in itertools.product(range(lp.shape[2]), repeat=int(il[n])):
            collapsed = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
            if [k for k in collapsed if k != blank] == want:
                total += np.exp(sum(lp[t, n, k] for t, k in enumerate(path)))
        out.append(-np.log(total))
    return np.array(out)


def test_ctc_loss_against_brute_force(mode):
    lp = np.log(np.random.default_rng(3).dirichlet(np.ones(3), size=(5, 3)))
    targets = np.array([[1, 1], [2, 1], [1, 0]], np.int32)
    il, tl = np.array([5, 4, 3], np.int32), np.array([2, 2, 1], np.int32)
    loss, _ = run(
        lambda a, b, c, d: ops.ctc_loss(a, b, c, d, 0, "none"),
        mode,
        Tensor(lp),
        Tensor(targets),
        Tensor(il),
        Tensor(tl),
    )
    np.testing.assert_allclose(loss.asnumpy(), _ctc_numpy(lp, targets, il, tl, 0), rtol=1e-10)


def test_ctc_zero_infinity():
    lp = Tensor(g(11, 6, 2, 4))
    tg = Tensor(np.array([[1, 2, 2], [3, 1, 0]], np.int32))
    il, tl = Tensor(np.array([3, 5], np.int32)), Tensor(np.array([3, 2], np.int32))
    loss, _ = ops.ctc_loss(lp, tg, il, tl, 0, "none", True)
    # MindSpore documents 0 for an impossible alignment; its 2.10 CPU kernel prints inf
    assert loss.asnumpy()[0] == 0 and np.isfinite(loss.asnumpy()[1])
    grad = ms.grad(lambda x: ops.ctc_loss(x, tg, il, tl, 0, "sum", True)[0])(lp).asnumpy()
    assert np.isfinite(grad).all() and (grad[:, 0] == 0).all()


_OUT = Tensor(np.array([3, 4], np.int32))
_IDX = Tensor(np.array([[[0, 3, 5], [1, 2, 4]]], np.int64))


@pytest.mark.parametrize(
    "fn, shapes",
    [
        (lambda x: ops.unfold(x, 2, 1, 1, (2, 1)), [(1, 2, 3, 3)]),
        (lambda x: ops.fold(x, _OUT, 2, 1, (1, 0), 1), [(1, 8, 12)]),
        (lambda x: ops.col2im(x, _OUT, (2, 2), 1, 0, (1, 2)), [(1, 1, 4, 4)]),
        (lambda x: ops.lrn(x, 1, 1.5, 0.3, 0.75), [(1, 3, 2, 2)]),
        (lambda x: ops.lp_pool2d(ops.abs(x) + 0.1, 2.5, 2), [(1, 1, 4, 4)]),
        (lambda x: ops.max_unpool1d(x, _IDX, 2), [(1, 2, 3)]),
        (
            lambda x: ops.ctc_loss(
                x,
                Tensor(np.array([[1, 2], [2, 2]], np.int32)),
                Tensor(np.array([4, 5], np.int32)),
                Tensor(np.array([2, 2], np.int32)),
            )[0],
            [(5, 2, 3)],
        ),  # fmt: skip
    ],
)
def test_gradients(fn, shapes):
    arrays = [RNG.standard_normal(s) for s in shapes]
    assert_grads_match_finite_differences(fn, arrays, RNG, rtol=1e-4, atol=1e-6)


def test_ctc_lengths_are_run_time_values_in_a_graph():
    lp = Tensor(g(11, 6, 2, 4))
    tg = Tensor(np.array([[1, 2, 2], [3, 1, 0]], np.int32))
    f = ms.jit(lambda a, b, c, d: ops.ctc_loss(a, b, c, d, 0, "none")[0])
    for il, tl in (([6, 5], [3, 2]), ([4, 6], [2, 1])):
        il, tl = Tensor(np.array(il, np.int32)), Tensor(np.array(tl, np.int32))
        want = ops.ctc_loss(lp, tg, il, tl, 0, "none")[0].asnumpy()
        np.testing.assert_allclose(f(lp, tg, il, tl).asnumpy(), want, rtol=1e-6)


X = Tensor(g(1, 2, 3, 5, 6))
_LP, _TG = Tensor(g(11, 6, 2, 4)), Tensor(np.array([[1, 2, 2], [3, 1, 0]], np.int32))
_IL, _TL = Tensor(np.array([6, 5], np.int32)), Tensor(np.array([3, 2], np.int32))


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: ops.fold(ops.reshape(X, (1, 12, 15)), _OUT, 2), ValueError),
        (lambda: ops.fold(ops.reshape(X, (1, 12, 15)), (4, 5), 2), TypeError),
        (lambda: ops.col2im(ops.reshape(X, (2, 3, 5, 6)), _OUT, 2, 1, 0, 1), ValueError),
        (lambda: ops.unfold(X, 0), ValueError),
        (lambda: ops.unfold(X, 2.0), TypeError),
        (lambda: ops.lrn(X, 2.0), TypeError),
        (lambda: ops.lrn(X[0]), ValueError),
        (lambda: ops.lrn(X, 2, 1), TypeError),
        (lambda: ops.lrn(X, 2, norm_region="WITHIN"), ValueError),
        (lambda: nn.LRN(2, 1), TypeError),
        (lambda: ops.lp_pool1d(X[0], 0, 2), ValueError),
        (lambda: ops.lp_pool1d(X, 1, 2), ValueError),
        (lambda: ops.lp_pool2d(X[0], 1, 2), ValueError),
        (lambda: ops.max_unpool2d(X, Tensor(np.zeros((2, 3, 5, 5), np.int64)), 2), ValueError),
        (
            lambda: ops.max_unpool2d(X, Tensor(np.zeros((2, 3, 5, 6), np.int64)), 2, 1, 0, (9, 9)),
            ValueError,
        ),  # fmt: skip
        (
            lambda: ops.max_unpool2d(X, Tensor(np.full((2, 3, 5, 6), 100, np.int64)), 2, 1),
            RuntimeError,
        ),  # fmt: skip
        (lambda: ops.max_unpool2d(X, Tensor(np.zeros((2, 3, 5, 6), np.float32)), 2), TypeError),
        (lambda: ops.ctc_loss(_LP, _TG, _IL, _TL, 0, "foo"), ValueError),
        (lambda: ops.ctc_loss(_LP[0], _TG, _IL, _TL), ValueError),
        (lambda: ops.ctc_loss(_LP, ops.cast(_TG, ms.float32), _IL, _TL), TypeError),
        (lambda: nn.CTCLoss(reduction="foo"), ValueError),
    ],
)
def test_errors(call, error):
    with pytest.raises(error):
        call()


def test_output_size_must_be_constant_in_a_graph():
    with pytest.raises(ValueError, match="constant"):
        ms.jit(lambda x, s: ops.fold(x, s, 2))(ops.reshape(X, (1, 12, 15)), _OUT)


_DECODE = np.array(
    [[[0.1, 0.9, 0.0], [0.2, 0.1, 0.7]], [[0.1, 0.9, 0.0], [0.1, 0.2, 0.7]],
     [[0.1, 0.0, 0.9], [0.8, 0.1, 0.1]]],
    np.float32,
)  # fmt: skip


@pytest.mark.parametrize(
    "inputs, lengths, merge, want",
    [
        # printed by MindSpore 2.10: indices, values, shape, log_probability
        (g(1, 5, 2, 4), [5, 3], True,
         ([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]], [1, 0, 2, 1, 0, 2], [2, 4],
          [[-3.276052713394165], [-2.7982659339904785]])),
        (_DECODE, [3, 3], True, ([[0, 0], [1, 0]], [1, 0], [2, 1], [[-2.7], [-2.2]])),
        (_DECODE, [3, 2], False, ([[0, 0], [0, 1]], [1, 1], [2, 2], [[-2.7], [-1.4]])),
    ],
)  # fmt: skip
def test_ctc_greedy_decoder(inputs, lengths, merge, want):
    x, sl = Tensor(inputs), Tensor(np.array(lengths, np.int32))
    eager = ops.ctc_greedy_decoder(x, sl, merge)
    # in a graph the inputs must be constants: the result is folded
    graph = ms.jit(lambda: ops.ctc_greedy_decoder(x, sl, merge))()
    for got in (eager, graph):
        for q, w, dtype in zip(got, want, ("Int64", "Int64", "Int64", "Float32")):
            np.testing.assert_allclose(q.asnumpy(), np.array(w).reshape(q.shape), rtol=1e-6)
            assert str(q.dtype) == dtype
    with pytest.raises(ValueError, match="constant"):
        ms.jit(lambda a, b: ops.ctc_greedy_decoder(a, b))(x, sl)
    with pytest.raises(RuntimeError):
        ops.ctc_greedy_decoder(x, Tensor(np.array([9, 1], np.int32)))
    with pytest.raises(TypeError):
        ops.ctc_greedy_decoder(x, Tensor(np.array(lengths, np.int64)))
    with pytest.raises(ValueError):
        ops.ctc_greedy_decoder(x[0], sl)
