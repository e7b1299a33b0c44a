"""Issue 38: MindSpore 2.10's higher-order derivatives `ops.derivative` and
`ops.jet` (frontend/taylor.py, nested ops.jvp), and `ops.vmap` (mindjit's vmap
under the ops name). Expected values are what MindSpore 2.10 printed on CPU
(its docstring's Net, and small functions), pasted as literals; every case runs in
PyNative and graph mode."""

from __future__ import annotations

import numpy as np
import pytest
from modes import run

import mindjit as ms
from mindjit import Tensor, nn, ops

X = np.array([0.5, 1.0], np.float32)
Y = np.array([2.0, 3.0], np.float32)


class _Net(nn.Cell):
    def construct(self, x):
        return ops.exp(ops.sin(x))


def _f1(a):
    return ops.exp(a) * a


def _f2(a, b):
    return a * b * b


def _fm(a):
    return a * a, ops.sin(a)


def _close(got, want):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want, np.float32), rtol=2e-5, atol=1e-6)


def test_docstring_net(mode):
    primals = Tensor([[1, 2], [3, 4]], ms.float32)
    series = Tensor([[[1, 1], [1, 1]], [[0, 0], [0, 0]], [[0, 0], [0, 0]]], ms.float32)
    net = _Net()
    out, d3 = run(lambda p: ops.derivative(net, p, 3), mode, primals)
    jout, jseries = run(lambda p, s: ops.jet(net, p, s), mode, primals, series)
    # MindSpore 2.10's docstring prints
    _close(out, [[2.319777, 2.4825778], [1.1515628, 0.4691642]])
    _close(d3, [[-4.0515366, 3.6724353], [0.5053504, -0.52061415]])
    _close(jout, out.asnumpy())
    _close(
        jseries,
        [
            [[1.2533808, -1.0331168], [-1.1400385, -0.3066662]],
            [[-1.2748207, -1.8274734], [0.966121, 0.55551505]],
            [[-4.0515366, 3.6724353], [0.5053504, -0.52061415]],
        ],
    )


def test_derivative(mode):
    got = run(
        lambda x, y, i: (
            ops.derivative(_f2, (x, y), 1),
            ops.derivative(_f2, (x, y), 2),
            ops.derivative(_f1, i, 2),
            ops.derivative(_f1, x, 3),
        ),
        mode,
        Tensor(X),
        Tensor(Y),
        Tensor([1, 2]),
    )
    # MindSpore 2.10's printed values
    _close(got[0][0], [2.0, 9.0])
    _close(got[0][1], [6.0, 15.0])
    _close(got[1][1], [9.0, 14.0])
    _close(got[2][0], [2.71827984, 14.7781200])  # int primals are float32
    _close(got[2][1], [8.15483952, 29.5562401])
    _close(got[3][1], [5.77052498, 10.8731194])


def test_jet(mode):
    s1 = Tensor(np.array([[1.0, 2.0], [0.5, 0.0], [1.0, 1.0]], np.float32))
    sa = Tensor(np.array([[1.0, 2.0], [0.5, 0.0]], np.float32))
    sb = Tensor(np.array([[1.0, 1.0], [0.0, 1.0]], np.float32))
    got = run(
        lambda x, y, s1, sa, sb: (
            ops.jet(_f1, x, s1),
            ops.jet(_f2, (x, y), (sa, sb)),
            ops.jet(_f1, x, ops.expand_dims(x, 0)),
        ),
        mode,
        Tensor(X),
        Tensor(Y),
        s1,
        sa,
        sb,
    )
    # MindSpore 2.10's printed values
    _close(got[0][0], [0.824360728, 2.71827984])
    _close(
        got[0][1], [[2.47308207, 10.8731194], [5.35834503, 32.6193581], [14.4263115, 92.4215088]]
    )
    _close(got[1][1], [[6.0, 24.0], [11.0, 32.0]])
    _close(got[2][1], [[1.23654103, 5.43655968]])


def test_several_outputs_are_lists(mode):
    x = Tensor(X)
    out, series = run(lambda x: ops.jet(_fm, x, ops.stack((ops.ones_like(x), x * 0))), mode, x)
    assert isinstance(out, list) and isinstance(series, list)
    _close(out[1], [0.479425550, 0.841470957])
    _close(series[0], [[1.0, 2.0], [2.0, 2.0]])
    _close(series[1], [[0.877582550, 0.540302277], [-0.479425550, -0.841470957]])
    out, d2 = run(lambda x: ops.derivative(_fm, x, 2), mode, x)
    assert isinstance(d2, list)
    _close(d2[0], [2.0, 2.0])
    _close(d2[1], [-0.479425550, -0.841470957])


def test_bad_input():
    with pytest.raises(ValueError):
        ops.derivative(_f1, Tensor(X), 0)
    with pytest.raises(TypeError):
        ops.derivative(_f1, Tensor(X), 1.5)
    with pytest.raises(TypeError):
        ops.derivative(_f1, [1.0], 1)
    with pytest.raises(ValueError):
        ops.jet(_f2, (Tensor(X), Tensor(Y)), Tensor(np.ones((1, 2), np.float32)))


def test_vmap_is_mindjit_vmap(mode):
    assert ops.vmap is ms.vmap
    got = run(lambda x: ops.vmap(lambda r: ops.reduce_sum(r * r))(x), mode, Tensor(np.ones((3, 2))))
    np.testing.assert_allclose(got.asnumpy(), [2.0, 2.0, 2.0])
