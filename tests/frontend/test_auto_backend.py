"""backend="auto" (backend/auto/executable.py): the numpy executor at once, IREE once
compiled in the background, the engine that measured faster kept, the state carried
across a switch, and IREE's failures never the user's."""

from __future__ import annotations

import time

import numpy as np
import pytest

import mindjit as ms
from mindjit import nn, ops
from mindjit.backend.auto import AutoExecutable
from mindjit.backend.auto.executable import TRIAL_CALLS
from mindjit.backend.iree.executable import IreeRunError
from mindjit.frontend.graph import api

STEPS = 2 * TRIAL_CALLS + 4  # numpy's trial, IREE's warm-up and trial, then settled


@pytest.fixture(autouse=True)
def _graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, jit_config={"backend": ""})


def _train_step() -> tuple[nn.Cell, ms.Tensor, ms.Tensor]:
    """Momentum keeps state of its own (the moments): a switch must carry it."""
    ms.set_seed(3)
    net = nn.SequentialCell(nn.Dense(8, 16), nn.Tanh(), nn.Dense(16, 4))
    loss = nn.WithLossCell(net, nn.MSELoss())
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.05, 0.9))
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((16, 8)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((16, 4)).astype(np.float32))
    return step, x, y


def _auto(step: nn.Cell) -> AutoExecutable:
    found = [
        p.executable for p in api.cached_programs() if isinstance(p.executable, AutoExecutable)
    ]
    assert found, "no program ran on backend='auto'"
    return found[-1]


def _train(
    backend: str, steps: int, prepare=None
) -> tuple[list[float], dict, AutoExecutable | None]:
    """Losses and Parameters after `steps`; with auto, IREE is ready before step 2.
    `prepare(exe)` may slow an engine down, after the first step."""
    api.clear_cache()
    ms.set_context(jit_config={"backend": backend})
    step, x, y = _train_step()
    losses = [float(step(x, y).asnumpy())]
    exe = None
    if backend == "auto":
        exe = _auto(step)
        assert exe.ready.wait(300), "IREE did not compile in 5 minutes"
        exe.timings["numpy"].clear()  # the first call paid for the background compile
        if prepare is not None:
            prepare(exe)
    losses += [float(step(x, y).asnumpy()) for _ in range(steps - 1)]
    params = {p.name: p.asnumpy().copy() for p in step.get_parameters()}
    return losses, params, exe


def _same(got, want) -> None:
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    assert got[1].keys() == want[1].keys()
    for name, value in want[1].items():
        np.testing.assert_allclose(got[1][name], value, rtol=1e-5, atol=1e-6, err_msg=name)


def _slowed(run, seconds: float):
    def slow(*args):
        time.sleep(seconds)
        return run(*args)

    return slow


def test_auto_plans_numpy_first_then_keeps_one_engine_and_trains_like_numpy() -> None:
    want = _train("numpy", STEPS)
    got = _train("auto", STEPS)
    exe = got[2]
    assert exe.iree is not None and exe.iree_error is None
    assert exe.chosen in ("numpy", "iree")
    assert len(exe.timings["iree"]) == TRIAL_CALLS
    _same(got, want)


@pytest.mark.parametrize(("slowed", "kept"), [("numpy", "iree"), ("iree", "numpy")])
def test_auto_keeps_the_engine_that_measured_faster_with_the_state_carried(
    slowed: str, kept: str
) -> None:
    """Slowing numpy keeps IREE; slowing IREE goes back to numpy with the Parameters
    and moments IREE's trial steps wrote."""
    want = _train("numpy", STEPS)

    def slow(exe: AutoExecutable) -> None:
        engine = getattr(exe, slowed)
        engine.run = _slowed(engine.run, 0.2)

    got = _train("auto", STEPS, slow)
    assert got[2].chosen == kept and got[2].current == kept
    _same(got, want)


def test_an_iree_failure_while_running_goes_back_to_numpy_with_one_line(capfd) -> None:
    want = _train("numpy", STEPS)

    def failing_iree(exe: AutoExecutable) -> None:
        def fail(*args):
            raise IreeRunError("IREE failed running @x: OUT_OF_RANGE")

        exe.iree.run = fail

    got = _train("auto", STEPS, failing_iree)
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("mindjit:")]
    assert len(lines) == 1 and "IREE failed running this graph" in lines[0], lines
    assert got[2].chosen == "numpy" and "OUT_OF_RANGE" in got[2].iree_error
    _same(got, want)


class Float64Tanh(nn.Cell):
    def construct(self, x):
        return ops.tanh(x) * 2


def test_a_graph_iree_cannot_compile_stays_on_numpy_quietly(capfd) -> None:
    ms.set_context(jit_config={"backend": "auto"})
    api.clear_cache()
    x = np.linspace(-2, 2, 6).astype(np.float64)
    net = Float64Tanh()
    first = net(ms.Tensor(x)).asnumpy()
    exe = _auto(net)
    assert exe.ready.wait(300)
    for _ in range(STEPS):
        np.testing.assert_array_equal(net(ms.Tensor(x)).asnumpy(), first)
    assert exe.iree is None and exe.chosen == "numpy" and exe.iree_error
    assert "mindjit:" not in capfd.readouterr().err  # numpy is a choice here, not a fallback
    np.testing.assert_allclose(first, np.tanh(x) * 2, rtol=1e-12)


def test_a_bad_backend_name_lists_auto() -> None:
    with pytest.raises(ValueError, match=r"\['numpy', 'iree', 'auto'\]"):
        ms.set_context(jit_config={"backend": "fast"})


def test_a_compile_cache_hit_is_auto_again(tmp_path, capfd) -> None:
    """The entry holds the module; a hit plans numpy and compiles IREE again."""
    from mindjit.driver.cache import HIT

    want = _train("numpy", STEPS)
    ms.set_context(enable_compile_cache=True, compile_cache_path=str(tmp_path))
    try:
        cold = _train("auto", STEPS)
        capfd.readouterr()
        warm = _train("auto", STEPS)  # api.clear_cache() first: read back from disk
    finally:
        ms.set_context(enable_compile_cache=False)
    assert HIT in capfd.readouterr().err
    assert warm[2] is not cold[2] and warm[2].iree is not None
    _same(cold, want)
    _same(warm, want)
