"""backend/cpu/trial_record.py: the gemm and conv trials' choices kept for the next
process; a kept choice is taken without a trial; a bad record or directory never
stops a run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mindjit.backend.cpu import dnnl, gemm, trial_record
from mindjit.backend.cpu import kernels_conv as K
from mindjit.support import config

ROOT = Path(__file__).resolve().parents[2]
KEY = ((2, 16, 9, 9), (8, 16, 3, 3), (1, 1), (1, 1), (9, 9), "taps", (1, 1, 1, 1), (1, 1))


@pytest.fixture
def record_dir(tmp_path, monkeypatch):
    """A directory of its own, read afresh (as by a new process)."""
    monkeypatch.setenv(config.TRIAL_CACHE_ENV, str(tmp_path / "trials"))
    monkeypatch.setitem(trial_record._state, "path", None)
    monkeypatch.setitem(trial_record._state, "failed", set())
    K.forget_choices()
    yield tmp_path / "trials"
    K.forget_choices()


def _new_process(monkeypatch):
    """Forget what this process read, as a new process would not know it."""
    monkeypatch.setitem(trial_record._state, "path", None)
    K.forget_choices()


def test_where_the_record_is(monkeypatch, tmp_path):
    monkeypatch.setenv(config.TRIAL_CACHE_ENV, "0")
    assert config.trial_cache_path() is None and trial_record.record_file() is None
    monkeypatch.delenv(config.TRIAL_CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert config.trial_cache_path() == str(tmp_path / "mindjit" / "trials")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert config.trial_cache_path() == str(tmp_path / "home" / ".cache" / "mindjit" / "trials")


def test_a_choice_is_read_back_by_the_next_process(record_dir, monkeypatch):
    context = ("lib 1.0", 1, (("cpus", "2"),))
    assert trial_record.recorded("conv", context, KEY) is None
    trial_record.record("conv", context, KEY, "forward")
    _new_process(monkeypatch)
    assert trial_record.recorded("conv", context, KEY) == "forward"
    # another context (threads, a library version) is a shape not yet timed
    assert trial_record.recorded("conv", ("lib 1.0", 2, (("cpus", "2"),)), KEY) is None
    assert trial_record.recorded("gemm", context, KEY) is None
    (path,) = record_dir.iterdir()
    data = json.loads(path.read_text())
    assert data["format"] == trial_record.FORMAT and len(data["choices"]) == 1


def test_entries_of_other_processes_are_kept(record_dir, monkeypatch):
    trial_record.record("gemm", (), ("f", 1), "mkl")
    path = Path(trial_record.record_file())
    data = json.loads(path.read_text())
    data["choices"]["written by another process"] = "numpy"
    path.write_text(json.dumps(data))
    trial_record.record("gemm", (), ("f", 2), "numpy")
    assert len(json.loads(path.read_text())["choices"]) == 3


@pytest.mark.parametrize("text", ["", "{not json", '{"format": 0, "choices": {}}', "[1, 2]"])
def test_a_bad_record_counts_as_empty_and_is_replaced(record_dir, monkeypatch, text):
    path = Path(trial_record.record_file())
    path.parent.mkdir(parents=True)
    path.write_text(text)
    assert trial_record.recorded("conv", (), KEY) is None
    trial_record.record("conv", (), KEY, "numpy")
    _new_process(monkeypatch)
    assert trial_record.recorded("conv", (), KEY) == "numpy"


def test_an_unwritable_directory_is_said_once_and_the_choice_kept(tmp_path, monkeypatch, capfd):
    (tmp_path / "a file").write_text("")
    monkeypatch.setenv(config.TRIAL_CACHE_ENV, str(tmp_path / "a file" / "trials"))
    monkeypatch.setitem(trial_record._state, "path", None)
    monkeypatch.setitem(trial_record._state, "failed", set())
    trial_record.record("conv", (), KEY, "forward")
    trial_record.record("conv", (), KEY[:1], "numpy")
    err = capfd.readouterr().err
    assert err.count("mindjit: cannot keep the trials' choices in") == 1
    assert "MINDJIT_TRIAL_CACHE=0" in err
    assert trial_record.recorded("conv", (), KEY) == "forward"  # in memory


def _library():
    d = dnnl.library()
    if d is None:
        pytest.skip(f"oneDNN: {dnnl.why()}")
    return d


def _no_trial(*args, **kwargs):
    raise AssertionError("a kept choice must not be timed again")


@pytest.mark.parametrize("kept", ["numpy", dnnl.FORWARD])
def test_a_kept_convolution_choice_is_taken_without_a_trial(record_dir, monkeypatch, kept):
    d = _library()
    monkeypatch.setenv(config.CONV_ENV, "auto")
    trial_record.record("conv", K._context(d), KEY, kept)
    _new_process(monkeypatch)
    monkeypatch.setattr(K, "_trial", _no_trial)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(KEY[0]).astype(np.float32)
    w = rng.standard_normal(KEY[1]).astype(np.float32)
    way, result = K.fast_conv(KEY, x, w)
    assert result is None
    if kept == "numpy":
        assert way is None
    else:
        assert isinstance(way, dnnl.Conv) and way.how == kept
        np.testing.assert_allclose(
            way(x, w), K.numpy_way(KEY, np.float32)(x, w), rtol=1e-4, atol=1e-4
        )


def test_a_trial_keeps_its_choice(record_dir, monkeypatch):
    d = _library()
    monkeypatch.setenv(config.CONV_ENV, "auto")
    rng = np.random.default_rng(4)
    x = rng.standard_normal(KEY[0]).astype(np.float32)
    w = rng.standard_normal(KEY[1]).astype(np.float32)
    way, _ = K.fast_conv(KEY, x, w)
    kept = trial_record.recorded("conv", K._context(d), KEY)
    assert kept == ("numpy" if way is None else way.how)


def test_a_kept_formulation_that_no_longer_fits_is_timed_again(record_dir, monkeypatch):
    d = _library()
    monkeypatch.setenv(config.CONV_ENV, "auto")
    # a stride-2 convolution has no input-gradient formulation
    key = ((2, 8, 9, 9), (4, 8, 3, 3), (2, 2), (1, 1), (4, 4), "im2col", (0, 0, 0, 0), (1, 1))
    trial_record.record("conv", K._context(d), key, dnnl.INPUT_GRADIENT)
    _new_process(monkeypatch)
    timed = []
    real = K._trial
    monkeypatch.setattr(K, "_trial", lambda *a: timed.append(1) or real(*a))
    rng = np.random.default_rng(5)
    K.fast_conv(key, rng.standard_normal(key[0]).astype(np.float32),
                rng.standard_normal(key[1]).astype(np.float32))  # fmt: skip
    assert timed == [1]


@pytest.mark.skipif(gemm._library_path() is None, reason="oneMKL is not installed")
@pytest.mark.parametrize("kept", ["mkl", "numpy"])
def test_a_kept_product_choice_is_taken_without_a_trial(record_dir, monkeypatch, kept):
    monkeypatch.setenv(config.GEMM_ENV, "auto")
    monkeypatch.setenv("MKL_NUM_THREADS", "1")
    saved = dict(gemm._state)
    gemm.set_enabled(True)
    try:
        a = np.ones((192, 160), np.float32)
        b = np.ones((160, 128), np.float32)
        plan = gemm._plan(a, b)
        mkl = gemm.library()
        context = (mkl.version, mkl.threads, mkl.layer, config.thread_settings())
        trial_record.record("gemm", context, gemm._key(plan), kept)
        _new_process(monkeypatch)
        monkeypatch.setattr(gemm, "_trial", _no_trial)
        assert gemm.choice(plan) is (kept == "mkl")
    finally:
        gemm._state.clear()
        gemm._state.update(saved)
        gemm._choices.clear()


STEP = """
import numpy as np, mindjit as ms
from mindjit import Tensor, ops
from mindjit.backend.cpu import gemm, kernels_conv
ms.set_context(mode=ms.GRAPH_MODE)
@ms.jit
def f(x, w):
    return ops.conv2d(x, w, pad_mode="pad", padding=1).sum()
rng = np.random.default_rng(0)
x = Tensor(rng.standard_normal((4, 16, 16, 16)).astype(np.float32))
w = Tensor(rng.standard_normal((16, 16, 3, 3)).astype(np.float32))
out = f(x, w).asnumpy()
print(repr(float(out)), kernels_conv._state["spent"] > 0)
"""


def test_the_second_process_times_nothing_and_gives_the_same_bits(tmp_path):
    if dnnl.library() is None:
        pytest.skip(f"oneDNN: {dnnl.why()}")
    env = {**os.environ, config.TRIAL_CACHE_ENV: str(tmp_path / "trials"), "OMP_NUM_THREADS": "1"}
    script = tmp_path / "step.py"  # graph mode reads the function's source from its file
    script.write_text(STEP)
    runs = [
        subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=300,
        )  # fmt: skip
        for _ in range(2)
    ]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    (first_value, first_timed), (second_value, second_timed) = (r.stdout.split() for r in runs)
    assert (first_timed, second_timed) == ("True", "False")
    assert first_value == second_value
