"""nn.FTRL, nn.ProximalAdagrad, nn.Rprop, nn.LazyAdam and nn.AdamOffload: five
TrainOneStepCell steps of a tiny net (MSELoss), in PyNative and graph mode, against
the parameter values MindSpore 2.10 printed on CPU for the same program (a /tmp
probe; the literals below). FTRL with l1 > 0 follows MindSpore's CPU kernel."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops

X = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -1.5, 2.0]], np.float32))
Y = Tensor(np.array([[0.3, -0.2], [1.0, 0.5]], np.float32))


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        w = np.array([[0.5, -0.3], [0.8, 0.1], [-0.2, 0.4]], np.float32)
        self.w = Parameter(Tensor(w), name="w")
        self.bias = Parameter(Tensor(np.array([0.1, -0.1], np.float32)), name="bias")

    def construct(self, x):
        return ops.matmul(x, self.w) + self.bias


# (optimizer factory, MindSpore's loss after step 5, w, bias)
CASES = {
    "ftrl_l1_l2_decay_scale": (
        lambda p: nn.FTRL(p, learning_rate=0.1, l1=0.01, l2=0.02, weight_decay=0.1, loss_scale=2.0),
        0.5729454,
        [[0.05295553803443909, 0.012395665980875492], [0.41137421131134033, -0.07429932057857513],
         [0.10817226767539978, 0.12365545332431793]],
        [0.17757952213287354, 0.06443753093481064],
    ),
    "ftrl_lr_power": (
        lambda p: nn.FTRL(p, initial_accum=0.2, learning_rate=0.05, lr_power=-0.7),
        1.6225795,
        [[0.10957428812980652, -0.015025577507913113], [0.6810212731361389, -0.030223678797483444],
         [-0.10383311659097672, 0.09919494390487671]],
        [0.12844790518283844, 0.0610654354095459],
    ),
    "proximal_adagrad_l1_l2": (
        lambda p: nn.ProximalAdagrad(p, learning_rate=0.1, l1=0.01, l2=0.02, weight_decay=0.05),
        0.839787,
        [[0.24125578999519348, -0.16359183192253113], [0.511087954044342, 0.1492508500814438],
         [0.08761236071586609, 0.3763333559036255]],
        [0.20593081414699554, 0.026170572265982628],
    ),
    "proximal_adagrad_l2": (
        lambda p: nn.ProximalAdagrad(p, accum=0.3, learning_rate=0.2, l2=0.1),
        0.21255898,
        [[0.15910156071186066, -0.15604104101657867], [0.3073989450931549, 0.15174740552902222],
         [0.28440070152282715, 0.366239458322525]],
        [0.23618420958518982, 0.03649068996310234],
    ),
    "rprop": (
        lambda p: nn.Rprop(
            p, learning_rate=0.1, etas=(0.4, 1.5), step_sizes=(0.01, 0.2), weight_decay=0.1
        ),
        0.017706262,
        [[-0.15000000596046448, -0.20000001788139343], [0.1499999612569809, 0.09999999403953552],
         [0.44999998807907104, 0.4000000059604645]],
        [0.5, 0.0],
    ),
    "lazy_adam_nesterov": (
        lambda p: nn.LazyAdam(
            p, learning_rate=0.1, use_nesterov=True, weight_decay=0.1, loss_scale=4.0
        ),
        0.08274035,
        [[-0.04854157567024231, -0.061995383352041245], [0.1987125724554062, 0.03155381977558136],
         [0.3960382044315338, 0.3186855614185333]],
        [0.30837705731391907, 0.03096470609307289],
    ),
    "adam_offload": (
        lambda p: nn.AdamOffload(p, learning_rate=0.05, weight_decay=0.01),
        1.0993453,
        [[0.25172001123428345, -0.11322679370641708], [0.552798867225647, 0.1860891729593277],
         [0.04700722545385361, 0.4418785274028778]],
        [0.3101811707019806, 0.10003865510225296],
    ),
}  # fmt: skip


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("case", sorted(CASES))
def test_five_steps_match_mindspore(case, mode):
    make, loss, w, bias = CASES[case]
    net = _Net()
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), make(net.trainable_params()))
    ms.set_context(mode=mode)
    for _ in range(5):
        out = train(X, Y)
    # Adam's kernel rounds differently from mindjit's float32 ops (about 2e-6 after 5 steps)
    atol = 1e-5 if "adam" in case else 2e-7
    assert float(out.asnumpy()) == pytest.approx(loss, abs=10 * atol)
    np.testing.assert_allclose(net.w.asnumpy(), w, atol=atol)
    np.testing.assert_allclose(net.bias.asnumpy(), bias, atol=atol)


def test_state_parameters_and_errors():
    params = _Net().trainable_params()
    ftrl = nn.FTRL(params, learning_rate=0.1)
    names = sorted(p.name for p in ftrl.get_parameters())
    assert "moments.w" in names and "linear.bias" in names
    assert ftrl.moments[0].asnumpy()[0, 0] == pytest.approx(0.1)
    rprop = nn.Rprop(params)
    assert sorted(p.name for p in rprop.prev) == ["prev.bias", "prev.w"]
    assert len(nn.ProximalAdagrad(params).accum) == 2
    with pytest.raises(ValueError):
        nn.FTRL(params, learning_rate=[0.1, 0.2])
    with pytest.raises(TypeError):
        nn.FTRL(params, l1=1)
    with pytest.raises(ValueError):
        nn.FTRL(params, lr_power=0.5)
    with pytest.raises(ValueError):
        nn.ProximalAdagrad(params, l1=-1.0)
    with pytest.raises(TypeError):
        nn.Rprop(params, etas=[0.5, 1.2])
    with pytest.raises(ValueError):
        nn.Rprop(params, etas=(0.5, 1.0))
    with pytest.raises(ValueError):
        nn.Rprop(params, step_sizes=(1.0, 0.1))
    with pytest.raises(ValueError):
        nn.LazyAdam(params, beta1=1.0)
    with pytest.raises(TypeError):
        nn.AdamOffload(params, use_nesterov=1)
