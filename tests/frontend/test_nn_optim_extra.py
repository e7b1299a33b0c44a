"""nn.Adadelta, nn.AdaMax, nn.ASGD (issue 38): a few steps on two Parameters (one
named 'bias', so weight decay skips neither: MindSpore's filter only skips beta and
gamma) in PyNative mode and in one GRAPH_MODE graph per step, against the values
MindSpore 2.10 printed for the same gradients; the state Parameters' names; bad
hyperparameters with MindSpore's exception types."""

from __future__ import annotations

import numpy as np
import pytest
from ms_inputs import g

import mindjit as ms
from mindjit import Parameter, Tensor, nn

# printed by MindSpore 2.10 (CPU, PyNative): w, bias after the steps below
MS = {
    "adadelta_w": [[-1.09826839, -0.72861862, -0.77840948], [0.26162761, -0.25545901, 0.13862306]],
    "adadelta_b": [0.0297994, 1.35166037, 1.22554255],
    "adadelta_args_w": [
        [-1.0838834, -0.73663384, -0.76811123],
        [0.24802727, -0.27145952, 0.16978106],
    ],
    "adadelta_args_b": [0.01835196, 1.32901907, 1.22302532],
    "adamax_w": [[-1.10202909, -0.7272048, -0.78228158], [0.26510811, -0.25043836, 0.12892553]],
    "adamax_b": [0.03242144, 1.35730493, 1.22596645],
    "adamax_args_w": [
        [-1.02359951, -0.82954413, -0.79489064],
        [0.17180054, -0.3401615, 0.25020015],
    ],
    "adamax_args_b": [-0.0582962, 1.23036015, 1.26821756],
    "asgd_w": [[-1.01877129, -0.89778477, -0.60680586], [0.36074117, -0.47312421, 0.62817776]],
    "asgd_b": [-0.21448728, 1.24011958, 1.20461857],
    "asgd_args_w": [[-1.01872396, -0.78031319, -0.66453379], [0.30440366, -0.34930778, 0.3687847]],
    "asgd_args_b": [-0.08878231, 1.24831605, 1.1660527],
}

OPTIMIZERS = {  # name -> (make, steps)
    "adadelta": (lambda ps: nn.Adadelta(ps), 3),
    "adadelta_args": (
        lambda ps: nn.Adadelta(ps, learning_rate=0.5, rho=0.8, epsilon=1e-4, weight_decay=0.1),
        3,
    ),
    "adamax": (lambda ps: nn.AdaMax(ps), 3),
    "adamax_args": (
        lambda ps: nn.AdaMax(
            ps, learning_rate=0.05, beta1=0.8, beta2=0.9, eps=1e-3, weight_decay=0.1
        ),
        3,
    ),
    "asgd": (lambda ps: nn.ASGD(ps), 4),
    "asgd_args": (
        lambda ps: nn.ASGD(ps, learning_rate=0.05, lambd=0.1, alpha=0.5, t0=2.0, weight_decay=0.1),
        4,
    ),
}


class Step(nn.Cell):
    def __init__(self, opt):  # type: ignore[no-untyped-def]
        super().__init__()
        self.opt = opt

    def construct(self, gw, gb):
        return self.opt((gw, gb))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_steps_equal_mindspore(name, mode):
    make, steps = OPTIMIZERS[name]
    w, b = Parameter(Tensor(g(10, 2, 3)), name="w"), Parameter(Tensor(g(11, 3)), name="bias")
    step = Step(make([w, b]))
    ms.set_context(mode=mode)
    for k in range(steps):
        assert step(Tensor(g(20 + k, 2, 3)), Tensor(g(30 + k, 3))) == (True, True)
    np.testing.assert_allclose(w.asnumpy(), MS[f"{name}_w"], rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(b.asnumpy(), MS[f"{name}_b"], rtol=2e-6, atol=1e-7)


def test_adadelta_first_step_is_the_documented_formula():
    w0, grad = g(10, 2, 3), g(20, 2, 3)
    w = Parameter(Tensor(w0), name="w")
    nn.Adadelta([w], learning_rate=0.5, rho=0.8, epsilon=1e-4)((Tensor(grad),))
    accum = 0.2 * grad**2
    update = np.sqrt(1e-4) / np.sqrt(accum + 1e-4) * grad
    np.testing.assert_allclose(w.asnumpy(), w0 - 0.5 * update, rtol=1e-6)


def test_state_parameter_names():
    w = Parameter(Tensor(g(10, 2)), name="w")
    names = {
        "Adadelta": ["accum.w", "accum_update.w"],
        "AdaMax": ["beta1_power", "moment1.w", "moment2.w"],
        "ASGD": ["mu_w", "eta_w", "ax_.w"],
    }
    for cls, want in names.items():
        opt = getattr(nn, cls)([w])
        got = {p.name for p in opt.get_parameters()}
        assert set(want) <= got, (cls, got)


@pytest.mark.parametrize(
    "make, error, match",
    [
        (
            lambda ps: nn.Adadelta(ps, rho=1.5),
            ValueError,
            r"'rho' must be in range of \[0.0, 1.0\]",
        ),
        (lambda ps: nn.Adadelta(ps, rho=1), TypeError, "'rho'"),
        (lambda ps: nn.Adadelta(ps, epsilon=-1.0), ValueError, "'epsilon'"),
        (
            lambda ps: nn.AdaMax(ps, beta1=1.0),
            ValueError,
            r"'beta1' must be in range of \(0.0, 1.0\)",
        ),
        (lambda ps: nn.AdaMax(ps, eps=0.0), ValueError, "'eps'"),
        (lambda ps: nn.AdaMax(ps, beta2=1), TypeError, "'beta2'"),
        (lambda ps: nn.ASGD(ps, lambd=1), TypeError, "'lambd' should be 'float'"),
        (lambda ps: nn.ASGD(ps, t0=10), TypeError, "'t0'"),
    ],
)
def test_bad_hyperparameters(make, error, match):
    with pytest.raises(error, match=match):
        make([Parameter(Tensor(g(1, 2)), name="q")])
