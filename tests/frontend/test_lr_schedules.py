"""MindSpore's learning-rate lists (nn.*_lr) and LearningRateSchedule Cells: values
against hand-computed ones and the docs' examples, the Cells against the lists in
both modes, and the argument checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mindjit as ms
from mindjit import Tensor, nn


@pytest.fixture(autouse=True)
def _pynative_after():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


E = math.e


@pytest.mark.parametrize(
    "lr, want",
    [
        (nn.piecewise_constant_lr([2, 5, 6], [0.1, 0.05, 0.01]), [0.1] * 2 + [0.05] * 3 + [0.01]),
        # epochs 0 0 1 1 2 2, decay_epoch 1: 0.1 * 0.9^epoch
        (nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1), [0.1, 0.1, 0.09, 0.09, 0.081, 0.081]),
        # decay_epoch 2: exponent epoch / 2, floored with is_stair
        (
            nn.exponential_decay_lr(0.1, 0.9, 6, 2, 2),
            [0.1, 0.1, 0.1 * 0.9**0.5] * 1 + [0.1 * 0.9**0.5, 0.09, 0.09],
        ),
        (nn.exponential_decay_lr(0.1, 0.9, 6, 2, 2, True), [0.1] * 4 + [0.09] * 2),
        (nn.natural_exp_decay_lr(0.1, 0.5, 4, 1, 2), [0.1 * E ** (-0.5 * e) for e in range(4)]),
        # is_stair: the epoch rounded down to a multiple of decay_epoch (0 0 2 2)
        (nn.natural_exp_decay_lr(0.1, 0.5, 4, 1, 2, True), [0.1, 0.1, 0.1 / E, 0.1 / E]),
        (nn.inverse_decay_lr(0.1, 0.5, 4, 1, 2), [0.1 / (1 + 0.5 * e / 2) for e in range(4)]),
        (
            nn.inverse_decay_lr(0.1, 0.5, 6, 1, 2, True),
            [0.1, 0.1, 0.1 / 1.5, 0.1 / 1.5, 0.05, 0.05],
        ),
        # min + (max - min)/2 (1 + cos(pi min(epoch, 2) / 2)): epochs 0 0 1 1 2 2 then capped
        (nn.cosine_decay_lr(0.01, 0.1, 8, 2, 2), [0.1, 0.1, 0.055, 0.055, 0.01, 0.01, 0.01, 0.01]),
        # (0.1 - 0.01)(1 - min(epoch, 2)/2)^0.5 + 0.01
        (
            nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5),
            [0.1, 0.1, 0.09 * 0.5**0.5 + 0.01, 0.09 * 0.5**0.5 + 0.01, 0.01, 0.01],
        ),
        # update_decay_epoch: decay = 2 * max(ceil(epoch / 2), 1): epochs 0..4 -> 2 2 2 4 4
        (
            nn.polynomial_decay_lr(0.1, 0.0, 5, 1, 2, 1.0, True),
            [0.1, 0.05, 0.0, 0.1 * 0.25, 0.0],
        ),
        (nn.warmup_lr(0.1, 6, 2, 2), [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]),
        (nn.warmup_lr(0.1, 3, 1, 1), [0.0, 0.1, 0.1]),
    ],
)
def test_lists_against_hand_computed_values(lr, want):
    assert isinstance(lr, list)
    np.testing.assert_allclose(lr, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    "schedule, want",
    [  # the docs' examples: step 2
        (lambda: nn.ExponentialDecayLR(0.1, 0.9, 4), 0.09486833),
        (lambda: nn.NaturalExpDecayLR(0.1, 0.9, 4, True), 0.1),
        (lambda: nn.InverseDecayLR(0.1, 0.9, 4, True), 0.1),
        (lambda: nn.CosineDecayLR(0.01, 0.1, 4), 0.055),
        (lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5), 0.07363961),
        (lambda: nn.WarmUpLR(0.1, 2), 0.1),
    ],
)
def test_schedules_give_the_docs_values(schedule, want):
    lr = schedule()(Tensor(2, ms.int32))
    assert lr.dtype == ms.float32 and lr.shape == ()
    np.testing.assert_allclose(lr.asnumpy(), want, rtol=1e-6)


class Evaluate(nn.Cell):
    """A schedule at a step, compiled as one graph."""

    def __init__(self, schedule):
        super().__init__()
        self.schedule = schedule

    @ms.jit
    def construct(self, step):
        return self.schedule(step)


SCHEDULES = [  # (the Cell, the list it equals with one step per epoch)
    (
        lambda: nn.ExponentialDecayLR(0.1, 0.9, 2),
        lambda n: nn.exponential_decay_lr(0.1, 0.9, n, 1, 2),
    ),
    (
        lambda: nn.ExponentialDecayLR(0.1, 0.9, 2, True),
        lambda n: nn.exponential_decay_lr(0.1, 0.9, n, 1, 2, True),
    ),
    (
        lambda: nn.NaturalExpDecayLR(0.2, 0.3, 3),
        lambda n: nn.natural_exp_decay_lr(0.2, 0.3, n, 1, 3),
    ),
    (
        lambda: nn.NaturalExpDecayLR(0.2, 0.3, 3, True),
        lambda n: nn.natural_exp_decay_lr(0.2, 0.3, n, 1, 3, True),
    ),
    (lambda: nn.InverseDecayLR(0.1, 0.5, 2), lambda n: nn.inverse_decay_lr(0.1, 0.5, n, 1, 2)),
    (
        lambda: nn.InverseDecayLR(0.1, 0.5, 2, True),
        lambda n: nn.inverse_decay_lr(0.1, 0.5, n, 1, 2, True),
    ),
    (lambda: nn.CosineDecayLR(0.01, 0.1, 4), lambda n: nn.cosine_decay_lr(0.01, 0.1, n, 1, 4)),
    (
        lambda: nn.PolynomialDecayLR(0.1, 0.01, 4, 2.0),
        lambda n: nn.polynomial_decay_lr(0.1, 0.01, n, 1, 4, 2.0),
    ),
    (
        lambda: nn.PolynomialDecayLR(0.1, 0.01, 3, 0.5, True),
        lambda n: nn.polynomial_decay_lr(0.1, 0.01, n, 1, 3, 0.5, True),
    ),
    (lambda: nn.WarmUpLR(0.3, 3), lambda n: nn.warmup_lr(0.3, n, 1, 3)),
]


@pytest.mark.parametrize("make, listed", SCHEDULES)
def test_schedule_cells_equal_the_lists_in_both_modes(make, listed):
    n = 9
    want = listed(n)
    schedule = make()
    graph = Evaluate(schedule)
    for k in range(n):
        step = Tensor(np.array([k], np.int32))  # the optimizer's global_step: (1,) int32
        eager = schedule(step).asnumpy()
        np.testing.assert_allclose(eager, [want[k]], rtol=1e-6, atol=1e-8)
        np.testing.assert_array_equal(graph(step).asnumpy(), eager)


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: nn.piecewise_constant_lr(2, [0.1]), TypeError, "'milestone' must be a tuple"),
        (lambda: nn.piecewise_constant_lr([2], [0.1, 0.2]), ValueError, "the size of 'milestone'"),
        (lambda: nn.piecewise_constant_lr([3, 2], [0.1, 0.2]), ValueError, "milestone\\[1\\]"),
        (lambda: nn.piecewise_constant_lr([0], [0.1]), ValueError, "positive int"),
        (lambda: nn.piecewise_constant_lr([1], [1]), TypeError, "learning_rates\\[0\\]"),
        (lambda: nn.exponential_decay_lr(1, 0.9, 6, 2, 1), TypeError, "'learning_rate'"),
        (lambda: nn.exponential_decay_lr(0.1, 0.0, 6, 2, 1), ValueError, "'decay_rate'"),
        (lambda: nn.exponential_decay_lr(0.1, 0.9, 0, 2, 1), ValueError, "'total_step'"),
        (lambda: nn.exponential_decay_lr(0.1, 0.9, 6, 2.0, 1), TypeError, "'step_per_epoch'"),
        (lambda: nn.natural_exp_decay_lr(0.1, 0.9, 6, 2, 1, 1), TypeError, "'is_stair'"),
        (lambda: nn.inverse_decay_lr(0.1, 0.9, 6, 2, True), TypeError, "'decay_epoch'"),
        (lambda: nn.cosine_decay_lr(0, 0.1, 6, 2, 1), TypeError, "'min_lr'"),
        (lambda: nn.cosine_decay_lr(0.1, 0.1, 6, 2, 1), ValueError, "greater than the 'min_lr'"),
        (
            lambda: nn.polynomial_decay_lr(0.1, -0.1, 6, 2, 1, 1.0),
            ValueError,
            "'end_learning_rate'",
        ),
        (lambda: nn.polynomial_decay_lr(0.1, 0.0, 6, 2, 1, 0.0), ValueError, "'power'"),
        (lambda: nn.warmup_lr(0.1, 6, 2, 0), ValueError, "'warmup_epoch'"),
        (lambda: nn.ExponentialDecayLR(0.1, 0.9, 0), ValueError, "'decay_steps'"),
        (lambda: nn.NaturalExpDecayLR(-0.1, 0.9, 2), ValueError, "'learning_rate'"),
        (lambda: nn.InverseDecayLR(0.1, 0.9, 2, is_stair=0), TypeError, "'is_stair'"),
        (lambda: nn.CosineDecayLR(0.2, 0.1, 2), ValueError, "greater than the 'min_lr'"),
        (lambda: nn.CosineDecayLR(0.0, 0.1, 2.5), TypeError, "'decay_steps'"),
        (lambda: nn.PolynomialDecayLR(0.1, 0, 2, 1.0), TypeError, "'end_learning_rate'"),
        (lambda: nn.PolynomialDecayLR(0.1, 0.0, 2, 1.0, 1), TypeError, "'update_decay_steps'"),
        (lambda: nn.WarmUpLR(0.1, -1), ValueError, "'warmup_steps'"),
    ],
)
def test_argument_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_the_base_class():
    assert issubclass(nn.WarmUpLR, nn.LearningRateSchedule)
    assert isinstance(nn.WarmUpLR(0.1, 2), nn.Cell)
    with pytest.raises(NotImplementedError, match="construct"):
        nn.LearningRateSchedule()(Tensor(1, ms.int32))
    assert "decay_steps=4" in repr(nn.CosineDecayLR(0.01, 0.1, 4))


class MyLR(nn.LearningRateSchedule):
    """A user's schedule: halve every step (a Cell of the user's code)."""

    def construct(self, global_step):
        return 0.2 * ms.ops.pow(0.5, ms.ops.cast(global_step, ms.float32))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_user_schedule_drives_the_optimizer(mode):
    ms.set_context(mode=mode)
    p = ms.Parameter(Tensor(np.zeros(1, np.float32)), name="w")
    opt = nn.SGD([p], learning_rate=MyLR())
    for _ in range(3):
        opt((Tensor(np.ones(1, np.float32)),))
    np.testing.assert_allclose(p.asnumpy(), [-(0.2 + 0.1 + 0.05)], rtol=1e-6)
