"""nn.WithGradCell, nn.ParameterUpdate, nn.Vjp and nn.Jvp in both modes against
the values MindSpore 2.10 printed on CPU for the same program (a /tmp probe;
the literals below, identical in its PyNative and graph modes)."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops

X = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
Y = Tensor(np.array([[0.5, -1.0], [2.0, 0.1]], np.float32))
V = Tensor(np.array([[1.0, 0.5], [-1.0, 2.0]], np.float32))


class _Net(nn.Cell):
    def construct(self, x, y):
        return x * x * y + ops.sin(x)


class _Cube(nn.Cell):
    def construct(self, x):
        return x**3


class _Pair(nn.Cell):
    def construct(self, x, y):
        return x * y, x + ops.exp(y)


class _Dense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([[0.5, -0.3], [0.8, 0.1]], np.float32)), name="w")
        self.b = Parameter(Tensor(np.array([0.1, -0.2], np.float32)), name="b")

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


def _flat(out):
    if isinstance(out, tuple | list):
        return [_flat(o) for o in out]
    return out.asnumpy().tolist()


def _close(got, want):
    np.testing.assert_allclose(np.array(_flat(got)), np.array(want), rtol=2e-6, atol=1e-6)


NET_OUT = [[1.3414709568023682, -3.090702533721924], [18.14112091064453, 0.8431975245475769]]
PAIR_OUT = [
    [[0.5, -2.0], [6.0, 0.4000000059604645]],
    [[2.64872145652771, 2.3678789138793945], [10.389060020446777, 5.105171203613281]],
]
CUBE_OUT = [[1.0, 8.0], [27.0, 64.0]]


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    return request.param


def test_jvp(mode):
    out, jv = nn.Jvp(_Net())(X, Y, (V, V))
    _close(out, NET_OUT)
    _close(jv, [[2.540302276611328, -0.20807337760925293], [-20.010007858276367, 32.2927131652832]])
    out, jv = nn.Jvp(_Cube())(X, V)
    _close(out, CUBE_OUT)
    _close(jv, [[3.0, 6.0], [-27.0, 96.0]])
    out, jv = nn.Jvp(_Pair())(X, Y, (V, V))
    _close(out, PAIR_OUT)
    _close(jv, [[[1.5, 0.5], [-5.0, 8.2]], [[2.64872145652771, 0.6839393973350525],
                                             [-8.389060020446777, 4.210341930389404]]])  # fmt: skip


def test_vjp(mode):
    out, grads = nn.Vjp(_Net())(X, Y, V)
    _close(out, NET_OUT)
    _close(grads, [[[1.5403022766113281, -2.208073377609253], [-11.010007858276367, 0.2927128]],
                   [[1.0, 2.0], [-9.0, 32.0]]])  # fmt: skip
    out, grad = nn.Vjp(_Cube())(X, V)
    _close(out, CUBE_OUT)
    _close(grad, [[3.0, 6.0], [-27.0, 96.0]])
    out, grads = nn.Vjp(_Pair())(X, Y, (V, V))
    _close(out, PAIR_OUT)
    _close(grads, [[[1.5, 0.0], [-3.0, 2.2]], [[2.64872145652771, 1.1839394569396973],
                                                [-10.389060020446777, 10.210342407226562]]])  # fmt: skip


def test_with_grad_cell(mode):
    grads = nn.WithGradCell(_Dense(), nn.MSELoss())(X, Y)
    _close(grads[0], [[5.049999237060547, -0.8500000238418579], [7.299999237060547, -0.9]])
    _close(grads[1], [2.249999761581421, -0.050000011920928955])
    with_loss = nn.WithLossCell(_Dense(), nn.MSELoss())
    grads = nn.WithGradCell(with_loss, sens=Tensor(2.0))(X, Y)
    _close(grads[0], [[10.099998474121094, -1.7000000476837158], [14.599998474121094, -1.8]])
    _close(grads[1], [4.499999523162842, -0.10000002384185791])
    grads = nn.WithGradCell(_Dense())(X)
    _close(grads[0], [[4.0, 4.0], [6.0, 6.0]])
    _close(grads[1], [2.0, 2.0])


def test_parameter_update(mode):
    p = Parameter(Tensor(np.zeros((2, 2), np.float32)), name="p")
    update = nn.ParameterUpdate(p)
    _close(update(X), [[1.0, 2.0], [3.0, 4.0]])
    _close(p, [[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(TypeError):
        nn.ParameterUpdate(X)
