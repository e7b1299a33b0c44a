"""Loss scaling: nn.DynamicLossScaleUpdateCell, nn.FixedLossScaleUpdateCell and
nn.TrainOneStepWithLossScaleCell. An overflowing step (inf/nan gradients) skips
the update and lowers the dynamic scale; scale_window good steps raise it; the
gradients are unscaled, so a step without overflow is TrainOneStepCell's step;
PyNative, GRAPH_MODE and the simulated Ascend device (its float status) agree."""

from __future__ import annotations

import numpy as np
import pytest

import mindjit as ms
from mindjit import Parameter, Tensor, nn, ops
from mindjit.frontend.graph import api


@pytest.fixture(autouse=True)
def _restore_context():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    api.clear_cache()


def _data(big: bool = False) -> tuple[Tensor, Tensor]:
    """A batch; `big` makes the forward pass overflow float32 (inf loss and gradients)."""
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    if big:
        x = x * np.float32(1e30)
    return Tensor(x), Tensor(np.ones((4, 1), np.float32))


def _train_cell(scale_sense, opt=nn.SGD, seed: int = 1):
    ms.set_seed(seed)
    net = nn.Dense(3, 1)
    train = nn.TrainOneStepWithLossScaleCell(
        nn.WithLossCell(net, nn.MSELoss()), opt(net.trainable_params(), 0.1), scale_sense
    )
    return net, train


def dynamic_rule(scale: float, overflows: list[bool], factor: float, window: int) -> list[float]:
    """MindSpore's DynamicLossScaleUpdateCell in numpy: the scale after each step."""
    cur, last, out = 1, 0, []
    for overflow in overflows:
        on_overflow = max(scale / factor, 1.0) if overflow else scale
        should_inc = window <= cur - last
        if overflow or should_inc:
            last = cur
        scale = on_overflow * factor if should_inc and not overflow else on_overflow
        cur += 1
        out.append(scale)
    return out


OVERFLOWS = [False, False, True, False, False, False, True, True, False]


def _run(mode, device="CPU", overflows=OVERFLOWS):
    ms.set_context(mode=mode, device_target=device)
    net, train = _train_cell(nn.DynamicLossScaleUpdateCell(2.0**10, 2.0, 2))
    steps = []
    for big in overflows:
        before = [p.asnumpy().copy() for p in net.trainable_params()]
        loss, cond, scale = train(*_data(big))
        after = [p.asnumpy().copy() for p in net.trainable_params()]
        moved = any(not np.array_equal(a, b) for a, b in zip(before, after))
        steps.append(
            (float(loss.asnumpy()), bool(cond.asnumpy()), float(scale.asnumpy()), moved, after)
        )
    return steps, train


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_dynamic_scale_follows_mindspore_rule(mode):
    steps, train = _run(mode)
    scales_after = dynamic_rule(2.0**10, OVERFLOWS, 2.0, 2)
    used = [2.0**10, *scales_after[:-1]]
    assert [s[1] for s in steps] == OVERFLOWS  # the overflow flag
    assert [s[3] for s in steps] == [not o for o in OVERFLOWS]  # overflow: no update
    assert [s[2] for s in steps] == used  # the scale this step used
    assert float(train.scale_sense.asnumpy()) == scales_after[-1]
    for (loss, *_), big in zip(steps, OVERFLOWS, strict=True):
        assert np.isfinite(loss) != big
    mgr = train.loss_scaling_manager
    assert int(mgr.cur_iter.asnumpy()) == len(OVERFLOWS) + 1
    assert int(mgr.last_overflow_iter.asnumpy()) == 8  # the last overflow: iterator step 8


def test_graph_mode_equals_pynative():
    eager, _ = _run(ms.PYNATIVE_MODE)
    graph, _ = _run(ms.GRAPH_MODE)
    for e, g in zip(eager, graph, strict=True):
        assert e[1:4] == g[1:4]
        np.testing.assert_allclose(g[0], e[0], rtol=1e-6)
        for a, b in zip(e[4], g[4], strict=True):
            np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_scale_grows_after_scale_window_good_steps_and_never_below_one(mode):
    ms.set_context(mode=mode)
    _, train = _train_cell(nn.DynamicLossScaleUpdateCell(3.0, 2.0, 3))
    scales = []
    for big in [False] * 7:
        train(*_data(big))
        scales.append(float(train.scale_sense.asnumpy()))
    assert scales == [3.0, 3.0, 6.0, 6.0, 6.0, 12.0, 12.0]
    _, train = _train_cell(nn.DynamicLossScaleUpdateCell(3.0, 4.0, 100))
    train(*_data(True))
    assert float(train.scale_sense.asnumpy()) == 1.0  # max(3 / 4, 1)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("opt", [nn.SGD, nn.Adam])
def test_unscaled_gradients_make_the_plain_step(mode, opt):
    """Without overflow, any scale trains as TrainOneStepCell (loss returned unscaled)."""
    ms.set_context(mode=mode)
    runs = []
    for scale in (None, Tensor(np.array([512.0], np.float32)), nn.FixedLossScaleUpdateCell(64.0)):
        ms.set_seed(4)
        net = nn.Dense(3, 1)
        loss_net = nn.WithLossCell(net, nn.MSELoss())
        o = opt(net.trainable_params(), 0.05)
        if scale is None:
            train = nn.TrainOneStepCell(loss_net, o)
        else:
            train = nn.TrainOneStepWithLossScaleCell(loss_net, o, scale)
        losses = []
        for _ in range(3):
            out = train(*_data())
            losses.append(float((out[0] if isinstance(out, tuple) else out).asnumpy()))
        runs.append((losses, [p.asnumpy().copy() for p in net.trainable_params()]))
    for losses, params in runs[1:]:
        np.testing.assert_allclose(losses, runs[0][0], rtol=1e-5)
        for a, b in zip(params, runs[0][1], strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_fixed_and_tensor_scales_skip_overflowing_steps(mode):
    ms.set_context(mode=mode)
    for scale_sense in (nn.FixedLossScaleUpdateCell(128.0), Tensor(np.array(8.0, np.float32))):
        net, train = _train_cell(scale_sense)
        before = [p.asnumpy().copy() for p in net.trainable_params()]
        loss, cond, scale = train(*_data(True))
        assert bool(cond.asnumpy()) and not np.isfinite(float(loss.asnumpy()))
        for p, b in zip(net.trainable_params(), before, strict=True):
            np.testing.assert_array_equal(p.asnumpy(), b)
        _, cond, scale2 = train(*_data())
        assert not bool(cond.asnumpy())
        assert float(scale.asnumpy()) == float(scale2.asnumpy())  # a fixed scale never moves
        assert int(train.optimizer.global_step.asnumpy()[0]) == 1  # one update done


def test_set_sense_scale_and_shapes():
    _, train = _train_cell(Tensor(np.array([4.0], np.float32)))
    assert train.scale_sense.name == "scale_sense" and train.scale_sense.shape == (1,)
    train.set_sense_scale(Tensor(np.array([2.0], np.float32)))
    assert train.scale_sense.asnumpy().tolist() == [2.0]
    _, cond, scale = train(*_data())
    assert scale.asnumpy().tolist() == [2.0]
    _, train = _train_cell(nn.DynamicLossScaleUpdateCell(16, 2, 5))
    assert train.scale_sense.shape == () and train.scale_sense.dtype == ms.float32
    assert train.loss_scaling_manager.get_loss_scale() == 16
    assert nn.FixedLossScaleUpdateCell(8.0).get_loss_scale() == 8.0


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: _train_cell(1024.0), TypeError, "'scale_sense' must be Cell or Tensor"),
        (lambda: _train_cell(Tensor(np.ones(2, np.float32))), ValueError, "must be \\(1,\\) or"),
        (lambda: nn.DynamicLossScaleUpdateCell(2.0, 2.0, 0), ValueError, "'scale_window'"),
        (lambda: nn.DynamicLossScaleUpdateCell("big", 2.0, 2), TypeError, "'loss_scale_value'"),
        (
            lambda: _train_cell(nn.FixedLossScaleUpdateCell(2.0))[1].set_sense_scale(2.0),
            TypeError,
            "'sens'",
        ),
    ],
)
def test_argument_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_manager_alone_updates_a_parameter_in_place():
    """`manager(loss_scale, overflow)` in PyNative mode, as MindSpore's docs call it."""
    mgr = nn.DynamicLossScaleUpdateCell(loss_scale_value=2**12, scale_factor=2, scale_window=1000)
    scale = Parameter(Tensor(np.array(2.0**12, np.float32)), name="s", requires_grad=False)
    assert bool(mgr(scale, Tensor(True)).asnumpy())
    assert float(scale.asnumpy()) == 2.0**11


# --- on the simulated Ascend device --------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's, computing the overflow
def test_on_the_device_with_its_float_status():
    """Graph mode on device_target="Ascend" detects the overflow with the float
    status (NPUAlloc/Clear/GetFloatStatus kernels) and trains as the CPU does."""
    cpu, _ = _run(ms.GRAPH_MODE, "CPU")
    device, _ = _run(ms.GRAPH_MODE, "Ascend")
    program = api.cached_programs()[-1]
    kernels = {k["name"] for k in program.executable.report["kernels"]}
    assert {"NPUAllocFloatStatus", "NPUClearFloatStatus", "NPUGetFloatStatus"} <= kernels
    for c, d in zip(cpu, device, strict=True):
        assert c[1:4] == d[1:4]
        np.testing.assert_allclose(d[0], c[0], rtol=1e-6)
        for a, b in zip(c[4], d[4], strict=True):
            np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)


class AssignInIf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Parameter(Tensor(np.zeros(2, np.float32)), name="a")
        self.b = Parameter(Tensor(np.zeros(3, np.float32)), name="b")

    def construct(self, x, c):
        if c > 0:
            ops.assign(self.a, self.a + x[:2])
            ops.assign(self.b, self.b + x)
        return self.a * 1.0


def test_assigns_inside_an_if_reach_the_device_and_the_host():
    """Regression: the simulator gave an if-kernel's code one Parameter's device
    memory and private copies of the others, and handed the host its own old
    values of Parameters only such code writes."""
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    net = AssignInIf()
    for c in (1.0, -1.0, 1.0):
        out = net(Tensor(np.ones(3, np.float32)), Tensor(np.array(c, np.float32)))
    assert net.a.asnumpy().tolist() == [2.0, 2.0]
    assert net.b.asnumpy().tolist() == [2.0, 2.0, 2.0]
    assert out.asnumpy().tolist() == [2.0, 2.0]
