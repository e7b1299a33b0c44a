"""backend/cpu/gemm.py: oneMKL's products against np.matmul, the per-shape
choice, the fallback without oneMKL, and the contraction planner using it."""

from __future__ import annotations

import numpy as np
import pytest

from mindjit.backend.cpu import CpuExecutable, gemm
from mindjit.dialects.parsing import parse_module
from mindjit.support import config

RNG = np.random.default_rng(41)
needs_mkl = pytest.mark.skipif(
    gemm._library_path() is None, reason="oneMKL (the mkl wheel) is not installed"
)


@pytest.fixture(autouse=True)
def fresh_choices():
    """Each test starts with no per-shape choice and oneMKL switched on."""
    saved = dict(gemm._state)
    gemm.set_enabled(True)
    yield
    gemm._state.clear()
    gemm._state.update(saved)
    gemm._choices.clear()


def operand(dtype, batch, rows, cols, trans):
    shape = (cols, rows) if trans else (rows, cols)
    x = RNG.standard_normal(((batch,) if batch else ()) + shape).astype(dtype)
    return np.swapaxes(x, -1, -2) if trans else x


def close(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    scale = max(float(np.abs(want).max()), 1e-30)
    assert float(np.abs(got - want).max()) <= 1e-5 * scale


SHAPES = [(1, 1, 1), (1, 7, 3), (5, 1, 3), (5, 7, 1), (33, 17, 65), (128, 96, 80)]


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mnk", SHAPES)
def test_mkl_equals_numpy_over_transposes_and_batches(monkeypatch, dtype, mnk):
    monkeypatch.setenv(config.GEMM_ENV, "mkl")
    m, n, k = mnk
    for ta in (False, True):
        for tb in (False, True):
            for ba, bb in ((0, 0), (3, 3), (3, 0), (0, 3), (1, 3)):
                a, b = operand(dtype, ba, m, k, ta), operand(dtype, bb, k, n, tb)
                plan = gemm._plan(a, b)
                assert plan is not None and gemm.choice(plan)  # oneMKL ran
                close(gemm.matmul(a, b), np.matmul(a, b))


@needs_mkl
def test_slices_and_out_argument(monkeypatch):
    monkeypatch.setenv(config.GEMM_ENV, "mkl")
    big = RNG.standard_normal((40, 50)).astype(np.float32)
    a, b = big[3:23, 5:35], big[10:40, 1:9]  # leading dimensions 50, not 30 / 8
    assert gemm._plan(a, b) is not None
    out = np.full((20, 8), np.nan, np.float32)
    assert gemm.matmul(a, b, out=out) is out
    close(out, a @ b)
    # an `out` oneMKL cannot write (a column slice) goes to np.matmul, same values
    wide = np.zeros((20, 16), np.float32)
    gemm.matmul(a, b, out=wide[:, ::2])
    close(wide[:, ::2], a @ b)


@needs_mkl
def test_same_bits_whatever_the_alignment(monkeypatch):
    """Conditional Numerical Reproducibility: operands at other addresses, same bits."""
    monkeypatch.setenv(config.GEMM_ENV, "mkl")
    for trans in (False, True):
        a, b = operand(np.float32, 0, 96, 300, False), operand(np.float32, 0, 300, 80, trans)
        stored = b.T if trans else b  # the C-contiguous array b is a view of
        first = gemm.matmul(a, b)
        for offset in range(1, 8):
            buf_a = np.empty(a.size + 16, np.float32)[offset : offset + a.size].reshape(a.shape)
            buf_b = np.empty(b.size + 16, np.float32)[offset : offset + b.size]
            buf_b = buf_b.reshape(stored.shape)
            buf_a[...], buf_b[...] = a, stored
            moved = gemm.matmul(buf_a, buf_b.T if trans else buf_b)
            np.testing.assert_array_equal(moved, first)


def test_other_dtypes_and_shapes_are_numpy_exactly(monkeypatch):
    monkeypatch.setenv(config.GEMM_ENV, "mkl")
    ints = RNG.integers(-5, 5, (4, 6)), RNG.integers(-5, 5, (6, 3))
    mixed = RNG.standard_normal((4, 6)).astype(np.float32), RNG.standard_normal((6, 3))
    four = RNG.standard_normal((2, 2, 4, 6)).astype(np.float32), np.ones((6, 3), np.float32)
    vec = np.ones(6, np.float32), np.ones((6, 3), np.float32)
    strided = RNG.standard_normal((4, 12)).astype(np.float32)[:, ::2], np.ones((6, 3), np.float32)
    swapped = RNG.standard_normal((4, 6)).astype(">f4"), RNG.standard_normal((6, 3)).astype(">f4")
    for a, b in (ints, mixed, four, vec, strided, swapped):
        assert gemm._plan(a, b) is None
        np.testing.assert_array_equal(gemm.matmul(a, b), np.matmul(a, b))
    with pytest.raises(ValueError):  # numpy's own error for mismatched shapes
        gemm.matmul(np.ones((2, 3), np.float32), np.ones((4, 2), np.float32))


def test_without_mkl_numpy_results_and_one_line(monkeypatch, capfd):
    monkeypatch.setenv(config.GEMM_ENV, "auto")
    monkeypatch.setenv("MKL_NUM_THREADS", "1")  # where auto would ask oneMKL
    gemm.set_enabled(False)
    gemm._state["said"] = False
    a, b = operand(np.float32, 2, 128, 128, True), operand(np.float32, 0, 128, 128, False)
    for _ in range(3):
        np.testing.assert_array_equal(gemm.matmul(a, b), np.matmul(a, b))
    np.testing.assert_array_equal(gemm.matmul(b, b), np.matmul(b, b))
    lines = [line for line in capfd.readouterr().err.splitlines() if line]
    assert len(lines) == 1 and lines[0].startswith("mindjit: matmuls run on numpy: ")


@pytest.mark.parametrize("mode, threads", [("numpy", "1"), ("auto", "2")])
def test_numpy_only_never_loads_mkl_nor_says_anything(monkeypatch, capfd, mode, threads):
    monkeypatch.setenv(config.GEMM_ENV, mode)
    monkeypatch.setenv("MKL_NUM_THREADS", threads)
    monkeypatch.delenv("MKL_THREADING_LAYER", raising=False)
    monkeypatch.setitem(gemm._state, "loaded", False)
    monkeypatch.setitem(gemm._state, "mkl", None)
    gemm._state["said"] = False
    assert gemm.planned(np.dtype(np.float32)) is np.matmul
    a = operand(np.float32, 0, 128, 128, False)
    np.testing.assert_array_equal(gemm.matmul(a, a), np.matmul(a, a))
    assert gemm.choice(gemm._plan(a, a)) is False
    assert capfd.readouterr().err == "" and gemm._state["loaded"] is False


@needs_mkl
def test_choice_is_fixed_per_shape_in_a_process(monkeypatch):
    monkeypatch.setenv(config.GEMM_ENV, "auto")
    monkeypatch.setenv("MKL_NUM_THREADS", "1")  # a trial decides (threaded: numpy)
    a, b = operand(np.float32, 0, 192, 160, True), operand(np.float32, 0, 160, 128, False)
    plan = gemm._plan(a, b)
    first = gemm.choice(plan)
    assert all(gemm.choice(plan) == first for _ in range(5))
    results = [gemm.matmul(a, b) for _ in range(3)]
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])
    small = gemm._plan(a[:8, :8], b[:8, :8])
    assert small is not None and gemm.choice(small) is False  # too small for a trial


def test_without_trials_runs_numpy_and_leaves_the_shape_undecided(monkeypatch):
    monkeypatch.setenv(config.GEMM_ENV, "mkl")  # decided: oneMKL, once asked
    a, b = operand(np.float32, 0, 192, 160, True), operand(np.float32, 0, 160, 128, False)
    plan = gemm._plan(a, b)
    with gemm.without_trials():
        assert gemm.choice(plan) is False
        np.testing.assert_array_equal(gemm.matmul(a, b), np.matmul(a, b))
    assert gemm._key(plan) not in gemm._choices
    assert gemm.choice(plan) is True  # after the block the shape decides as ever
    with gemm.without_trials():  # a decided shape keeps its choice
        assert gemm.choice(plan) is True


def test_settings_are_checked(monkeypatch):
    monkeypatch.setenv(config.GEMM_ENV, "fast")
    with pytest.raises(config.ConfigError, match="MINDJIT_GEMM must be auto, numpy or mkl"):
        config.gemm_mode()
    monkeypatch.setenv("MKL_NUM_THREADS", "")
    monkeypatch.setenv("OMP_NUM_THREADS", "2,1")
    assert config.gemm_threads() == 2
    monkeypatch.setenv("MKL_NUM_THREADS", "1")
    assert config.gemm_threads() == 1
    monkeypatch.setenv("MKL_NUM_THREADS", "zero")
    with pytest.raises(config.ConfigError, match="MKL_NUM_THREADS must be a positive integer"):
        config.gemm_threads()
    monkeypatch.delenv("MKL_THREADING_LAYER", raising=False)
    assert config.gemm_threading(1) == "SEQUENTIAL" and config.gemm_threading(2) == "INTEL"
    monkeypatch.setenv("MKL_THREADING_LAYER", "gnu")
    assert config.gemm_threading(2) == "GNU"
    monkeypatch.setenv("MKL_THREADING_LAYER", "openmp")
    with pytest.raises(config.ConfigError, match="MKL_THREADING_LAYER must be INTEL, SEQ"):
        config.gemm_threading(2)


@needs_mkl
def test_a_bad_thread_setting_is_a_clear_error_at_the_first_product(monkeypatch):
    monkeypatch.setenv(config.GEMM_ENV, "mkl")
    monkeypatch.setitem(gemm._state, "loaded", False)
    monkeypatch.setitem(gemm._state, "mkl", None)
    monkeypatch.setenv("MKL_NUM_THREADS", "-1")
    a = operand(np.float32, 0, 128, 128, False)
    with pytest.raises(config.ConfigError, match="MKL_NUM_THREADS"):
        gemm.matmul(a, a)


TRANSPOSED = """
func.func @f(%a: tensor<3x64x48xf32>, %b: tensor<3x40x48xf32>) -> tensor<3x64x40xf32> {
  %z0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x64x40xf32>
  %z = linalg.fill ins(%z0 : f32) outs(%e : tensor<3x64x40xf32>) -> tensor<3x64x40xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>,
                                        affine_map<(b, m, n, k) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<3x64x48xf32>, tensor<3x40x48xf32>) outs(%z : tensor<3x64x40xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<3x64x40xf32>
  func.return %r : tensor<3x64x40xf32>
}
"""


@needs_mkl
@pytest.mark.parametrize("mode", ["mkl", "numpy"])
def test_contraction_planner_runs_the_chosen_library(monkeypatch, mode):
    monkeypatch.setenv(config.GEMM_ENV, mode)
    a, b = (
        RNG.standard_normal((3, 64, 48), np.float32),
        RNG.standard_normal((3, 40, 48), np.float32),
    )
    (out,) = CpuExecutable(parse_module(TRANSPOSED)).run("f", a, b)
    want = np.matmul(a, b.transpose(0, 2, 1))
    if mode == "numpy":
        np.testing.assert_array_equal(out, want)
    else:
        close(out, want)
        assert any(gemm._choices.values())  # the planner's product went to oneMKL


@needs_mkl
def test_a_small_static_product_is_planned_as_np_matmul_itself(monkeypatch):
    """Under SMALL_FLOPS the planner binds np.matmul: no look-ups per call."""
    monkeypatch.setenv(config.GEMM_ENV, "auto")
    monkeypatch.setenv("MKL_NUM_THREADS", "1")
    f32 = np.dtype(np.float32)
    assert gemm.planned(f32, gemm.SMALL_FLOPS - 1) is np.matmul
    assert gemm.planned(f32, gemm.SMALL_FLOPS) is gemm.matmul
    assert gemm.planned(f32) is gemm.matmul  # shapes unknown: decided per call
    monkeypatch.setenv(config.GEMM_ENV, "mkl")
    assert gemm.planned(f32, 16) is gemm.matmul  # mkl: every product it takes
