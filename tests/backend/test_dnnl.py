"""backend/cpu/dnnl.py's three formulations of a convolution on oneDNN, against a
float64 reference; kernels_conv's choice of them (MINDJIT_CONV); the graph
mode's reading of a convolution's input before its padding; numpy's OpenBLAS
on one thread while such a program runs (blas_threads.py)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from conv_reference import assert_float32_close, reference

import mindjit as ms
from mindjit import Parameter, Tensor, ops
from mindjit.backend.cpu import blas_threads, dnnl
from mindjit.backend.cpu import kernels_conv as K
from mindjit.support import config
from mindjit.support.errors import MindjitError

RNG = np.random.default_rng(7)


def _library():
    d = dnnl.library()
    if d is None:
        pytest.skip(f"oneDNN: {dnnl.why()}")
    return d


def _operands(key):
    """Random float32 operands of a `fast_conv` key's shapes (the input unpadded)."""
    return (RNG.standard_normal(key[0]).astype(np.float32),
            RNG.standard_normal(key[1]).astype(np.float32))  # fmt: skip


def _out_hw(h, w, k, stride, dilation):
    return tuple(
        (s - (kk - 1) * d - 1) // st + 1 for s, kk, st, d in zip((h, w), k, stride, dilation)
    )


CASES = [
    # how, x shape (before padding), w shape, stride, dilation, pads, spread
    (dnnl.FORWARD, (2, 3, 12, 11), (4, 3, 3, 3), (1, 1), (1, 1), (0, 0, 0, 0), (1, 1)),
    (dnnl.FORWARD, (2, 16, 9, 9), (8, 16, 3, 3), (1, 1), (1, 1), (1, 1, 1, 1), (1, 1)),
    (dnnl.FORWARD, (2, 5, 13, 12), (6, 5, 3, 2), (2, 3), (2, 1), (1, 0, 2, 1), (1, 1)),
    (dnnl.WEIGHT_GRADIENT, (3, 8, 12, 12), (4, 8, 10, 10), (1, 1), (1, 1), (0, 0, 0, 0), (1, 1)),
    (dnnl.WEIGHT_GRADIENT, (1, 16, 10, 10), (6, 16, 8, 8), (1, 1), (1, 1), (1, 1, 1, 1), (1, 1)),
    (dnnl.WEIGHT_GRADIENT, (4, 3, 11, 11), (2, 3, 4, 4), (2, 2), (2, 2), (0, 0, 0, 0), (1, 1)),
    (dnnl.INPUT_GRADIENT, (4, 16, 6, 6), (6, 16, 5, 5), (1, 1), (1, 1), (4, 4, 4, 4), (1, 1)),
    (dnnl.INPUT_GRADIENT, (2, 8, 7, 7), (5, 8, 3, 3), (1, 1), (1, 1), (1, 2, 1, 2), (2, 2)),
    (dnnl.INPUT_GRADIENT, (2, 8, 7, 6), (5, 8, 3, 3), (1, 1), (2, 2), (4, 4, 3, 4), (1, 1)),
    (dnnl.INPUT_GRADIENT, (2, 8, 7, 7), (5, 8, 3, 3), (1, 1), (1, 1), (0, 0, 0, 0), (1, 1)),
]


@pytest.mark.parametrize("how, x_shape, w_shape, stride, dilation, pads, spread", CASES)
def test_each_formulation_matches_thereference(
    how, x_shape, w_shape, stride, dilation, pads, spread
):
    d = _library()
    x = RNG.standard_normal(x_shape).astype(np.float32)
    w = RNG.standard_normal(w_shape).astype(np.float32)
    xp = K.padded(x, pads, spread)
    out_hw = _out_hw(*xp.shape[2:], w_shape[2:], stride, dilation)
    conv = dnnl.Conv(d, x_shape, w_shape, stride, dilation, out_hw, how, pads, spread)
    got = conv(x, w)
    assert got.shape == (x_shape[0], w_shape[0], *out_hw) and got.dtype == np.float32
    assert_float32_close(got, xp, w, stride, dilation, out_hw)
    np.testing.assert_array_equal(conv(x, w), got)  # the same bits every call


def test_a_formulation_that_does_not_fit_raises():
    d = _library()
    with pytest.raises(dnnl.DnnlError, match="spread"):
        dnnl.Conv(
            d, (1, 2, 5, 5), (2, 2, 3, 3), (1, 1), (1, 1), (5, 5), dnnl.FORWARD, spread=(2, 2)
        )
    with pytest.raises(dnnl.DnnlError, match="stride-1"):
        dnnl.Conv(d, (1, 2, 9, 9), (2, 2, 3, 3), (2, 2), (1, 1), (4, 4), dnnl.INPUT_GRADIENT)


def test_calls_from_threads_agree():
    d = _library()
    x = RNG.standard_normal((4, 16, 12, 12)).astype(np.float32)
    w = RNG.standard_normal((8, 16, 3, 3)).astype(np.float32)
    conv = dnnl.Conv(d, x.shape, w.shape, (1, 1), (1, 1), (10, 10))
    want = conv(x, w)
    got: list[np.ndarray] = []

    def run() -> None:
        for _ in range(20):
            got.append(conv(x, w))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 80
    for g in got:
        np.testing.assert_array_equal(g, want)


@pytest.fixture
def fresh_choices():
    K.forget_choices()
    yield
    K.forget_choices()


def test_dnnl_mode_takes_onednn_and_numpy_mode_never_loads_it(monkeypatch, fresh_choices):
    _library()
    key = ((2, 16, 9, 9), (8, 16, 3, 3), (1, 1), (1, 1), (9, 9), "taps", (1, 1, 1, 1), (1, 1))
    monkeypatch.setenv(config.CONV_ENV, "dnnl")
    x, w = _operands(key)
    assert isinstance(K.fast_conv(key, x, w)[0], dnnl.Conv)
    K.forget_choices()
    monkeypatch.setenv(config.CONV_ENV, "numpy")
    monkeypatch.setitem(dnnl._state, "loaded", False)
    monkeypatch.setitem(dnnl._state, "dnnl", None)
    assert K.fast_conv(key, x, w) == (None, None)
    assert dnnl._state["loaded"] is False


def test_auto_keeps_its_choice_per_shape(monkeypatch, fresh_choices):
    _library()
    monkeypatch.setenv(config.CONV_ENV, "auto")
    key = ((4, 16, 12, 12), (8, 16, 3, 3), (1, 1), (1, 1), (10, 10), "taps", (0, 0, 0, 0), (1, 1))
    x, w = _operands(key)
    first, result = K.fast_conv(key, x, w)
    assert (result is None) == (first is None)  # oneDNN's trial result is the call's
    assert all(K.fast_conv(key, x, w) == (first, None) for _ in range(3))


def test_the_trial_runs_on_the_calls_operands_and_gives_the_chosen_ways_result(
    monkeypatch, fresh_choices
):
    """The first call's result is the chosen way's own output (bit for bit what
    that way gives at every later call), from the trial's timed run: no extra
    run, no random operands. Each way runs twice (a warm-up, one timed round),
    twice that when numpy won (`CONFIRM`)."""
    d = _library()
    monkeypatch.setenv(config.CONV_ENV, "auto")
    key = ((4, 16, 12, 12), (8, 16, 3, 3), (1, 1), (1, 1), (12, 12), "taps", (1, 1, 1, 1), (1, 1))
    x, w = _operands(key)
    runs: list[str] = []
    real_candidates, real_conv_nchw = K.candidates, K.conv_nchw

    class counted:  # noqa: N801 - a way that counts its runs, named as a oneDNN way is
        def __init__(self, fn, how):
            self.fn, self.how = fn, how

        def __call__(self, *args, **kwargs):
            runs.append(self.how)
            return self.fn(*args, **kwargs)

    monkeypatch.setattr(K, "conv_nchw", counted(real_conv_nchw, "numpy"))
    monkeypatch.setattr(
        K, "candidates", lambda d, key: [counted(c, c.how) for c in real_candidates(d, key)]
    )
    choice, result = K.fast_conv(key, x, w)
    hows = [c.how for c in real_candidates(d, key)]
    # numpy's win is confirmed by a second trial, which oneDNN may win (a loaded machine)
    trials = runs.count("numpy") // 2
    assert trials == K.CONFIRM if choice is None else trials in range(1, K.CONFIRM + 1)
    assert sorted(runs) == sorted(["numpy"] * 2 * trials + hows * 2 * trials)
    if choice is None:  # numpy kept: the call runs it for real
        assert result is None
        return
    np.testing.assert_array_equal(result, choice(x, w))
    want = reference(K.padded(x, (1, 1, 1, 1), (1, 1)), w, (1, 1), (1, 1), (12, 12))
    np.testing.assert_allclose(result, want, rtol=1e-4, atol=1e-4)


def test_a_released_convolution_refuses_to_run_and_releases_once():
    d = _library()
    key = ((2, 16, 9, 9), (8, 16, 3, 3), (1, 1), (1, 1), (9, 9), "taps", (1, 1, 1, 1), (1, 1))
    x, w = _operands(key)
    for conv in K.candidates(d, key):
        conv(x, w)
        conv.release()
        conv.release()  # a no-op
        with pytest.raises(dnnl.DnnlError, match="released"):
            conv(x, w)


def test_the_formulations_a_trial_does_not_keep_are_released(monkeypatch, fresh_choices):
    _library()
    monkeypatch.setenv(config.CONV_ENV, "auto")
    key = ((4, 16, 12, 12), (8, 16, 3, 3), (1, 1), (1, 1), (12, 12), "taps", (1, 1, 1, 1), (1, 1))
    made: list[dnnl.Conv] = []
    real = K.candidates
    monkeypatch.setattr(K, "candidates", lambda d, key: made.extend(real(d, key)) or made)
    choice, _ = K.fast_conv(key, *_operands(key))
    assert len(made) >= 2  # forward and backward data
    assert all(c.released == (c is not choice) for c in made)
    x, w = _operands(key)
    if choice is not None:
        choice(x, w)  # the kept one still runs


def test_past_the_process_budget_a_new_shape_stays_on_numpy_untried(monkeypatch, fresh_choices):
    _library()
    monkeypatch.setenv(config.CONV_ENV, "auto")
    monkeypatch.setitem(K._state, "spent", K.PROCESS_BUDGET)
    monkeypatch.setattr(K, "candidates", lambda d, key: pytest.fail("no trial past the budget"))
    key = ((2, 16, 9, 9), (8, 16, 3, 3), (1, 1), (1, 1), (9, 9), "taps", (1, 1, 1, 1), (1, 1))
    assert K.fast_conv(key, *_operands(key)) == (None, None)


def test_numpys_win_is_confirmed_by_a_second_trial(monkeypatch):
    """A stall only slows a run down: numpy is kept only when a second trial
    agrees, and oneDNN taken when either trial picks it."""
    picks = iter([None, 1])

    def fake_fastest(calls, *args):
        results = args[-1]
        results[:] = [call() for call in calls]
        return next(picks), 0.0

    monkeypatch.setattr(K, "fastest", fake_fastest)
    x, w = np.zeros((1, 1, 3, 3), np.float32), np.zeros((1, 1, 1, 1), np.float32)
    way = lambda x, w: "onednn"  # noqa: E731
    assert K._trial(x, w, [lambda x, w: "numpy", way]) == (way, "onednn")
    picks = iter([None, None])
    assert K._trial(x, w, [lambda x, w: "numpy", way]) == (None, None)


def test_without_onednn_numpy_and_one_line(monkeypatch, capfd, fresh_choices):
    monkeypatch.setenv(config.CONV_ENV, "auto")
    monkeypatch.setitem(dnnl._state, "loaded", True)
    monkeypatch.setitem(dnnl._state, "dnnl", None)
    monkeypatch.setitem(dnnl._state, "why", "oneDNN is not installed (pip install 'mindjit[fast]')")
    monkeypatch.setitem(K._state, "said", False)
    key = ((2, 16, 9, 9), (8, 16, 3, 3), (1, 1), (1, 1), (9, 9), "taps", (1, 1, 1, 1), (1, 1))
    assert K.fast_conv(key, *_operands(key)) == (None, None)
    key2 = ((2, 16, 9, 9), (4, 16, 3, 3), (1, 1), (1, 1), (9, 9), "taps", (1, 1, 1, 1), (1, 1))
    assert K.fast_conv(key2, *_operands(key2)) == (None, None)
    err = capfd.readouterr().err
    assert err.count("mindjit: convolutions run on numpy: oneDNN is not installed") == 1


def test_a_bad_mode_is_a_config_error(monkeypatch):
    monkeypatch.setenv(config.CONV_ENV, "fastest")
    with pytest.raises(MindjitError, match="MINDJIT_CONV must be"):
        config.conv_mode()


def _padded_net_grads(mode):
    """Gradients of a padded convolution pair (forward pads, input gradient of
    a 5x5 kernel, weight gradients) in `mode`."""
    rng = np.random.default_rng(3)
    x = Tensor(rng.standard_normal((4, 3, 12, 12)).astype(np.float32))
    w1 = Parameter(Tensor(rng.standard_normal((16, 3, 3, 3)).astype(np.float32)), name="w1")
    w2 = Parameter(Tensor(rng.standard_normal((6, 16, 5, 5)).astype(np.float32)), name="w2")

    def loss(v):
        y = ops.relu(ops.conv2d(v, w1, pad_mode="pad", padding=1))
        y = ops.conv2d(y, w2)
        return ops.reduce_sum(y * y)

    grad = ms.grad(loss, None, [w1, w2])
    if mode == ms.PYNATIVE_MODE:
        return [g.asnumpy() for g in grad(x)]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return [g.asnumpy() for g in ms.jit(lambda v: grad(v))(x)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("conv_mode", ["dnnl", "auto"])
def test_graph_mode_on_onednn_equals_pynative_and_numpy(monkeypatch, fresh_choices, conv_mode):
    """Graph mode reads the padded convolutions' inputs before their padding
    (oneDNN pads them itself); the gradients equal PyNative's bit for bit and
    the numpy ways' within float32 rounding."""
    _library()
    monkeypatch.setenv(config.CONV_ENV, "numpy")
    want = _padded_net_grads(ms.PYNATIVE_MODE)
    K.forget_choices()
    monkeypatch.setenv(config.CONV_ENV, conv_mode)
    eager = _padded_net_grads(ms.PYNATIVE_MODE)
    graph = _padded_net_grads(ms.GRAPH_MODE)
    for g, e, r in zip(graph, eager, want, strict=True):
        np.testing.assert_array_equal(g, e)
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5 * np.abs(r).max())
    if conv_mode == "dnnl":  # every convolution of the step, padded ones read unpadded
        padded = [k for k, v in K._choices.items() if any(k[6]) and isinstance(v, dnnl.Conv)]
        assert padded


def test_single_threaded_blas_is_restored():
    """The executor keeps OpenBLAS on one thread around a run once oneDNN runs
    convolutions on threads; the thread's count is as before after it."""
    blas_threads._setter()
    fn = blas_threads._state["set"]
    if fn is None:
        pytest.skip("numpy's BLAS has no openblas_set_num_threads_local")
    before = fn(1)  # the setter returns the calling thread's count before
    fn(before)
    with blas_threads.single_threaded():
        assert fn(1) == 1
    assert fn(before) == before


def test_a_library_that_does_not_load_is_numpy_with_the_reason(monkeypatch, tmp_path):
    bogus = tmp_path / "libdnnl.so.3"
    bogus.write_bytes(b"not a shared library")
    monkeypatch.setattr(dnnl, "_library_path", lambda: bogus)
    monkeypatch.setattr(dnnl, "_state", {"dnnl": None, "loaded": False})
    assert dnnl.library() is None
    assert dnnl.why().startswith(f"oneDNN at {bogus} could not be loaded (")
